//! The `drafts` table: the autosaved, unsaved text of a playbook.
//!
//! Drafts are kept apart from versions because they may be anything the
//! author typed, valid or not, and are overwritten on every autosave.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::db::Migration;
use crate::error::Result;
use crate::types::{Draft, PlaybookId};
use crate::versions;
use playbook_core::Format;

pub(crate) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        sql: "
        CREATE TABLE drafts (
            playbook   INTEGER PRIMARY KEY REFERENCES playbooks (pk) ON DELETE CASCADE,
            content    TEXT NOT NULL,
            base       INTEGER,
            updated_at TEXT NOT NULL
        ) STRICT;
    ",
    },
    Migration {
        version: 3,
        // The format of `content`; NULL for drafts kept before version 3,
        // whose format is sniffed.
        sql: "
            ALTER TABLE drafts ADD COLUMN format TEXT CHECK (format IN ('yaml', 'json'));
        ",
    },
];

/// Read handle.
pub(crate) struct Drafts<'a>(pub &'a Connection);

impl Drafts<'_> {
    pub fn get(&self, playbook: i64, id: &PlaybookId) -> Result<Option<Draft>> {
        Ok(self
            .0
            .query_row(
                "SELECT content, base, updated_at, format FROM drafts WHERE playbook = ?1",
                [playbook],
                |r| {
                    let content: String = r.get(0)?;
                    let format =
                        versions::format_of(r.get(3)?).unwrap_or_else(|| Format::sniff(&content));
                    Ok(Draft {
                        playbook: id.clone(),
                        content,
                        format,
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
    pub fn put(
        &self,
        playbook: i64,
        content: &str,
        format: Format,
        base: Option<u32>,
        now: &str,
    ) -> Result<()> {
        self.0.execute(
            "INSERT INTO drafts (playbook, content, base, updated_at, format) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (playbook) DO UPDATE SET content = excluded.content, base = excluded.base, updated_at = excluded.updated_at, format = excluded.format",
            params![playbook, content, base, now, versions::format_name(format)],
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
