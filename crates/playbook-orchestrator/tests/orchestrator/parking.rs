//! Parked task state (`engine/park.rs`): a run whose tasks go through a
//! spill store is the same run as one that keeps them in memory, and a
//! store that fails ends the run with a clear outcome, never a panic.

use std::io::{Error, ErrorKind};

use playbook_orchestrator::event::{Event, JsonlSink, Outcome};
use playbook_orchestrator::spill::{Spill, SpillPort};
use playbook_orchestrator::{RunOptions, RunReport, reference, run_blocking};

/// A store in memory (the tests need no file); `fail_write` / `fail_read`
/// make it fail from that many blocks on.
struct Store {
    bytes: Vec<u8>,
    writes: usize,
    reads: usize,
    fail_write: usize,
    fail_read: usize,
}

impl Spill for Store {
    fn write(&mut self, block: &[u8]) -> std::io::Result<u64> {
        self.writes += 1;
        if self.writes > self.fail_write {
            return Err(Error::new(ErrorKind::StorageFull, "disk full"));
        }
        let at = self.bytes.len() as u64;
        self.bytes.extend_from_slice(block);
        Ok(at)
    }

    fn read(&mut self, at: u64, into: &mut [u8]) -> std::io::Result<()> {
        self.reads += 1;
        if self.reads > self.fail_read {
            return Err(Error::other("read error"));
        }
        let at = at as usize;
        into.copy_from_slice(&self.bytes[at..at + into.len()]);
        Ok(())
    }
}

fn port(fail_write: usize, fail_read: usize) -> SpillPort {
    SpillPort::new(move || {
        Ok(Box::new(Store {
            bytes: Vec::new(),
            writes: 0,
            reads: 0,
            fail_write,
            fail_read,
        }) as Box<dyn Spill>)
    })
}

/// A run of the reference flow: its report and its event log as JSONL.
fn run(tasks: usize, keep_records: bool, spill: Option<SpillPort>) -> (RunReport, String) {
    run_with(tasks, keep_records, true, spill)
}

/// [`run`], building the report or not (a simulation does not).
fn run_with(
    tasks: usize,
    keep_records: bool,
    build_report: bool,
    spill: Option<SpillPort>,
) -> (RunReport, String) {
    let playbook = playbook_orchestrator::load_playbook(reference::PLAYBOOK).unwrap();
    let scenario = reference::scenario(tasks);
    let options = RunOptions {
        keep_records,
        build_report,
        // Every block beyond the first few kilobytes goes to the store.
        park_memory_bytes: 4096,
        park_above_tasks: Some(0),
        spill,
        ..Default::default()
    };
    let mut sink = JsonlSink::new(Vec::new());
    let report = run_blocking(
        &playbook,
        &scenario,
        &options,
        playbook_orchestrator::agent::AutoApprove,
        &mut sink,
    );
    (report, String::from_utf8(sink.into_inner()).unwrap())
}

#[test]
fn a_run_through_a_spill_store_is_the_run_in_memory() {
    for keep_records in [true, false] {
        let (memory, memory_log) = run(40, keep_records, None);
        let (spilled, spilled_log) = run(40, keep_records, Some(port(usize::MAX, usize::MAX)));
        assert_eq!(memory.outcome, Some(Outcome::Passed));
        assert_eq!(
            spilled_log, memory_log,
            "events, keep_records {keep_records}"
        );
        assert_eq!(spilled.tasks, memory.tasks);
        assert_eq!(
            spilled.ledger.rows().collect::<Vec<_>>(),
            memory.ledger.rows().collect::<Vec<_>>(),
            "the ledger, rows in the order they were created"
        );
        assert_eq!(
            serde_json::to_string(&spilled.handoff).unwrap(),
            serde_json::to_string(&memory.handoff).unwrap()
        );
        assert_eq!(
            format!("{:?}", spilled.worklogs),
            format!("{:?}", memory.worklogs)
        );
    }
}

#[test]
fn a_failing_spill_store_fails_the_run_clearly() {
    // Fails to write at once, after a few blocks, or to read them back.
    let cases = [
        (0, usize::MAX),
        (30, usize::MAX),
        (usize::MAX, 5),
        (usize::MAX, 120),
    ];
    for ((fail_write, fail_read), build) in cases.into_iter().flat_map(|c| [(c, true), (c, false)])
    {
        let (report, log) = run_with(40, false, build, Some(port(fail_write, fail_read)));
        let case =
            format!("write fails after {fail_write}, read after {fail_read}, report {build}");
        assert_eq!(report.outcome, Some(Outcome::Failed), "{case}");
        let events = playbook_orchestrator::event::from_jsonl(&log).unwrap();
        let warnings: Vec<&String> = events
            .iter()
            .filter_map(|e| match &e.event {
                Event::Warning { message, .. } if message.contains("parked task state") => {
                    Some(message)
                }
                _ => None,
            })
            .collect();
        assert_eq!(warnings.len(), 1, "{case}: said once: {warnings:?}");
        let expected = if fail_read == usize::MAX {
            "disk full"
        } else {
            "read error"
        };
        assert!(warnings[0].contains(expected), "{case}: {}", warnings[0]);
        let Some(Event::RunFinished { outcome, .. }) = events.last().map(|e| &e.event) else {
            panic!("{case}: the run finishes");
        };
        assert_eq!(*outcome, Outcome::Failed, "{case}");
    }
}

