//! Import and export of playbook files.
//!
//! **Import** reads and checks every file before the library is touched
//! (each checked file waits on disk, in the connection's temporary
//! database: see `staging.rs`), then adds them all in one transaction: a
//! refused file leaves the library exactly as it was. A file whose id is new becomes a new playbook; a file
//! whose id exists becomes its next version (or changes nothing when the
//! content is the same).
//!
//! **Export** writes the text the version was saved from when it is in the
//! requested format (comments, blank lines and key order as the author left
//! them), else the canonical content as YAML or JSON; either way importing
//! an exported file gives back the same canonical content and hash. The whole
//! library exports as a directory with one `<id>.yaml` (or `.json`) file per
//! live playbook, holding its latest version: plain files a team can keep in
//! git and import elsewhere with `playbook db import DIR/*.yaml`. History
//! stays in the library file, which is itself the full backup.

use std::path::{Path, PathBuf};

use playbook_core::document::{self, Format, MAX_DOCUMENT_BYTES};
use rusqlite::Transaction;
use serde::Serialize;
use ts_rs::TS;

use crate::content::{Content, kept_text};
use crate::error::{Error, Result};
use crate::playbooks::Playbooks;
use crate::store::{Store, create_in, save_in};
use crate::types::{Base, PlaybookId, Saved};
use crate::versions::unreadable;

/// A playbook file to import: its name (for messages and notes), text and format.
#[derive(Debug, Clone)]
pub struct Source {
    pub name: String,
    pub text: String,
    pub format: Format,
}

impl Source {
    /// Reads a file, refusing what cannot be a playbook before reading it
    /// all: directories, files over [`MAX_DOCUMENT_BYTES`], and text that is
    /// not UTF-8.
    pub fn read(path: &Path) -> Result<Source> {
        let name = path.display().to_string();
        let refuse = |reason: String| Error::ImportRefused {
            source_name: name.clone(),
            reason,
            findings: Vec::new(),
        };
        let io = |source| Error::Io {
            path: name.clone(),
            source,
        };
        let bytes =
            crate::userfile::read_bounded(path, MAX_DOCUMENT_BYTES).map_err(|e| match e {
                crate::userfile::ReadError::Io(source) => io(source),
                other => refuse(other.to_string()),
            })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            refuse(format!(
                "the file is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ))
        })?;
        let format = match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("json") => Format::Json,
            Some(ext) if ext.eq_ignore_ascii_case("yaml") || ext.eq_ignore_ascii_case("yml") => {
                Format::Yaml
            }
            _ => Format::sniff(&text),
        };
        Ok(Source { name, text, format })
    }
}

/// What importing one file did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ImportOutcome {
    Created,
    NewVersion,
    Unchanged,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Imported {
    pub source: String,
    pub outcome: ImportOutcome,
    pub saved: Saved,
}

impl Store {
    /// Imports playbook files: all or nothing.
    pub fn import(&mut self, sources: &[Source]) -> Result<Vec<Imported>> {
        self.import_each(sources.iter().cloned().map(Ok))
    }

    /// Imports playbook files as `sources` yields them (each read when
    /// asked for, e.g. by [`Source::read`]): all or nothing, like
    /// [`Store::import`]. The first error, of reading or of checking,
    /// refuses the whole import before the library is touched.
    ///
    /// Every file is checked before the write lock is taken, so the app is
    /// never kept waiting while texts are parsed, and a checked file waits
    /// for the transaction on disk ([`crate::staging`]), not in memory: the
    /// import holds one file at a time, whatever the number of files.
    pub fn import_each<I>(&mut self, sources: I) -> Result<Vec<Imported>>
    where
        I: IntoIterator<Item = Result<Source>>,
    {
        crate::staging::create(&self.conn)?;
        let imported = self.import_staged(sources);
        // Best effort: the table is the connection's own and goes with it.
        let _ = crate::staging::drop(&self.conn);
        imported
    }

    fn import_staged<I>(&mut self, sources: I) -> Result<Vec<Imported>>
    where
        I: IntoIterator<Item = Result<Source>>,
    {
        // Only the temporary database is written here: no lock on the
        // library. One transaction, so staging costs no commit per file.
        let staging = self.conn.transaction()?;
        for source in sources {
            let Source { name, text, format } = source?;
            let content = Content::from_owned_text(text, format).map_err(|error| match error {
                Error::InvalidPlaybook { message, findings } => Error::ImportRefused {
                    source_name: name.clone(),
                    reason: message,
                    findings,
                },
                Error::InvalidName { name: id, reason } => Error::ImportRefused {
                    source_name: name.clone(),
                    reason: format!("the playbook id {id:?} cannot be used: {reason}"),
                    findings: Vec::new(),
                },
                Error::InvalidDisplayName {
                    name: shown,
                    reason,
                } => Error::ImportRefused {
                    source_name: name.clone(),
                    reason: format!("the playbook name \"{shown}\" cannot be used: {reason}"),
                    findings: Vec::new(),
                },
                other => other,
            })?;
            crate::staging::push(&staging, &name, &content)?;
        }
        staging.commit()?;

        let tx = self.write()?;
        let mut imported = Vec::new();
        crate::staging::for_each(&tx, |source_name, content| {
            imported.push(import_one(&tx, source_name, &content)?);
            Ok(())
        })?;
        tx.commit()?;
        Ok(imported)
    }

