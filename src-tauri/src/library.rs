//! The library, through `playbook-store`: the one SQLite file that holds
//! playbooks, versions, drafts and team templates. This module only adapts
//! the store's API to the UI's (JSON documents in, summaries out) and its
//! errors to [`AppError`]; the store does all the work.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

use playbook_core::{Format, Playbook, Role, document};
use playbook_orchestrator::EventRecord;
use playbook_store::{
    Authored, Base, DraftNumber, Imported, PlaybookId, PlaybookSummary, Run, RunId, Saved, Source,
    Store, TemplateSaved, TemplateSummary, VersionInfo,
};
use serde_json::Value;

use crate::api::{
    Comparison, DraftSaved, ExampleOpened, Opened, SavedDocument, TemplateOpened, VersionDocument,
};
use crate::error::{AppError, ErrorCode, Result};

type StoreOrError = std::result::Result<Store, AppError>;

/// The open library. When the file cannot be opened the app still starts:
/// every library command then fails with the reason, and the editor works.
pub struct Library {
    path: PathBuf,
    /// Opening in the background, until the first command needs the store.
    opening: Mutex<Option<JoinHandle<StoreOrError>>>,
    store: OnceLock<Mutex<StoreOrError>>,
    /// Per playbook, the draft the editor holds: the one it opened or last
    /// autosaved. Autosaves write over that draft only, and discarding
    /// throws only it away, so a draft someone else's refused save left
    /// (the CLI, another author) is never replaced or dropped by the editor.
    held: Mutex<HashMap<String, DraftNumber>>,
}

/// Opens (creating and seeding with the examples when new) the store at `path`.
fn open_store(path: &Path) -> StoreOrError {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    Store::open(path).map_err(AppError::from)
}

impl From<playbook_store::Error> for AppError {
    fn from(e: playbook_store::Error) -> Self {
        use playbook_store::ErrorCode as S;
        let code = match e.code() {
            S::NotFound => ErrorCode::NotFound,
            S::ConcurrencyConflict => ErrorCode::Conflict,
            S::InvalidPlaybook | S::ImportRefused => ErrorCode::InvalidPlaybook,
            S::InvalidName | S::AlreadyExists | S::InvalidInput | S::Deleted | S::NotDeleted => {
                ErrorCode::InvalidInput
            }
            S::Io => ErrorCode::Io,
            _ => ErrorCode::Store,
        };
        let mut details = e.to_json();
        if let playbook_store::Error::InvalidPlaybook { findings, .. }
        | playbook_store::Error::ImportRefused { findings, .. } = &e
        {
            details["findings"] = serde_json::to_value(findings).unwrap_or_default();
        }
        AppError::new(code, e.to_string()).with_details(details)
    }
}

fn id(text: &str) -> Result<PlaybookId> {
    Ok(PlaybookId::new(text)?)
}

/// The document as the JSON text the store keeps as a draft or version.
fn json_text(document: &Value) -> Result<String> {
    serde_json::to_string_pretty(document).map_err(|e| {
        AppError::new(
            ErrorCode::InvalidInput,
            format!("the document cannot be written: {e}"),
        )
    })
}

/// The text a save or draft stores for `document`: the author's text
/// rewritten to it, or (with no author's text) its JSON, as before.
fn written(document: &Value, source: Option<&Authored>) -> Result<(String, Format, bool)> {
    match source {
        Some(source) => {
            let rendered = crate::authored::write(document, Some(source), None)?;
            Ok((rendered.text, rendered.format, rendered.comments_kept))
        }
        None => Ok((json_text(document)?, Format::Json, true)),
    }
}

fn parse_stored(text: &str) -> Result<Value> {
    parse_as(text, playbook_core::Format::sniff(text))
}

fn parse_as(text: &str, format: Format) -> Result<Value> {
    playbook_core::document::parse_value(text, format).map_err(|f| {
        AppError::new(
            ErrorCode::Store,
            format!("a stored text does not parse: {}", f.message),
        )
    })
}

