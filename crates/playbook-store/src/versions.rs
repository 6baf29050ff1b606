//! The `versions` table: immutable snapshots of playbook content.

use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};

use crate::content::Content;
use crate::db::Migration;
use crate::error::{Error, Result};
use crate::types::{Authored, PlaybookId, Validity, VersionId, VersionInfo};
use playbook_core::{Format, Playbook};

pub(crate) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        // Versions are never updated: the trigger makes that an invariant of
        // the file, not only of this code. They go away only with their
        // playbook, on purge. `parent` is the number of the version edited.
        sql: "
        CREATE TABLE versions (
            pk           INTEGER PRIMARY KEY,
            playbook     INTEGER NOT NULL REFERENCES playbooks (pk) ON DELETE CASCADE,
            number       INTEGER NOT NULL,
            parent       INTEGER,
            content      TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            note         TEXT NOT NULL,
            created_at   TEXT NOT NULL,
            errors       INTEGER NOT NULL,
            warnings     INTEGER NOT NULL,
            infos        INTEGER NOT NULL,
            UNIQUE (playbook, number)
        ) STRICT;
        CREATE TRIGGER versions_are_immutable BEFORE UPDATE ON versions
        BEGIN
            SELECT RAISE(ABORT, 'versions are immutable');
        END;
    ",
    },
    Migration {
        version: 3,
        // The text a version was saved from (see `Authored`), NULL for
        // versions built in code or saved before version 3. Adding columns
        // is not an UPDATE, so the immutability trigger does not fire; the
        // columns are written once, with the row.
        sql: "
            ALTER TABLE versions ADD COLUMN source TEXT;
            ALTER TABLE versions ADD COLUMN source_format TEXT
                CHECK (source_format IN ('yaml', 'json'));
        ",
    },
];

/// A format as stored in a `*_format` column.
pub(crate) fn format_name(format: Format) -> &'static str {
    format.extension()
}

/// A stored format name; `None` for NULL or a name this build does not know.
pub(crate) fn format_of(name: Option<String>) -> Option<Format> {
    match name.as_deref() {
        Some("yaml") => Some(Format::Yaml),
        Some("json") => Some(Format::Json),
        _ => None,
    }
}

fn authored_of(text: Option<String>, format: Option<String>) -> Option<Authored> {
    Some(Authored {
        text: text?,
        format: format_of(format)?,
    })
}

/// The columns `info_from_row` reads, prefixed for a join with alias `v`.
pub(crate) const INFO_COLUMNS: &str =
    "v.pk, v.number, v.parent, v.content_hash, v.note, v.created_at, v.errors, v.warnings, v.infos";

pub(crate) fn info_from_row(r: &Row<'_>, at: usize) -> rusqlite::Result<VersionInfo> {
    Ok(VersionInfo {
        id: VersionId(r.get(at)?),
        number: r.get(at + 1)?,
        parent: r.get(at + 2)?,
        content_hash: r.get(at + 3)?,
        note: r.get(at + 4)?,
        created_at: r.get(at + 5)?,
        validity: Validity {
            errors: r.get(at + 6)?,
            warnings: r.get(at + 7)?,
            infos: r.get(at + 8)?,
        },
    })
}

/// One row of `versions`.
pub(crate) struct StoredVersion {
    pub info: VersionInfo,
    /// Canonical JSON.
    pub content: String,
    pub authored: Option<Authored>,
}

impl StoredVersion {
    /// The typed playbook of this version of `id`; a content that does not
    /// parse is reported as [`unreadable`] says.
    pub fn playbook(&self, id: &PlaybookId) -> Result<Playbook> {
        Content::from_stored(&self.content)
            .map_err(|problem| unreadable(id, self.info.number, &problem))
    }
}

/// What a stored version whose bytes are not UTF-8 is, in every message.
pub(crate) const NOT_UTF8: &str = "it is not UTF-8 text";

