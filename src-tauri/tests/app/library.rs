//! The library as the UI reaches it: opening an example twice gives one
//! copy, creating never collides with a deleted playbook's id, and a
//! deleted playbook comes back with its history.

use playbook_studio::library::Library;
use serde_json::json;

fn library() -> (tempfile::TempDir, Library) {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::open(dir.path().join("library.db"));
    (dir, library)
}

#[test]
fn opening_an_example_twice_opens_the_same_unchanged_copy() {
    let (_dir, library) = library();
    // A new library holds the examples: the first open is the seeded copy.
    let first = library.open_example("tdd", false).unwrap();
    assert_eq!(first.playbook.as_str(), "tdd");
    assert!(!first.created);
    let again = library.open_example("tdd", false).unwrap();
    assert_eq!(again.playbook.as_str(), "tdd");

    // Once the copy is edited, the example gets a fresh copy, found again next time.
    let mut opened = library.open_playbook("tdd").unwrap().document;
    opened["name"] = json!("Our TDD");
    library.save("tdd", 1, opened, "edited", None).unwrap();
    let fresh = library.open_example("tdd", false).unwrap();
    assert!(fresh.created);
    assert_eq!(fresh.playbook.as_str(), "tdd-2");
    assert_eq!(
        library
            .open_example("tdd", false)
            .unwrap()
            .playbook
            .as_str(),
        "tdd-2"
    );
    // "New copy" is explicit.
    let copy = library.open_example("tdd", true).unwrap();
    assert!(copy.created);
    assert_eq!(copy.playbook.as_str(), "tdd-3");
    assert_eq!(
        library
            .list(false)
            .unwrap()
            .iter()
            .filter(|p| p.id.as_str().starts_with("tdd"))
            .count(),
        3
    );

    let unknown = library.open_example("no-such-example", false).unwrap_err();
    assert!(
        unknown.message.contains("no-such-example"),
        "{}",
        unknown.message
    );
}

#[test]
fn the_example_after_its_copy_was_deleted_is_a_new_copy_not_an_error() {
    let (_dir, library) = library();
    library.delete("tdd").unwrap();
    let closed = library.open_playbook("tdd").unwrap_err();
    assert!(closed.message.contains("deleted"), "{}", closed.message);
    // The deleted `tdd` keeps its id for restore; the example goes to `tdd-2`.
    let opened = library.open_example("tdd", false).unwrap();
    assert_eq!(opened.playbook.as_str(), "tdd-2");
    library.delete("tdd-2").unwrap();
    let next = library.open_example("tdd", false).unwrap();
    assert_eq!(next.playbook.as_str(), "tdd-3");

    // A create of a document whose id a deleted playbook holds never fails.
    let blank = json!({"schema_version": "1.0.0", "id": "tdd", "name": "Mine", "workflow": {}});
    let saved = library.create(blank, "new").unwrap();
    assert_eq!(saved.playbook.as_str(), "tdd-4");

    // The deleted ones are listed only when asked, marked as deleted.
    let all = library.list(true).unwrap();
    assert!(
        all.iter()
            .any(|p| p.id.as_str() == "tdd" && p.deleted_at.is_some())
    );
    assert!(
        !library
            .list(false)
            .unwrap()
            .iter()
            .any(|p| p.id.as_str() == "tdd")
    );

    // Undo of delete brings back the playbook and its history.
    library.undelete("tdd").unwrap();
    assert!(
        library
            .list(false)
            .unwrap()
            .iter()
            .any(|p| p.id.as_str() == "tdd")
    );
    assert_eq!(library.history("tdd").unwrap().len(), 1);
    let twice = library.undelete("tdd").unwrap_err();
    assert!(twice.message.contains("tdd"), "{}", twice.message);
}

