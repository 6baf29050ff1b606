//! One author's journey through the library, start to end.

use playbook_core::Format;
use playbook_store::{Base, ErrorCode, Store};

use crate::{demo, id, library};

#[test]
fn create_save_edit_conflict_restore_diff_export_import() {
    let (dir, mut store) = library();
    let pid = id("story");

    // Create.
    let v1 = store
        .create_from_text(&demo("story", "Story", 3), Format::Yaml, "first draft")
        .expect("a valid playbook is created");
    assert_eq!(v1.version.number, 1, "a new playbook starts at version 1");
    assert!(
        v1.version.validity.is_valid(),
        "the demo playbook has no errors"
    );

    // Save an edit naming the version edited.
    let v2 = store
        .save_version(
            &pid,
            Base::Version(1),
            &demo("story", "Story", 5),
            Format::Yaml,
            "more rounds",
        )
        .expect("saving on top of the latest version succeeds");
    assert_eq!(
        (v2.version.number, v2.version.parent),
        (2, Some(1)),
        "version 2 records its parent"
    );

    // A second author still on version 1 conflicts; their text becomes the draft.
    let theirs = demo("story", "Story (theirs)", 3);
    let conflict = store
        .save_version(&pid, Base::Version(1), &theirs, Format::Yaml, "stale")
        .expect_err("version 1 is no longer the latest");
    assert_eq!(conflict.code(), ErrorCode::ConcurrencyConflict);
    let message = conflict.to_string();
    assert!(
        message.contains("version 1") && message.contains("version 2"),
        "the conflict names the edited and the latest version: {message}"
    );
    let draft = store
        .draft(&pid)
        .unwrap()
        .expect("the refused text is kept as the draft");
    assert_eq!(
        draft.content, theirs,
        "the draft holds exactly what the author typed"
    );
    assert_eq!(
        draft.base,
        Some(1),
        "the draft remembers the version it was based on"
    );
    assert_eq!(
        store.history(&pid).unwrap().len(),
        2,
        "the refused save added no version"
    );

    // Restore version 1 as a new version.
    let v3 = store
        .restore(&pid, 1, None)
        .expect("an old version restores");
    assert_eq!(
        v3.version.number, 3,
        "restore adds a version, history only grows"
    );
    assert_eq!(
        store.version(&pid, Some(3)).unwrap().content,
        store.version(&pid, Some(1)).unwrap().content,
        "the restored version has the old content byte for byte"
    );

    // Diff in domain terms.
    let diff = store.diff(&pid, 1, 2).unwrap();
    let sentences: Vec<&str> = diff.sentences().collect();
    assert_eq!(
        sentences,
        ["retry limit of coder 3 → 5"],
        "the one edit, said plainly"
    );

    // Export and import into a fresh library: identical content.
    let yaml = store.export(&pid, None, Format::Yaml).unwrap();
    let file = dir.path().join("story.yaml");
    std::fs::write(&file, &yaml).unwrap();
    let mut other = Store::open(dir.path().join("other.db")).unwrap();
    let imported = other
        .import(&[playbook_store::Source::read(&file).unwrap()])
        .unwrap();
    assert_eq!(
        other.version(&pid, None).unwrap().content,
        store.version(&pid, None).unwrap().content,
        "export → import gives the same canonical content"
    );
    assert_eq!(
        imported[0].saved.version.content_hash, v3.version.content_hash,
        "and therefore the same hash"
    );

    // Reopen: everything is still there.
    drop(store);
    let store = Store::open(dir.path().join("library.db")).unwrap();
    assert_eq!(
        store.history(&pid).unwrap().len(),
        3,
        "versions survive closing the library"
    );
    assert_eq!(store.integrity_check().unwrap(), ["ok"]);
}

#[test]
fn a_new_library_holds_every_example_playbook() {
    let (_dir, store) = library();
    let listed: Vec<String> = store
        .list(false)
        .unwrap()
        .into_iter()
        .map(|p| p.id.to_string())
        .collect();
    for (file, text) in playbook_store::example_files() {
        let report = playbook_core::validate_source(text, Format::Yaml, &Default::default());
        let playbook = report
            .playbook
            .unwrap_or_else(|| panic!("example {file} must parse to be seeded"));
        assert!(
            listed.contains(&playbook.id),
            "example {file} ({}) is seeded",
            playbook.id
        );
    }
    assert!(
        !playbook_store::example_files().is_empty(),
        "examples are embedded in the binary"
    );
}

#[test]
fn saving_identical_content_adds_no_version() {
    let (_dir, mut store) = library();
    store
        .create_from_text(&demo("same", "Same", 3), Format::Yaml, "")
        .unwrap();
    // JSON with other formatting and key order is the same playbook.
    let json = store.export(&id("same"), None, Format::Json).unwrap();
    let saved = store
        .save_version(&id("same"), Base::Version(1), &json, Format::Json, "")
        .unwrap();
    assert!(saved.unchanged, "a no-op save is reported as unchanged");
    assert_eq!(
        store.history(&id("same")).unwrap().len(),
        1,
        "and adds nothing to history"
    );
}

