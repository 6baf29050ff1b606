//! Checked import files waiting for the import's transaction.
//!
//! An import is all or nothing, and every file is checked before the write
//! lock is taken (parsing hundreds of megabytes under the lock would keep
//! the app's saves waiting past the busy timeout). Holding every checked
//! file in memory until then made an import's peak memory a multiple of its
//! input (1.4 GB for 528 MB), so the checked rows wait on disk instead: in
//! a table of the connection's own temporary database, which SQLite keeps
//! in a file of its own (deleted when closed) and which takes no lock on
//! the library. The transaction then copies them one row at a time.

use rusqlite::{Connection, Row, Transaction, params};

use crate::content::Content;
use crate::error::Result;
use crate::types::{Authored, PlaybookId, Validity};
use crate::versions::{format_name, format_of};

/// Creates the empty staging table (dropping one a failed import left).
pub(crate) fn create(conn: &Connection) -> Result<()> {
    // The bundled SQLite keeps temporary tables in memory unless told;
    // on disk, only SQLite's small page cache of it is in memory.
    conn.pragma_update(None, "temp_store", "FILE")?;
    conn.execute_batch(
        "DROP TABLE IF EXISTS temp.import_staging;
         CREATE TEMP TABLE import_staging (
            seq         INTEGER PRIMARY KEY,
            source_name TEXT NOT NULL,
            id          TEXT NOT NULL,
            name        TEXT NOT NULL,
            canonical   TEXT NOT NULL,
            hash        TEXT NOT NULL,
            errors      INTEGER NOT NULL,
            warnings    INTEGER NOT NULL,
            infos       INTEGER NOT NULL,
            source      TEXT,
            source_format TEXT
         );",
    )?;
    Ok(())
}

/// Drops the staging table and its rows; the temporary file shrinks with it.
pub(crate) fn drop(conn: &Connection) -> Result<()> {
    conn.execute_batch("DROP TABLE IF EXISTS temp.import_staging")?;
    Ok(())
}

/// Adds a checked file, in import order.
pub(crate) fn push(tx: &Transaction<'_>, source_name: &str, content: &Content) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO temp.import_staging (source_name, id, name, canonical, hash, errors, warnings, infos, source, source_format)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
        source_name,
        content.id.as_str(),
        content.name,
        content.canonical,
        content.hash,
        content.validity.errors,
        content.validity.warnings,
        content.validity.infos,
        content.authored.as_ref().map(|a| a.text.as_str()),
        content.authored.as_ref().map(|a| format_name(a.format)),
    ])?;
    Ok(())
}

/// Calls `each` with every staged file, in import order, one at a time.
pub(crate) fn for_each(
    tx: &Transaction<'_>,
    mut each: impl FnMut(String, Content) -> Result<()>,
) -> Result<()> {
    let mut statement = tx.prepare(
        "SELECT source_name, id, name, canonical, hash, errors, warnings, infos, source, source_format
         FROM temp.import_staging ORDER BY seq",
    )?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let (source_name, content) = staged(row)?;
        each(source_name, content)?;
    }
    Ok(())
}

fn staged(row: &Row<'_>) -> rusqlite::Result<(String, Content)> {
    let authored = match (row.get::<_, Option<String>>(8)?, format_of(row.get(9)?)) {
        (Some(text), Some(format)) => Some(Authored { text, format }),
        _ => None,
    };
    Ok((
        row.get(0)?,
        Content {
            // Checked when staged, by `Content::from_owned_text`.
            id: PlaybookId::unchecked(row.get(1)?),
            name: row.get(2)?,
            canonical: row.get(3)?,
            hash: row.get(4)?,
            validity: Validity {
                errors: row.get(5)?,
                warnings: row.get(6)?,
                infos: row.get(7)?,
            },
            authored,
        },
    ))
}
