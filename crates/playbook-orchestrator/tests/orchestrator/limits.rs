//! Hostile numbers and budgets: every number a scenario carries is checked
//! where it enters, every budget is exact, every size limit holds for every
//! form of the same data, and nothing panics.

use playbook_orchestrator::event::Outcome;
use playbook_orchestrator::{Approval, PreviewError, preview, reference};

use crate::run;

const TWO_TASKS: &str =
    "input:\n  goal: g\n  tasks:\n    - {id: T-1, title: a}\n    - {id: T-2, title: b}\n";

/// Reviewers that never pass: each task costs the worst case.
const ALWAYS_FAILING_REVIEW: &str =
    "roles:\n  reviewer:\n    default: {output: {verdict: fail, issues: [still wrong]}}\n";

fn invocations(jsonl: &str) -> usize {
    jsonl.matches("\"type\":\"agent_invoked\"").count()
}

#[test]
fn max_steps_allows_exactly_that_many_agent_calls() {
    for budget in [1u64, 2, 3, 5, 8] {
        let scenario =
            format!("{TWO_TASKS}{ALWAYS_FAILING_REVIEW}limits: {{max_steps: {budget}}}\n");
        let preview = run(reference::PLAYBOOK, &scenario, 0);
        assert_eq!(
            invocations(&preview.jsonl) as u64,
            budget,
            "max_steps: {budget} allows exactly {budget} calls"
        );
        assert_eq!(preview.report.steps, budget);
        assert_eq!(preview.report.outcome, Some(Outcome::Stopped));
        assert!(preview.jsonl.contains("STEP_LIMIT"));
    }
}

#[test]
fn a_budget_the_run_does_not_reach_changes_nothing() {
    let unlimited = run(reference::PLAYBOOK, TWO_TASKS, 0);
    let calls = invocations(&unlimited.jsonl);
    let scenario = format!("{TWO_TASKS}limits: {{max_steps: {calls}}}\n");
    let exact = run(reference::PLAYBOOK, &scenario, 0);
    assert_eq!(invocations(&exact.jsonl), calls);
    assert_eq!(exact.report.outcome, unlimited.report.outcome);
    assert!(!exact.jsonl.contains("STEP_LIMIT"));
}

/// Each hostile number is refused where it enters, naming its field.
#[test]
fn numbers_past_their_limits_are_refused_naming_the_field() {
    let max = u64::MAX;
    let cases = [
        (
            format!("roles:\n  worker:\n    default: {{duration_ms: {max}}}\n"),
            "roles.worker.default.duration_ms",
        ),
        (
            format!("defaults: {{duration_ms: {{min: 0, max: {max}}}}}\n"),
            "defaults.duration_ms.max",
        ),
        (
            "defaults: {duration_ms: {min: 9, max: 3}}\n".to_string(),
            "defaults.duration_ms",
        ),
        (
            format!(
                "roles:\n  reviewer:\n    iterations:\n      - {{}}\n      - {{duration_ms: {max}}}\n"
            ),
            "roles.reviewer.iterations[1].duration_ms",
        ),
        (
            format!(
                "roles:\n  worker:\n    tasks:\n      T-1:\n        default: {{duration_ms: {max}}}\n"
            ),
            "roles.worker.tasks.T-1.default.duration_ms",
        ),
        (
            format!("limits: {{lock_wait_ms: {max}}}\n"),
            "limits.lock_wait_ms",
        ),
        (
            format!("limits: {{approval_timeout_ms: {max}}}\n"),
            "limits.approval_timeout_ms",
        ),
        (
            format!("limits: {{max_steps: {max}}}\n"),
            "limits.max_steps",
        ),
        (
            "limits: {max_tool_calls: 4294967295}\n".to_string(),
            "limits.max_tool_calls",
        ),
        (
            format!("limits: {{max_output_bytes: {max}}}\n"),
            "limits.max_output_bytes",
        ),
        (
            format!("approvals: {{wait_ms: {max}}}\n"),
            "approvals.wait_ms",
        ),
        (
            format!("input:\n  tasks:\n    - {{id: T-1, title: a, timeout_seconds: {max}}}\n"),
            "input.tasks[0].timeout_seconds",
        ),
        (
            format!(
                "input:\n  tasks:\n    - {{id: T-1, title: a, heartbeat_interval_seconds: {max}}}\n"
            ),
            "input.tasks[0].heartbeat_interval_seconds",
        ),
    ];
    for (scenario, field) in cases {
        match preview(reference::PLAYBOOK, &scenario, 0, Approval::Auto) {
            Err(PreviewError::Scenario(e)) => {
                assert!(e.message.contains(field), "{field}: {}", e.message);
            }
            Err(other) => panic!("{field}: unexpected error {other}"),
            Ok(_) => panic!("{field}: a hostile number was accepted"),
        }
    }
}

/// The largest accepted numbers run to the end: virtual time saturates
/// instead of overflowing, timestamps stay ISO-8601.
#[test]
fn the_largest_accepted_numbers_run_without_overflow() {
    use playbook_orchestrator::scenario::limits::{MAX_DURATION_MS, MAX_TASK_SECONDS};
    let scenario = format!(
        "input:\n  goal: g\n  tasks:\n    - {{id: T-1, title: a, timeout_seconds: {MAX_TASK_SECONDS}}}\n  active_locks:\n    - {{resource: worktrees/T-1/, task_id: T-99, active: true}}\n\
         defaults: {{duration_ms: {MAX_DURATION_MS}}}\nlimits: {{lock_wait_ms: {MAX_DURATION_MS}, approval_timeout_ms: {MAX_DURATION_MS}}}\n\
         approvals: {{wait_ms: {MAX_DURATION_MS}}}\n"
    );
    let preview = run(reference::PLAYBOOK, &scenario, 0);
    assert!(preview.report.outcome.is_some());
    assert!(
        preview.jsonl.contains("WAIT_TIMEOUT"),
        "the external lock is never released"
    );
}

fn too_large(scenario: &str) -> String {
    let preview = run(reference::PLAYBOOK, scenario, 0);
    assert!(
        preview.jsonl.contains("OUTPUT_TOO_LARGE"),
        "no OUTPUT_TOO_LARGE for {}",
        &scenario[..scenario.len().min(200)]
    );
    preview.jsonl
}

/// `limits.max_output_bytes` holds for raw text, structured output, the
/// result envelope, questions and error messages alike.
#[test]
fn the_output_limit_holds_for_every_form_of_an_answer() {
    let big = "x".repeat(5_000);
    let limits = "limits: {max_output_bytes: 1000}\n";
    let forms = [
        format!(
            "roles:\n  worker:\n    default: {{output_text: '{{\"commit_sha\": \"{big}\", \"summary\": \"s\"}}'}}\n"
        ),
        format!("roles:\n  worker:\n    default: {{output: {{summary: {big}}}}}\n"),
        format!(
            "roles:\n  worker:\n    default: {{output: {{notes_blob: [{}]}}}}\n",
            vec!["1"; 2_000].join(", ")
        ),
        format!("roles:\n  worker:\n    default: {{needs_input: [{big}]}}\n"),
        format!("roles:\n  worker:\n    default: {{error: {big}}}\n"),
        format!("roles:\n  worker:\n    default: {{notes: [{big}]}}\n"),
    ];
    for form in forms {
        let jsonl = too_large(&format!("{TWO_TASKS}{limits}{form}"));
        assert!(!jsonl.contains(&big), "the oversized value is not recorded");
    }
}
