//! How a simulation's heap grows: with a sink that keeps nothing, a run's
//! peak heap must not grow with its steps, and grows with its tasks by no
//! more than each task's own state (its values, packet, ledger row and
//! summary). A counting allocator measures the bytes live at the peak; one
//! test function, so no other test's allocations are counted.

use std::sync::atomic::Ordering;

use playbook_orchestrator::agent::AutoApprove;
use playbook_orchestrator::event::CountingSink;
use playbook_orchestrator::scenario::Scenario;
use playbook_orchestrator::{RunOptions, reference, run_blocking};

#[path = "../examples/common/counting.rs"]
mod counting;
use counting::{LIVE, PEAK};

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

/// Bytes live at the peak of one simulated run (records streamed, not kept),
/// over what was live before it; and the run's steps.
fn peak_of(scenario: &Scenario) -> (usize, u64) {
    let playbook = playbook_orchestrator::load_playbook(reference::PLAYBOOK)
        .expect("the reference playbook is valid");
    let options = RunOptions {
        keep_records: false,
        ..Default::default()
    };
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let mut sink = CountingSink::default();
    let report = run_blocking(&playbook, scenario, &options, AutoApprove, &mut sink);
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    (peak, report.steps)
}

/// The reference flow's tasks, every review failing `failures` times.
fn failing(tasks: usize, failures: usize) -> Scenario {
    let mut scenario = reference::scenario(tasks);
    let fail: serde_json::Value = serde_json::json!({
        "iterations": vec![
            serde_json::json!({ "output": { "verdict": "fail", "issues": ["again"] } });
            failures
        ]
    });
    scenario.roles.clear();
    scenario.roles.insert(
        "reviewer".into(),
        serde_json::from_value(fail).expect("a role script"),
    );
    scenario
}

#[test]
fn a_simulations_heap_does_not_grow_with_steps_and_little_with_tasks() {
    // Steps: the same 300 tasks passing review at once (4 agent calls
    // each) and after two failed rounds (8 each).
    let (once, once_steps) = peak_of(&failing(300, 0));
    let (thrice, thrice_steps) = peak_of(&failing(300, 2));
    assert_eq!((once_steps, thrice_steps), (300 * 4, 300 * 8));
    assert!(
        thrice < once + once / 4,
        "twice the steps took the peak heap from {once} to {thrice} bytes"
    );
    // Tasks: ten times the tasks, each holding its own state until the
    // last stage ends (stages are barriers); bounded per task.
    let (small, _) = peak_of(&reference::scenario(300));
    let (large, _) = peak_of(&reference::scenario(3_000));
    let per_task = large.saturating_sub(small) / 2_700;
    assert!(
        per_task < 6_000,
        "{per_task} bytes of peak heap per task ({small} for 300 tasks, {large} for 3 000)"
    );
}
