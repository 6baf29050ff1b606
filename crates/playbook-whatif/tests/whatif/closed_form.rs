//! A single review loop with pass probability p and limit n: the reviewer
//! runs Σ_{k<n}(1-p)^k times on average and the task escalates with
//! probability (1-p)^n. The simulated figures' 95 % intervals must hold them.

use std::sync::atomic::AtomicBool;

use playbook_whatif::{Options, SimModel, whatif};

use crate::{assert_closed_form, review_loop, run};

fn model(p: f64) -> String {
    format!(
        "defaults: {{pass: 1, violation: 0, blocked_tool: 0, needs_input: 0, error: 0}}\nroles:\n  reviewer: {{pass: {p}}}\n"
    )
}

#[test]
fn expected_rounds_and_escalation_rate_lie_in_the_intervals() {
    for (p, n) in [(0.5, 3), (0.3, 4), (0.8, 2), (0.6, 1), (0.1, 5)] {
        let playbook = review_loop(n);
        let report = run(&playbook, &model(p), 3000, 42);
        assert_closed_form(&report, p, n, "");
        let reviewer = report.roles.iter().find(|r| r.role == "reviewer").unwrap();
        // Every escalation of this loop is the retry limit.
        let on_limit = report
            .escalation_by_trigger
            .get("retry_limit")
            .map_or(0, |r| r.count);
        assert_eq!(on_limit, report.escalation.count, "p {p} n {n}");
        assert!(reviewer.calls.max <= f64::from(n));
        assert!(report.bound_violations.is_empty());
    }
}

#[test]
fn intervals_shrink_as_runs_grow() {
    let playbook = review_loop(3);
    let small = run(&playbook, &model(0.5), 200, 1);
    let large = run(&playbook, &model(0.5), 3200, 1);
    let width = |r: &playbook_whatif::Report| r.escalation.ci[1] - r.escalation.ci[0];
    assert!(width(&large) < width(&small) / 2.0);
}

#[test]
fn the_same_seed_gives_the_same_report_on_any_number_of_threads() {
    let playbook = review_loop(3);
    let model = SimModel::parse(&model(0.4)).unwrap();
    let go = |threads, seed| {
        let options = Options {
            runs: 500,
            seed,
            threads,
            ..Options::default()
        };
        let report = whatif(
            &playbook,
            &model,
            &options,
            &AtomicBool::new(false),
            &|_| {},
        )
        .unwrap();
        serde_json::to_string(&report).unwrap()
    };
    let one = go(1, 9);
    assert_eq!(one, go(3, 9));
    assert_eq!(one, go(2, 9));
    assert_ne!(one, go(1, 10));
}

#[test]
fn the_shipped_tdd_playbook_never_exceeds_its_bound() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../playbooks/tdd.yaml"
    ))
    .unwrap();
    let playbook = playbook_orchestrator::load_playbook(&text).unwrap();
    // Harsh model: every kind of trouble is likely.
    let report = run(
        &playbook,
        "defaults: {pass: 0.3, violation: 0.1, blocked_tool: 0.1, needs_input: 0.05, error: 0.05}",
        400,
        3,
    );
    assert!(report.bound_violations.is_empty());
    for stage in &report.stages {
        assert!(
            stage.calls.max <= f64::from(stage.bound_per_task),
            "{}",
            stage.stage
        );
    }
    assert!(report.escalation.count > 0);
    assert!(
        report.costliest_loop.as_deref() == Some("worker ⇄ reviewer"),
        "{:?}",
        report.costliest_loop
    );
}

#[test]
fn a_cancelled_simulation_is_partial() {
    let playbook = review_loop(3);
    let model = SimModel::parse(&model(0.5)).unwrap();
    let cancel = AtomicBool::new(true);
    let options = Options {
        runs: 1000,
        ..Options::default()
    };
    let report = whatif(&playbook, &model, &options, &cancel, &|_| {}).unwrap();
    assert!(report.partial);
    assert_eq!(report.runs, 0);
}
