//! Drafts: the text of every refused save is kept, each on its own, and a
//! draft is written over only by whoever holds it.

use playbook_core::Format;
use playbook_store::{Base, Error, ErrorCode, PlaybookId, Store};

use crate::{demo, id, library};

/// A library holding playbook `team` at version 1.
fn team() -> (tempfile::TempDir, Store, PlaybookId) {
    let (dir, mut store) = library();
    let pid = id("team");
    store
        .create_from_text(&demo("team", "Team", 3), Format::Yaml, "")
        .unwrap();
    (dir, store, pid)
}

/// Saves `team` named `name` on version 1, whatever the latest is.
fn save_on_1(
    store: &mut Store,
    pid: &PlaybookId,
    name: &str,
) -> playbook_store::Result<playbook_store::Saved> {
    store.save_version(
        pid,
        Base::Version(1),
        &demo("team", name, 3),
        Format::Yaml,
        "",
    )
}

/// The conflict error's draft number, which the message promises.
fn kept_draft(error: &Error) -> playbook_store::DraftNumber {
    match error {
        Error::ConcurrencyConflict {
            draft: Some(number),
            ..
        } => *number,
        other => panic!("expected a conflict that kept a draft, got {other}"),
    }
}

/// Regression (sweep B, repro 6): two saves from version 1 after version 2
/// was saved were both told "your text is kept as the draft", but the
/// second replaced the first one's text.
#[test]
fn every_refused_save_keeps_its_own_text_as_a_draft() {
    let (_dir, mut store, pid) = team();
    save_on_1(&mut store, &pid, "Team A").unwrap();
    let alice = demo("team", "Team B (alice)", 3);
    let bob = demo("team", "Team C (bob)", 3);
    let refused_alice = store
        .save_version(&pid, Base::Version(1), &alice, Format::Yaml, "")
        .unwrap_err();
    let refused_bob = store
        .save_version(&pid, Base::Version(1), &bob, Format::Yaml, "")
        .unwrap_err();
    let (a, b) = (kept_draft(&refused_alice), kept_draft(&refused_bob));
    assert_ne!(a, b, "each refused text has a draft of its own");
    assert!(
        refused_alice.to_string().contains(&format!("draft {a}")),
        "the message names the draft that holds the text: {refused_alice}"
    );
    let drafts = store.drafts(&pid).unwrap();
    let texts: Vec<&str> = drafts.iter().map(|d| d.content.as_str()).collect();
    assert_eq!(
        texts,
        [bob.as_str(), alice.as_str()],
        "newest first, both kept"
    );
    assert_eq!(
        store.draft(&pid).unwrap().map(|d| d.number),
        Some(b),
        "the newest draft is the one the app opens"
    );
    assert_eq!(
        store.summary(&pid).unwrap().drafts,
        2,
        "the list counts them"
    );
}

#[test]
fn the_same_refused_text_twice_is_kept_once() {
    let (_dir, mut store, pid) = team();
    save_on_1(&mut store, &pid, "Team A").unwrap();
    let mine = demo("team", "Mine", 3);
    let first = store
        .save_version(&pid, Base::Version(1), &mine, Format::Yaml, "")
        .unwrap_err();
    let again = store
        .save_version(&pid, Base::Version(1), &mine, Format::Yaml, "")
        .unwrap_err();
    assert_eq!(kept_draft(&first), kept_draft(&again));
    assert_eq!(store.drafts(&pid).unwrap().len(), 1);
}

/// The app autosaves over the draft it holds; a save refused meanwhile
/// (the CLI, another author) keeps its text beside it, never under it.
#[test]
fn an_autosave_replaces_only_the_draft_it_holds() {
    let (_dir, mut store, pid) = team();
    let typed = store
        .save_draft(&pid, &demo("team", "typing", 3), Some(1), None)
        .unwrap();
    let more = store
        .save_draft(
            &pid,
            &demo("team", "typing more", 3),
            Some(1),
            Some(typed.number),
        )
        .unwrap();
    assert_eq!(
        more.number, typed.number,
        "the holder writes over its own draft"
    );
    assert_eq!(store.drafts(&pid).unwrap().len(), 1);

    save_on_1(&mut store, &pid, "Team A").unwrap();
    let theirs = demo("team", "theirs", 3);
    let refused = store
        .save_version(&pid, Base::Version(1), &theirs, Format::Yaml, "")
        .unwrap_err();
    let kept = kept_draft(&refused);
    store
        .save_draft(
            &pid,
            &demo("team", "typing still", 3),
            Some(1),
            Some(typed.number),
        )
        .unwrap();
    let texts: Vec<String> = store
        .drafts(&pid)
        .unwrap()
        .into_iter()
        .map(|d| d.content)
        .collect();
    assert!(
        texts.contains(&theirs),
        "the refused text survives the autosave"
    );

    // Discarding the autosave leaves the refused text.
    assert!(store.discard_draft(&pid, typed.number).unwrap());
    assert_eq!(store.draft(&pid).unwrap().map(|d| d.number), Some(kept));
    // A number that is gone is never given to another draft: writing to it
    // adds a draft instead of replacing one.
    let after = store
        .save_draft(&pid, &demo("team", "new", 3), Some(2), Some(typed.number))
        .unwrap();
    assert_ne!(after.number, typed.number);
    assert_eq!(store.drafts(&pid).unwrap().len(), 2);
}

