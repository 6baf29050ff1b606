//! Opening files that are not (or not yet, or no longer) a library we may
//! write: each gives a typed error and is left byte for byte as it was.

use std::path::Path;

use playbook_core::Format;
use playbook_store::{ErrorCode, Store};

use crate::demo;

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// Opens `content` written to a file and expects `code`, with the file unchanged.
#[track_caller]
fn check_refused(content: &[u8], code: ErrorCode) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    std::fs::write(&path, content).unwrap();
    let error = Store::open(&path)
        .err()
        .unwrap_or_else(|| panic!("opening must fail with {code}"));
    assert_eq!(error.code(), code, "{error}");
    assert_eq!(bytes(&path), content, "a refused file is never written to");
    assert!(!error.hint().is_empty(), "every error says how to fix it");
}

#[test]
fn text_files_are_not_libraries() {
    check_refused(
        b"id: tdd\nname: a playbook, not a library\n",
        ErrorCode::NotADatabase,
    );
}

#[test]
fn a_file_with_a_truncated_sqlite_header_is_not_a_library() {
    check_refused(b"SQLite format 3\0", ErrorCode::NotADatabase);
}

#[test]
fn random_bytes_are_not_a_library() {
    let mut rng = fastrand::Rng::with_seed(7);
    let noise: Vec<u8> = (0..8192).map(|_| rng.u8(..)).collect();
    check_refused(&noise, ErrorCode::NotADatabase);
}

#[test]
fn a_directory_is_not_a_library() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        Store::open(dir.path()).err().map(|e| e.code()),
        Some(ErrorCode::NotADatabase)
    );
}

#[test]
fn an_sqlite_database_of_another_application_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.sqlite");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');")
            .unwrap();
    }
    let before = bytes(&path);
    let error = Store::open(&path)
        .err()
        .expect("another application's database is refused");
    assert_eq!(error.code(), ErrorCode::NotADatabase, "{error}");
    assert_eq!(bytes(&path), before, "not even WAL mode is switched on");
}

#[test]
fn a_library_from_a_newer_build_fails_closed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    drop(Store::open(&path).unwrap());
    let newer = playbook_store::schema_version() + 1;
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", newer)
        .unwrap();
    let error = Store::open(&path)
        .err()
        .expect("a newer format is not guessed at");
    assert_eq!(error.code(), ErrorCode::DbNewerVersion);
    assert!(
        error.to_string().contains(&newer.to_string()),
        "the message names the version: {error}"
    );
}

#[test]
fn an_older_library_is_migrated_on_open() {
    // Version 0 with our application id is a library whose creation was
    // interrupted before its first migration committed.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "application_id", 0x5042_5354)
        .unwrap();
    let store = Store::open(&path).expect("an older library migrates");
    assert!(
        !store.list(false).unwrap().is_empty(),
        "and is seeded like a new one"
    );
}

#[test]
fn an_empty_file_becomes_a_new_library() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    std::fs::write(&path, b"").unwrap();
    let store = Store::open(&path).expect("an empty file holds nothing to lose");
    assert!(!store.list(false).unwrap().is_empty());
}

#[test]
fn a_missing_directory_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/library.db");
    Store::open(&path).expect("the parent directories are created");
    assert!(path.exists());
}

#[test]
fn a_corrupt_library_gives_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    {
        let mut store = Store::open(&path).unwrap();
        for n in 0..30 {
            store
                .create_from_text(&demo(&format!("p{n}"), "P", 3), Format::Yaml, "")
                .unwrap();
        }
    }
    // Overwrite every page after the first (the header page stays valid).
    let mut content = bytes(&path);
    assert!(content.len() > 8192, "the library spans several pages");
    for (i, byte) in content.iter_mut().enumerate().skip(4096) {
        *byte = (i % 251) as u8;
    }
    std::fs::write(&path, &content).unwrap();
    let outcome = Store::open(&path).and_then(|store| {
        store.list(true)?;
        store.integrity_check()
    });
    match outcome {
        Err(e) => assert!(
            matches!(e.code(), ErrorCode::Corrupt | ErrorCode::NotADatabase),
            "corruption is reported as such: {e}"
        ),
        Ok(report) => assert_ne!(
            report,
            ["ok"],
            "if reads succeed, the integrity check finds the damage"
        ),
    }
}

#[test]
fn a_read_only_file_is_reported_and_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    drop(Store::open(&path).unwrap());
    let before = bytes(&path);
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&path, permissions).unwrap();
    let error = Store::open(&path)
        .err()
        .expect("a read-only library cannot be used for writing");
    assert_eq!(error.code(), ErrorCode::ReadOnly, "{error}");
    assert_eq!(bytes(&path), before);
}

#[test]
fn a_library_opened_with_relaxed_durability_is_an_ordinary_library() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    let mut relaxed = Store::open_with(&path, playbook_store::Durability::Relaxed).unwrap();
    relaxed
        .create_from_text(&demo("fast", "Fast", 3), Format::Yaml, "")
        .unwrap();
    drop(relaxed);
    let store = Store::open(&path).unwrap();
    assert!(
        store.version(&crate::id("fast"), None).is_ok(),
        "durability changes when commits are flushed, not what is stored"
    );
}
