//! Creating under a free id, finding an unchanged copy, and deleting then
//! restoring: a create never collides with a deleted playbook's id.

use playbook_core::Format;
use playbook_core::model::Playbook;
use playbook_store::{Base, ErrorCode};

use crate::{demo, id, library};

fn typed(text: &str) -> Playbook {
    let value = playbook_core::document::parse_value(text, Format::Yaml).expect("parses");
    playbook_core::document::from_value(value).expect("a playbook")
}

#[test]
fn create_unique_skips_ids_held_by_live_and_deleted_playbooks() {
    let (_dir, mut store) = library();
    let first = store
        .create_unique(typed(&demo("team", "Team", 3)), "one")
        .unwrap();
    assert_eq!(first.playbook.as_str(), "team");
    let second = store
        .create_unique(typed(&demo("team", "Team", 3)), "two")
        .unwrap();
    assert_eq!(second.playbook.as_str(), "team-2");
    assert_eq!(store.summary(&id("team-2")).unwrap().name, "Team (2)");

    // A deleted playbook still holds its id (it can be restored), so the
    // next create takes the next free one rather than failing.
    store.delete(&id("team-2")).unwrap();
    let third = store
        .create_unique(typed(&demo("team", "Team", 3)), "three")
        .unwrap();
    assert_eq!(third.playbook.as_str(), "team-3");
    // The plain create still refuses a taken id, with its code.
    let taken = store
        .create(typed(&demo("team-2", "Team", 3)), "again")
        .unwrap_err();
    assert_eq!(taken.code(), ErrorCode::AlreadyExists);
    // Restoring the deleted one gives back its whole history under its id.
    store.undelete(&id("team-2")).unwrap();
    assert_eq!(store.history(&id("team-2")).unwrap().len(), 1);
}

#[test]
fn create_unique_keeps_a_200_character_id_valid() {
    let (_dir, mut store) = library();
    let long = "x".repeat(200);
    store
        .create_unique(typed(&demo(&long, "Long", 3)), "one")
        .unwrap();
    let second = store
        .create_unique(typed(&demo(&long, "Long", 3)), "two")
        .unwrap();
    assert_eq!(second.playbook.as_str().chars().count(), 200);
    assert!(second.playbook.as_str().ends_with("-2"));
}

#[test]
fn find_copy_finds_an_unchanged_live_copy_only() {
    let (_dir, mut store) = library();
    let example = typed(&demo("ex", "Example", 3));
    assert_eq!(store.find_copy(&example).unwrap(), None);
    store
        .create_unique(example.clone(), "from the example")
        .unwrap();
    assert_eq!(store.find_copy(&example).unwrap(), Some(id("ex")));

    // An edited copy is not the example any more.
    store
        .save_version(
            &id("ex"),
            Base::Latest,
            &demo("ex", "Example", 5),
            Format::Yaml,
            "edited",
        )
        .unwrap();
    assert_eq!(store.find_copy(&example).unwrap(), None);

    // The next copy made from the example is found again, so opening the
    // example twice gives one copy, not two.
    let copy = store.create_unique(example.clone(), "again").unwrap();
    assert_eq!(copy.playbook.as_str(), "ex-2");
    assert_eq!(store.find_copy(&example).unwrap(), Some(id("ex-2")));
    // A deleted copy is not found; a playbook that only looks like a copy
    // by its id (`ex-02`, `ex-x`) is not one either.
    store.delete(&id("ex-2")).unwrap();
    assert_eq!(store.find_copy(&example).unwrap(), None);
    for other in ["ex-02", "ex-x", "ex-3-3"] {
        let mut lookalike = example.clone();
        lookalike.id = other.into();
        store.create(lookalike, "look-alike").unwrap();
    }
    assert_eq!(store.find_copy(&example).unwrap(), None);
    let third = store.create_unique(example.clone(), "third").unwrap();
    assert_eq!(third.playbook.as_str(), "ex-3");
    assert_eq!(store.find_copy(&example).unwrap(), Some(id("ex-3")));
}

#[test]
fn a_deleted_playbook_refuses_saves_until_restored() {
    let (_dir, mut store) = library();
    store
        .create_unique(typed(&demo("gone", "Gone", 3)), "one")
        .unwrap();
    store.delete(&id("gone")).unwrap();
    let refused = store
        .save_version(
            &id("gone"),
            Base::Version(1),
            &demo("gone", "Gone", 4),
            Format::Yaml,
            "after delete",
        )
        .unwrap_err();
    assert_eq!(refused.code(), ErrorCode::Deleted);
    // Restoring twice is refused with its own code, not a silent success.
    store.undelete(&id("gone")).unwrap();
    assert_eq!(
        store.undelete(&id("gone")).unwrap_err().code(),
        ErrorCode::NotDeleted
    );
    store
        .save_version(
            &id("gone"),
            Base::Version(1),
            &demo("gone", "Gone", 4),
            Format::Yaml,
            "after restore",
        )
        .unwrap();
}

#[test]
fn messages_name_a_playbook_by_its_id_not_a_debug_dump() {
    let (_dir, mut store) = library();
    store
        .create_unique(typed(&demo("named", "Named", 3)), "one")
        .unwrap();
    let missing = store.version(&id("named"), Some(9)).unwrap_err();
    let message = missing.to_string();
    assert!(
        message.contains("`named`") && !message.contains("PlaybookId"),
        "{message}"
    );
    store.delete(&id("named")).unwrap();
    let deleted = store.rename(&id("named"), "Other").unwrap_err().to_string();
    assert!(
        deleted.contains("`named`") && !deleted.contains("PlaybookId"),
        "{deleted}"
    );
}
