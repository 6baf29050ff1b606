//! The `drafts` table: unsaved text of a playbook.
//!
//! Drafts are kept apart from versions because they may be anything the
//! author typed, valid or not. A playbook has any number of them, each
//! under a number that is never reused: the app's autosave replaces only
//! the draft it holds (by number), and a save refused for a conflict or
//! invalid text adds the refused text as a draft of its own. So no write
//! of one author's text can replace another's that the library promised
//! to keep.

use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};

use crate::db::Migration;
use crate::error::Result;
use crate::types::{Draft, DraftNumber, PlaybookId};
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
    Migration {
        version: 4,
        // Several drafts per playbook: with one, a second refused save
        // replaced the first one's text though both were told it was kept.
        // AUTOINCREMENT so that a number, once given, never names another
        // draft (the app replaces its draft by number). The one draft a
        // playbook had keeps its text, base, time and format.
        sql: "
            CREATE TABLE drafts_numbered (
                number     INTEGER PRIMARY KEY AUTOINCREMENT,
                playbook   INTEGER NOT NULL REFERENCES playbooks (pk) ON DELETE CASCADE,
                content    TEXT NOT NULL,
                base       INTEGER,
                updated_at TEXT NOT NULL,
                format     TEXT CHECK (format IN ('yaml', 'json'))
            ) STRICT;
            INSERT INTO drafts_numbered (playbook, content, base, updated_at, format)
                SELECT playbook, content, base, updated_at, format FROM drafts ORDER BY playbook;
            DROP TABLE drafts;
            ALTER TABLE drafts_numbered RENAME TO drafts;
            CREATE INDEX drafts_of_playbook ON drafts (playbook, number);
        ",
    },
];

const COLUMNS: &str = "number, content, base, updated_at, format";

fn draft_from_row(r: &Row<'_>, id: &PlaybookId) -> rusqlite::Result<Draft> {
    let content: String = r.get(1)?;
    let format = versions::format_of(r.get(4)?).unwrap_or_else(|| Format::sniff(&content));
    Ok(Draft {
        playbook: id.clone(),
        number: DraftNumber(r.get(0)?),
        content,
        format,
        base: r.get(2)?,
        updated_at: r.get(3)?,
    })
}

/// Read handle.
pub(crate) struct Drafts<'a>(pub &'a Connection);

impl Drafts<'_> {
    /// The newest draft: the one the app opens and `db draft` shows.
    pub fn latest(&self, playbook: i64, id: &PlaybookId) -> Result<Option<Draft>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM drafts WHERE playbook = ?1 ORDER BY number DESC LIMIT 1"
        );
        Ok(self
            .0
            .query_row(&sql, [playbook], |r| draft_from_row(r, id))
            .optional()?)
    }

    /// Every draft of the playbook, newest first.
    pub fn list(&self, playbook: i64, id: &PlaybookId) -> Result<Vec<Draft>> {
        let sql = format!("SELECT {COLUMNS} FROM drafts WHERE playbook = ?1 ORDER BY number DESC");
        let mut statement = self.0.prepare(&sql)?;
        let rows = statement.query_map([playbook], |r| draft_from_row(r, id))?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// The draft of the playbook that holds exactly `content`, if one does.
    fn holding(&self, playbook: i64, content: &str) -> Result<Option<DraftNumber>> {
        Ok(self
            .0
            .query_row(
                "SELECT number FROM drafts WHERE playbook = ?1 AND content = ?2 ORDER BY number DESC LIMIT 1",
                params![playbook, content],
                |r| r.get(0).map(DraftNumber),
            )
            .optional()?)
    }
}

/// Write handle.
pub(crate) struct DraftsMut<'a>(pub &'a Transaction<'a>);

impl DraftsMut<'_> {
    /// Writes `content` over draft `replacing` when the playbook still has
    /// it, else as a new draft; returns the draft's number.
    pub fn put(
        &self,
        playbook: i64,
        replacing: Option<DraftNumber>,
        content: &str,
        format: Format,
        base: Option<u32>,
        now: &str,
    ) -> Result<DraftNumber> {
        if let Some(number) = replacing {
            let replaced = self.0.execute(
                "UPDATE drafts SET content = ?3, base = ?4, updated_at = ?5, format = ?6
                 WHERE playbook = ?1 AND number = ?2",
                params![
                    playbook,
                    number.0,
                    content,
                    base,
                    now,
                    versions::format_name(format)
                ],
            )?;
            if replaced > 0 {
                return Ok(number);
            }
        }
        self.0.execute(
            "INSERT INTO drafts (playbook, content, base, updated_at, format) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![playbook, content, base, now, versions::format_name(format)],
        )?;
        Ok(DraftNumber(self.0.last_insert_rowid()))
    }

    /// Keeps the text of a refused save: the draft that already holds
    /// exactly this text, else a new one. Never replaces another draft.
    pub fn keep(
        &self,
        playbook: i64,
        content: &str,
        format: Format,
        base: Option<u32>,
        now: &str,
    ) -> Result<DraftNumber> {
        match Drafts(self.0).holding(playbook, content)? {
            Some(number) => Ok(number),
            None => self.put(playbook, None, content, format, base, now),
        }
    }

    pub fn remove(&self, playbook: i64, number: DraftNumber) -> Result<bool> {
        Ok(self.0.execute(
            "DELETE FROM drafts WHERE playbook = ?1 AND number = ?2",
            params![playbook, number.0],
        )? > 0)
    }
}
