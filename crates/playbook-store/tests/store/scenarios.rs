//! A playbook's own preview scenarios: kept by name, listed, replaced,
//! deleted, and gone with the playbook when it is purged.

use playbook_store::{ErrorCode, PlaybookId, Store};

fn library() -> (tempfile::TempDir, Store, PlaybookId) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("library.db")).unwrap();
    store
        .create_from_text(
            "id: demo\nname: Demo\nworkflow: {}\n",
            playbook_core::Format::Yaml,
            "first",
        )
        .unwrap();
    (dir, store, PlaybookId::new("demo").unwrap())
}

#[test]
fn scenarios_are_saved_listed_replaced_and_deleted() {
    let (_dir, mut store, id) = library();
    assert!(store.scenarios(&id).unwrap().is_empty());
    store
        .save_scenario(&id, "slow reviewer", "roles: {}\n")
        .unwrap();
    store
        .save_scenario(&id, "a first", "input: {goal: g}\n")
        .unwrap();
    let names: Vec<String> = store
        .scenarios(&id)
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names, ["a first", "slow reviewer"], "by name");
    store
        .save_scenario(&id, "slow reviewer", "roles: {mode:reviewer: {}}\n")
        .unwrap();
    assert_eq!(
        store.scenario(&id, "slow reviewer").unwrap().content,
        "roles: {mode:reviewer: {}}\n",
        "saving a name again replaces its text"
    );
    assert_eq!(store.scenarios(&id).unwrap().len(), 2);
    assert!(store.delete_scenario(&id, "a first").unwrap());
    assert!(!store.delete_scenario(&id, "a first").unwrap());
    assert_eq!(
        store.scenario(&id, "a first").unwrap_err().code(),
        ErrorCode::NotFound
    );
}

#[test]
fn scenarios_survive_reopening_and_go_with_a_purged_playbook() {
    let (dir, mut store, id) = library();
    store.save_scenario(&id, "kept", "roles: {}\n").unwrap();
    drop(store);
    let mut store = Store::open(dir.path().join("library.db")).unwrap();
    assert_eq!(store.scenarios(&id).unwrap().len(), 1);
    store.delete(&id).unwrap();
    assert_eq!(
        store.save_scenario(&id, "x", "").unwrap_err().code(),
        ErrorCode::Deleted,
        "a deleted playbook takes no new scenarios"
    );
    store.undelete(&id).unwrap();
    assert_eq!(
        store.scenarios(&id).unwrap().len(),
        1,
        "undelete keeps them"
    );
    store.delete(&id).unwrap();
    store.purge(&id).unwrap();
    assert_eq!(
        store.scenarios(&id).unwrap_err().code(),
        ErrorCode::NotFound
    );
    // A new playbook under the same id starts without the old scenarios.
    store
        .create_from_text(
            "id: demo\nname: Demo\nworkflow: {}\n",
            playbook_core::Format::Yaml,
            "again",
        )
        .unwrap();
    assert!(store.scenarios(&id).unwrap().is_empty());
}

#[test]
fn bad_names_and_oversized_texts_are_refused() {
    let (_dir, mut store, id) = library();
    for name in [
        "",
        "   ",
        " padded",
        "two\nlines",
        "tab\there",
        &"n".repeat(101),
    ] {
        let err = store.save_scenario(&id, name, "").unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidName, "{name:?}");
    }
    store.save_scenario(&id, &"n".repeat(100), "").unwrap();
    store.save_scenario(&id, "ünïcode — ok", "").unwrap();
    let big = "#".repeat(playbook_store::MAX_SCENARIO_BYTES + 1);
    assert_eq!(
        store.save_scenario(&id, "big", &big).unwrap_err().code(),
        ErrorCode::InvalidInput
    );
    let ghost = PlaybookId::new("ghost").unwrap();
    assert_eq!(
        store.save_scenario(&ghost, "x", "").unwrap_err().code(),
        ErrorCode::NotFound
    );
}

#[test]
fn each_playbook_has_its_own_scenarios() {
    let (_dir, mut store, id) = library();
    store
        .create_from_text(
            "id: other\nname: Other\nworkflow: {}\n",
            playbook_core::Format::Yaml,
            "first",
        )
        .unwrap();
    let other = PlaybookId::new("other").unwrap();
    store.save_scenario(&id, "same", "a: 1\n").unwrap();
    store.save_scenario(&other, "same", "b: 2\n").unwrap();
    assert_eq!(store.scenario(&id, "same").unwrap().content, "a: 1\n");
    assert_eq!(store.scenario(&other, "same").unwrap().content, "b: 2\n");
}

/// A library written before scenarios were kept gains the table on opening
/// and keeps everything else.
#[test]
fn a_library_from_before_scenarios_is_migrated() {
    let (dir, store, id) = library();
    drop(store);
    let path = dir.path().join("library.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        crate::as_of_version_2(&conn);
        conn.execute_batch("DROP TABLE scenarios; PRAGMA user_version = 1;")
            .unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.history(&id).unwrap().len(), 1);
    store.save_scenario(&id, "new", "roles: {}\n").unwrap();
    assert_eq!(store.scenarios(&id).unwrap().len(), 1);
}