#[test]
fn an_invalid_save_is_refused_but_the_text_is_kept_as_draft() {
    let (_dir, mut store) = library();
    store
        .create_from_text(&demo("d", "D", 3), Format::Yaml, "")
        .unwrap();
    let broken = "id: d\nname: [unclosed\n";
    let error = store
        .save_version(&id("d"), Base::Version(1), broken, Format::Yaml, "")
        .expect_err("broken YAML is not a version");
    assert_eq!(error.code(), ErrorCode::InvalidPlaybook);
    assert_eq!(
        store.draft(&id("d")).unwrap().map(|d| d.content),
        Some(broken.to_string()),
        "nothing typed is lost: the broken text is the draft"
    );
    // Saving the draft's fixed text clears the draft.
    let fixed = demo("d", "D fixed", 3);
    // The author fixes the kept draft itself (the app holds it by number).
    let kept = store.draft(&id("d")).unwrap().unwrap().number;
    store
        .save_draft(&id("d"), &fixed, Some(1), Some(kept))
        .unwrap();
    store
        .save_version(&id("d"), Base::Version(1), &fixed, Format::Yaml, "")
        .unwrap();
    assert_eq!(
        store.draft(&id("d")).unwrap(),
        None,
        "a saved draft is no longer pending"
    );
}

#[test]
fn semantic_errors_are_saved_and_counted() {
    let (_dir, mut store) = library();
    let text = "schema_version: 1.0.0\nid: e\nname: E\nworkflow:\n  build:\n    roles:\n      - name: a\n        handoff_to: [nobody]\n";
    let saved = store
        .create_from_text(text, Format::Yaml, "")
        .expect("work in progress may be saved");
    assert!(
        saved.version.validity.errors >= 1,
        "the unknown handoff counts as an error"
    );
    let listed = store
        .list(false)
        .unwrap()
        .into_iter()
        .find(|p| p.id == id("e"))
        .unwrap();
    assert_eq!(
        listed.latest.validity, saved.version.validity,
        "the list shows the latest validity"
    );
}

#[test]
fn rename_duplicate_delete_undelete_and_purge() {
    let (_dir, mut store) = library();
    let pid = id("life");
    store
        .create_from_text(&demo("life", "Life", 3), Format::Yaml, "")
        .unwrap();

    let renamed = store.rename(&pid, "A long life").unwrap();
    assert_eq!(renamed.version.number, 2, "a rename is a new version");
    assert_eq!(store.summary(&pid).unwrap().name, "A long life");

    let copy = store.duplicate(&pid, &id("life-copy"), None).unwrap();
    assert_eq!(
        store.playbook(&copy.playbook, None).unwrap().id,
        "life-copy",
        "the copy carries its new id"
    );

    store.delete(&pid).unwrap();
    assert!(
        store.list(false).unwrap().iter().all(|p| p.id != pid),
        "deleted playbooks leave the list"
    );
    assert!(
        store.list(true).unwrap().iter().any(|p| p.id == pid),
        "but are still there"
    );
    let save = store.save_version(&pid, Base::Latest, &demo("life", "x", 3), Format::Yaml, "");
    assert_eq!(
        save.unwrap_err().code(),
        ErrorCode::Deleted,
        "a deleted playbook cannot change"
    );

    store.undelete(&pid).unwrap();
    assert_eq!(
        store.history(&pid).unwrap().len(),
        2,
        "undelete brings back the whole history"
    );

    assert_eq!(
        store.purge(&pid).unwrap_err().code(),
        ErrorCode::NotDeleted,
        "only deleted playbooks purge"
    );
    store.delete(&pid).unwrap();
    store.purge(&pid).unwrap();
    assert_eq!(
        store.version(&pid, None).unwrap_err().code(),
        ErrorCode::NotFound,
        "purge is for good"
    );
    assert!(
        store.version(&id("life-copy"), None).is_ok(),
        "the copy is independent"
    );
}

/// The library never writes a name the schema refuses (PB002): rename,
/// duplicate and create refuse it before saving, and the names it makes
/// itself (` (copy)`, ` (2)`) are shortened to fit.
#[test]
fn names_the_schema_refuses_are_refused_before_anything_is_saved() {
    let (_dir, mut store) = library();
    let pid = id("named");
    store
        .create_from_text(&demo("named", "Named", 3), Format::Yaml, "")
        .unwrap();
    let too_long = "x".repeat(201);
    for bad in ["", "   ", too_long.as_str()] {
        let error = store.rename(&pid, bad).unwrap_err();
        assert_eq!(error.code(), ErrorCode::InvalidName, "{bad:?}");
        assert!(
            error.hint().contains("1 to 200 characters"),
            "{}",
            error.hint()
        );
        assert_eq!(
            store
                .duplicate(&pid, &id("named-copy"), Some(bad))
                .unwrap_err()
                .code(),
            ErrorCode::InvalidName
        );
        let blank = playbook_store::blank(&id("blank"), bad);
        assert_eq!(
            store.create(blank, "").unwrap_err().code(),
            ErrorCode::InvalidName
        );
    }
    let error = store.rename(&pid, &too_long).unwrap_err().to_string();
    assert!(error.contains("201 characters"), "{error}");
    assert!(error.len() < 200, "a long name is quoted cut: {error}");
    assert_eq!(store.history(&pid).unwrap().len(), 1, "nothing was saved");
    assert!(store.summary(&id("named-copy")).is_err());

    // 200 characters is the limit, counted in characters, not bytes.
    let longest = "é".repeat(200);
    let renamed = store.rename(&pid, &longest).unwrap();
    assert!(
        renamed.version.validity.is_valid(),
        "{:?}",
        renamed.version.validity
    );
    let copy = store.duplicate(&pid, &id("named-copy"), None).unwrap();
    let name = store.summary(&copy.playbook).unwrap().name;
    assert!(
        name.ends_with(" (copy)") && name.chars().count() == 200,
        "{name}"
    );
    assert!(
        copy.version.validity.is_valid(),
        "{:?}",
        copy.version.validity
    );
}