impl Library {
    /// Opens (creating and seeding with the examples when new) the library at `path`.
    pub fn open(path: PathBuf) -> Library {
        let store = OnceLock::from(Mutex::new(open_store(&path)));
        Library {
            path,
            opening: Mutex::new(None),
            store,
            held: Mutex::default(),
        }
    }

    /// The library at `PLAYBOOK_DB`, or the platform's default location,
    /// opened on its own thread while the window starts: a new library is
    /// created and seeded with fsyncs, which need not delay the first paint.
    /// The first command that needs it waits for it.
    pub fn open_default() -> Library {
        let path = playbook_store::resolve_db_path(None);
        let opening = {
            let path = path.clone();
            std::thread::spawn(move || open_store(&path))
        };
        Library {
            path,
            opening: Mutex::new(Some(opening)),
            store: OnceLock::new(),
            held: Mutex::default(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn store(&self) -> &Mutex<StoreOrError> {
        self.store.get_or_init(|| {
            let opening = self
                .opening
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            let opened = match opening {
                Some(thread) => thread.join().unwrap_or_else(|_| {
                    Err(AppError::new(
                        ErrorCode::Internal,
                        "opening the library stopped unexpectedly",
                    ))
                }),
                None => Err(AppError::new(
                    ErrorCode::Internal,
                    "the library was never opened",
                )),
            };
            Mutex::new(opened)
        })
    }

    /// The draft of `playbook` the editor holds, if any.
    fn held(&self, playbook: &str) -> Option<DraftNumber> {
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.get(playbook).copied()
    }

    /// Records (or, with `None`, forgets) the draft the editor holds.
    fn hold(&self, playbook: &str, draft: Option<DraftNumber>) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        match draft {
            Some(number) => held.insert(playbook.to_string(), number),
            None => held.remove(playbook),
        };
    }

    pub(crate) fn with<T>(&self, f: impl FnOnce(&mut Store) -> Result<T>) -> Result<T> {
        let mut guard = self.store().lock().map_err(|_| {
            AppError::new(
                ErrorCode::Internal,
                "the library is unavailable after an earlier failure",
            )
        })?;
        match guard.as_mut() {
            Ok(store) => f(store),
            Err(e) => Err(AppError::new(
                e.code,
                format!(
                    "the library at {} could not be opened: {}",
                    self.path.display(),
                    e.message
                ),
            )
            .with_details(e.details.clone().unwrap_or_default())),
        }
    }

    /// Live playbooks by id; with `include_deleted`, deleted ones too
    /// (their `deleted_at` is set), for the Library's "Deleted playbooks".
    pub fn list(&self, include_deleted: bool) -> Result<Vec<PlaybookSummary>> {
        self.with(|s| Ok(s.list(include_deleted)?))
    }

    pub fn open_playbook(&self, playbook: &str) -> Result<Opened> {
        let pid = id(playbook)?;
        self.with(|s| {
            let summary = s.summary(&pid)?;
            // A deleted playbook is out of the list; opening it (say, as the
            // last one open before a restart) would lead to saves that fail.
            if summary.deleted_at.is_some() {
                return Err(AppError::new(
                    ErrorCode::NotFound,
                    format!("playbook `{playbook}` was deleted; Undo right after deleting, or `playbook db undelete {playbook}`, brings it back"),
                ));
            }
            let version = s.version(&pid, None)?;
            let draft = s.draft(&pid)?;
            // The editor shows the newest draft, so it holds that one now.
            self.hold(playbook, draft.as_ref().map(|d| d.number));
            // The editor rewrites this text on every save: the draft's when
            // it shows the draft, else the one the version was saved from.
            // A draft may be any text (Source-tab typing autosaved as it
            // was, a save refused elsewhere): one that does not parse comes
            // back as text for the Source tab, never as a refusal to open.
            let parsed = draft
                .as_ref()
                .map(|d| parse_as(&d.content, d.format).ok());
            let (shown, broken_draft) = match (&draft, parsed) {
                (Some(d), Some(Some(value))) => (Some((d, value)), None),
                (Some(d), _) => (
                    None,
                    Some(Authored {
                        text: d.content.clone(),
                        format: d.format,
                    }),
                ),
                (None, _) => (None, None),
            };
            let source = match &shown {
                Some((d, _)) => Some(Authored {
                    text: d.content.clone(),
                    format: d.format,
                }),
                None => version.authored,
            };
            Ok(Opened {
                document: parse_stored(&version.content)?,
                base: version.info.number,
                draft_updated_at: draft.as_ref().map(|d| d.updated_at.clone()),
                draft: shown.map(|(_, value)| value),
                summary,
                source,
                broken_draft,
            })
        })
    }

    /// Adds a new playbook under its own id, or the first free `<id>-n` when
    /// a live or deleted playbook holds it: a create never fails because
    /// of an id the person cannot see.
    pub fn create(&self, document: Value, note: &str) -> Result<Saved> {
        let text = json_text(&document)?;
        // Read as the store reads text, so what it accepts here it accepts there.
        let report =
            playbook_core::validate_source(&text, Format::Json, &playbook_core::Options::default());
        match report.playbook {
            Some(playbook) => self.with(|s| Ok(s.create_unique(playbook, note)?)),
            // Not a playbook: the store's refusal carries the located findings.
            None => self.with(|s| Ok(s.create_from_text(&text, Format::Json, note)?)),
        }
    }

    /// Opens the shipped example `example`: the library's unchanged copy of
    /// it when there is one, else a new copy. `new_copy` always makes one.
    pub fn open_example(&self, example: &str, new_copy: bool) -> Result<ExampleOpened> {
        let shipped = crate::workbench::examples()
            .into_iter()
            .find(|e| e.id == example)
            .ok_or_else(|| {
                AppError::new(
                    ErrorCode::NotFound,
                    format!("there is no example `{example}`; the examples are listed on the Welcome screen"),
                )
            })?;
        let report = playbook_core::validate_source(
            &shipped.source,
            Format::Yaml,
            &playbook_core::Options::default(),
        );
        let playbook = report.playbook.ok_or_else(|| {
            AppError::new(
                ErrorCode::Internal,
                format!(
                    "the {} example shipped with the app does not parse",
                    shipped.name
                ),
            )
        })?;
        self.with(|s| {
            if !new_copy && let Some(copy) = s.find_copy(&playbook)? {
                return Ok(ExampleOpened {
                    playbook: copy,
                    created: false,
                });
            }
            let note = format!("new from the {} example", shipped.name);
            // The copy keeps the example's text (its comments), with its own id.
            let text = Authored {
                text: shipped.source.clone(),
                format: Format::Yaml,
            };
            let saved = s.create_unique_from(playbook, &note, Some(text))?;
            Ok(ExampleOpened {
                playbook: saved.playbook,
                created: true,
            })
        })
    }

    /// One stored version as a document.
    pub fn version(&self, playbook: &str, number: u32) -> Result<VersionDocument> {
        let pid = id(playbook)?;
        self.with(|s| {
            let version = s.version(&pid, Some(number))?;
            Ok(VersionDocument {
                document: parse_stored(&version.content)?,
                info: version.info,
            })
        })
    }

    /// Saves the document as the next version of `playbook`, edited from
    /// version `base`: the author's `source` rewritten to it when given, so
    /// the version keeps the comments.
    pub fn save(
        &self,
        playbook: &str,
        base: u32,
        document: Value,
        note: &str,
        source: Option<Authored>,
    ) -> Result<SavedDocument> {
        let pid = id(playbook)?;
        let (text, format, comments_kept) = written(&document, source.as_ref())?;
        let (saved, draft_kept) = self.with(|s| {
            let saved = s.save_version(&pid, Base::Version(base), &text, format, note)?;
            // A version records content: text that differs from the latest
            // version only in comments or layout adds none. Nothing typed is
            // lost, so that text stays as the draft.
            let draft_kept = saved.unchanged
                && source.is_some()
                && s.export(&pid, None, format).ok().as_deref() != Some(text.as_str());
            if draft_kept {
                let held = self.held(playbook);
                let draft =
                    s.save_draft_as(&pid, &text, format, Some(saved.version.number), held)?;
                self.hold(playbook, Some(draft.number));
            }
            Ok((saved, draft_kept))
        })?;
        Ok(SavedDocument {
            saved,
            source: source.map(|_| Authored { text, format }),
            comments_kept,
            draft_kept,
        })
    }

    /// Autosaves the document as the draft of `playbook`, as the author's
    /// `source` rewritten to it when given.
    pub fn save_draft(
        &self,
        playbook: &str,
        document: Value,
        base: Option<u32>,
        source: Option<Authored>,
    ) -> Result<DraftSaved> {
        let pid = id(playbook)?;
        let (text, format, comments_kept) = written(&document, source.as_ref())?;
        let held = self.held(playbook);
        let draft = self.with(|s| Ok(s.save_draft_as(&pid, &text, format, base, held)?))?;
        self.hold(playbook, Some(draft.number));
        Ok(DraftSaved {
            draft,
            comments_kept,
        })
    }

    /// Autosaves text typed in the Source tab that does not read as a
    /// playbook yet, as it was typed, over the draft the editor holds: a
    /// crash or a quit mid-edit keeps it, and opening shows it again
    /// (`Opened::broken_draft`). The store's size limit applies.
    pub fn save_draft_text(
        &self,
        playbook: &str,
        text: String,
        format: Format,
        base: Option<u32>,
    ) -> Result<DraftSaved> {
        let pid = id(playbook)?;
        let held = self.held(playbook);
        let draft = self.with(|s| Ok(s.save_draft_as(&pid, &text, format, base, held)?))?;
        self.hold(playbook, Some(draft.number));
        Ok(DraftSaved {
            draft,
            // Kept exactly as typed.
            comments_kept: true,
        })
    }

    /// Throws away the draft the editor holds (its edits were saved or
    /// undone); other drafts of the playbook stay.
    pub fn discard_draft(&self, playbook: &str) -> Result<bool> {
        let pid = id(playbook)?;
        let Some(number) = self.held(playbook) else {
            return Ok(false);
        };
        let removed = self.with(|s| Ok(s.discard_draft(&pid, number)?))?;
        self.hold(playbook, None);
        Ok(removed)
    }

    /// Copies a playbook under the first free id `<id>-copy`, `<id>-copy-2` ...
    pub fn duplicate(&self, playbook: &str) -> Result<Saved> {
        let pid = id(playbook)?;
        self.with(|s| {
            let taken: Vec<String> = s
                .list(true)?
                .into_iter()
                .map(|p| p.id.as_str().to_string())
                .collect();
            let new_id = (1..)
                .map(|n| {
                    if n == 1 {
                        format!("{playbook}-copy")
                    } else {
                        format!("{playbook}-copy-{n}")
                    }
                })
                .find(|candidate| !taken.contains(candidate))
                .unwrap_or_default();
            Ok(s.duplicate(&pid, &PlaybookId::new(new_id)?, None)?)
        })
    }

    pub fn delete(&self, playbook: &str) -> Result<()> {
        let pid = id(playbook)?;
        self.with(|s| Ok(s.delete(&pid)?))
    }

    /// Brings a deleted playbook back with its whole history (the Undo of delete).
    pub fn undelete(&self, playbook: &str) -> Result<()> {
        let pid = id(playbook)?;
        self.with(|s| Ok(s.undelete(&pid)?))
    }

    /// Imports a file; a malformed file is refused and the library is unchanged.
    pub fn import_file(&self, path: &Path) -> Result<Vec<Imported>> {
        let source = if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md"))
        {
            claude_code_source(path)?
        } else if playbook_store::crew_files::is_crew_file(path) {
            crew_source(path)?
        } else {
            Source::read(path)?
        };
        self.with(|s| Ok(s.import(&[source])?))
    }

    /// Imports pasted text, named for messages and version notes.
    pub fn import_text(&self, name: &str, text: &str) -> Result<Vec<Imported>> {
        if text.len() > document::MAX_DOCUMENT_BYTES {
            return Err(AppError::new(
                ErrorCode::TooLarge,
                format!(
                    "the text is {} bytes; a playbook may be at most {} bytes",
                    text.len(),
                    document::MAX_DOCUMENT_BYTES
                ),
            ));
        }
        let source = Source {
            name: if name.trim().is_empty() {
                "pasted text".into()
            } else {
                name.to_string()
            },
            text: text.to_string(),
            format: Format::sniff(text),
        };
        self.with(|s| Ok(s.import(&[source])?))
    }

    /// Writes the latest version to `path`, as YAML unless it ends in `.json`.
    pub fn export(&self, playbook: &str, path: &Path) -> Result<()> {
        let pid = id(playbook)?;
        let format = Format::from_path(&path.to_string_lossy());
        let text = self.with(|s| Ok(s.export(&pid, None, format)?))?;
        crate::workbench::write_text_file(path, &text)
    }

    /// Exports a playbook for Claude Code into the project `dir`: the
    /// playbook itself as `.claude/playbooks/<id>.yaml` (the file the gate
    /// hook reads), one subagent per role and the merged settings with the
    /// hook (the CLI's `export --to claude-code`). Returns the files written,
    /// relative to the project, and the notes to show.
    pub fn export_claude_code(
        &self,
        playbook: &str,
        dir: &Path,
    ) -> Result<(Vec<String>, Vec<String>)> {
        use playbook_core::interop::claude_code::{self as cc, PlaybookPath};
        let pid = id(playbook)?;
        let text = self.with(|s| Ok(s.export(&pid, None, Format::Yaml)?))?;
        let report =
            playbook_core::validate_source(&text, Format::Yaml, &playbook_core::Options::default());
        let model = report.playbook.ok_or_else(|| {
            AppError::new(
                ErrorCode::InvalidInput,
                "the playbook has no valid structure; fix its errors first",
            )
        })?;
        let playbook_file = format!(".claude/playbooks/{}.yaml", pid.as_str());
        let command = cc::gate_command("playbook", PlaybookPath::InProject(&playbook_file), &[]);
        let settings = dir.join(".claude").join("settings.json");
        let existing = if settings.exists() {
            let bytes = playbook_store::userfile::read_bounded(&settings, 4 * 1024 * 1024)
                .map_err(|e| {
                    AppError::new(
                        ErrorCode::InvalidInput,
                        format!("{}: {e}", settings.display()),
                    )
                })?;
            Some(String::from_utf8(bytes).map_err(|_| {
                AppError::new(
                    ErrorCode::InvalidInput,
                    format!("{} is not UTF-8 text", settings.display()),
                )
            })?)
        } else {
            None
        };
        let body = |role: &playbook_core::model::RoleRef<'_>| {
            playbook_orchestrator::prompt::render(&model, role, &serde_json::Map::new())
        };
        let export = cc::export_project(&model, body, existing.as_deref(), &command).map_err(|why| {
            AppError::new(
                ErrorCode::InvalidInput,
                format!("{}: {why}; fix it or move it away, then export again (nothing was written)", settings.display()),
            )
        })?;
        // The playbook copy carries the export's header, so the next export
        // knows it may replace it; nothing an export did not write is
        // replaced (the CLI's rule, `cc::replaceable`), and the check comes
        // before any write.
        let copy = cc::playbook_copy(&text);
        let mut files = vec![(playbook_file.clone(), copy)];
        files.extend(export.files);
        let conflicts = playbook_store::agent_files::export_conflicts(dir, &files);
        if !conflicts.is_empty() {
            return Err(AppError::new(
                ErrorCode::InvalidInput,
                format!(
                    "the export would replace {} file(s) it did not write: {}; move them away or choose another folder, then export again (nothing was written)",
                    conflicts.len(),
                    conflicts.join("; ")
                ),
            )
            .with_details(serde_json::json!({ "conflicts": conflicts })));
        }
        for sub in ["agents", "playbooks"] {
            let folder = dir.join(".claude").join(sub);
            std::fs::create_dir_all(&folder).map_err(|e| {
                AppError::new(
                    ErrorCode::Io,
                    format!("cannot create {}: {e}", folder.display()),
                )
            })?;
        }
        let mut written = Vec::new();
        for (relative, content) in &files {
            crate::workbench::write_text_file(&dir.join(relative), content)?;
            written.push(relative.clone());
        }
        Ok((written, export.notes))
    }

    pub fn history(&self, playbook: &str) -> Result<Vec<VersionInfo>> {
        let pid = id(playbook)?;
        self.with(|s| Ok(s.history(&pid)?))
    }

    /// The semantic diff of two versions, with both texts for the text diff.
    pub fn compare(&self, playbook: &str, from: u32, to: u32) -> Result<Comparison> {
        let pid = id(playbook)?;
        self.with(|s| {
            Ok(Comparison {
                diff: s.diff(&pid, from, to)?,
                from_text: s.export(&pid, Some(from), Format::Yaml)?,
                to_text: s.export(&pid, Some(to), Format::Yaml)?,
            })
        })
    }

    pub fn restore(&self, playbook: &str, number: u32) -> Result<Saved> {
        let pid = id(playbook)?;
        self.with(|s| Ok(s.restore(&pid, number, None)?))
    }

    pub fn templates(&self) -> Result<Vec<TemplateSummary>> {
        self.with(|s| Ok(s.templates()?))
    }

    pub fn template_role(&self, name: &str) -> Result<Role> {
        self.with(|s| Ok(s.template_role(name, None)?))
    }

    /// Saves `role` as the next version of team template `name`. With
    /// `base`, the save is refused (`conflict`) when another version was
    /// saved since the one the edits started from.
    pub fn save_template(
        &self,
        name: &str,
        role: &Role,
        note: &str,
        base: Option<u32>,
    ) -> Result<TemplateSaved> {
        let base = base.map_or(Base::Latest, Base::Version);
        self.with(|s| Ok(s.save_template(name.trim(), role, base, note)?))
    }

    /// A template (a team template at version `number`, or its latest) for the editor.
    pub fn open_template(&self, name: &str, number: Option<u32>) -> Result<TemplateOpened> {
        self.with(|s| {
            let template = s.template(name, number)?;
            Ok(TemplateOpened {
                role: s.template_role(name, number)?,
                name: template.name,
                source: template.source,
                version: template.version,
            })
        })
    }

    pub fn template_history(&self, name: &str) -> Result<Vec<VersionInfo>> {
        self.with(|s| Ok(s.template_history(name)?))
    }

    /// The semantic diff of two versions of a team template, with both as YAML.
    pub fn compare_templates(&self, name: &str, from: u32, to: u32) -> Result<Comparison> {
        self.with(|s| {
            let yaml = |number| -> Result<String> {
                let role = s.template_role(name, Some(number))?;
                yaml_serde::to_string(&role)
                    .map_err(|e| AppError::new(ErrorCode::Internal, e.to_string()))
            };
            Ok(Comparison {
                diff: s.template_diff(name, from, to)?,
                from_text: yaml(from)?,
                to_text: yaml(to)?,
            })
        })
    }

    /// Removes a team template from the list; saving the name again continues its history.
    pub fn delete_template(&self, name: &str) -> Result<()> {
        self.with(|s| Ok(s.delete_template(name)?))
    }

    /// Starts recording a preview run of library playbook `playbook`. The
    /// run is tied to version `base` when `previewed` is exactly that
    /// version, and to no version (unsaved edits) otherwise.
    pub fn start_run(
        &self,
        playbook: &str,
        base: Option<u32>,
        previewed: &Playbook,
        scenario: &str,
        seed: u64,
    ) -> Result<RunId> {
        let pid = id(playbook)?;
        self.with(|s| {
            let version = match base {
                Some(number) => {
                    let version = s.version(&pid, Some(number))?;
                    let saved = s.playbook(&pid, Some(number))?;
                    (saved == *previewed).then_some(version.info.id)
                }
                None => None,
            };
            Ok(s.create_run(&pid, version, scenario, seed)?)
        })
    }

    /// Appends events to a recorded run.
    pub fn record_events(&self, run: RunId, events: &[EventRecord]) -> Result<()> {
        let lines = events
            .iter()
            .map(|e| Ok((e.seq, serde_json::to_string(e)?)))
            .collect::<serde_json::Result<Vec<_>>>()
            .map_err(|e| AppError::new(ErrorCode::Internal, e.to_string()))?;
        let borrowed: Vec<(u64, &str)> = lines.iter().map(|(seq, l)| (*seq, l.as_str())).collect();
        self.with(|s| Ok(s.append_events(run, &borrowed)?))
    }

    /// Marks a recorded run finished with its status and a JSON summary.
    pub fn finish_run(&self, run: RunId, status: &str, summary: &Value) -> Result<()> {
        self.with(|s| Ok(s.finish_run(run, status, Some(&summary.to_string()))?))
    }

    /// The recorded preview runs of a playbook, newest first.
    pub fn runs(&self, playbook: &str) -> Result<Vec<Run>> {
        let pid = id(playbook)?;
        self.with(|s| Ok(s.list_runs(Some(&pid))?))
    }

    /// The events of a recorded run, in order.
    pub fn run_events(&self, run: RunId) -> Result<Vec<EventRecord>> {
        let stored = self.with(|s| Ok(s.run_events(run)?))?;
        stored
            .iter()
            .map(|e| {
                serde_json::from_str(&e.event).map_err(|err| {
                    AppError::new(
                        ErrorCode::Store,
                        format!(
                            "event {} of run {} was written by another version of the engine and cannot be shown: {err}",
                            e.seq, run.0
                        ),
                    )
                })
            })
            .collect()
    }
}

/// A Claude Code subagent file stands for its folder of subagents: they are
/// imported together as one playbook (the CLI's `import --from claude-code`),
/// and the source's name says which importer read them.
fn claude_code_source(file: &Path) -> Result<Source> {
    use playbook_core::interop::claude_code as cc;
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let read = playbook_store::agent_files::read_agent_files(dir)
        .map_err(|m| AppError::new(ErrorCode::InvalidInput, m))?;
    // `.claude/agents` is named after its project.
    let project = if dir.ends_with(".claude/agents") {
        dir.parent().and_then(Path::parent).unwrap_or(dir)
    } else {
        dir
    };
    let name = std::fs::canonicalize(project)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "subagents".into());
    let imported = cc::import(&read.files, &name)
        .map_err(|e| AppError::new(ErrorCode::InvalidInput, e.to_string()))?;
    let text = document::to_string(&imported.playbook, Format::Yaml)
        .map_err(|e| AppError::new(ErrorCode::Internal, e.to_string()))?;
    Ok(Source {
        name: format!(
            "{} (Claude Code subagents, {} file(s))",
            dir.display(),
            read.files.len()
        ),
        format: Format::Yaml,
        text,
    })
}

/// A crew's `agents.yaml` or `tasks.yaml` stands for its crew: both are
/// imported together as one playbook (the CLI's `import --from crewai`).
fn crew_source(file: &Path) -> Result<Source> {
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let shown = dir.display().to_string();
    let (imported, config) = playbook_store::crew_files::import(dir, &shown, &shown)
        .map_err(|m| AppError::new(ErrorCode::InvalidInput, m))?;
    let text = document::to_string(&imported.playbook, Format::Yaml)
        .map_err(|e| AppError::new(ErrorCode::Internal, e.to_string()))?;
    Ok(Source {
        name: format!("{} (CrewAI crew)", config.display()),
        format: Format::Yaml,
        text,
    })
}
