//! The model's pass and fail shares hold whatever the gate compares with:
//! the simulated agent reads the values off the gate, and a verdict no
//! output can give is said in a note, never silently dropped.

use crate::{assert_closed_form, run};

pub const CLEAN: &str =
    "defaults: {pass: 1, violation: 0, blocked_tool: 0, needs_input: 0, error: 0}\n";

/// One worker, no loop, whose output `required` must pass `gate`.
pub fn worker(gate: &str, required: &str) -> playbook_core::Playbook {
    let text = format!(
        r#"schema_version: "1.0.0"
id: gate
name: Gate
workflow:
  build:
    roles:
      - name: coder
        mode: worker
        outputs_contract:
          required: [{required}]
        gates:
          pass_condition: '{gate}'
"#
    );
    playbook_orchestrator::load_playbook(&text).expect("the worker playbook is valid")
}

/// A worker ⇄ reviewer loop with limit `n` whose reviewer answers
/// `required` and is judged by `gate`.
pub fn review_loop(n: u32, gate: &str, required: &str) -> playbook_core::Playbook {
    let text = format!(
        r#"schema_version: "1.0.0"
id: loop
name: Loop
workflow:
  build:
    roles:
      - name: worker
        mode: worker
        outputs_contract:
          required: [summary]
        handoff_to: [reviewer]
      - name: reviewer
        mode: reviewer
        outputs_contract:
          required: [{required}]
        gates:
          pass_condition: '{gate}'
        handoff_to: [worker]
        retry_policy:
          max_iterations: {n}
          escalate_on: [retry_limit]
"#
    );
    playbook_orchestrator::load_playbook(&text).expect("the loop playbook is valid")
}

#[test]
fn a_workers_pass_share_holds_for_every_ordinary_gate_shape() {
    for (gate, required) in [
        ("status == \"green\"", "status"),
        ("score >= 5", "score"),
        ("approved == true", "approved"),
        ("coverage > 80.0", "coverage"),
        ("pass_ratio >= 0.95", "pass_ratio"),
        ("has_todo == false", "has_todo"),
        ("a == b", "a, b"),
        ("status in [\"green\", \"ok\"]", "status"),
        ("meta.level >= 3 && size(items) > 2", "meta, items"),
        ("size(summary) >= 2000", "summary"),
        ("size(items) > 2000", "items"),
    ] {
        let model = format!("{CLEAN}roles:\n  coder: {{pass: 0.6}}\n");
        let report = run(&worker(gate, required), &model, 2000, 1);
        let passing = &report.tasks_passing;
        assert!(
            passing.ci[0] <= 0.6 && 0.6 <= passing.ci[1],
            "{gate}: passing {:?}, notes {:?}",
            passing,
            report.notes
        );
        // Every task that did not pass failed its gate, as drawn.
        let failed = report.ended_without_passing.get("failed GATE_FAILED");
        assert_eq!(
            failed.map_or(0, |r| r.count) + passing.count,
            passing.of,
            "{gate}: {:?}",
            report.ended_without_passing
        );
        assert!(
            !report.notes.iter().any(|n| n.contains("pass_condition")),
            "{gate}: {:?}",
            report.notes
        );
    }
}

#[test]
fn a_loop_with_a_literal_or_numeric_gate_has_the_closed_form_figures() {
    // A reviewer must answer a verdict (PB207); the second gate ignores it.
    for (gate, required) in [
        ("verdict == \"lgtm\"", "verdict"),
        ("score >= 5", "verdict, score"),
    ] {
        for (p, n) in [(0.6, 3), (0.3, 2), (0.8, 1)] {
            let model = format!("{CLEAN}roles:\n  reviewer: {{pass: {p}}}\n");
            let report = run(&review_loop(n, gate, required), &model, 3000, 7);
            let rounds = assert_closed_form(&report, p, n, gate);
            // Calls per task: one worker call per reviewer round.
            let [lo, hi] = report.calls_per_task.ci.expect("an interval");
            assert!(
                lo <= 2.0 * rounds && 2.0 * rounds <= hi,
                "{gate} p {p} n {n}: expected {} calls, interval {lo}–{hi}",
                2.0 * rounds
            );
        }
    }
}

#[test]
fn a_gate_that_cannot_fail_says_so_and_its_fail_share_passes() {
    for gate in ["always", "size(commit_sha) >= 0"] {
        let model = format!("{CLEAN}roles:\n  coder: {{pass: 0.6}}\n");
        let report = run(&worker(gate, "commit_sha"), &model, 1000, 1);
        assert_eq!(report.tasks_passing.rate, 1.0, "{gate}");
        let note = report
            .notes
            .iter()
            .find(|n| n.contains("cannot fail its pass_condition"))
            .unwrap_or_else(|| panic!("{gate}: no note in {:?}", report.notes));
        assert!(note.contains("`coder`") && note.contains(gate), "{note}");
        // Every call drawn to fail passed.
        assert!(note.contains("calls drawn to fail (100.0 %)"), "{note}");
    }
}

#[test]
fn a_gate_that_cannot_pass_says_so_and_its_pass_share_fails() {
    for gate in ["size(items) > 100000", r#"s.matches("[^\\s\\S]")"#] {
        let required = if gate.starts_with("size") {
            "items"
        } else {
            "s"
        };
        let model = format!("{CLEAN}roles:\n  coder: {{pass: 0.6}}\n");
        let report = run(&worker(gate, required), &model, 1000, 1);
        assert_eq!(report.tasks_passing.count, 0, "{gate}");
        let note = report
            .notes
            .iter()
            .find(|n| n.contains("no output makes its pass_condition"))
            .unwrap_or_else(|| panic!("{gate}: no note in {:?}", report.notes));
        assert!(note.contains("`coder`") && note.contains(gate), "{note}");
        assert!(note.contains("100.0 %"), "{note}");
    }
}

#[test]
fn the_shipped_tdd_playbook_gives_every_draw_its_verdict() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../playbooks/tdd.yaml"
    ))
    .unwrap();
    let playbook = playbook_orchestrator::load_playbook(&text).unwrap();
    let report = run(&playbook, "defaults: {pass: 0.5}", 300, 5);
    assert!(
        !report.notes.iter().any(|n| n.contains("pass_condition")),
        "{:?}",
        report.notes
    );
    // The ways tasks ended cover every task that did not pass.
    let ended: u64 = report.ended_without_passing.values().map(|r| r.count).sum();
    assert_eq!(ended + report.tasks_passing.count, report.tasks_passing.of);
}