#[test]
fn a_stored_version_reads_back_as_a_document() {
    let (_dir, library) = library();
    let mut document = library.open_playbook("pairing").unwrap().document;
    let name = document["name"].clone();
    document["name"] = json!("Pairing, edited");
    library
        .save("pairing", 1, document, "my note", None)
        .unwrap();
    let first = library.version("pairing", 1).unwrap();
    assert_eq!(first.document["name"], name);
    assert_eq!(first.info.number, 1);
    let second = library.version("pairing", 2).unwrap();
    assert_eq!(second.info.note, "my note");
    assert!(library.version("pairing", 9).is_err());
    assert!(library.version("no/such", 1).is_err());
}

#[test]
fn a_create_of_something_that_is_not_a_playbook_is_refused_with_findings() {
    let (_dir, library) = library();
    let refused = library.create(json!({"id": 5}), "x").unwrap_err();
    assert!(refused.details.is_some(), "{refused:?}");
}

/// The editor tells "deleted elsewhere" from other refusals by the store's
/// code in `details` and offers to restore; the code must stay `DELETED`.
#[test]
fn a_save_to_a_playbook_deleted_elsewhere_is_refused_with_the_deleted_code() {
    let (_dir, library) = library();
    let document = library.open_playbook("pairing").unwrap().document;
    library.delete("pairing").unwrap();
    let refused = library
        .save("pairing", 1, document.clone(), "x", None)
        .unwrap_err();
    let details = refused.details.clone().unwrap_or_default();
    assert_eq!(details["code"], "DELETED", "{refused:?}");
    library.undelete("pairing").unwrap();
    library
        .save("pairing", 1, document, "after restore", None)
        .unwrap();
}

/// The editor autosaves over, and discards, only the draft it holds: a
/// save refused elsewhere (the CLI, with the same library open) keeps its
/// text beside the editor's, and the editor never drops it.
#[test]
fn the_editors_autosave_and_discard_leave_a_draft_kept_elsewhere_alone() {
    let (dir, library) = library();
    let opened = library.open_playbook("tdd").unwrap();
    let mut doc = opened.document.clone();
    doc["name"] = json!("Typing");
    library
        .save_draft("tdd", doc.clone(), Some(1), None)
        .unwrap();
    doc["name"] = json!("Typing more");
    library
        .save_draft("tdd", doc.clone(), Some(1), None)
        .unwrap();

    // Elsewhere: version 2 is saved, then a save from version 1 is refused.
    let mut cli = playbook_store::Store::open(dir.path().join("library.db")).unwrap();
    let pid = playbook_store::PlaybookId::new("tdd").unwrap();
    let text = cli.export(&pid, None, playbook_core::Format::Yaml).unwrap();
    let v2 = text.replacen("name: ", "name: V2 ", 1);
    let theirs = text.replacen("name: ", "name: Theirs ", 1);
    cli.save_version(
        &pid,
        playbook_store::Base::Version(1),
        &v2,
        playbook_core::Format::Yaml,
        "",
    )
    .unwrap();
    cli.save_version(
        &pid,
        playbook_store::Base::Version(1),
        &theirs,
        playbook_core::Format::Yaml,
        "",
    )
    .unwrap_err();

    doc["name"] = json!("Typing still");
    library.save_draft("tdd", doc, Some(1), None).unwrap();
    let texts = |cli: &playbook_store::Store| -> Vec<String> {
        cli.drafts(&pid)
            .unwrap()
            .into_iter()
            .map(|d| d.content)
            .collect()
    };
    assert_eq!(
        texts(&cli).len(),
        2,
        "the editor's draft and the refused text"
    );
    assert!(texts(&cli).contains(&theirs));
    assert!(library.discard_draft("tdd").unwrap());
    assert_eq!(texts(&cli), [theirs], "only the editor's draft went");
    // Opened again, the editor shows the kept text and holds it from then on.
    let reopened = library.open_playbook("tdd").unwrap();
    assert!(reopened.draft.is_some());
    assert!(library.discard_draft("tdd").unwrap());
    assert!(texts(&cli).is_empty());
}
