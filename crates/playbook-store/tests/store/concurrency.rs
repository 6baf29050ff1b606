//! Two connections to one library file, as when the app and the CLI (or two
//! windows) save at the same time.

use std::sync::{Arc, Barrier};

use playbook_core::Format;
use playbook_store::{Base, Error, ErrorCode, Store};

use crate::{canonical, demo, id};

#[test]
fn the_second_of_two_saves_from_the_same_version_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    let mut alice = Store::open(&path).unwrap();
    let mut bob = Store::open(&path).unwrap();
    alice
        .create_from_text(&demo("shared", "Shared", 3), Format::Yaml, "")
        .unwrap();

    // Both start editing version 1.
    let base = bob.summary(&id("shared")).unwrap().latest.number;
    alice
        .save_version(
            &id("shared"),
            Base::Version(base),
            &demo("shared", "Alice", 3),
            Format::Yaml,
            "",
        )
        .expect("the first save wins");
    let error = bob
        .save_version(
            &id("shared"),
            Base::Version(base),
            &demo("shared", "Bob", 3),
            Format::Yaml,
            "",
        )
        .expect_err("the second save is based on a stale version");
    match &error {
        Error::ConcurrencyConflict { edited, latest, .. } => {
            assert_eq!((*edited, *latest), (1, 2), "the error names both versions");
        }
        other => panic!("expected a conflict, got {other}"),
    }
    assert_eq!(
        alice.draft(&id("shared")).unwrap().map(|d| d.content),
        Some(demo("shared", "Bob", 3)),
        "Bob's text is kept, and visible from the other connection"
    );
}

#[test]
fn concurrent_saves_from_two_connections_lose_nothing() {
    const ROUNDS: usize = 40;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    Store::open(&path)
        .unwrap()
        .create_from_text(&demo("race", "Race", 1), Format::Yaml, "")
        .unwrap();
    let barrier = Arc::new(Barrier::new(2));
    let writers: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|who| {
            let path = path.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let mut store = Store::open(&path).unwrap();
                barrier.wait();
                let (mut saved, mut conflicts) = (Vec::new(), 0);
                for round in 0..ROUNDS {
                    // Read, edit, save naming what was read; on conflict re-read and retry.
                    loop {
                        let base = store.summary(&id("race")).unwrap().latest.number;
                        let text = demo("race", &format!("{who} {round}"), 1);
                        match store.save_version(
                            &id("race"),
                            Base::Version(base),
                            &text,
                            Format::Yaml,
                            who,
                        ) {
                            Ok(s) => {
                                saved.push((s.version.number, text));
                                break;
                            }
                            Err(e) if e.code() == ErrorCode::ConcurrencyConflict => conflicts += 1,
                            Err(e) => panic!("{who}: unexpected error {e}"),
                        }
                    }
                }
                (saved, conflicts)
            })
        })
        .collect();
    let results: Vec<_> = writers.into_iter().map(|w| w.join().unwrap()).collect();
    let store = Store::open(&path).unwrap();
    let history = store.history(&id("race")).unwrap();
    assert_eq!(
        history.len(),
        1 + 2 * ROUNDS,
        "every successful save is one version"
    );
    for (number, text) in results.iter().flat_map(|(saved, _)| saved) {
        assert_eq!(
            store.version(&id("race"), Some(*number)).unwrap().content,
            canonical(text),
            "version {number} holds what its save sent"
        );
    }
    for window in history.windows(2) {
        assert_eq!(
            window[0].parent,
            Some(window[1].number),
            "each version's parent is the one before it"
        );
    }
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
}
