//! The `drafts` table: the autosaved, unsaved text of a playbook.
//!
//! Drafts are kept apart from versions because they may be anything the
//! author typed, valid or not, and are overwritten on every autosave.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::db::Migration;
use crate::error::Result;
use crate::types::{Draft, PlaybookId};

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    sql: "
        CREATE TABLE drafts (
            playbook   INTEGER PRIMARY KEY REFERENCES playbooks (pk) ON DELETE CASCADE,
            content    TEXT NOT NULL,
            base       INTEGER,
            updated_at TEXT NOT NULL
        ) STRICT;
    ",
}];

/// Read handle.
pub(crate) struct Drafts<'a>(pub &'a Connection);

impl Drafts<'_> {
    pub fn get(&self, playbook: i64, id: &PlaybookId) -> Result<Option<Draft>> {
        Ok(self
            .0
            .query_row(
                "SELECT content, base, updated_at FROM drafts WHERE playbook = ?1",
                [playbook],
                |r| {
                    Ok(Draft {
                        playbook: id.clone(),
                        content: r.get(0)?,
                        base: r.get(1)?,
                        updated_at: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }
}

/// Write handle.
pub(crate) struct DraftsMut<'a>(pub &'a Transaction<'a>);

impl DraftsMut<'_> {
    pub fn put(&self, playbook: i64, content: &str, base: Option<u32>, now: &str) -> Result<()> {
        self.0.execute(
            "INSERT INTO drafts (playbook, content, base, updated_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (playbook) DO UPDATE SET content = excluded.content, base = excluded.base, updated_at = excluded.updated_at",
            params![playbook, content, base, now],
        )?;
        Ok(())
    }

    pub fn remove(&self, playbook: i64) -> Result<bool> {
        Ok(self
            .0
            .execute("DELETE FROM drafts WHERE playbook = ?1", [playbook])?
            > 0)
    }
}