    /// A version as YAML or JSON text; the latest when `number` is `None`.
    /// A version saved from text in `format` is given back as that text,
    /// comments and layout included (rewritten to the version's value);
    /// otherwise, or when the text cannot be kept, the canonical render.
    pub fn export(&self, id: &PlaybookId, number: Option<u32>, format: Format) -> Result<String> {
        let version = self.version(id, number)?;
        if let Some(kept) = version
            .authored
            .as_ref()
            .filter(|a| a.format == format)
            .and_then(|a| kept_text(a, &version.content, &version.info.content_hash))
        {
            return Ok(kept.text);
        }
        match format {
            // The stored text is already the canonical JSON.
            Format::Json => Ok(version.content),
            Format::Yaml => {
                let playbook = Content::from_stored(&version.content)
                    .map_err(|problem| unreadable(id, version.info.number, &problem))?;
                document::to_string(&playbook, Format::Yaml).map_err(|e| Error::InvalidPlaybook {
                    message: e.to_string(),
                    findings: Vec::new(),
                })
            }
        }
    }

    /// Writes the latest version of every live playbook to `dir` as
    /// `<id>.<ext>`. Refuses to replace existing files unless `overwrite`
    /// ([`Error::FileExists`], naming them all, before anything is written);
    /// with it, each file is replaced as every user file is
    /// ([`crate::userfile::replace`]: permissions kept, links written
    /// through, read-only files refused, also before anything is written).
    pub fn export_library(
        &self,
        dir: &Path,
        format: Format,
        overwrite: bool,
    ) -> Result<Vec<PathBuf>> {
        let io = |path: &Path| {
            let path = path.display().to_string();
            move |source| Error::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let playbooks = self.list(false)?;
        let mut existing = Vec::new();
        for summary in &playbooks {
            let path = dir.join(format!("{}.{}", summary.id, format.extension()));
            if std::fs::symlink_metadata(&path).is_ok() {
                existing.push(path);
            }
        }
        if !existing.is_empty() && !overwrite {
            return Err(Error::FileExists {
                paths: existing.iter().map(|p| p.display().to_string()).collect(),
            });
        }
        for path in &existing {
            crate::userfile::check_replaceable(path).map_err(io(path))?;
        }
        // The export is the user's backup: one version that does not read
        // must not cost them the others. Each playbook is read and written
        // on its own; the ones that failed are named at the end.
        let mut written = Vec::with_capacity(playbooks.len());
        let mut failed = Vec::new();
        for summary in &playbooks {
            let path = dir.join(format!("{}.{}", summary.id, format.extension()));
            let text = match self.export(&summary.id, None, format) {
                Ok(text) => text,
                Err(error) => {
                    failed.push(format!("{} ({error})", summary.id));
                    continue;
                }
            };
            // Write beside, then rename: a crash never leaves half a file.
            crate::userfile::write_atomically(&path, text.as_bytes()).map_err(io(&path))?;
            written.push(path);
        }
        if !failed.is_empty() {
            return Err(Error::Corrupt {
                message: format!(
                    "exported {} playbook(s) to {}, but could not export: {}",
                    written.len(),
                    dir.display(),
                    failed.join("; ")
                ),
            });
        }
        Ok(written)
    }
}

/// Adds one checked file to the library, in the import's transaction.
fn import_one(tx: &Transaction<'_>, source_name: String, content: &Content) -> Result<Imported> {
    let note = format!("imported from {}", file_name(&source_name));
    let (outcome, saved) = match Playbooks(tx).find(&content.id)? {
        None => (ImportOutcome::Created, create_in(tx, content, &note)?),
        Some(row) if row.deleted_at.is_some() => {
            return Err(Error::ImportRefused {
                source_name,
                reason: format!(
                    "playbook {id:?} is deleted; restore it first (the app's Library, \"Deleted playbooks\", or `playbook db undelete {id}`), or purge it (`playbook db purge {id}`) to import this file as a new playbook",
                    id = content.id.as_str()
                ),
                findings: Vec::new(),
            });
        }
        Some(row) => {
            let saved = save_in(tx, &row, Base::Latest, content, &note)?;
            let outcome = if saved.unchanged {
                ImportOutcome::Unchanged
            } else {
                ImportOutcome::NewVersion
            };
            (outcome, saved)
        }
    };
    Ok(Imported {
        source: source_name,
        outcome,
        saved,
    })
}

fn file_name(name: &str) -> &str {
    Path::new(name)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(name)
}
