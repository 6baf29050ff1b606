//! What the editor asks of the core, as plain functions: no Tauri here, so
//! every behaviour is testable without a window.

use playbook_core::document::{self, MAX_DOCUMENT_BYTES};
use playbook_core::locate::SourceMap;
use playbook_core::{Format, Options, RoleMode, validate_parsed, validate_source, validate_value};
use serde_json::Value;
use std::path::Path;
use std::sync::Mutex;

use crate::api::{Checked, DocumentChange, Example, FlowView, Include, Migrated, TemplateChecked};
use crate::error::{AppError, ErrorCode, Result};
use playbook_store::Authored;

/// The typed playbook of an edited document when it has no error, else a
/// `Blocked` error carrying the errors, saying they must be fixed before
/// `what` ("running it", "running a preview").
pub fn runnable(document: &Value, what: &str) -> Result<playbook_core::Playbook> {
    let text = render_value(document, Format::Yaml)?;
    let checked = check_source(&text, Format::Yaml);
    match checked.playbook.filter(|_| checked.allow) {
        Some(playbook) => Ok(playbook),
        None => {
            let errors: Vec<_> = checked.findings.iter().filter(|f| f.is_error()).collect();
            Err(AppError::new(
                ErrorCode::Blocked,
                format!(
                    "the playbook has {} error(s); fix them before {what}",
                    errors.len()
                ),
            )
            .with_details(serde_json::json!({ "findings": errors })))
        }
    }
}

