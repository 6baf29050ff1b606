//! Import and export of playbook files.

use playbook_core::{Format, MAX_DOCUMENT_BYTES};
use playbook_store::{ErrorCode, ImportOutcome, Source, Store};

use crate::{demo, id, library};

fn source(name: &str, text: &str) -> Source {
    Source {
        name: name.to_string(),
        text: text.to_string(),
        format: Format::sniff(text),
    }
}

/// Imports `bad` after a good file and expects the whole import refused with
/// the library unchanged.
#[track_caller]
fn check_refused(bad: Source) {
    let (_dir, mut store) = library();
    let listed = store.list(true).unwrap();
    let histories: Vec<_> = listed
        .iter()
        .map(|p| store.history(&p.id).unwrap())
        .collect();
    let error = store
        .import(&[source("good.yaml", &demo("good", "Good", 3)), bad])
        .expect_err("the import must be refused");
    assert_eq!(error.code(), ErrorCode::ImportRefused, "{error}");
    assert_eq!(
        store.list(true).unwrap(),
        listed,
        "not even the good file was imported"
    );
    let after: Vec<_> = listed
        .iter()
        .map(|p| store.history(&p.id).unwrap())
        .collect();
    assert_eq!(after, histories, "no version was added anywhere");
    assert!(!error.hint().is_empty());
}

#[test]
fn malformed_yaml_is_refused() {
    check_refused(source("bad.yaml", "id: x\nname: [unclosed\nworkflow: {}\n"));
}

#[test]
fn malformed_json_is_refused() {
    check_refused(source("bad.json", "{\"id\": \"x\", \"name\": }"));
}

#[test]
fn a_document_of_the_wrong_shape_is_refused() {
    check_refused(source("list.yaml", "- just\n- a list\n"));
}

#[test]
fn an_unknown_major_schema_version_is_refused() {
    check_refused(source(
        "v9.yaml",
        "schema_version: 9.0.0\nid: x\nname: X\nworkflow: {}\n",
    ));
}

#[test]
fn an_id_that_cannot_be_a_file_name_is_refused() {
    check_refused(source(
        "slash.yaml",
        "id: ../../etc/passwd\nname: X\nworkflow: {}\n",
    ));
}

#[test]
fn a_yaml_alias_bomb_is_refused() {
    let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..12 {
        let prev = (b'a' + level - 1) as char;
        let this = (b'a' + level) as char;
        bomb.push_str(&format!("{this}: &{this} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
    }
    bomb.push_str("id: bomb\nname: Bomb\nworkflow: {}\n");
    check_refused(source("bomb.yaml", &bomb));
}

#[test]
fn deeply_nested_json_is_refused() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    check_refused(source("deep.json", &deep));
}

#[test]
fn a_huge_text_is_refused() {
    let mut huge = demo("huge", "Huge", 3);
    huge.push_str(&format!(
        "x_padding: \"{}\"\n",
        "p".repeat(MAX_DOCUMENT_BYTES)
    ));
    check_refused(source("huge.yaml", &huge));
}

#[test]
fn a_huge_file_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.yaml");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_DOCUMENT_BYTES as u64 * 4).unwrap();
    let error = Source::read(&path).expect_err("files over the limit are not read");
    assert_eq!(error.code(), ErrorCode::ImportRefused, "{error}");
}

#[test]
fn a_binary_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("image.yaml");
    std::fs::write(&path, [0x89, b'P', b'N', b'G', 0xff, 0xfe, 0, 0]).unwrap();
    let error = Source::read(&path).expect_err("binary content is not a playbook");
    assert_eq!(error.code(), ErrorCode::ImportRefused, "{error}");
}

