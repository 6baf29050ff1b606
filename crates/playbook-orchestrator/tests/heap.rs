//! How a simulation's heap grows: with a sink that keeps nothing and no
//! report, a run's peak heap must not grow with its steps, nor with its
//! tasks beyond each task's fixed-size record (its state is parked, and
//! beyond a memory bound spilled to a file). A counting allocator measures
//! the bytes live at the peak; one test function, so no other test's
//! allocations are counted.

use std::sync::atomic::Ordering;

use playbook_orchestrator::agent::AutoApprove;
use playbook_orchestrator::event::CountingSink;
use playbook_orchestrator::scenario::Scenario;
use playbook_orchestrator::{RunOptions, reference, run_blocking};

#[path = "../examples/common/counting.rs"]
mod counting;
use counting::{LIVE, PEAK};

#[path = "../examples/common/spill.rs"]
mod spill;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

/// Bytes live at the peak of one simulated run (records streamed, not kept),
/// over what was live before it; and the run's steps.
fn peak_of(scenario: &Scenario) -> (usize, u64) {
    let playbook = playbook_orchestrator::load_playbook(reference::PLAYBOOK)
        .expect("the reference playbook is valid");
    let options = RunOptions {
        keep_records: false,
        build_report: false,
        // Parked blocks beyond 256 KiB go to a temporary file.
        park_memory_bytes: 256 * 1024,
        spill: Some(spill::port()),
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
    // Tasks: ten times the tasks. Stages are barriers, so every task's
    // state reaches the next stage, parked: what stays live per task is
    // its record (`engine::state::Task`, 32 bytes), its place in the
    // stage's lists (about 40 bytes) and the run input's id set while
    // the tasks are made. Before parking it was about 4.2 KB per task,
    // 38 MB between these two runs.
    // The first run warms the redactor's process-wide caches, which grow
    // (bounded) with the variety of text scanned: not the run's memory.
    peak_of(&reference::scenario(10_000));
    let (small, _) = peak_of(&reference::scenario(1_000));
    let (large, _) = peak_of(&reference::scenario(10_000));
    let growth = large.saturating_sub(small);
    assert!(
        growth < 1_500_000,
        "9 000 more tasks took the peak heap from {small} to {large} bytes \
         ({} per task)",
        growth / 9_000
    );
}
