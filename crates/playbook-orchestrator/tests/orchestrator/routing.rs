//! Stage gates, caps, manual gates and dependencies.

use playbook_orchestrator::event::Outcome;
use playbook_orchestrator::reference;

use crate::run;

fn reference_with(from: &str, to: &str) -> String {
    assert!(
        reference::PLAYBOOK.contains(from),
        "the reference playbook contains {from}"
    );
    reference::PLAYBOOK.replace(from, to)
}

const TWO_TASKS: &str =
    "input:\n  goal: g\n  tasks:\n    - {id: T-1, title: a}\n    - {id: T-2, title: b}\n";

#[test]
fn a_failing_enter_gate_blocks_the_task_at_the_stage() {
    let playbook = reference_with(
        "stage_policy: { exit_gate: review_passed, max_parallel_worktrees: 4 }",
        "stage_policy: { enter_gate: \"title != 'b'\", exit_gate: review_passed, max_parallel_worktrees: 4 }",
    );
    let preview = run(&playbook, TWO_TASKS, 0);
    assert!(preview.jsonl.contains("\"type\":\"stage_blocked\",\"stage\":\"build\",\"task_id\":\"T-2\",\"code\":\"STAGE_ENTER_BLOCKED\""));
    assert_eq!(
        preview.report.outcome,
        Some(Outcome::Blocked),
        "T-1 passes, T-2 is blocked"
    );
}

#[test]
fn a_free_text_gate_is_a_manual_approval() {
    let playbook = reference_with(
        "pass_condition: tests_green",
        "pass_condition: the suite looks healthy",
    );
    let approved = run(&playbook, TWO_TASKS, 0);
    assert!(
        approved
            .jsonl
            .contains("\"subject\":\"gate: the suite looks healthy\"")
    );
    assert_eq!(approved.report.outcome, Some(Outcome::Passed));
    let denied = run(
        &playbook,
        &format!("{TWO_TASKS}approvals: {{gates: deny}}\n"),
        0,
    );
    assert!(denied.jsonl.contains("APPROVAL_DENIED"));
    assert_eq!(
        denied.report.outcome,
        Some(Outcome::Failed),
        "a denied manual gate fails the tester's gate"
    );
}

#[test]
fn role_caps_hold_tasks_back_until_the_role_is_free() {
    let scenario = format!("{TWO_TASKS}caps: {{roles: {{worker: 1}}}}\n");
    let preview = run(reference::PLAYBOOK, &scenario, 0);
    assert!(preview.jsonl.contains(
        "\"type\":\"task_waiting\",\"task_id\":\"T-2\",\"stage\":\"build\",\"reason\":\"role caps\""
    ));
    assert_eq!(
        preview.report.outcome,
        Some(Outcome::Passed),
        "T-2 starts once T-1 moves on to review"
    );
}

#[test]
fn the_assigner_picks_among_roles_the_task_can_feed() {
    let scenario = format!(
        "{TWO_TASKS}role_assignment:\n  stages:\n    build: '{{\"role\": \"worker\", \"rationale\": \"Implementation comes first.\", \"extra\": 1}}'\n"
    );
    let preview = run(reference::PLAYBOOK, &scenario, 0);
    assert!(preview.jsonl.contains("\"role\":\"worker\",\"source\":\"assigner\",\"rationale\":\"Implementation comes first.\""), "extra keys are ignored");
}

#[test]
fn a_task_whose_dependency_failed_is_blocked() {
    let scenario = "input:\n  tasks:\n    - {id: T-1, title: a}\n    - {id: T-2, title: b, dependencies: [T-1]}\nroles:\n  planner:\n    tasks:\n      T-1:\n        default: {error: crashed}\n";
    let preview = run(reference::PLAYBOOK, scenario, 0);
    assert!(preview.jsonl.contains("AGENT_FAILED"));
    assert!(
        preview
            .jsonl
            .contains("\"task_id\":\"T-2\",\"code\":\"DEPENDENCY_BLOCKED\"")
    );
}

#[test]
fn the_step_budget_stops_a_run_cleanly() {
    let scenario = format!("{TWO_TASKS}limits: {{max_steps: 3}}\n");
    let preview = run(reference::PLAYBOOK, &scenario, 0);
    assert_eq!(preview.report.outcome, Some(Outcome::Stopped));
    assert!(preview.jsonl.contains("STEP_LIMIT"));
}

/// The words of a gate decision follow the playbook's own names and say
/// what the output said and where the task goes, round by round, up to the
/// escalation at the round limit.
#[test]
fn gate_events_say_what_the_output_said_and_what_happens_next() {
    let playbook = reference::PLAYBOOK
        .replace("name: worker", "name: coder")
        .replace("[worker]", "[coder]")
        .replace("name: reviewer", "name: critic")
        .replace("[reviewer]", "[critic]");
    let scenario = "input:\n  goal: g\n  tasks:\n    - {id: T-1, title: a}\nroles:\n  critic:\n    default:\n      output: { verdict: fail, issues: [\"The message names no field\", \"x\"] }\n";
    let preview = run(&playbook, scenario, 0);
    let summaries: Vec<String> = crate::events(&preview)
        .into_iter()
        .filter_map(|r| match r.event {
            playbook_orchestrator::event::Event::GateFailed { summary, .. }
            | playbook_orchestrator::event::Event::Escalated { summary, .. } => Some(summary),
            _ => None,
        })
        .collect();
    assert_eq!(
        summaries,
        [
            "critic: fail — 'The message names no field' (+1 more); back to coder, round 2 of 3",
            "critic: fail — 'The message names no field' (+1 more); back to coder, round 3 of 3",
            "critic: fail — 'The message names no field' (+1 more); round limit reached (3 of 3): escalated (retry_limit) for a person to decide",
            "critic: escalated on retry_limit (RETRY_LIMIT) — `critic` failed round 3 of 3 (fail — 'The message names no field' (+1 more)): `review_passed` is false; the task waits for a person",
        ]
    );
}
