//! The `runs` and `run_events` tables: preview runs of the orchestrator and
//! the events each produced, in order. Events are append-only; a run is
//! `running` until finished. Everything a run stores (events, scenario
//! name, status, summary) is redacted first: the store is a sink like any
//! other and must not depend on its callers having redacted.

use std::borrow::Cow;

use playbook_redact::{redact_json_text, redact_str};
use rusqlite::{OptionalExtension, params};

use crate::db::{self, Migration};
use crate::error::{Error, Result};
use crate::playbooks::Playbooks;
use crate::store::Store;
use crate::types::{PlaybookId, Run, RunEvent, RunId, VersionId};

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    // A run may preview a saved version or unsaved text (no version).
    sql: "
        CREATE TABLE runs (
            pk          INTEGER PRIMARY KEY,
            playbook    INTEGER NOT NULL REFERENCES playbooks (pk) ON DELETE CASCADE,
            version     INTEGER REFERENCES versions (pk) ON DELETE CASCADE,
            scenario    TEXT NOT NULL,
            seed        INTEGER NOT NULL,
            status      TEXT NOT NULL,
            started_at  TEXT NOT NULL,
            finished_at TEXT,
            summary     TEXT
        ) STRICT;
        CREATE INDEX runs_by_playbook ON runs (playbook, pk);
        CREATE INDEX runs_by_version ON runs (version);
        CREATE TABLE run_events (
            run   INTEGER NOT NULL REFERENCES runs (pk) ON DELETE CASCADE,
            seq   INTEGER NOT NULL,
            event TEXT NOT NULL,
            PRIMARY KEY (run, seq)
        ) STRICT, WITHOUT ROWID;
    ",
}];

const RUN_COLUMNS: &str =
    "r.pk, p.id, r.version, r.scenario, r.seed, r.status, r.started_at, r.finished_at, r.summary,
    (SELECT count(*) FROM run_events e WHERE e.run = r.pk)";

fn run_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Run> {
    Ok(Run {
        id: RunId(r.get(0)?),
        playbook: PlaybookId::unchecked(r.get(1)?),
        version: r.get::<_, Option<i64>>(2)?.map(VersionId),
        scenario: r.get(3)?,
        // Stored as i64 bit for bit; see `create_run`.
        seed: r.get::<_, i64>(4)? as u64,
        status: r.get(5)?,
        started_at: r.get(6)?,
        finished_at: r.get(7)?,
        summary: r.get(8)?,
        events: r.get(9)?,
    })
}

fn not_found(run: RunId) -> Error {
    Error::NotFound {
        what: format!("run {}", run.0),
    }
}

fn check_json(what: &str, text: &str) -> Result<()> {
    serde_json::from_str::<serde::de::IgnoredAny>(text)
        .map(|_| ())
        .map_err(|e| Error::InvalidInput {
            message: format!("{what} is not JSON: {e}"),
        })
}

/// The one field of a run event the store reads: its outcome code.
#[derive(serde::Deserialize)]
struct Coded {
    #[serde(default)]
    code: Option<serde_json::Value>,
}

/// A run event's `code`, when it has one, must be a documented orchestrator
/// code (`playbook_contracts::ErrorCode`): the UI and CI switch on stored
/// codes, so a record never holds one they cannot know.
fn check_event_code(seq: u64, text: &str) -> Result<()> {
    // Only an object has fields (serde would read `[7]` as a struct too);
    // JSON that is not an object has no code to check.
    if !text.trim_start().starts_with('{') {
        return Ok(());
    }
    let Ok(Coded { code: Some(code) }) = serde_json::from_str::<Coded>(text) else {
        return Ok(());
    };
    let known = code
        .as_str()
        .map(|c| c.parse::<playbook_contracts::ErrorCode>().map(|_| ()));
    match known {
        Some(Ok(())) => Ok(()),
        Some(Err(unknown)) => Err(Error::InvalidInput {
            message: format!("run event {seq}: {unknown}"),
        }),
        None => Err(Error::InvalidInput {
            message: format!(
                "run event {seq}: `code` must be a code from {} as text, not {code}",
                playbook_contracts::code::CODES_DOC
            ),
        }),
    }
}