/// A run of `playbook` over the reference scenario, every task parked
/// between stages (`park_above_tasks: 0`) or none: its event log as JSONL.
fn run_parked<P: playbook_orchestrator::agent::Approver>(
    playbook: &str,
    keep_records: bool,
    park: bool,
    approver: P,
) -> String {
    let playbook = playbook_orchestrator::load_playbook(playbook).unwrap();
    let scenario = reference::scenario(12);
    let options = RunOptions {
        park_above_tasks: Some(if park { 0 } else { usize::MAX }),
        keep_records,
        // A simulation builds no report either.
        build_report: keep_records,
        ..Default::default()
    };
    let mut sink = JsonlSink::new(Vec::new());
    run_blocking(&playbook, &scenario, &options, approver, &mut sink);
    String::from_utf8(sink.into_inner()).unwrap()
}

/// A parked task's exit gate reads only the values it names, from the
/// task's block (`parked_exit_gate_passes`), and a simulation's task ends
/// with only its ledger row read back (`unpark_row`): the run is the same
/// as one that parks nothing, whether the gate passes, fails for some
/// tasks, reads the stage's counters or asks a person who approves or
/// denies, with the records kept (a preview) or streamed (a simulation).
#[test]
fn a_run_that_parks_every_task_is_the_run_that_parks_none() {
    use playbook_orchestrator::agent::{AutoApprove, AutoDeny};
    let playbooks = [
        reference::PLAYBOOK.to_string(),
        reference::PLAYBOOK.replace(
            "exit_gate: review_passed",
            "exit_gate: \"task_id != 'T-4' && tasks_done > 1 && size(commit_sha) > 0\"",
        ),
        reference::PLAYBOOK.replace("exit_gate: tests_green", "exit_gate: user_approved"),
    ];
    for (i, playbook) in playbooks.iter().enumerate() {
        for keep in [true, false] {
            let case = format!("playbook {i}, keep_records {keep}");
            let parked = run_parked(playbook, keep, true, AutoApprove);
            assert!(parked.contains("\"type\":\"gate_passed\""), "{case}");
            assert_eq!(
                parked,
                run_parked(playbook, keep, false, AutoApprove),
                "{case}, approved"
            );
            let parked = run_parked(playbook, keep, true, AutoDeny);
            assert_eq!(
                parked,
                run_parked(playbook, keep, false, AutoDeny),
                "{case}, denied"
            );
        }
    }
    let failing = run_parked(&playbooks[1], false, true, AutoApprove);
    assert!(
        failing.contains("STAGE_EXIT_BLOCKED"),
        "one task's exit gate fails"
    );
}

/// By default (`park_above_tasks: None`) a run that builds its report parks
/// nothing, since the report reads every task at the end anyway, and a run
/// without a report of more than 256 tasks parks: seen by what reaches a
/// spill store that takes every block.
#[test]
fn by_default_only_a_run_without_a_report_parks() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    struct Counted(Arc<AtomicUsize>, Vec<u8>);
    impl Spill for Counted {
        fn write(&mut self, block: &[u8]) -> std::io::Result<u64> {
            self.0.fetch_add(1, Ordering::Relaxed);
            let at = self.1.len() as u64;
            self.1.extend_from_slice(block);
            Ok(at)
        }
        fn read(&mut self, at: u64, into: &mut [u8]) -> std::io::Result<()> {
            let at = at as usize;
            into.copy_from_slice(&self.1[at..at + into.len()]);
            Ok(())
        }
    }
    let playbook = playbook_orchestrator::load_playbook(reference::PLAYBOOK).unwrap();
    let writes = |tasks: usize, build_report: bool| {
        let written = Arc::new(AtomicUsize::new(0));
        let counter = written.clone();
        let options = RunOptions {
            keep_records: false,
            build_report,
            park_memory_bytes: 0,
            spill: Some(SpillPort::new(move || {
                Ok(Box::new(Counted(counter.clone(), Vec::new())) as Box<dyn Spill>)
            })),
            ..Default::default()
        };
        let mut sink = JsonlSink::new(std::io::sink());
        let scenario = reference::scenario(tasks);
        let report = run_blocking(
            &playbook,
            &scenario,
            &options,
            playbook_orchestrator::agent::AutoApprove,
            &mut sink,
        );
        assert_eq!(report.outcome, Some(Outcome::Passed));
        written.load(Ordering::Relaxed)
    };
    assert_eq!(writes(300, true), 0, "a preview of 300 tasks parks none");
    assert!(
        writes(300, false) >= 300,
        "a simulation of 300 tasks parks them"
    );
    assert_eq!(
        writes(200, false),
        0,
        "a simulation of 200 tasks parks none"
    );
}