#[test]
fn importing_an_existing_id_adds_a_version_and_the_same_content_adds_none() {
    let (_dir, mut store) = library();
    let first = store
        .import(&[source("a.yaml", &demo("again", "A", 3))])
        .unwrap();
    assert_eq!(first[0].outcome, ImportOutcome::Created);
    let second = store
        .import(&[source("b.yaml", &demo("again", "A", 4))])
        .unwrap();
    assert_eq!(second[0].outcome, ImportOutcome::NewVersion);
    assert_eq!(second[0].saved.version.number, 2);
    let third = store
        .import(&[source("b.yaml", &demo("again", "A", 4))])
        .unwrap();
    assert_eq!(
        third[0].outcome,
        ImportOutcome::Unchanged,
        "re-importing a file is idempotent"
    );
}

/// Export in both formats, import into a new library, compare: the content
/// is identical for every example playbook and for a file with unknown keys,
/// comments and odd formatting.
#[test]
fn export_then_import_gives_identical_content() {
    let odd = "# a comment\nid: odd\nname: 'Odd'\nx_team: {owner: ops, tags: [a, b]}\nunknown_key: 12\nworkflow:\n  build: {roles: [{name: solo, mode: worker, x_note: \"keep me\"}]}\n";
    for format in [Format::Yaml, Format::Json] {
        let (dir, mut store) = library();
        store.import(&[source("odd.yaml", odd)]).unwrap();
        let out = dir.path().join("out");
        let files = store.export_library(&out, format, false).unwrap();
        assert_eq!(
            files.len(),
            store.list(false).unwrap().len(),
            "one file per playbook"
        );
        let mut other = Store::open(dir.path().join("other.db")).unwrap();
        // The other library was seeded with the same examples; start it empty.
        for p in other.list(false).unwrap() {
            other.delete(&p.id).unwrap();
            other.purge(&p.id).unwrap();
        }
        let sources: Vec<Source> = files.iter().map(|f| Source::read(f).unwrap()).collect();
        let imported = other.import(&sources).unwrap();
        for i in &imported {
            let original = store.version(&i.saved.playbook, None).unwrap();
            let copy = other.version(&i.saved.playbook, None).unwrap();
            assert_eq!(
                copy.content, original.content,
                "{} survives {format:?} export byte for byte",
                i.source
            );
            assert_eq!(copy.info.content_hash, original.info.content_hash);
        }
        assert!(
            other
                .version(&id("odd"), None)
                .unwrap()
                .content
                .contains("keep me"),
            "extension fields are content too"
        );
        let again = store.export_library(&out, format, false);
        assert_eq!(
            again.unwrap_err().code(),
            ErrorCode::AlreadyExists,
            "export does not overwrite unless asked"
        );
    }
}

#[test]
fn importing_the_id_of_a_deleted_playbook_is_refused_until_it_is_undeleted_or_purged() {
    let (_dir, mut store) = library();
    store
        .import(&[source("a.yaml", &demo("gone", "Gone", 3))])
        .unwrap();
    store.delete(&id("gone")).unwrap();
    let error = store
        .import(&[source("b.yaml", &demo("gone", "Back", 3))])
        .expect_err("a deleted playbook does not silently come back");
    assert_eq!(error.code(), ErrorCode::ImportRefused, "{error}");
    assert!(
        error.to_string().contains("playbook db undelete gone"),
        "the refusal says how to restore it: {error}"
    );
    store.purge(&id("gone")).unwrap();
    let again = store
        .import(&[source("b.yaml", &demo("gone", "Back", 3))])
        .unwrap();
    assert_eq!(
        again[0].outcome,
        ImportOutcome::Created,
        "after purge the id is free"
    );
}