/// Regression (sweep B, repro 7): a name with an escape sequence, a newline
/// or a bidi override was accepted by rename and import, and `db list`
/// printed it raw. No way in lets such a name into the library: rename,
/// duplicate, create, create from text, save (the text is kept as a draft)
/// and import refuse it, naming the character and its place.
#[test]
fn names_with_control_or_bidi_characters_never_enter_the_library() {
    let (_dir, mut store) = library();
    let pid = id("named");
    store
        .create_from_text(&demo("named", "Named", 3), Format::Yaml, "")
        .unwrap();
    let forged = "Evil\u{1b}[31mRED\nfake-id   v99  valid";
    let error = store.rename(&pid, forged).unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidName);
    let message = error.to_string();
    assert!(message.contains("character 5 is U+001B"), "{message}");
    assert!(
        !message
            .chars()
            .any(playbook_core::printable::is_unprintable),
        "the refusal shows the name escaped: {message:?}"
    );
    assert_eq!(
        store
            .duplicate(&pid, &id("copy"), Some(forged))
            .unwrap_err()
            .code(),
        ErrorCode::InvalidName
    );
    let blank = playbook_store::blank(&id("blank"), "x\u{202e}gnp.exe");
    assert_eq!(
        store.create(blank, "").unwrap_err().code(),
        ErrorCode::InvalidName
    );

    // In text: YAML's escapes make the characters.
    let text = "schema_version: 1.0.0\nid: named\nname: \"x\\e[2J\\u202egnp.exe\"\nworkflow: {}\n";
    let error = store
        .save_version(&pid, Base::Version(1), text, Format::Yaml, "")
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidName);
    assert_eq!(
        store.draft(&pid).unwrap().map(|d| d.content),
        Some(text.to_string()),
        "the refused text is kept as a draft, as every refused save's is"
    );
    let other = text.replace("id: named", "id: other");
    assert_eq!(
        store
            .create_from_text(&other, Format::Yaml, "")
            .unwrap_err()
            .code(),
        ErrorCode::InvalidName
    );
    let error = store
        .import(&[playbook_store::Source {
            name: "evil.yaml".into(),
            text: other,
            format: Format::Yaml,
        }])
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::ImportRefused);
    assert!(
        error.to_string().contains("evil.yaml") && error.to_string().contains("U+001B"),
        "the refusal names the file and the character: {error}"
    );
    assert_eq!(store.history(&pid).unwrap().len(), 1, "nothing was saved");
    assert!(
        store
            .list(true)
            .unwrap()
            .iter()
            .all(|p| !p.name.chars().any(playbook_core::printable::is_unprintable)),
        "no listed name holds such a character"
    );
}

#[test]
fn a_text_with_another_id_is_not_saved_under_this_one() {
    let (_dir, mut store) = library();
    store
        .create_from_text(&demo("mine", "Mine", 3), Format::Yaml, "")
        .unwrap();
    let error = store
        .save_version(
            &id("mine"),
            Base::Latest,
            &demo("yours", "Yours", 3),
            Format::Yaml,
            "",
        )
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidPlaybook, "{error}");
}

#[test]
fn history_of_an_unknown_playbook_is_not_found() {
    let (_dir, store) = library();
    assert_eq!(
        store.history(&id("nope")).unwrap_err().code(),
        ErrorCode::NotFound
    );
    let _: &Store = &store;
}

#[test]
fn duplicating_onto_a_taken_id_is_refused() {
    let (_dir, mut store) = library();
    store
        .create_from_text(&demo("one", "One", 3), Format::Yaml, "")
        .unwrap();
    store
        .create_from_text(&demo("two", "Two", 3), Format::Yaml, "")
        .unwrap();
    let error = store.duplicate(&id("one"), &id("two"), None).unwrap_err();
    assert_eq!(error.code(), ErrorCode::AlreadyExists, "{error}");
    assert_eq!(
        store.history(&id("two")).unwrap().len(),
        1,
        "the existing playbook is untouched"
    );
}
