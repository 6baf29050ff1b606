//! The `scenarios` table: preview scenarios kept with a playbook.
//!
//! A playbook's own scenarios are stored by name, one row each, beside its
//! versions: they belong to the playbook (deleted with it when it is purged)
//! but not to any one version, since a scenario written for v3 usually fits
//! v4 too. The text is kept exactly as written; whether it is a valid
//! scenario is the orchestrator's business, checked before it is saved.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::db::Migration;
use crate::error::{Error, Result};
use crate::types::{PlaybookId, StoredScenario};

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 2,
    sql: "
        CREATE TABLE scenarios (
            playbook   INTEGER NOT NULL REFERENCES playbooks (pk) ON DELETE CASCADE,
            name       TEXT NOT NULL,
            content    TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (playbook, name)
        ) STRICT;
    ",
}];

/// Largest scenario text kept, in bytes (the orchestrator's own limit).
pub const MAX_SCENARIO_BYTES: usize = 4 * 1024 * 1024;
/// Longest scenario name, in characters.
pub const MAX_SCENARIO_NAME_CHARS: usize = 100;

/// Checks a scenario name: what the picker shows and the key it is kept by.
pub(crate) fn check_name(name: &str) -> Result<()> {
    let invalid = |reason: &str| Error::InvalidName {
        name: name.chars().take(MAX_SCENARIO_NAME_CHARS).collect(),
        reason: reason.to_string(),
    };
    if name.trim().is_empty() {
        return Err(invalid("a scenario needs a name"));
    }
    if name.trim() != name {
        return Err(invalid("remove the spaces at its start and end"));
    }
    if name.chars().count() > MAX_SCENARIO_NAME_CHARS {
        return Err(invalid("a scenario name has at most 100 characters"));
    }
    if name.chars().any(char::is_control) {
        return Err(invalid(
            "a scenario name is one line without control characters",
        ));
    }
    Ok(())
}

/// Read handle.
pub(crate) struct Scenarios<'a>(pub &'a Connection);

impl Scenarios<'_> {
    pub fn list(&self, playbook: i64, id: &PlaybookId) -> Result<Vec<StoredScenario>> {
        let mut statement = self.0.prepare(
            "SELECT name, content, updated_at FROM scenarios WHERE playbook = ?1 ORDER BY name",
        )?;
        let rows = statement.query_map([playbook], |r| {
            Ok(StoredScenario {
                playbook: id.clone(),
                name: r.get(0)?,
                content: r.get(1)?,
                updated_at: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    pub fn get(
        &self,
        playbook: i64,
        id: &PlaybookId,
        name: &str,
    ) -> Result<Option<StoredScenario>> {
        Ok(self
            .0
            .query_row(
                "SELECT content, updated_at FROM scenarios WHERE playbook = ?1 AND name = ?2",
                params![playbook, name],
                |r| {
                    Ok(StoredScenario {
                        playbook: id.clone(),
                        name: name.to_string(),
                        content: r.get(0)?,
                        updated_at: r.get(1)?,
                    })
                },
            )
            .optional()?)
    }
}

/// Write handle.
pub(crate) struct ScenariosMut<'a>(pub &'a Transaction<'a>);

impl ScenariosMut<'_> {
    pub fn put(&self, playbook: i64, name: &str, content: &str, now: &str) -> Result<()> {
        self.0.execute(
            "INSERT INTO scenarios (playbook, name, content, updated_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (playbook, name) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at",
            params![playbook, name, content, now],
        )?;
        Ok(())
    }

    pub fn remove(&self, playbook: i64, name: &str) -> Result<bool> {
        Ok(self.0.execute(
            "DELETE FROM scenarios WHERE playbook = ?1 AND name = ?2",
            params![playbook, name],
        )? > 0)
    }
}