/// Upgrades a legacy (agenterm) document to 1.0.0 (the same migration as
/// `playbook migrate`), with the semantic diff against the document as its
/// legacy reading sees it, for the person to confirm.
pub fn migrate_document(document: Value) -> Result<Migrated> {
    use playbook_core::legacy::{MigrateError, migrate_value};
    let before = validate_value(document.clone(), &Options::default()).playbook;
    let migration = migrate_value(document).map_err(|e| match e {
        MigrateError::NotLegacy(_) => AppError::new(ErrorCode::InvalidInput, e.to_string()),
        MigrateError::Invalid(findings) => AppError::new(
            ErrorCode::InvalidInput,
            format!(
                "the playbook has errors even as a legacy file; fix them first: {}",
                findings
                    .iter()
                    .map(|f| f.message.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        ),
    })?;
    let report = validate_value(migration.document, &Options::default());
    let document = report.playbook.ok_or_else(|| {
        AppError::new(
            ErrorCode::Internal,
            "the upgraded playbook does not read back",
        )
    })?;
    let changes = before
        .map(|b| {
            playbook_core::diff::diff(&b, &document)
                .sentences()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Ok(Migrated {
        document,
        changes,
        choices: migration.choices,
        errors: report
            .findings
            .into_iter()
            .filter(|f| f.is_error())
            .collect(),
    })
}

/// Validates a document edited in the form.
///
/// This runs on every keystroke, so it does only what the view in front of
/// the user needs: the typed playbook is not sent back (the UI has the
/// document), the text of the Source tab, with line and column of each
/// finding, is rendered only when `include.source` is set, and the flow
/// graph only with `include.flow`. The text is the
/// canonical rendering of the typed playbook when it has the right shape,
/// and a plain rendering of the value otherwise, so a field with a wrong
/// type is still visible (and flagged) in the source.
pub fn check_document(document: &Value, format: Format, include: Include) -> Result<Checked> {
    check_document_in(document, format, include, None)
}

/// [`check_document`] for a document with the author's text `source`: the
/// Source tab then shows that text rewritten to the document (comments
/// kept, in its format), and findings are located in it.
pub fn check_document_in(
    document: &Value,
    format: Format,
    include: Include,
    source: Option<&Authored>,
) -> Result<Checked> {
    if json_size(document) > MAX_DOCUMENT_BYTES {
        // Let the core word the size finding; nothing else is worth checking.
        let mut checked = check_source(&render_value(document, format)?, format);
        checked.playbook = None;
        return Ok(checked);
    }
    let authored = match source.filter(|_| include.source) {
        Some(source) => Some(crate::authored::write(document, Some(source), None)?),
        None => None,
    };
    let plain = include
        .source
        .then(|| render_value(document, format))
        .transpose()?;
    // Borrowed: the document stays with `LastChecked` for the next change.
    let report = validate_parsed(document, &Options::default());
    let mut findings = report.findings;
    let comments_kept = authored.as_ref().map(|a| a.comments_kept);
    let (source, format) = match (&report.playbook, plain, authored) {
        (_, None, _) => (String::new(), format),
        (_, Some(_), Some(authored)) => (authored.text, authored.format),
        (Some(playbook), Some(_), None) => (
            document::to_string(playbook, format)
                .map_err(|e| AppError::new(ErrorCode::Internal, e.to_string()))?,
            format,
        ),
        (None, Some(plain), None) => (plain, format),
    };
    if include.source {
        let map = SourceMap::new(&source);
        for finding in &mut findings {
            finding.location = map.locate(&finding.path);
        }
    }
    let allow = !findings.iter().any(|f| f.is_error());
    Ok(Checked {
        flow: report
            .playbook
            .as_ref()
            .filter(|_| include.flow)
            .map(FlowView::new),
        structurally_valid: report.playbook.is_some(),
        playbook: None,
        source,
        format,
        findings,
        allow,
        comments_kept,
    })
}

/// The length of `document` as compact JSON, without building the text:
/// this runs on every keystroke, and the text of a 200-role playbook is
/// about 70 KB allocated only to be measured.
fn json_size(document: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a sink that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, document);
    count.0
}

/// The document of the last check, so the next one can send only a change
/// (see [`DocumentChange`]). One editor, one document.
///
/// The check borrows the held document ([`LastChecked::check`]): the core
/// validates a borrowed value, so a keystroke neither copies the 200-role
/// document nor frees one.
#[derive(Default)]
pub struct LastChecked(Mutex<Option<Held>>);

struct Held {
    revision: u64,
    document: Value,
}

impl LastChecked {
    /// Applies `change` to the held document and runs `check` on the result,
    /// which is remembered for the next change. A change to a revision this
    /// no longer holds (answers crossed, or the app restarted) is `stale`:
    /// the UI then sends the whole document.
    pub fn check<R>(&self, change: DocumentChange, check: impl FnOnce(&Value) -> R) -> Result<R> {
        // Checks of one editor come one after the other; the lock is held
        // through the check so the document cannot change under it.
        let mut last = self.0.lock().unwrap_or_else(|e| e.into_inner());
        Self::check_held(&mut last, change, check)
    }

    /// [`LastChecked::check`] without waiting: while another check holds
    /// the document it answers `busy` at once. For a caller that must not
    /// block, the keystroke's check on the window's thread
    /// ([`crate::inline_check`]).
    pub fn try_check<R>(
        &self,
        change: DocumentChange,
        check: impl FnOnce(&Value) -> R,
    ) -> Result<R> {
        let mut last = match self.0.try_lock() {
            Ok(last) => last,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => {
                return Err(AppError::new(
                    ErrorCode::Busy,
                    "another check of the document is running",
                ));
            }
        };
        Self::check_held(&mut last, change, check)
    }

    fn check_held<R>(
        last: &mut Option<Held>,
        change: DocumentChange,
        check: impl FnOnce(&Value) -> R,
    ) -> Result<R> {
        match change {
            DocumentChange::Whole { revision, document } => {
                let held = last.insert(Held { revision, document });
                Ok(check(&held.document))
            }
            DocumentChange::Patch {
                base,
                revision,
                pointer,
                value,
            } => {
                let stale = || {
                    AppError::new(
                        ErrorCode::Stale,
                        format!("revision {base} of the document is not the one last checked"),
                    )
                };
                let Some(held) = last.as_mut().filter(|held| held.revision == base) else {
                    return Err(stale());
                };
                if !apply(&mut held.document, &pointer, value) {
                    // Nothing was changed, but the page and the backend
                    // disagree on the document: start again from a whole one.
                    *last = None;
                    return Err(stale());
                }
                held.revision = revision;
                Ok(check(&held.document))
            }
        }
    }
}

/// Replaces (or with `None` removes) the value at `pointer` in `document`;
/// false when the pointer's parent does not exist or the pointer is the root.
fn apply(document: &mut Value, pointer: &str, value: Option<Value>) -> bool {
    let Some(cut) = pointer.rfind('/') else {
        return false;
    };
    let key = pointer[cut + 1..].replace("~1", "/").replace("~0", "~");
    let Some(parent) = document.pointer_mut(&pointer[..cut]) else {
        return false;
    };
    match (parent, value) {
        (Value::Object(map), Some(value)) => {
            map.insert(key, value);
        }
        (Value::Object(map), None) => {
            map.shift_remove(&key);
        }
        (Value::Array(items), value) => {
            let Ok(index) = key.parse::<usize>() else {
                return false;
            };
            match value {
                Some(value) if index < items.len() => items[index] = value,
                Some(value) if index == items.len() => items.push(value),
                None if index < items.len() => {
                    items.remove(index);
                }
                _ => return false,
            }
        }
        _ => return false,
    }
    true
}

/// Validates text typed in the Source tab or read from a file.
pub fn check_source(text: &str, format: Format) -> Checked {
    checked_source(
        text,
        format,
        validate_source(text, format, &Options::default()),
        Include {
            source: true,
            flow: true,
        },
    )
}

/// The Source tab's checks, one text after another: each is parsed from
/// the last one's parse where only one block entry changed (a keystroke),
/// so the check of a 230 KB playbook does not read the whole text again
/// (`playbook_core::Session`).
#[derive(Default)]
pub struct SourceSession(Mutex<playbook_core::Session>);

impl SourceSession {
    /// The check of the Source tab's `text`, with the flow graph and the
    /// text itself in the answer only when `include` asks: the page that
    /// typed a 230 KB text has it, and a keystroke's answer should not carry
    /// it back.
    pub fn check(&self, text: &str, format: Format, include: Include) -> Checked {
        // Checks of one editor come one after the other; a poisoned lock
        // only means a check panicked, and the session parses whole texts
        // as well as parts.
        let mut session = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let report = session.check(text, format, &Options::default());
        checked_source(text, format, report, include)
    }
}

fn checked_source(
    text: &str,
    format: Format,
    report: playbook_core::Report,
    include: Include,
) -> Checked {
    Checked {
        allow: report.allow(),
        structurally_valid: report.playbook.is_some(),
        flow: report
            .playbook
            .as_ref()
            .filter(|_| include.flow)
            .map(FlowView::new),
        playbook: report.playbook,
        source: if include.source {
            text.to_string()
        } else {
            String::new()
        },
        format,
        findings: report.findings,
        comments_kept: None,
    }
}

/// The document as text, for export and "save as".
pub fn render_value(document: &Value, format: Format) -> Result<String> {
    let rendered = match format {
        Format::Yaml => yaml_serde::to_string(document).map_err(|e| e.to_string()),
        Format::Json => serde_json::to_string_pretty(document)
            .map(|t| t + "\n")
            .map_err(|e| e.to_string()),
    };
    rendered.map_err(|e| {
        AppError::new(
            ErrorCode::InvalidInput,
            format!("the document cannot be written as text: {e}"),
        )
    })
}

/// The built-in template of a role mode, as a JSON value the form inserts.
pub fn role_template(mode: RoleMode) -> playbook_core::Role {
    playbook_core::templates::role_template(mode)
}

macro_rules! example {
    ($id:literal) => {
        (
            $id,
            include_str!(concat!(env!("OUT_DIR"), "/examples/", $id, ".yaml")),
        )
    };
}

/// The example playbooks embedded at build time, TDD first.
pub fn examples() -> Vec<Example> {
    [
        example!("tdd"),
        example!("pairing"),
        example!("compound-engineering"),
        example!("legacy"),
    ]
    .into_iter()
    .filter(|(_, text)| !text.trim().is_empty())
    .map(|(id, text)| {
        let value: Option<Value> = yaml_serde::from_str(text).ok();
        let field = |key: &str| {
            value
                .as_ref()
                .and_then(|v| v.get(key))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let name = field("name");
        Example {
            id: id.to_string(),
            name: if name.is_empty() {
                id.to_string()
            } else {
                name
            },
            description: field("description"),
            source: text.to_string(),
        }
    })
    .collect()
}

/// Writes text to a file, atomically: a crash or a full disk leaves the
/// old content, never half of the new one.
pub fn write_text_file(path: &Path, text: &str) -> Result<()> {
    playbook_store::userfile::write_atomically(path, text.as_bytes())
        .map_err(|e| io_error(&path.display().to_string(), e))
}

fn io_error(path: &str, e: std::io::Error) -> AppError {
    let code = match e.kind() {
        std::io::ErrorKind::NotFound => ErrorCode::NotFound,
        _ => ErrorCode::Io,
    };
    AppError::new(code, format!("{path}: {e}")).with_details(serde_json::json!({ "path": path }))
}

/// Checks a role template on its own (see `playbook_core::templates::check_template`).
pub fn check_template(role: Value) -> TemplateChecked {
    let report = playbook_core::templates::check_template(role, &Options::default());
    TemplateChecked {
        allow: report.allow(),
        findings: report.findings,
    }
}

/// The quick fixes of one finding of `document` (the value the finding was
/// reported on), best first; empty when its fix is not mechanical.
pub fn quick_fixes(
    document: &Value,
    finding: &playbook_core::Finding,
) -> Vec<playbook_core::fix::Fix> {
    playbook_core::fix::fixes_for(document, finding)
}

/// `document` with `fix` applied: the same edits `playbook fix` makes.
pub fn apply_fix(mut document: Value, fix: &playbook_core::fix::Fix) -> Result<Value> {
    for op in &fix.ops {
        playbook_core::edit::patch(&mut document, op).map_err(|e| {
            AppError::new(
                ErrorCode::InvalidInput,
                format!(
                    "the fix \"{}\" does not apply to this document: {e}",
                    fix.title
                ),
            )
        })?;
    }
    Ok(document)
}

/// The finding codes that have a quick fix, for the Problems panel.
pub fn fixable_codes() -> Vec<playbook_core::Code> {
    playbook_core::Code::ALL
        .iter()
        .copied()
        .filter(|c| playbook_core::fix::has_fixes(*c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::json_size;
    use serde_json::json;

    /// The size limit is checked on the counted length: it must be the
    /// length of the text it stands for, escapes and non-ASCII included.
    #[test]
    fn json_size_is_the_length_of_the_compact_text() {
        for value in [
            json!(null),
            json!({}),
            json!({"a": [1, 2.5, -3, true, null], "b": {"c": "d"}}),
            json!({"quote\"and\\slash": "tab\t, newline\n, control \u{1}, é, 漢, 🎉"}),
        ] {
            assert_eq!(
                json_size(&value),
                serde_json::to_string(&value).unwrap().len()
            );
        }
    }
}
