//! Validation: structure first (JSON Schema), then the semantic lints a
//! schema cannot express. Every finding is returned at once.

use serde_json::Value;

use crate::document::{self, Format};
use crate::finding::{Finding, Severity};
use crate::locate::SourceMap;
use crate::model::Playbook;
use crate::schema;

pub mod limits;
mod lints;
mod names;

pub(crate) use lints::ID_HINT;
pub use lints::{BUILTIN_RUN_INPUTS, ESCALATION_TRIGGERS, prompt_placeholders};
pub use names::{NAME_HINT, display_name_problem};

/// Tunable validation behaviour.
#[derive(Debug, Clone)]
pub struct Options {
    /// Unknown fields without the `x_` prefix are errors, not warnings.
    pub strict: bool,
    /// Highest `max_parallel_worktrees` before PB103 warns.
    pub max_parallel_worktrees: u32,
    /// Tools that need approval when a playbook does not list its own.
    pub mutating_actions: Vec<String>,
    /// The name of the file the text came from, when there is one: a legacy
    /// (agenterm) file without `id` takes its id from it, as agenterm did.
    pub file_name: Option<String>,
}

/// Tools that change the workspace, used when a playbook has no `mutating_actions`.
pub const DEFAULT_MUTATING_ACTIONS: &[&str] = &[
    "write_file",
    "edit_file",
    "delete_file",
    "apply_patch",
    "bash",
    "run_command",
    "git_commit",
    "git_push",
    "git_checkpoint",
    "git_reset",
    "git_checkout",
    "create_worktree",
    "merge_worktree",
    "deploy",
];

impl Default for Options {
    fn default() -> Self {
        Options {
            strict: false,
            max_parallel_worktrees: 16,
            mutating_actions: DEFAULT_MUTATING_ACTIONS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            file_name: None,
        }
    }
}

/// The outcome of validating a document.
#[derive(Debug, Clone)]
pub struct Report {
    /// The typed playbook, when the document is structurally valid.
    pub playbook: Option<Playbook>,
    /// Every finding, errors first, then in document order.
    pub findings: Vec<Finding>,
}

