//! Integration tests of the store, each against a real library file in a
//! temporary directory. Modules mirror the operations of `src/`.

mod authored;
mod concurrency;
mod copies;
mod crash;
mod drafts;
mod files;
mod opening;
mod runs;
mod scenarios;
mod story;
mod templates;

use playbook_store::{PlaybookId, Store};
use tempfile::TempDir;

/// A small playbook with one review loop; `{name}` and `{limit}` vary per test.
pub fn demo(id: &str, name: &str, limit: u32) -> String {
    format!(
        r#"schema_version: 1.0.0
id: {id}
name: {name}
workflow:
  build:
    roles:
      - name: coder
        mode: worker
        inputs_required: [task]
        outputs_contract: {{type: work_result, required: [commit_sha, summary]}}
        actions_allowed: [read_file, write_file, git_commit]
        gates: {{requires_user_approval: true}}
        handoff_to: [reviewer]
        retry_policy: {{max_iterations: {limit}, escalate_on: [retry_limit]}}
      - name: reviewer
        mode: reviewer
        inputs_required: [spec_path, commit_sha]
        outputs_contract: {{type: review_result, required: [verdict, issues]}}
        actions_allowed: [read_file, git_diff]
        handoff_to: [coder]
"#
    )
}

pub fn id(text: &str) -> PlaybookId {
    PlaybookId::new(text).expect("test ids are valid")
}

/// A new library in its own temporary directory.
pub fn library() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = Store::open(dir.path().join("library.db")).expect("a new library opens");
    (dir, store)
}

/// The canonical content the store keeps for playbook text.
pub fn canonical(text: &str) -> String {
    let value = playbook_core::document::parse_value(text, playbook_core::Format::Yaml)
        .expect("test text parses");
    let playbook = playbook_core::document::from_value(value).expect("test text is a playbook");
    playbook_core::document::to_string(&playbook, playbook_core::Format::Json).expect("serialises")
}

/// Turns a library of this build back into the schema of version 3, when a
/// playbook had at most one draft, keyed by the playbook (version 4 numbered
/// them). The newest draft of each playbook stays.
pub fn as_of_version_3(conn: &rusqlite::Connection) {
    conn.execute_batch(
        "CREATE TABLE drafts_v3 (
             playbook   INTEGER PRIMARY KEY REFERENCES playbooks (pk) ON DELETE CASCADE,
             content    TEXT NOT NULL,
             base       INTEGER,
             updated_at TEXT NOT NULL,
             format     TEXT CHECK (format IN ('yaml', 'json'))
         ) STRICT;
         INSERT INTO drafts_v3 (playbook, content, base, updated_at, format)
             SELECT playbook, content, base, updated_at, format FROM drafts d
             WHERE number = (SELECT max(number) FROM drafts e WHERE e.playbook = d.playbook);
         DROP TABLE drafts;
         ALTER TABLE drafts_v3 RENAME TO drafts;
         PRAGMA user_version = 3;",
    )
    .expect("the drafts table goes back to one per playbook");
}

/// Turns a library of this build back into the schema of version 2, before
/// authored text was kept (version 3 only added these columns).
pub fn as_of_version_2(conn: &rusqlite::Connection) {
    as_of_version_3(conn);
    conn.execute_batch(
        "ALTER TABLE versions DROP COLUMN source_format;
         ALTER TABLE versions DROP COLUMN source;
         ALTER TABLE drafts DROP COLUMN format;
         PRAGMA user_version = 2;",
    )
    .expect("the version-3 columns drop");
}
