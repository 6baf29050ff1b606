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
    let playbook = playbook_orchestrator::load_playbook(reference::PLAYBOOK).unwrap();
    let scenario = reference::scenario(tasks);
    let options = RunOptions {
        keep_records,
        // Every block beyond the first few kilobytes goes to the store.
        park_memory_bytes: 4096,
        park_above_tasks: 0,
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
    for (fail_write, fail_read) in [(0, usize::MAX), (30, usize::MAX), (usize::MAX, 5)] {
        let (report, log) = run(40, false, Some(port(fail_write, fail_read)));
        let case = format!("write fails after {fail_write}, read after {fail_read}");
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