impl Store {
    /// Starts recording a preview run of `playbook`, of a saved version or
    /// (with `None`) of unsaved text.
    pub fn create_run(
        &mut self,
        playbook: &PlaybookId,
        version: Option<VersionId>,
        scenario: &str,
        seed: u64,
    ) -> Result<RunId> {
        let tx = self.write()?;
        let row = Playbooks(&tx).get(playbook)?;
        if let Some(version) = version {
            let owner: Option<i64> = tx
                .query_row(
                    "SELECT playbook FROM versions WHERE pk = ?1",
                    [version.0],
                    |r| r.get(0),
                )
                .optional()?;
            if owner != Some(row.pk) {
                return Err(Error::NotFound {
                    what: format!("version id {} of playbook {playbook:?}", version.0),
                });
            }
        }
        let now = db::now(&tx)?;
        let scenario = redact_str(scenario);
        tx.execute(
            "INSERT INTO runs (playbook, version, scenario, seed, status, started_at)
             VALUES (?1, ?2, ?3, ?4, 'running', ?5)",
            params![row.pk, version.map(|v| v.0), &*scenario, seed as i64, now],
        )?;
        let id = RunId(tx.last_insert_rowid());
        tx.commit()?;
        Ok(id)
    }

    /// Appends events `(seq, json)` to a run, in one transaction. Replaying
    /// an event already stored with the same text is ignored, so a caller may
    /// retry after an error; the same `seq` with other text is refused.
    ///
    /// Every event is redacted (`playbook-redact`) before it is compared or
    /// stored: the library never holds a secret, whoever sends the event.
    pub fn append_events(&mut self, run: RunId, events: &[(u64, &str)]) -> Result<()> {
        for (seq, json) in events {
            check_json("a run event", json)?;
            check_event_code(*seq, json)?;
        }
        let events: Vec<(u64, Cow<'_, str>)> = events
            .iter()
            .map(|(seq, json)| (*seq, redact_json_text(json)))
            .collect();
        let tx = self.write()?;
        let exists: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM runs WHERE pk = ?1)",
            [run.0],
            |r| r.get(0),
        )?;
        if !exists {
            return Err(not_found(run));
        }
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO run_events (run, seq, event) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
            )?;
            let mut existing =
                tx.prepare_cached("SELECT event FROM run_events WHERE run = ?1 AND seq = ?2")?;
            for (seq, json) in &events {
                let json: &str = json;
                let seq = i64::try_from(*seq).map_err(|_| Error::InvalidInput {
                    message: format!("event sequence number {seq} is too large"),
                })?;
                if insert.execute(params![run.0, seq, json])? == 0 {
                    let stored: String = existing.query_row(params![run.0, seq], |r| r.get(0))?;
                    if stored != *json {
                        return Err(Error::AlreadyExists {
                            what: format!("event {seq} of run {} with other content", run.0),
                        });
                    }
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Marks a run finished with a status (e.g. `passed`, `failed`,
    /// `escalated`) and an optional JSON summary.
    pub fn finish_run(&mut self, run: RunId, status: &str, summary: Option<&str>) -> Result<()> {
        if let Some(summary) = summary {
            check_json("the run summary", summary)?;
        }
        let status = redact_str(status);
        let summary = summary.map(redact_json_text);
        let summary = summary.as_deref();
        let tx = self.write()?;
        let now = db::now(&tx)?;
        let changed = tx.execute(
            "UPDATE runs SET status = ?2, summary = ?3, finished_at = ?4 WHERE pk = ?1",
            params![run.0, &*status, summary, now],
        )?;
        if changed == 0 {
            return Err(not_found(run));
        }
        tx.commit()?;
        Ok(())
    }

    pub fn run(&self, run: RunId) -> Result<Run> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs r JOIN playbooks p ON p.pk = r.playbook WHERE r.pk = ?1"
        );
        self.conn
            .query_row(&sql, [run.0], run_from_row)
            .optional()?
            .ok_or_else(|| not_found(run))
    }

    /// Events of a run in sequence order.
    pub fn run_events(&self, run: RunId) -> Result<Vec<RunEvent>> {
        self.run(run)?;
        let mut statement = self
            .conn
            .prepare_cached("SELECT seq, event FROM run_events WHERE run = ?1 ORDER BY seq")?;
        let rows = statement.query_map([run.0], |r| {
            Ok(RunEvent {
                seq: r.get::<_, i64>(0)? as u64,
                event: r.get(1)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// Runs, newest first; of one playbook when given.
    pub fn list_runs(&self, playbook: Option<&PlaybookId>) -> Result<Vec<Run>> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs r JOIN playbooks p ON p.pk = r.playbook
             WHERE (?1 IS NULL OR p.id = ?1) ORDER BY r.pk DESC"
        );
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map([playbook.map(|p| p.as_str())], run_from_row)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}
