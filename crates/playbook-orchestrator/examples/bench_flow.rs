//! Prints the figures of the reference preview flow for docs/benchmarks.md:
//! `cargo run --release -p playbook-orchestrator --example bench_flow [TASKS]`.
//!
//! An optional second argument picks one sink: `jsonl` (a user's preview:
//! events serialised, every record kept in the report) or `counting` (a
//! simulation: events and records counted, none kept); both by default.
//! `heap` instead runs the counting sink at 1 000 and 10 000 tasks as a
//! simulation runs (no report; parked task state beyond 256 KiB spilled to
//! a temporary file) and prints how much peak heap each further task costs.
//!
//! Peak memory is measured two ways: bytes live at the high-water mark of
//! the heap (a counting allocator) and the process's peak resident set. The
//! allocator also counts allocations, a figure that, unlike time, does not
//! depend on the machine's load.

use std::sync::atomic::Ordering;
use std::time::Instant;

use playbook_orchestrator::agent::AutoApprove;
use playbook_orchestrator::event::{CountingSink, JsonlSink, TaskState};
use playbook_orchestrator::{RunOptions, reference, run_blocking};

#[path = "common/counting.rs"]
mod counting;
use counting::{ALLOCATIONS, LIVE, PEAK};

#[path = "common/spill.rs"]
mod spill;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

/// Nanoseconds this thread has run on a CPU (`/proc/thread-self/schedstat`):
/// unlike wall time, it does not count waiting for a core that other
/// processes hold, so it is the steadier figure on a loaded machine.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// One run of the reference flow with either sink; prints its figures and
/// returns its peak heap in bytes.
fn measure(tasks: usize, sink_name: &str, simulation: bool) -> usize {
    let playbook = playbook_orchestrator::load_playbook(reference::PLAYBOOK)
        .expect("the reference playbook is valid");
    let scenario = reference::scenario(tasks);
    // The JSONL sink is a user's preview (the report keeps every record);
    // the counting sink is a simulation's (records streamed, not kept).
    let counting = sink_name == "counting";
    let mut options = RunOptions {
        keep_records: !counting,
        ..Default::default()
    };
    if simulation {
        options.build_report = false;
        options.park_memory_bytes = 256 * 1024;
        options.spill = Some(spill::port());
    }
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let allocations_before = ALLOCATIONS.load(Ordering::Relaxed);
    let mut jsonl = JsonlSink::new(std::io::sink());
    let mut count = CountingSink::default();
    let cpu_start = thread_cpu_ns();
    let start = Instant::now();
    let report = if counting {
        run_blocking(&playbook, &scenario, &options, AutoApprove, &mut count)
    } else {
        run_blocking(&playbook, &scenario, &options, AutoApprove, &mut jsonl)
    };
    let wall = start.elapsed();
    let allocations = ALLOCATIONS
        .load(Ordering::Relaxed)
        .saturating_sub(allocations_before);
    let cpu = cpu_start
        .zip(thread_cpu_ns())
        .map(|(a, b)| b.saturating_sub(a));
    let peak_heap = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    let passed = report
        .tasks
        .iter()
        .filter(|t| t.state == TaskState::Done)
        .count();
    let escalated = report
        .tasks
        .iter()
        .filter(|t| t.state == TaskState::Blocked)
        .count();
    println!(
        "sink            {sink_name} (records kept: {})",
        options.keep_records
    );
    println!("tasks           {tasks}");
    println!(
        "steps           {} (expected {})",
        report.steps,
        reference::expected_steps(tasks)
    );
    println!("events          {}", report.events);
    if counting {
        println!(
            "records         {} agent runs, {} worklog entries, {} ledger deltas (streamed)",
            count.agent_runs, count.worklog_entries, count.ledger_deltas
        );
    }
    if options.build_report {
        println!("tasks passed    {passed}");
        println!("tasks escalated {escalated}");
    } else {
        println!("report          none (a simulation's run)");
    }
    println!("wall time       {:.3} s", wall.as_secs_f64());
    println!(
        "per step        {:.2} µs",
        wall.as_secs_f64() * 1e6 / report.steps.max(1) as f64
    );
    if let Some(cpu) = cpu {
        println!(
            "CPU per step    {:.2} µs (this thread on a core)",
            cpu as f64 / 1e3 / report.steps.max(1) as f64
        );
    }
    println!(
        "allocations     {:.1} per step",
        allocations as f64 / report.steps.max(1) as f64
    );
    println!(
        "peak heap       {:.1} MiB (run only)",
        peak_heap as f64 / (1024.0 * 1024.0)
    );
    drop(report);
    drop(scenario);
    peak_heap
}

fn main() {
    let mut args = std::env::args().skip(1);
    let tasks: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let sinks: Vec<String> = match args.next() {
        Some(mode) if mode == "heap" => {
            // The simulation's heap against its tasks: what the counting
            // sink keeps is nothing, so the growth is the engine's own.
            // A first run warms what every run of the process shares and
            // that grows, bounded, with the variety of text it has seen
            // (the redactor's compiled rules and the regex engine's lazy
            // caches): not the run's own memory, and not counted twice.
            let warm = measure(10_000, "counting", true);
            println!("(warm-up run, peak {warm} bytes)");
            println!();
            let small = measure(1_000, "counting", true);
            println!();
            let large = measure(10_000, "counting", true);
            println!();
            println!(
                "heap per task   {:.0} bytes (peak at 10 000 tasks minus at 1 000, over 9 000)",
                large.saturating_sub(small) as f64 / 9_000.0
            );
            return;
        }
        Some(sink) => vec![sink],
        None => vec!["jsonl".into(), "counting".into()],
    };
    for (i, sink) in sinks.iter().enumerate() {
        if i > 0 {
            println!();
        }
        measure(tasks, sink, false);
    }
    if let Some(kib) = peak_rss_kib() {
        println!(
            "peak RSS        {:.1} MiB (whole process)",
            kib as f64 / 1024.0
        );
    }
}
