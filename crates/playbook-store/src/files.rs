//! Import and export of playbook files.
//!
//! **Import** reads and checks every file before the database is touched,
//! then adds them all in one transaction: a refused file leaves the library
//! exactly as it was. A file whose id is new becomes a new playbook; a file
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
use serde::Serialize;
use ts_rs::TS;

use crate::content::{Content, kept_text};
use crate::error::{Error, Result};
use crate::playbooks::Playbooks;
use crate::store::{Store, create_in, save_in};
use crate::types::{Base, PlaybookId, Saved};

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
        let mut contents = Vec::with_capacity(sources.len());
        for source in sources {
            let content =
                Content::from_text(&source.text, source.format).map_err(|error| match error {
                    Error::InvalidPlaybook { message, findings } => Error::ImportRefused {
                        source_name: source.name.clone(),
                        reason: message,
                        findings,
                    },
                    Error::InvalidName { name, reason } => Error::ImportRefused {
                        source_name: source.name.clone(),
                        reason: format!("the playbook id {name:?} cannot be used: {reason}"),
                        findings: Vec::new(),
                    },
                    other => other,
                })?;
            contents.push(content);
        }
        let tx = self.write()?;
        let mut imported = Vec::with_capacity(sources.len());
        for (source, content) in sources.iter().zip(&contents) {
            let note = format!("imported from {}", file_name(&source.name));
            let (outcome, saved) = match Playbooks(&tx).find(&content.id)? {
                None => (ImportOutcome::Created, create_in(&tx, content, &note)?),
                Some(row) if row.deleted_at.is_some() => {
                    return Err(Error::ImportRefused {
                        source_name: source.name.clone(),
                        reason: format!(
                            "playbook {id:?} is deleted; restore it first (the app's Library, \"Deleted playbooks\", or `playbook db undelete {id}`), or purge it (`playbook db purge {id}`) to import this file as a new playbook",
                            id = content.id.as_str()
                        ),
                        findings: Vec::new(),
                    });
                }
                Some(row) => {
                    let saved = save_in(&tx, &row, Base::Latest, content, &note)?;
                    let outcome = if saved.unchanged {
                        ImportOutcome::Unchanged
                    } else {
                        ImportOutcome::NewVersion
                    };
                    (outcome, saved)
                }
            };
            imported.push(Imported {
                source: source.name.clone(),
                outcome,
                saved,
            });
        }
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
                let playbook = Content::from_stored(&version.content)?;
                document::to_string(&playbook, Format::Yaml).map_err(|e| Error::InvalidPlaybook {
                    message: e.to_string(),
                    findings: Vec::new(),
                })
            }
        }
    }

    /// Writes the latest version of every live playbook to `dir` as
    /// `<id>.<ext>`. Refuses to replace existing files unless `overwrite`.
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
        for summary in &playbooks {
            let path = dir.join(format!("{}.{}", summary.id, format.extension()));
            if path.exists() && !overwrite {
                return Err(Error::AlreadyExists {
                    what: format!("file {}", path.display()),
                });
            }
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
            let partial = path.with_extension(format!("{}.partial", format.extension()));
            if let Err(error) = std::fs::write(&partial, text) {
                let _ = std::fs::remove_file(&partial);
                return Err(io(&partial)(error));
            }
            std::fs::rename(&partial, &path).map_err(io(&path))?;
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

fn file_name(name: &str) -> &str {
    Path::new(name)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(name)
}