/// A version that does not read back (written by an older build, or by
/// hand) must not cost the user the export of every other playbook, and
/// `db check` must name it.
#[test]
fn one_unreadable_version_never_blocks_the_export_of_the_others() {
    let (dir, mut store) = crate::library();
    let before = store.list(false).unwrap().len();
    store
        .create_from_text(&crate::demo("good", "Good", 3), Format::Yaml, "")
        .unwrap();
    store
        .create_from_text(&crate::demo("bad", "Bad", 3), Format::Yaml, "")
        .unwrap();
    drop(store);
    let path = dir.path().join("library.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let huge = format!(
        "{{\"id\": \"bad\", \"x_pad\": \"{}\"}}",
        "x".repeat(9 * 1024 * 1024)
    );
    conn.execute(
        "INSERT INTO versions (playbook, number, parent, content, content_hash, note, created_at, errors, warnings, infos)
         SELECT pk, 2, NULL, ?1, 'h', '', '2026-01-01T00:00:00Z', 0, 0, 0 FROM playbooks WHERE id = 'bad'",
        [huge],
    )
    .unwrap();
    conn.execute("UPDATE playbooks SET head = 2 WHERE id = 'bad'", [])
        .unwrap();
    drop(conn);

    let store = playbook_store::Store::open(&path).unwrap();
    let report = store.integrity_check().unwrap();
    assert_ne!(report, ["ok"]);
    assert!(
        report.iter().any(|l| l.contains("version 2 of bad")),
        "{report:?}"
    );

    let out = dir.path().join("export");
    let error = store
        .export_library(&out, Format::Yaml, false)
        .expect_err("the bad one is reported");
    assert!(error.to_string().contains("bad"), "{error}");
    assert!(out.join("good.yaml").exists(), "the others are exported");
    let exported = std::fs::read_dir(&out).unwrap().count();
    assert_eq!(exported, before + 1, "every readable playbook is exported");
}

/// Regression (sweep B, repro 10): `show` of a version whose bytes are not
/// UTF-8 said "database error: invalid utf-8" and called it a bug, while
/// `db check` said what it is. Every reader of the version now says what
/// `db check` says, as damage (`CORRUPT`), not as a bug.
#[test]
fn a_version_that_is_not_utf8_is_named_alike_by_every_reader() {
    let (dir, mut store) = crate::library();
    store
        .create_from_text(&crate::demo("bad", "Bad", 3), Format::Yaml, "")
        .unwrap();
    drop(store);
    let path = dir.path().join("library.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "INSERT INTO versions (playbook, number, parent, content, content_hash, note, created_at, errors, warnings, infos)
         SELECT pk, 2, 1, CAST(X'7B22FFFE' AS TEXT), 'h', '', '2026-01-01T00:00:00Z', 0, 0, 0 FROM playbooks WHERE id = 'bad'",
        [],
    )
    .unwrap();
    conn.execute("UPDATE playbooks SET head = 2 WHERE id = 'bad'", [])
        .unwrap();
    drop(conn);

    let mut store = Store::open(&path).unwrap();
    let said = "version 2 of bad does not read: it is not UTF-8 text";
    let report = store.integrity_check().unwrap();
    assert_eq!(report, [said], "db check");
    let pid = id("bad");
    let errors = [
        ("show", store.export(&pid, None, Format::Yaml).unwrap_err()),
        (
            "show --as json",
            store.export(&pid, Some(2), Format::Json).unwrap_err(),
        ),
        ("version", store.version(&pid, None).unwrap_err()),
        ("playbook", store.playbook(&pid, None).unwrap_err()),
        ("diff", store.diff(&pid, 1, 2).unwrap_err()),
        ("rename", store.rename(&pid, "Other").unwrap_err()),
        ("restore", store.restore(&pid, 2, None).unwrap_err()),
    ];
    for (what, error) in errors {
        assert_eq!(error.code(), ErrorCode::Corrupt, "{what}: {error}");
        assert!(error.to_string().contains(said), "{what}: {error}");
        assert!(!error.hint().contains("bug"), "{what}: {}", error.hint());
    }
    // The version before it still reads.
    assert!(store.export(&pid, Some(1), Format::Yaml).is_ok());
}

#[test]
fn a_playbook_too_large_to_read_back_is_never_stored() {
    let (_dir, mut store) = crate::library();
    // Control characters take six bytes each as stored JSON (`\u0001`):
    // 2 MiB of them is 12 MiB stored, past the 8 MiB every reader accepts.
    let text = format!(
        "id: big\nname: Big\nworkflow: {{}}\nx_pad: \"{}\"\n",
        "\\x01".repeat(2 * 1024 * 1024)
    );
    let error = store
        .create_from_text(&text, Format::Yaml, "")
        .expect_err("refused");
    assert!(error.to_string().contains("limit"), "{error}");
}

