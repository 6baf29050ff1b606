//! How a report shows its figures: model values, shares, the loop that
//! costs most, and what its JSON holds.

use crate::{review_loop, run};

#[test]
fn model_values_print_short_and_the_json_has_the_fail_share() {
    // A subnormal probability printed with `{}` was a 330-digit decimal.
    let report = run(
        &review_loop(2),
        "defaults: {pass: 5e-324, cost: 1e12}",
        20,
        1,
    );
    let text = report.to_text();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("reviewer ("))
        .unwrap();
    // The line was 589 characters with the subnormal written out.
    assert!(line.len() < 300, "{line}");
    assert!(
        line.contains("pass 5e-324 [") && line.contains("cost 1e12 calls"),
        "{line}"
    );
    // `1 - 0.75 - 5e-324` is shown rounded: the fail share is 0.95.
    assert!(line.contains("fail 0.95,"), "{line}");
    let json = serde_json::to_value(&report).unwrap();
    let fail = json["model"][0]["values"]["fail"].as_f64().unwrap();
    assert!((fail - 0.95).abs() < 1e-9, "{fail}");
}

#[test]
fn loops_that_tie_name_the_first_and_say_so() {
    // Two stages with the same loop, every call passing: both loops cost
    // exactly 2 calls per run.
    let stage = |s: &str| {
        format!(
            "  {s}:\n    roles:\n      - name: w{s}\n        mode: worker\n        outputs_contract: {{ required: [summary] }}\n        handoff_to: [r{s}]\n      - name: r{s}\n        mode: reviewer\n        outputs_contract: {{ required: [verdict, issues] }}\n        gates: {{ pass_condition: review_passed }}\n        handoff_to: [w{s}]\n        retry_policy: {{ max_iterations: 2, escalate_on: [retry_limit] }}\n"
        )
    };
    let text = format!(
        "schema_version: \"1.0.0\"\nid: twins\nname: Twins\nworkflow:\n{}{}",
        stage("a"),
        stage("b")
    );
    let playbook = playbook_orchestrator::load_playbook(&text).expect("valid");
    let report = run(
        &playbook,
        "defaults: {pass: 1, violation: 0, blocked_tool: 0, needs_input: 0, error: 0}",
        50,
        1,
    );
    assert_eq!(report.loops.len(), 2);
    assert_eq!(report.loops[0].mean_cost, report.loops[1].mean_cost);
    assert_eq!(report.costliest_loop.as_deref(), Some("wa ⇄ ra"));
    let text = report.to_text();
    assert!(
        text.contains(
            "wa ⇄ ra: 2.00 calls, 2.000 calls per run  ← costs most (tied with 1 other loop(s))"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "wb ⇄ rb: 2.00 calls, 2.000 calls per run  ← ties with the loop that costs most"
        ),
        "{text}"
    );
}

#[test]
fn one_run_gives_means_without_an_interval() {
    let report = run(&review_loop(3), "roles:\n  reviewer: {pass: 0.5}\n", 1, 3);
    assert_eq!(report.calls_per_task.ci, None);
    let json = serde_json::to_value(&report).unwrap();
    assert!(json["calls_per_task"]["ci"].is_null());
    assert!(
        report
            .to_text()
            .contains("[no interval from fewer than 2 values]"),
        "{}",
        report.to_text()
    );
}
