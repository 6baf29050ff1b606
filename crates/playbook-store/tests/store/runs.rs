//! Preview runs and their events, as the orchestrator records them.

use playbook_core::Format;
use playbook_store::{ErrorCode, RunId};

use crate::{demo, id, library};

#[test]
fn a_run_records_its_events_in_order_and_finishes() {
    let (_dir, mut store) = library();
    let saved = store
        .create_from_text(&demo("r", "R", 3), Format::Yaml, "")
        .unwrap();
    let run = store
        .create_run(&id("r"), Some(saved.version.id), "happy-path", u64::MAX)
        .unwrap();
    store
        .append_events(
            run,
            &[
                (1, r#"{"kind":"start"}"#),
                (2, r#"{"kind":"assign","role":"coder"}"#),
            ],
        )
        .unwrap();
    // A retried append of the same events is harmless.
    store
        .append_events(run, &[(2, r#"{"kind":"assign","role":"coder"}"#)])
        .unwrap();
    store
        .append_events(run, &[(3, r#"{"kind":"end"}"#)])
        .unwrap();
    store
        .finish_run(run, "passed", Some(r#"{"rounds":1}"#))
        .unwrap();

    let events = store.run_events(run).unwrap();
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
    let recorded = store.run(run).unwrap();
    assert_eq!(
        recorded.seed,
        u64::MAX,
        "seeds round-trip through SQLite's signed integers"
    );
    assert_eq!((recorded.status.as_str(), recorded.events), ("passed", 3));
    assert!(recorded.finished_at.is_some());
    assert_eq!(store.list_runs(Some(&id("r"))).unwrap().len(), 1);
}

#[test]
fn an_event_with_a_reused_sequence_number_and_other_content_is_refused() {
    let (_dir, mut store) = library();
    store
        .create_from_text(&demo("r", "R", 3), Format::Yaml, "")
        .unwrap();
    let run = store.create_run(&id("r"), None, "s", 1).unwrap();
    store.append_events(run, &[(1, "{}")]).unwrap();
    let error = store
        .append_events(run, &[(2, "{}"), (1, r#"{"other":true}"#)])
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::AlreadyExists);
    assert_eq!(
        store.run_events(run).unwrap().len(),
        1,
        "the refused batch added nothing"
    );
    assert_eq!(
        store
            .append_events(run, &[(3, "not json")])
            .unwrap_err()
            .code(),
        ErrorCode::InvalidInput,
        "events must be JSON"
    );
}

#[test]
fn runs_of_a_purged_playbook_go_with_it() {
    let (_dir, mut store) = library();
    store
        .create_from_text(&demo("gone", "G", 3), Format::Yaml, "")
        .unwrap();
    let run = store.create_run(&id("gone"), None, "s", 1).unwrap();
    store.append_events(run, &[(1, "{}")]).unwrap();
    store.delete(&id("gone")).unwrap();
    store.purge(&id("gone")).unwrap();
    assert_eq!(store.run(run).unwrap_err().code(), ErrorCode::NotFound);
    assert_eq!(
        store.run_events(RunId(run.0)).unwrap_err().code(),
        ErrorCode::NotFound
    );
}

#[test]
fn a_run_is_stored_without_the_secrets_it_was_given() {
    let (_dir, mut store) = library();
    let saved = store
        .create_from_text(&demo("s", "S", 3), Format::Yaml, "")
        .unwrap();
    let run = store
        .create_run(
            &id("s"),
            Some(saved.version.id),
            "scenario token=st-name-1x9q",
            1,
        )
        .unwrap();
    let event = r#"{"type":"task_failed","reason":"boom\napi_key=st-event-2x9q","args":{"password":"st-event-3x9q"}}"#;
    store.append_events(run, &[(0, event)]).unwrap();
    // A retry of the same raw event still matches what was stored.
    store.append_events(run, &[(0, event)]).unwrap();
    store
        .finish_run(
            run,
            "failed",
            Some(r#"{"note":"ghp_Sq8Wm3Kx7Vb2Nc5Lp9Rt4Hy6Jd1Fs0Ga2Ek7"}"#),
        )
        .unwrap();
    let recorded = store.run(run).unwrap();
    let events = store.run_events(run).unwrap();
    let all = format!(
        "{} {:?} {}",
        recorded.scenario, recorded.summary, events[0].event
    );
    for secret in [
        "st-name-1x9q",
        "st-event-2x9q",
        "st-event-3x9q",
        "Sq8Wm3Kx7Vb2Nc5Lp9Rt4Hy6Jd1Fs0Ga2Ek7",
    ] {
        assert!(!all.contains(secret), "{secret} stored: {all}");
    }
    assert!(
        events[0].event.contains("task_failed"),
        "the event itself is kept"
    );
}

#[test]
fn an_event_code_must_be_a_documented_orchestrator_code() {
    let (_dir, mut store) = library();
    store
        .create_from_text(&demo("codes", "C", 3), Format::Yaml, "")
        .unwrap();
    let run = store.create_run(&id("codes"), None, "s", 1).unwrap();
    store
        .append_events(
            run,
            &[
                (1, r#"{"type":"task_blocked","code":"AGENT_BLOCKED"}"#),
                (2, r#"{"type":"note"}"#),
                (3, "[1,2]"),
                (4, "[7]"),
                (
                    5,
                    r#"{"nested":{"code":"not checked: only the event's own code is"}}"#,
                ),
            ],
        )
        .unwrap();
    for (seq, bad) in [
        (6, r#"{"type":"task_blocked","code":"BANANA"}"#),
        (7, r#"{"code":"agent_blocked"}"#),
        (8, r#"{"code":7}"#),
    ] {
        let error = store.append_events(run, &[(seq, bad)]).unwrap_err();
        assert_eq!(error.code(), ErrorCode::InvalidInput, "{bad}: {error}");
        assert!(
            error.to_string().contains("docs/error-codes.md"),
            "the message says where the codes are: {error}"
        );
    }
    assert_eq!(
        store.run_events(run).unwrap().len(),
        5,
        "nothing refused was stored"
    );
}