/// Exporting over existing files: refused naming them, with a hint about
/// files (not ids); with `overwrite`, replaced keeping their permissions,
/// and a read-only one stops the export before any file is written.
#[cfg(unix)]
#[test]
fn an_export_over_existing_files_says_how_to_replace_them_and_keeps_their_modes() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, mut store) = library();
    store
        .import(&[source("a.yaml", &demo("a", "A", 3))])
        .unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let mine = out.join("a.yaml");
    std::fs::write(&mine, "x\n").unwrap();
    std::fs::set_permissions(&mine, std::fs::Permissions::from_mode(0o600)).unwrap();

    let error = store.export_library(&out, Format::Yaml, false).unwrap_err();
    assert_eq!(error.code(), ErrorCode::AlreadyExists);
    assert!(error.to_string().contains("a.yaml"), "{error}");
    assert!(error.hint().contains("--force"), "{}", error.hint());
    assert!(!error.hint().contains("another id"), "{}", error.hint());
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        1,
        "nothing written"
    );

    let first = store.list(false).unwrap()[0].id.clone();
    let read_only = out.join(format!("{first}.yaml"));
    if read_only != mine {
        std::fs::write(&read_only, "kept\n").unwrap();
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o444)).unwrap();
        let error = store.export_library(&out, Format::Yaml, true).unwrap_err();
        assert!(error.to_string().contains("read-only"), "{error}");
        assert_eq!(
            std::fs::read_to_string(&mine).unwrap(),
            "x\n",
            "nothing written"
        );
        std::fs::remove_file(&read_only).unwrap();
    }

    store.export_library(&out, Format::Yaml, true).unwrap();
    assert!(std::fs::read_to_string(&mine).unwrap().contains("id: a"));
    let mode = std::fs::metadata(&mine).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the replaced file stays private");
}

/// `import_each` reads files as it goes and checks them without the write
/// lock: another connection saves while the import is still reading, a
/// read error refuses the whole import, and the same store imports again.
#[test]
fn import_each_checks_files_without_locking_the_library_and_is_all_or_nothing() {
    let (dir, mut store) = library();
    let path = store.path().to_path_buf();
    let before = store.list(true).unwrap();
    let mut other = Store::open(&path).unwrap();
    let sources = (0..3).map(|n| {
        if n == 1 {
            // Mid-import: the library takes a save at once (it would wait
            // for the busy timeout and fail if the import held the lock).
            let started = std::time::Instant::now();
            other
                .create_from_text(&demo("meanwhile", "Meanwhile", 3), Format::Yaml, "")
                .unwrap();
            assert!(started.elapsed() < std::time::Duration::from_secs(5));
        }
        if n == 2 {
            return Source::read(&dir.path().join("missing.yaml"));
        }
        Ok(source(
            &format!("f{n}.yaml"),
            &demo(&format!("f{n}"), "F", 3),
        ))
    });
    let error = store.import_each(sources).unwrap_err();
    assert!(error.to_string().contains("missing.yaml"), "{error}");
    let after: Vec<_> = store
        .list(true)
        .unwrap()
        .into_iter()
        .filter(|p| p.id.as_str() != "meanwhile")
        .collect();
    assert_eq!(after, before, "nothing of the refused import was added");

    let imported = store
        .import_each((0..2).map(|n| {
            Ok(source(
                &format!("g{n}.yaml"),
                &demo(&format!("g{n}"), "G", 3),
            ))
        }))
        .unwrap();
    assert_eq!(imported.len(), 2);
    assert_eq!(imported[1].source, "g1.yaml", "in the order given");
    assert_eq!(store.version(&id("g1"), None).unwrap().info.number, 1);
    assert!(
        store.version(&id("g0"), None).unwrap().authored.is_some(),
        "the file's text is kept beside the version"
    );
}
