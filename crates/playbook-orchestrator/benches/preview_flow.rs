//! The reference preview flow (10 000 tasks, 60 002 agent calls) with
//! contract enforcement, gate evaluation and the JSONL event log on (a
//! user's preview), and the same with a counting sink and records streamed
//! rather than kept (a simulation).
//! `cargo run --release --example bench_flow` prints the figures recorded in
//! docs/benchmarks.md (steps, passed, escalated, wall time, µs per step,
//! peak memory).
//!
//! The benchmark allocates through mimalloc, as the `playbook` binary that
//! previews and simulates does.

use criterion::{Criterion, criterion_group, criterion_main};
use playbook_orchestrator::agent::AutoApprove;
use playbook_orchestrator::event::{CountingSink, JsonlSink};
use playbook_orchestrator::{RunOptions, reference, run_blocking};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn reference_flow(c: &mut Criterion) {
    let playbook = playbook_orchestrator::load_playbook(reference::PLAYBOOK)
        .expect("the reference playbook is valid");
    let scenario = reference::scenario(10_000);
    let options = RunOptions::default();
    let mut group = c.benchmark_group("preview");
    group.sample_size(10);
    group.bench_function("reference_flow_10000_tasks", |b| {
        b.iter(|| {
            let mut sink = JsonlSink::new(std::io::sink());
            let report = run_blocking(&playbook, &scenario, &options, AutoApprove, &mut sink);
            assert_eq!(report.steps, 60_002);
            report
        })
    });
    // A simulation's setting: events and records counted, none stored, the
    // same engine work per step.
    let streamed = RunOptions {
        keep_records: false,
        ..Default::default()
    };
    group.bench_function("reference_flow_10000_tasks_counting_sink", |b| {
        b.iter(|| {
            let mut sink = CountingSink::default();
            let report = run_blocking(&playbook, &scenario, &streamed, AutoApprove, &mut sink);
            assert_eq!(report.steps, 60_002);
            assert_eq!(sink.agent_runs, 60_002);
            report
        })
    });
    // A what-if's setting: no report either, so tasks between stages are
    // parked (the run's heap does not grow with its tasks).
    let simulated = RunOptions {
        keep_records: false,
        build_report: false,
        ..Default::default()
    };
    group.bench_function("reference_flow_10000_tasks_simulation", |b| {
        b.iter(|| {
            let mut sink = CountingSink::default();
            let report = run_blocking(&playbook, &scenario, &simulated, AutoApprove, &mut sink);
            assert_eq!(report.steps, 60_002);
            assert_eq!(sink.agent_runs, 60_002);
            report
        })
    });
    group.finish();
}

criterion_group!(benches, reference_flow);
criterion_main!(benches);