#[test]
fn a_successful_save_removes_only_the_drafts_that_hold_it() {
    let (_dir, mut store, pid) = team();
    save_on_1(&mut store, &pid, "Team A").unwrap();
    let (b, c) = (demo("team", "B", 3), demo("team", "C", 3));
    for text in [&b, &c] {
        store
            .save_version(&pid, Base::Version(1), text, Format::Yaml, "")
            .unwrap_err();
    }
    // Someone merges and saves B's text on top of version 2.
    store
        .save_version(&pid, Base::Version(2), &b, Format::Yaml, "")
        .unwrap();
    let left: Vec<String> = store
        .drafts(&pid)
        .unwrap()
        .into_iter()
        .map(|d| d.content)
        .collect();
    assert_eq!(left, [c], "B's draft is saved; C's is still waiting");
}

/// The conflict's hint must work: the refused text is a draft, not a
/// version, so it names the command that prints that draft.
#[test]
fn a_conflict_hint_names_the_draft_and_both_versions() {
    let (_dir, mut store, pid) = team();
    save_on_1(&mut store, &pid, "Team A").unwrap();
    let refused = save_on_1(&mut store, &pid, "B").unwrap_err();
    let number = kept_draft(&refused);
    let hint = refused.hint();
    assert!(hint.contains("`playbook db diff team 1 2`"), "{hint}");
    assert!(
        hint.contains(&format!("`playbook db draft team --number {number}`")),
        "{hint}"
    );
    assert!(hint.contains("--base 2"), "{hint}");
    assert!(!hint.contains('<'), "no placeholder to fill in: {hint}");
}

/// A template keeps no draft, so its conflict must not say it did.
#[test]
fn a_template_conflict_does_not_claim_a_kept_draft() {
    let (_dir, mut store) = library();
    let role = playbook_core::templates::role_template(playbook_core::RoleMode::Worker);
    store
        .save_template("team-worker", &role, Base::Latest, "")
        .unwrap();
    let mut edited = role.clone();
    edited.responsibilities = Some("Edited".into());
    store
        .save_template("team-worker", &edited, Base::Version(1), "")
        .unwrap();
    let refused = store
        .save_template("team-worker", &role, Base::Version(1), "")
        .unwrap_err();
    assert_eq!(refused.code(), ErrorCode::ConcurrencyConflict);
    let message = refused.to_string();
    assert!(!message.contains("kept"), "{message}");
    assert!(message.contains("nothing was saved"), "{message}");
    assert!(
        refused
            .hint()
            .contains("playbook db template show team-worker")
    );
}

/// A library from before drafts were numbered opens, and its one draft per
/// playbook is still there, the newest, with its base and format.
#[test]
fn a_version_3_library_keeps_its_draft_when_drafts_are_numbered() {
    let (dir, mut store, pid) = team();
    let text = "{\"id\": \"team\", \"name\": \"typed\"}";
    store
        .save_draft_as(&pid, text, Format::Json, Some(1), None)
        .unwrap();
    drop(store);
    let path = dir.path().join("library.db");
    crate::as_of_version_3(&rusqlite::Connection::open(&path).unwrap());

    let mut store = Store::open(&path).expect("a version-3 library opens");
    let draft = store.draft(&pid).unwrap().expect("the draft is kept");
    assert_eq!(
        (draft.content.as_str(), draft.format, draft.base),
        (text, Format::Json, Some(1))
    );
    // And it is a draft like any other from then on.
    save_on_1(&mut store, &pid, "A").unwrap();
    save_on_1(&mut store, &pid, "B").unwrap_err();
    assert_eq!(store.drafts(&pid).unwrap().len(), 2);
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
}
