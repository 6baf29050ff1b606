//! Opening a library file safely, and migrating it.
//!
//! A user can point `--db` at any file, so nothing is written before the file
//! is known to be ours: an existing file must start with the SQLite header,
//! is opened read-write *without* create, and must carry our
//! `application_id` (or be an empty SQLite database). Only then are WAL mode
//! and migrations applied. A file that fails a check is left byte for byte
//! as it was.

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::error::{Error, Result};
use crate::{drafts, playbooks, runs, scenarios, seed, templates, versions};

/// `PRAGMA application_id` of a Playbook Studio library: "PBST".
pub(crate) const APPLICATION_ID: i32 = 0x5042_5354;

/// How long a write waits for another connection's transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// One step of the schema. Each table module lists its own; all steps of
/// one `version` are applied together, in module order, and
/// `PRAGMA user_version` records the highest version applied.
pub(crate) struct Migration {
    pub version: u32,
    pub sql: &'static str,
}

fn migrations() -> impl Iterator<Item = &'static Migration> {
    // Module order matters within a version: referenced tables first.
    let mut all: Vec<&'static Migration> = [
        playbooks::MIGRATIONS,
        versions::MIGRATIONS,
        drafts::MIGRATIONS,
        templates::MIGRATIONS,
        runs::MIGRATIONS,
        scenarios::MIGRATIONS,
    ]
    .into_iter()
    .flatten()
    .collect();
    all.sort_by_key(|m| m.version);
    all.into_iter()
}

/// The schema version this build writes.
pub fn schema_version() -> u32 {
    migrations().map(|m| m.version).max().unwrap_or(0)
}

/// How long a commit waits for the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Every commit is flushed to the disk (`synchronous = FULL`): a save that
    /// returned survives a power cut as well as a crash. The default.
    #[default]
    Full,
    /// Commits reach the operating system but are flushed only at WAL
    /// checkpoints (`synchronous = NORMAL`): a save survives a crash of the
    /// app, but a power cut may undo the last ones. The file stays consistent
    /// either way. For bulk work and measurements, not for authors' saves.
    Relaxed,
}

pub(crate) fn open(path: &Path, durability: Durability) -> Result<Connection> {
    let io = |source| Error::Io {
        path: path.display().to_string(),
        source,
    };
    let flags = match std::fs::metadata(path) {
        Ok(meta) => {
            if meta.is_dir() {
                return Err(Error::NotADatabase {
                    reason: format!("{} is a directory", path.display()),
                });
            }
            check_header(path, meta.len())?;
            if meta.permissions().readonly() {
                return Err(Error::ReadOnly {
                    reason: format!("{} has no write permission", path.display()),
                });
            }
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(io)?;
            }
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
        }
        Err(e) => return Err(io(e)),
    };
    let conn =
        Connection::open_with_flags(path, flags).map_err(|e| match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::CannotOpen) => Error::ReadOnly {
                reason: format!("{} cannot be opened for writing: {e}", path.display()),
            },
            _ => Error::from(e),
        })?;
    // SQLite silently falls back to read-only when it may not write.
    if conn.is_readonly(rusqlite::MAIN_DB)? {
        return Err(Error::ReadOnly {
            reason: format!("{} can only be opened read-only", path.display()),
        });
    }
    conn.busy_timeout(BUSY_TIMEOUT)?;
    check_ownership(&conn)?;
    // Checked before WAL is switched on, so a newer library is not touched at all.
    check_not_newer(&conn)?;
    configure(&conn, durability)?;
    migrate(conn)
}

fn check_header(path: &Path, len: u64) -> Result<()> {
    // An empty file holds nothing to lose; SQLite treats it as a new database.
    if len == 0 {
        return Ok(());
    }
    let mut header = [0u8; 16];
    let mut file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    let read = file.read(&mut header).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    if read < header.len() || &header != SQLITE_HEADER || len < 512 {
        return Err(Error::NotADatabase {
            reason: format!("{} is not an SQLite database file", path.display()),
        });
    }
    Ok(())
}

/// Refuses SQLite files of other applications before anything writes to them.
fn check_ownership(conn: &Connection) -> Result<()> {
    let application_id: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    if application_id == APPLICATION_ID {
        return Ok(());
    }
    let objects: i64 = conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
    if application_id == 0 && objects == 0 {
        return Ok(());
    }
    Err(Error::NotADatabase {
        reason: "it is an SQLite database of another application".into(),
    })
}

fn configure(conn: &Connection, durability: Durability) -> Result<()> {
    let mode: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Error::ReadOnly {
            reason: format!("the library could not switch to WAL mode (it stays in {mode})"),
        });
    }
    // FULL syncs the WAL on every commit: a saved version survives power
    // loss, not only a crash of the process.
    let synchronous = match durability {
        Durability::Full => "FULL",
        Durability::Relaxed => "NORMAL",
    };
    conn.pragma_update(None, "synchronous", synchronous)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

fn check_not_newer(conn: &Connection) -> Result<()> {
    let (found, latest) = (user_version(conn)?, schema_version());
    if found > latest {
        return Err(Error::DbNewerVersion {
            found,
            supported: latest,
        });
    }
    Ok(())
}

fn migrate(mut conn: Connection) -> Result<Connection> {
    let latest = schema_version();
    let found = user_version(&conn)?;
    if found < latest {
        // IMMEDIATE takes the write lock first, so two processes opening a
        // new library at once migrate it exactly once.
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let found = user_version(&tx)?;
        if found > latest {
            return Err(Error::DbNewerVersion {
                found,
                supported: latest,
            });
        }
        for migration in migrations().filter(|m| m.version > found) {
            tx.execute_batch(migration.sql)?;
        }
        if found == 0 {
            seed::examples(&tx)?;
        }
        tx.pragma_update(None, "application_id", APPLICATION_ID)?;
        tx.pragma_update(None, "user_version", latest)?;
        tx.commit()?;
    }
    Ok(conn)
}

fn user_version(conn: &Connection) -> Result<u32> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    Ok(u32::try_from(version).unwrap_or(u32::MAX))
}

/// The current time as stored: UTC, RFC 3339 with milliseconds. Taken once
/// per transaction so that every row it writes carries the same time.
pub(crate) fn now(conn: &Connection) -> Result<String> {
    Ok(
        conn.query_row("SELECT strftime('%Y-%m-%dT%H:%M:%fZ','now')", [], |r| {
            r.get(0)
        })?,
    )
}
