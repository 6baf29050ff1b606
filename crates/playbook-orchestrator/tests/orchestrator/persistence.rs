//! A preview stored in the playbook library replays to the same events.

use playbook_orchestrator::agent::AutoApprove;
use playbook_orchestrator::event::{Outcome, from_jsonl};
use playbook_orchestrator::replay::Verifier;
use playbook_orchestrator::{RunOptions, reference, run_blocking};
use playbook_store::Store;

#[test]
fn a_stored_run_replays_to_identical_events() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("library.db")).unwrap();
    let saved = store
        .create_from_text(
            reference::PLAYBOOK,
            playbook_core::Format::Yaml,
            "reference flow",
        )
        .unwrap();

    // Record a run: events go to the store as they would from the app.
    let playbook = playbook_orchestrator::load_playbook(reference::PLAYBOOK).unwrap();
    let scenario = reference::scenario(30);
    let options = RunOptions {
        seed: 11,
        ..Default::default()
    };
    let preview_jsonl = {
        let mut sink = playbook_orchestrator::event::JsonlSink::new(Vec::new());
        let report = run_blocking(&playbook, &scenario, &options, AutoApprove, &mut sink);
        assert_eq!(report.outcome, Some(Outcome::Passed));
        String::from_utf8(sink.into_inner()).unwrap()
    };
    let run = store
        .create_run(
            &saved.playbook,
            Some(saved.version.id),
            "reference-flow",
            11,
        )
        .unwrap();
    let lines: Vec<(u64, &str)> = preview_jsonl
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u64, l))
        .collect();
    store.append_events(run, &lines).unwrap();
    store.finish_run(run, "passed", None).unwrap();

    // Reopen the library, read the run back and replay it.
    drop(store);
    let store = Store::open(dir.path().join("library.db")).unwrap();
    let stored_run = store.run(run).unwrap();
    let stored_text: String = store
        .run_events(run)
        .unwrap()
        .into_iter()
        .map(|e| e.event + "\n")
        .collect();
    assert_eq!(
        stored_text, preview_jsonl,
        "the library keeps the event log byte for byte"
    );
    let stored = from_jsonl(&stored_text).unwrap();
    let mut verifier = Verifier::new(&stored);
    let options = RunOptions {
        seed: stored_run.seed,
        ..Default::default()
    };
    run_blocking(&playbook, &scenario, &options, AutoApprove, &mut verifier);
    assert_eq!(
        verifier.finish(),
        Ok(()),
        "replaying the stored run reproduces every event"
    );

    // A different seed is a different run: replay reports where it diverges.
    let mut verifier = Verifier::new(&stored);
    let options = RunOptions {
        seed: 12,
        ..Default::default()
    };
    run_blocking(&playbook, &scenario, &options, AutoApprove, &mut verifier);
    assert_eq!(
        verifier.finish().unwrap_err().seq,
        0,
        "the run id differs from the first event on"
    );
}
