//! A run that streams its per-call records to the sink instead of keeping
//! them in the report (`RunOptions::keep_records` off, a simulation's
//! setting): the sink receives exactly the records a kept report holds, in
//! the order they were made, redacted, and the events do not change.

use playbook_orchestrator::event::{EventRecord, EventSink, RunRecord};
use playbook_orchestrator::{RunOptions, RunReport, Scenario, reference, run_blocking};

use crate::fixture_playbook;
use crate::secrets;

/// Every event and record, as JSON text.
#[derive(Default)]
struct Collect {
    events: Vec<String>,
    runs: Vec<String>,
    worklogs: Vec<String>,
    deltas: Vec<String>,
}

impl EventSink for Collect {
    fn emit(&mut self, record: &EventRecord) {
        self.events.push(serde_json::to_string(record).unwrap());
    }

    fn record(&mut self, record: RunRecord<'_>) {
        match record {
            RunRecord::AgentRun(r) => self.runs.push(serde_json::to_string(r).unwrap()),
            RunRecord::Worklog(w) => self.worklogs.push(serde_json::to_string(w).unwrap()),
            RunRecord::LedgerDelta(d) => self.deltas.push(serde_json::to_string(d).unwrap()),
        }
    }
}

fn run(playbook: &str, scenario: &Scenario, keep_records: bool) -> (RunReport, Collect) {
    let playbook = playbook_orchestrator::load_playbook(playbook).unwrap();
    let options = RunOptions {
        seed: 5,
        keep_records,
        ..Default::default()
    };
    let mut sink = Collect::default();
    let report = run_blocking(
        &playbook,
        scenario,
        &options,
        playbook_orchestrator::agent::AutoApprove,
        &mut sink,
    );
    (report, sink)
}

fn kept(report: &RunReport) -> (Vec<String>, Vec<String>, Vec<String>) {
    let runs = report
        .audit
        .runs
        .iter()
        .map(|r| serde_json::to_string(r).unwrap())
        .collect();
    let mut worklogs: Vec<String> = report
        .worklogs
        .tasks()
        .flat_map(|(_, entries)| entries.iter().map(|e| serde_json::to_string(e).unwrap()))
        .collect();
    worklogs.sort();
    let deltas = report
        .outputs
        .iter()
        .flat_map(|o| {
            o.ledger_delta
                .iter()
                .map(|d| serde_json::to_string(d).unwrap())
        })
        .collect();
    (runs, worklogs, deltas)
}

fn check_same_records(playbook: &str, scenario: &Scenario) {
    let (full, full_sink) = run(playbook, scenario, true);
    let (lean, mut lean_sink) = run(playbook, scenario, false);
    assert_eq!(
        full_sink.events, lean_sink.events,
        "the events do not change"
    );
    let (runs, worklogs, deltas) = kept(&full);
    assert!(!runs.is_empty() && !worklogs.is_empty() && !deltas.is_empty());
    assert_eq!(lean_sink.runs, runs, "audit runs, in order");
    assert_eq!(lean_sink.deltas, deltas, "ledger deltas, in order");
    lean_sink.worklogs.sort();
    assert_eq!(lean_sink.worklogs, worklogs, "worklog entries");
    // A report that keeps its records hands them to the sink as well.
    assert_eq!(full_sink.runs, runs);
    // The streamed report keeps none of them, and the rest is the same.
    assert!(lean.audit.runs.is_empty());
    assert_eq!(lean.worklogs.tasks().count(), 0);
    assert!(lean.outputs.iter().all(|o| o.ledger_delta.is_empty()));
    // The output envelopes are the same but for their deltas.
    assert_eq!(lean.outputs.len(), full.outputs.len());
    for (lean, full) in lean.outputs.iter().zip(&full.outputs) {
        assert_eq!(lean.blockers, full.blockers);
        assert_eq!(lean.next_actions, full.next_actions);
        assert_eq!(lean.generated_at, full.generated_at);
    }
    assert!(lean.handoff.is_none() && full.handoff.is_some());
    assert_eq!(lean.tasks, full.tasks, "task summaries are kept");
    assert_eq!(lean.outcome, full.outcome);
    assert_eq!(lean.steps, full.steps);
    assert_eq!(lean.events, full.events);
}

#[test]
fn streamed_records_are_the_records_a_kept_report_holds() {
    check_same_records(reference::PLAYBOOK, &reference::scenario(30));
}

#[test]
fn streamed_records_of_a_failing_run_match_too() {
    let scenario = Scenario::parse(&serde_json::to_string(&secrets::scenario()).unwrap()).unwrap();
    check_same_records(&fixture_playbook("tdd"), &scenario);
}

#[test]
fn no_secret_reaches_a_streamed_record() {
    let scenario = Scenario::parse(&serde_json::to_string(&secrets::scenario()).unwrap()).unwrap();
    let (report, sink) = run(&fixture_playbook("tdd"), &scenario, false);
    let text = [sink.events, sink.runs, sink.worklogs, sink.deltas]
        .concat()
        .join("\n");
    assert!(text.contains("[REDACTED]"));
    assert_eq!(secrets::leaks_in(&text), Vec::<&str>::new());
    let tasks = serde_json::to_string(&report.tasks).unwrap();
    assert_eq!(secrets::leaks_in(&tasks), Vec::<&str>::new());
}

/// The fields the redactor does not scan, because only the engine writes
/// them, hold only what the engine writes: a hex hash, instants, a UUID,
/// an outcome word, `D-<n>`, a code. A change that lets any other text in
/// fails here.
#[test]
fn the_fields_left_unscanned_hold_only_engine_made_values() {
    let scenario = Scenario::parse(&serde_json::to_string(&secrets::scenario()).unwrap()).unwrap();
    let (report, _) = run(&fixture_playbook("tdd"), &scenario, true);
    let hex = |s: &str| s.is_empty() || (s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()));
    let instant =
        |s: &str| s.len() == 24 && s.ends_with('Z') && s.as_bytes()[10] == b'T' && s.is_ascii();
    let word = |s: &str| s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    assert!(!report.audit.runs.is_empty());
    for r in &report.audit.runs {
        assert!(hex(&r.prompt_hash), "{}", r.prompt_hash);
        assert!(instant(&r.started_at) && instant(&r.ended_at), "{r:?}");
        assert!(word(&r.outcome), "{}", r.outcome);
    }
    for (_, entries) in report.worklogs.tasks() {
        for e in entries {
            assert!(instant(&e.timestamp), "{}", e.timestamp);
            assert_eq!(e.run_id, report.run_id);
            if let Some(code) = &e.code {
                assert!(
                    code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'),
                    "{code}"
                );
            }
        }
    }
    for d in report.outputs.iter().flat_map(|o| &o.ledger_delta) {
        assert!(
            d.delta_id
                .strip_prefix("D-")
                .is_some_and(|n| n.parse::<u64>().is_ok()),
            "{}",
            d.delta_id
        );
    }
}