impl Report {
    /// True when nothing of error severity was found.
    pub fn allow(&self) -> bool {
        !self.findings.iter().any(Finding::is_error)
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// Validates playbook text and locates every finding in it.
pub fn validate_source(text: &str, format: Format, options: &Options) -> Report {
    // The map of positions comes from the same parse as the value; a second
    // parse only for text with a byte-order mark (positions count it) or
    // several documents, which the loader does not map.
    let mapped = !text.starts_with('\u{feff}');
    let (value, notes, map) = match document::parse_playbook_mapped(text, format, mapped) {
        Ok(parsed) => parsed,
        Err(findings) => {
            return Report {
                playbook: None,
                findings,
            };
        }
    };
    let report = validate_value(value, options);
    with_notes_placed(report, notes, text, map.as_ref())
}

/// Adds the parse's notes to a report and places every finding in `text`,
/// through `map` when the parse made one.
fn with_notes_placed(
    mut report: Report,
    notes: Vec<Finding>,
    text: &str,
    map: Option<&SourceMap>,
) -> Report {
    if !notes.is_empty() {
        report.findings.extend(notes);
        sort(&mut report.findings);
    }
    if report.findings.is_empty() {
        return report;
    }
    let made;
    let map = match map {
        Some(map) => map,
        None => {
            made = SourceMap::new(text);
            &made
        }
    };
    place(&mut report.findings, map);
    report
}

/// Gives every finding without a location its place in the text `map` was
/// made from.
pub(crate) fn place(findings: &mut [Finding], map: &SourceMap) {
    for finding in findings {
        if finding.location.is_none() {
            // A gate's syntax error points at the offending character of the
            // gate text, not at its key.
            finding.location = crate::gate::syntax_position(&finding.message)
                .and_then(|(line, column)| map.locate_in_text(&finding.path, line, column))
                .or_else(|| map.locate(&finding.path));
        }
    }
}

/// Validates the successive texts of one editor, each as
/// [`validate_source`] would, with the same report: a YAML text that
/// differs from the last one in one block entry is parsed from the last
/// parse, only that entry again (`document::reparse`), so a keystroke
/// in a large playbook does not read the whole text.
#[derive(Debug, Clone, Default)]
pub struct Session {
    held: Option<document::reparse::Held>,
    part_only: bool,
}

impl Session {
    /// Whether the last check parsed only the edited part of its text.
    pub fn parsed_part_only(&self) -> bool {
        self.part_only
    }

    pub fn check(&mut self, text: &str, format: Format, options: &Options) -> Report {
        self.part_only = false;
        if format != Format::Yaml || text.starts_with('\u{feff}') {
            self.held = None;
            return validate_source(text, format, options);
        }
        if let Some(held) = &mut self.held
            && held.update(text)
        {
            self.part_only = true;
            let report = validate_parsed(held.value(), options);
            return with_notes_placed(report, Vec::new(), text, Some(held.map()));
        }
        self.held = None;
        let (value, notes, map) = match document::parse_playbook_mapped(text, format, true) {
            Ok(parsed) => parsed,
            Err(findings) => {
                return Report {
                    playbook: None,
                    findings,
                };
            }
        };
        let report = validate_parsed(&value, options);
        let report = with_notes_placed(report, notes.clone(), text, map.as_ref());
        if let (Some(map), true) = (map, notes.is_empty()) {
            self.held = document::reparse::Held::new(text.to_owned(), value, map);
        }
        report
    }
}

/// Validates an already parsed document it may consume (a legacy document
/// is rewritten in place). See [`validate_parsed`] to keep the value.
pub fn validate_value(mut value: Value, options: &Options) -> Report {
    if !crate::legacy::is_legacy(&value) {
        return validate_read(&value, options);
    }
    let reading = crate::legacy::read(&mut value, options.file_name.as_deref());
    let mut report = validate_read(&value, options);
    crate::legacy::place(&mut report.findings, reading);
    sort(&mut report.findings);
    report
}

/// Validates an already parsed document the caller keeps: the typed model
/// copies what it holds, so the value is neither consumed nor freed here
/// (a legacy document is copied, as reading it rewrites it).
pub fn validate_parsed(value: &Value, options: &Options) -> Report {
    if crate::legacy::is_legacy(value) {
        return validate_value(value.clone(), options);
    }
    validate_read(value, options)
}

/// Validates a document as its format reads it.
fn validate_read(value: &Value, options: &Options) -> Report {
    let mut findings = Vec::new();
    match document::check_version(value) {
        Ok(hint) => findings.extend(hint),
        Err(fail_closed) => {
            return Report {
                playbook: None,
                findings: vec![fail_closed],
            };
        }
    }
    // A document the typed reader reads by itself, whose few values it does
    // not check hold too, is schema-valid: the full validator would walk
    // the whole value again to find nothing.
    let typed = match document::typed::playbook(value) {
        Some(playbook) if schema::residual::holds(&playbook) => {
            return linted(playbook, findings, options);
        }
        other => other,
    };
    let structural = schema::check_playbook(value);
    if !structural.is_empty() {
        findings.extend(structural);
        sort(&mut findings);
        return Report {
            playbook: None,
            findings,
        };
    }
    // The reader's model when it read the document; else the derive decides.
    let read = match typed {
        Some(playbook) => Ok(playbook),
        None => document::from_value_derived(value.clone()),
    };
    match read {
        Ok(playbook) => linted(playbook, findings, options),
        Err(finding) => Report {
            playbook: None,
            findings: vec![finding],
        },
    }
}

/// The report of a structurally valid playbook: `findings` so far and its lints.
fn linted(playbook: Playbook, mut findings: Vec<Finding>, options: &Options) -> Report {
    findings.extend(validate(&playbook, options));
    sort(&mut findings);
    Report {
        playbook: Some(playbook),
        findings,
    }
}

/// The semantic lints of a typed playbook.
pub fn validate(playbook: &Playbook, options: &Options) -> Vec<Finding> {
    let mut findings = lints::run(playbook, options);
    if playbook.is_legacy() {
        crate::legacy::judge(&mut findings);
        // After `judge`: these are errors because agenterm refused them too.
        crate::legacy::refuse(playbook, &mut findings);
    }
    sort(&mut findings);
    findings
}

fn sort(findings: &mut [Finding]) {
    findings.sort_by_key(|f| f.severity);
}
