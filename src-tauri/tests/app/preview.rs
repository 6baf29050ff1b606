//! Preview runs as the app starts them: recorded in the library, approvals
//! asked of the user, refused when the playbook has errors.

use playbook_orchestrator::{Event, EventRecord, Outcome};
use playbook_studio::api::{ApprovalMode, ApprovalPrompt, PreviewRequest};
use playbook_studio::approvals::{AskTheUser, Pending};
use playbook_studio::error::ErrorCode;
use playbook_studio::library::Library;
use playbook_studio::preview;
use serde_json::Value;

const TDD: &str = include_str!("../../../playbooks/tdd.yaml");

fn tdd() -> Value {
    yaml_serde::from_str(TDD).unwrap()
}

fn request(approvals: ApprovalMode, playbook: Option<&str>, base: Option<u32>) -> PreviewRequest {
    PreviewRequest {
        scenario: "review-fails-twice".into(),
        seed: 7,
        approvals,
        playbook: playbook.map(str::to_string),
        base,
        scenario_source: None,
        mapping: None,
    }
}

/// An approver that is never asked: the mode is not `ask`.
fn nobody() -> Option<AskTheUser<fn(&ApprovalPrompt)>> {
    None
}

fn library() -> (tempfile::TempDir, Library) {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::open(dir.path().join("library.db"));
    (dir, library)
}

#[test]
fn a_run_of_a_saved_version_is_recorded_with_every_event_and_its_version() {
    let (_dir, library) = library();
    let mut shown: Vec<EventRecord> = Vec::new();
    let result = preview::run(
        tdd(),
        &request(ApprovalMode::Scenario, Some("tdd"), Some(1)),
        Some(&library),
        nobody(),
        |e| shown.push(e.clone()),
    )
    .unwrap();
    assert_eq!(result.outcome, Some(Outcome::Passed));
    assert_eq!(result.record_error, None);
    let run = result.run.expect("the run is recorded");

    let runs = library.runs("tdd").unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].id.0, run);
    assert_eq!(runs[0].status, "passed");
    assert_eq!(runs[0].scenario, "review-fails-twice");
    assert_eq!(runs[0].seed, 7);
    assert!(
        runs[0].version.is_some(),
        "the seeded version 1 was run unchanged"
    );
    assert_eq!(runs[0].events as usize, shown.len());
    let stored = library.run_events(runs[0].id).unwrap();
    assert_eq!(
        stored, shown,
        "the record holds exactly the events the window saw"
    );
}

#[test]
fn a_run_of_unsaved_edits_is_recorded_without_a_version() {
    let (_dir, library) = library();
    let mut edited = tdd();
    edited["description"] = Value::String("edited, not saved".into());
    let result = preview::run(
        edited,
        &request(ApprovalMode::Approve, Some("tdd"), Some(1)),
        Some(&library),
        nobody(),
        |_| {},
    )
    .unwrap();
    assert!(result.run.is_some());
    assert_eq!(library.runs("tdd").unwrap()[0].version, None);
}

#[test]
fn a_run_that_cannot_be_recorded_still_runs_and_says_why() {
    let (_dir, library) = library();
    let result = preview::run(
        tdd(),
        &request(ApprovalMode::Approve, Some("not-in-the-library"), None),
        Some(&library),
        nobody(),
        |_| {},
    )
    .unwrap();
    assert_eq!(result.outcome, Some(Outcome::Passed));
    assert_eq!(result.run, None);
    assert!(
        result.record_error.unwrap().contains("not-in-the-library"),
        "the reason names the playbook"
    );
}

#[test]
fn in_ask_mode_each_request_waits_for_the_users_answer() {
    let pending = Pending::default();
    let answering = pending.clone();
    let mut asked: Vec<ApprovalPrompt> = Vec::new();
    let ask = AskTheUser {
        pending,
        show: |prompt: &ApprovalPrompt| {
            // The first request is denied, every later one approved.
            assert!(answering.answer(prompt.id, !asked.is_empty()));
            asked.push(prompt.clone());
        },
    };
    let mut events = Vec::new();
    let result = preview::run(
        tdd(),
        &request(ApprovalMode::Ask, None, None),
        None,
        Some(ask),
        |e| events.push(e.clone()),
    )
    .unwrap();
    assert!(
        !asked.is_empty(),
        "the TDD roles need approval for mutating tools"
    );
    let denied: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ApprovalDenied { by, .. } => Some(by.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        denied,
        ["user"],
        "exactly the first request was denied, by the user"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.event, Event::ApprovalGranted { by, .. } if by == "user"))
    );
    assert!(result.outcome.is_some());
}

#[test]
fn a_request_nobody_answers_is_denied_when_the_waiting_ones_are_denied() {
    let pending = Pending::default();
    let stopper = pending.clone();
    let (shown, asked) = std::sync::mpsc::channel();
    let run = std::thread::spawn(move || {
        let ask = AskTheUser {
            pending,
            show: move |prompt: &ApprovalPrompt| shown.send(prompt.id).unwrap(),
        };
        let mut events = Vec::new();
        preview::run(
            tdd(),
            &request(ApprovalMode::Ask, None, None),
            None,
            Some(ask),
            |e| events.push(e.clone()),
        )
        .map(|_| events)
    });
    // Each time the run waits, the user leaves the preview: deny what waits.
    let mut requests = 0;
    while let Ok(id) = asked.recv() {
        requests += 1;
        assert_eq!(
            stopper.deny_all(),
            1,
            "the run waits on exactly its request"
        );
        assert!(
            !stopper.answer(id, true),
            "an answered request takes no second answer"
        );
    }
    let events = run.join().unwrap().unwrap();
    let denied = events
        .iter()
        .filter(|e| matches!(&e.event, Event::ApprovalDenied { by, .. } if by == "user"))
        .count();
    assert!(requests > 0);
    assert_eq!(
        denied, requests,
        "every request was denied, none left hanging"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(&e.event, Event::ApprovalGranted { .. }))
    );
}

#[test]
fn an_unknown_scenario_is_invalid_input() {
    let mut unknown = request(ApprovalMode::Scenario, None, None);
    unknown.scenario = "no-such-scenario".into();
    let error = preview::run(tdd(), &unknown, None, nobody(), |_| {}).unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidInput);
    assert!(error.message.contains("no-such-scenario"));
}

#[test]
fn a_playbook_with_errors_is_blocked_and_nothing_is_recorded() {
    let (_dir, library) = library();
    let mut broken = tdd();
    broken["workflow"]["build"]["roles"][0]["handoff_to"] = serde_json::json!(["nobody"]);
    let error = preview::run(
        broken,
        &request(ApprovalMode::Scenario, Some("tdd"), Some(1)),
        Some(&library),
        nobody(),
        |_| {},
    )
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::Blocked);
    assert!(library.runs("tdd").unwrap().is_empty());
}