/// A version that does not read back, in the same words wherever it is met
/// (`show`, export, restore, diff and `db check`): `version 2 of tdd does
/// not read: it is not UTF-8 text`. Damage to the file, not a bug.
pub(crate) fn unreadable(id: &PlaybookId, number: u32, problem: &str) -> Error {
    Error::Corrupt {
        message: unreadable_line(id, number, problem),
    }
}

/// [`unreadable`]'s words alone: one line of `db check`.
pub(crate) fn unreadable_line(id: &PlaybookId, number: u32, problem: &str) -> String {
    format!("version {number} of {id} does not read: {problem}")
}

/// Read handle.
pub(crate) struct Versions<'a>(pub &'a Connection);

impl Versions<'_> {
    pub fn info(&self, playbook: i64, number: u32) -> Result<Option<VersionInfo>> {
        let sql = format!(
            "SELECT {INFO_COLUMNS} FROM versions v WHERE v.playbook = ?1 AND v.number = ?2"
        );
        Ok(self
            .0
            .prepare_cached(&sql)?
            .query_row(params![playbook, number], |r| info_from_row(r, 0))
            .optional()?)
    }

    /// A version's info, canonical content and the text it was saved from.
    /// Content that is not UTF-8 is [`unreadable`]; a kept source text that
    /// is not is dropped (the canonical content is the version, and
    /// exports render it instead), as `db check` reports.
    pub fn get(
        &self,
        playbook: i64,
        id: &PlaybookId,
        number: u32,
    ) -> Result<Option<StoredVersion>> {
        let sql = format!(
            "SELECT {INFO_COLUMNS}, v.content, v.source, v.source_format FROM versions v WHERE v.playbook = ?1 AND v.number = ?2"
        );
        let row = self
            .0
            .prepare_cached(&sql)?
            .query_row(params![playbook, number], |r| {
                // Read as bytes first: a damaged text is named, not a bug.
                let content = r.get_ref(9)?.as_str().map(str::to_string).ok();
                let source = r.get_ref(10)?.as_str_or_null().ok().flatten();
                let authored = authored_of(source.map(str::to_string), r.get(11)?);
                Ok((info_from_row(r, 0)?, content, authored))
            })
            .optional()?;
        let Some((info, content, authored)) = row else {
            return Ok(None);
        };
        let content = content.ok_or_else(|| unreadable(id, number, NOT_UTF8))?;
        Ok(Some(StoredVersion {
            info,
            content,
            authored,
        }))
    }

    /// Every version of the playbook, newest first, without content.
    pub fn history(&self, playbook: i64) -> Result<Vec<VersionInfo>> {
        let sql = format!(
            "SELECT {INFO_COLUMNS} FROM versions v WHERE v.playbook = ?1 ORDER BY v.number DESC"
        );
        let mut statement = self.0.prepare_cached(&sql)?;
        let rows = statement.query_map([playbook], |r| info_from_row(r, 0))?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}

/// Write handle.
pub(crate) struct VersionsMut<'a>(pub &'a Transaction<'a>);

impl VersionsMut<'_> {
    pub fn insert(
        &self,
        playbook: i64,
        number: u32,
        parent: Option<u32>,
        content: &Content,
        note: &str,
        now: &str,
    ) -> Result<VersionInfo> {
        self.0
            .prepare_cached(
                "INSERT INTO versions (playbook, number, parent, content, content_hash, note, created_at, errors, warnings, infos, source, source_format)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?
            .execute(params![
                playbook,
                number,
                parent,
                content.canonical,
                content.hash,
                note,
                now,
                content.validity.errors,
                content.validity.warnings,
                content.validity.infos,
                content.authored.as_ref().map(|a| a.text.as_str()),
                content.authored.as_ref().map(|a| format_name(a.format)),
            ])?;
        Ok(VersionInfo {
            id: VersionId(self.0.last_insert_rowid()),
            number,
            parent,
            content_hash: content.hash.clone(),
            note: note.to_string(),
            created_at: now.to_string(),
            validity: content.validity,
        })
    }
}
