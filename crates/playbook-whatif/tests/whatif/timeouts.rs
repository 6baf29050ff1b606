//! A call longer than the task timeout ends at the timeout, as a timeout,
//! as the engine ends a real agent's call: charged the timeout, routed on
//! the `timeout` trigger, shown in how tasks ended and in a note.

use std::sync::atomic::AtomicBool;

use playbook_orchestrator::scenario::RunInput;
use playbook_whatif::{Options, SimModel, whatif};

use crate::run;

/// One worker, no loop; `escalate_on` lists its triggers.
fn worker(escalate_on: &str) -> playbook_core::Playbook {
    let text = format!(
        r#"schema_version: "1.0.0"
id: slow
name: Slow
workflow:
  build:
    roles:
      - name: coder
        mode: worker
        outputs_contract:
          required: [summary]
        retry_policy:
          max_iterations: 1
          escalate_on: [{escalate_on}]
"#
    );
    playbook_orchestrator::load_playbook(&text).expect("valid")
}

fn clean(duration: &str) -> String {
    format!(
        "defaults: {{pass: 1, violation: 0, blocked_tool: 0, needs_input: 0, error: 0, duration: {duration}}}\n"
    )
}

#[test]
fn a_call_past_the_task_timeout_fails_as_a_timeout_charged_the_timeout() {
    // The default task timeout is 1200 s.
    let report = run(&worker("needs_input"), &clean("1300"), 50, 1);
    assert_eq!(report.tasks_passing.count, 0);
    let ended = report.ended_without_passing.get("failed AGENT_TIMEOUT");
    assert_eq!(
        ended.map(|r| r.rate),
        Some(1.0),
        "{:?}",
        report.ended_without_passing
    );
    assert_eq!(report.duration_seconds.max, 1200.0);
    assert_eq!(report.escalation.count, 0);
    let note = report
        .notes
        .iter()
        .find(|n| n.contains("exceeds the task timeout (1200 s)"))
        .unwrap_or_else(|| panic!("no timeout note in {:?}", report.notes));
    assert!(
        note.contains("`coder`") && note.contains("100.0 %") && note.contains("50 of 50"),
        "{note}"
    );
}

#[test]
fn a_timeout_escalates_when_the_role_lists_it() {
    let report = run(&worker("timeout"), &clean("1300"), 50, 1);
    let on_timeout = report.escalation_by_trigger.get("timeout");
    assert_eq!(
        on_timeout.map(|r| r.rate),
        Some(1.0),
        "{:?}",
        report.escalation_by_trigger
    );
    assert_eq!(
        report
            .ended_without_passing
            .get("escalated AGENT_TIMEOUT")
            .map(|r| r.rate),
        Some(1.0),
        "{:?}",
        report.ended_without_passing
    );
}

#[test]
fn a_wide_duration_is_cut_at_the_timeout_and_its_share_noted() {
    let report = run(
        &worker("needs_input"),
        &clean("{uniform: {min: 0, max: 2400}}"),
        2000,
        3,
    );
    // Half the calls take longer than 1200 s; none is charged more.
    assert!(report.duration_seconds.max <= 1200.0);
    let timed_out = report
        .ended_without_passing
        .get("failed AGENT_TIMEOUT")
        .expect("some calls time out");
    // Within four standard errors of one half.
    let se = (0.25 / timed_out.of as f64).sqrt();
    assert!((timed_out.rate - 0.5).abs() < 4.0 * se, "{timed_out:?}");
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("`coder`") && n.contains("50.0 % of calls")),
        "{:?}",
        report.notes
    );
    // A duration that never reaches the timeout has no note.
    let report = run(
        &worker("needs_input"),
        &clean("{uniform: {min: 0, max: 1200}}"),
        200,
        3,
    );
    assert!(report.ended_without_passing.is_empty());
    assert!(
        !report.notes.iter().any(|n| n.contains("timeout")),
        "{:?}",
        report.notes
    );
}

#[test]
fn a_tasks_own_timeout_is_the_one_that_counts() {
    let input = RunInput::parse("tasks:\n  - {title: Quick one, timeout_seconds: 100}\n")
        .expect("input parses");
    let model = SimModel::parse(&clean("150")).unwrap();
    let options = Options {
        runs: 20,
        input,
        ..Options::default()
    };
    let report = whatif(
        &worker("needs_input"),
        &model,
        &options,
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap();
    assert_eq!(report.duration_seconds.max, 100.0);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("exceeds the task timeout (100 s)")),
        "{:?}",
        report.notes
    );
}
