//! A prepared playbook and scenario, run many times, gives exactly what
//! `run` gives each time: the same events, byte for byte, and the same
//! report. No run leaks state into the next.

use playbook_orchestrator::event::JsonlSink;
use playbook_orchestrator::{
    Approval, Prepared, RunOptions, RunReport, Scenario, load_playbook, run_blocking,
    run_prepared_blocking,
};

use crate::{fixture_playbook, repo_dir};

/// Everything a report holds, as text; the ledger by its rows (the set of
/// delta ids it has seen prints in hash order).
fn text(report: &RunReport) -> String {
    let rows: Vec<_> = report.ledger.rows().collect();
    format!(
        "{:?} {:?} {} {} {} {:?} {:?} {:?} {rows:?} {:?} {:?} {:?} {:?}",
        report.run_id,
        report.outcome,
        report.steps,
        report.virtual_ms,
        report.events,
        report.tasks,
        report.bounds,
        report.findings,
        report.worklogs,
        report.audit,
        report.outputs,
        report.handoff,
    )
}

/// The event log and the report of one run, as text.
fn fresh(playbook: &playbook_core::Playbook, scenario: &Scenario, seed: u64) -> (String, String) {
    let mut sink = JsonlSink::new(Vec::new());
    let options = RunOptions {
        seed,
        ..Default::default()
    };
    let report = run_blocking(
        playbook,
        scenario,
        &options,
        Approval::Scenario.approver(scenario),
        &mut sink,
    );
    (String::from_utf8(sink.into_inner()).unwrap(), text(&report))
}

fn prepared(prepared: &Prepared<'_>, seed: u64) -> (String, String) {
    let mut sink = JsonlSink::new(Vec::new());
    let options = RunOptions {
        seed,
        ..Default::default()
    };
    let report = run_prepared_blocking(
        prepared,
        &options,
        Approval::Scenario.approver(prepared.scenario()),
        &mut sink,
    );
    (String::from_utf8(sink.into_inner()).unwrap(), text(&report))
}

/// Runs of one prepared value, seeds in a row, against fresh runs.
fn same_as_fresh(playbook_text: &str, scenario_text: &str, what: &str) {
    let playbook = load_playbook(playbook_text).unwrap();
    let scenario = Scenario::parse(scenario_text).unwrap();
    let shared = Prepared::new(&playbook, &scenario, &RunOptions::default().validation);
    for seed in [0, 7, 0, 12345] {
        let (events, report) = prepared(&shared, seed);
        let (want_events, want_report) = fresh(&playbook, &scenario, seed);
        assert_eq!(events, want_events, "{what}, seed {seed}: events differ");
        assert_eq!(report, want_report, "{what}, seed {seed}: reports differ");
    }
}

#[test]
fn every_shipped_scenario_runs_the_same_prepared_and_fresh() {
    let scenarios = shipped_scenarios();
    assert!(!scenarios.is_empty());
    for name in ["tdd", "compound-engineering", "pairing"] {
        let playbook = fixture_playbook(name);
        for path in &scenarios {
            let scenario = std::fs::read_to_string(path).unwrap();
            same_as_fresh(
                &playbook,
                &scenario,
                &format!("{name} × {}", path.display()),
            );
        }
    }
}

#[test]
fn a_refused_run_is_refused_by_every_prepared_run() {
    // A validation error: a hand-off to a role that does not exist.
    let invalid = fixture_playbook("tdd").replacen("handoff_to: [", "handoff_to: [nobody, ", 1);
    assert_ne!(invalid, fixture_playbook("tdd"));
    let happy =
        std::fs::read_to_string(repo_dir().join("playbooks/scenarios/happy-path.yaml")).unwrap();
    same_as_fresh(&invalid, &happy, "an invalid playbook");
    let (events, _) = {
        let playbook = load_playbook(&invalid).unwrap();
        let scenario = Scenario::parse(&happy).unwrap();
        let shared = Prepared::new(&playbook, &scenario, &RunOptions::default().validation);
        prepared(&shared, 1)
    };
    assert!(events.contains("\"run_refused\""), "{events}");

    // A task that names a role the playbook lacks.
    let unknown_role =
        "name: unknown role\ninput:\n  goal: g\n  tasks:\n    - title: t\n      role: nobody\n";
    same_as_fresh(&fixture_playbook("tdd"), unknown_role, "an unknown role");
}

