//! The `playbooks` table: one row per playbook, pointing at its latest version.

use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};

use crate::db::Migration;
use crate::error::{Error, Result};
use crate::types::{PlaybookId, PlaybookSummary};
use crate::versions;

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    // `head` is the number of the latest version. It is kept here rather
    // than computed so that the optimistic concurrency check is one read of
    // one row inside the write transaction. `deleted_at` makes delete
    // recoverable: a deleted playbook keeps its id and history until purged.
    sql: "
        CREATE TABLE playbooks (
            pk         INTEGER PRIMARY KEY,
            id         TEXT NOT NULL UNIQUE,
            name       TEXT NOT NULL,
            head       INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            deleted_at TEXT
        ) STRICT;
    ",
}];

#[derive(Debug, Clone)]
pub(crate) struct PlaybookRow {
    pub pk: i64,
    pub id: PlaybookId,
    pub head: u32,
    pub deleted_at: Option<String>,
}

fn what(id: &PlaybookId) -> String {
    format!("playbook `{id}`")
}

/// Read handle.
pub(crate) struct Playbooks<'a>(pub &'a Connection);

impl Playbooks<'_> {
    pub fn find(&self, id: &PlaybookId) -> Result<Option<PlaybookRow>> {
        Ok(self
            .0
            .query_row(
                "SELECT pk, id, head, deleted_at FROM playbooks WHERE id = ?1",
                [id.as_str()],
                |r| {
                    Ok(PlaybookRow {
                        pk: r.get(0)?,
                        id: PlaybookId::new(r.get::<_, String>(1)?).unwrap_or_else(|_| id.clone()),
                        head: r.get(2)?,
                        deleted_at: r.get(3)?,
                    })
                },
            )
            .optional()?)
    }

    /// The playbook, deleted or not.
    pub fn get(&self, id: &PlaybookId) -> Result<PlaybookRow> {
        self.find(id)?
            .ok_or_else(|| Error::NotFound { what: what(id) })
    }

    /// The playbook, which must not be deleted: only live playbooks change.
    pub fn live(&self, id: &PlaybookId) -> Result<PlaybookRow> {
        let row = self.get(id)?;
        if row.deleted_at.is_some() {
            return Err(Error::Deleted { what: what(id) });
        }
        Ok(row)
    }

    pub fn list(
        &self,
        include_deleted: bool,
        only: Option<&PlaybookId>,
    ) -> Result<Vec<PlaybookSummary>> {
        let sql = format!(
            "SELECT p.id, p.name, p.created_at, p.updated_at, p.deleted_at,
                    (SELECT count(*) FROM drafts d WHERE d.playbook = p.pk), {}
             FROM playbooks p JOIN versions v ON v.playbook = p.pk AND v.number = p.head
             WHERE (?1 OR p.deleted_at IS NULL) AND (?2 IS NULL OR p.id = ?2)
             ORDER BY p.id",
            versions::INFO_COLUMNS
        );
        let mut statement = self.0.prepare_cached(&sql)?;
        let rows =
            statement.query_map(params![include_deleted, only.map(|i| i.as_str())], summary)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}

fn summary(r: &Row<'_>) -> rusqlite::Result<PlaybookSummary> {
    let id: String = r.get(0)?;
    let drafts: u32 = r.get(5)?;
    Ok(PlaybookSummary {
        // Ids were checked when written; an unreadable one is shown as stored.
        id: PlaybookId::new(id.clone()).unwrap_or_else(|_| PlaybookId::unchecked(id)),
        name: r.get(1)?,
        created_at: r.get(2)?,
        updated_at: r.get(3)?,
        deleted_at: r.get(4)?,
        has_draft: drafts > 0,
        drafts,
        latest: versions::info_from_row(r, 6)?,
    })
}

/// Write handle.
pub(crate) struct PlaybooksMut<'a>(pub &'a Transaction<'a>);

impl PlaybooksMut<'_> {
    /// Inserts a playbook without versions; the caller adds version 1 at once.
    pub fn insert(&self, id: &PlaybookId, name: &str, now: &str) -> Result<PlaybookRow> {
        if Playbooks(self.0).find(id)?.is_some() {
            return Err(Error::AlreadyExists { what: what(id) });
        }
        self.0.execute(
            "INSERT INTO playbooks (id, name, head, created_at, updated_at) VALUES (?1, ?2, 0, ?3, ?3)",
            params![id.as_str(), name, now],
        )?;
        Ok(PlaybookRow {
            pk: self.0.last_insert_rowid(),
            id: id.clone(),
            head: 0,
            deleted_at: None,
        })
    }

    pub fn set_head(&self, pk: i64, head: u32, name: &str, now: &str) -> Result<()> {
        self.0.execute(
            "UPDATE playbooks SET head = ?2, name = ?3, updated_at = ?4 WHERE pk = ?1",
            params![pk, head, name, now],
        )?;
        Ok(())
    }

    pub fn set_deleted(&self, pk: i64, deleted_at: Option<&str>) -> Result<()> {
        self.0.execute(
            "UPDATE playbooks SET deleted_at = ?2 WHERE pk = ?1",
            params![pk, deleted_at],
        )?;
        Ok(())
    }

    /// Removes the playbook with its versions, draft and runs (foreign keys cascade).
    pub fn purge(&self, pk: i64) -> Result<()> {
        self.0
            .execute("DELETE FROM playbooks WHERE pk = ?1", [pk])?;
        Ok(())
    }
}