#[test]
fn what_a_prepared_playbook_redacts_once_stays_redacted_in_every_run() {
    // The findings, bounds and audit context of every run are copied from
    // the prepared value, which redacted them once; a secret in a finding
    // (an unknown field quoted by its warning) must not reach any run's
    // report, and each run must still equal a fresh run.
    let leaky = format!("{}\"token=sv-lint-9x9q\": 1\n", fixture_playbook("tdd"));
    let happy =
        std::fs::read_to_string(repo_dir().join("playbooks/scenarios/happy-path.yaml")).unwrap();
    same_as_fresh(&leaky, &happy, "a finding with a secret");
    let playbook = load_playbook(&leaky).unwrap();
    let scenario = Scenario::parse(&happy).unwrap();
    let shared = Prepared::new(&playbook, &scenario, &RunOptions::default().validation);
    for seed in [0, 1] {
        let (events, report) = prepared(&shared, seed);
        assert!(
            report.contains("[REDACTED]"),
            "the finding is kept: {report}"
        );
        assert!(!report.contains("sv-lint-9x9q"), "a secret in the report");
        assert!(!events.contains("sv-lint-9x9q"), "a secret in the events");
    }
}

/// Every event and per-call record a sink receives, as text.
#[derive(Default)]
struct Capture(Vec<String>);

impl playbook_orchestrator::event::EventSink for Capture {
    fn emit(&mut self, record: &playbook_orchestrator::event::EventRecord) {
        self.0.push(serde_json::to_string(record).unwrap());
    }

    fn record(&mut self, record: playbook_orchestrator::event::RunRecord<'_>) {
        self.0.push(format!("{record:?}"));
    }
}

#[test]
fn a_run_without_its_report_does_the_same_run() {
    // A caller that reads only its sink (a simulation) asks for no report:
    // every event and record still reaches the sink, the same ones, and
    // the counters agree; only the report's copies are not made.
    let scenarios = shipped_scenarios();
    for name in ["tdd", "compound-engineering", "pairing"] {
        let playbook = load_playbook(&fixture_playbook(name)).unwrap();
        for path in &scenarios {
            let scenario = Scenario::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
            let shared = Prepared::new(&playbook, &scenario, &RunOptions::default().validation);
            for seed in [0, 7] {
                let run = |build_report: bool| {
                    let mut sink = Capture::default();
                    let options = RunOptions {
                        seed,
                        keep_records: false,
                        build_report,
                        ..Default::default()
                    };
                    let report = run_prepared_blocking(
                        &shared,
                        &options,
                        Approval::Scenario.approver(shared.scenario()),
                        &mut sink,
                    );
                    (sink.0, report)
                };
                let (want, full) = run(true);
                let (got, bare) = run(false);
                let what = format!("{name} × {}, seed {seed}", path.display());
                assert_eq!(got, want, "{what}: the sink saw another run");
                let counters =
                    |r: &RunReport| (r.run_id.clone(), r.outcome, r.steps, r.virtual_ms, r.events);
                assert_eq!(counters(&bare), counters(&full), "{what}");
                assert!(bare.tasks.is_empty() && bare.outputs.is_empty(), "{what}");
                assert!(
                    bare.audit.runs.is_empty() && bare.findings.is_empty(),
                    "{what}"
                );
            }
        }
    }
}

/// The shipped preview scenarios, in name order.
fn shipped_scenarios() -> Vec<std::path::PathBuf> {
    let mut scenarios: Vec<_> = std::fs::read_dir(repo_dir().join("playbooks/scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    scenarios.sort();
    scenarios
}
