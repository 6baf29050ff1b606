//! Reading and writing playbook text (YAML or JSON).
//!
//! Parsing goes text → `serde_json::Value` → typed [`Playbook`], so structural
//! validation can run on the generic value first and report every problem with
//! its JSON pointer, instead of stopping at serde's first type error.

use serde_json::Value;

use crate::finding::{Code, Finding, Location};
use crate::locate::SourceMap;

mod json;
pub mod nesting;
pub mod reparse;
pub(crate) mod typed;
mod yaml;

use crate::model::{Playbook, SCHEMA_VERSION};
pub use nesting::MAX_NESTING;
pub use yaml::{MAX_ALIAS_BYTES, MAX_ALIAS_NODES};

/// Largest document accepted, in bytes. A 500-role playbook is about 300 KB;
/// anything far beyond this is a mistake or hostile, and parsing it would
/// stall the editor.
pub const MAX_DOCUMENT_BYTES: usize = 8 * 1024 * 1024;

/// Text format of a playbook file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum Format {
    Yaml,
    Json,
}

impl Format {
    /// Picks the format from a file name: `.json` is JSON, everything else YAML.
    pub fn from_path(path: &str) -> Format {
        if path.to_ascii_lowercase().ends_with(".json") {
            Format::Json
        } else {
            Format::Yaml
        }
    }

    /// Guesses the format from content: a document starting with `{` is JSON.
    pub fn sniff(text: &str) -> Format {
        match text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .chars()
            .next()
        {
            Some('{') => Format::Json,
            _ => Format::Yaml,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Format::Yaml => "yaml",
            Format::Json => "json",
        }
    }
}

/// What stopped a document from parsing, before it becomes findings.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Problem {
    Syntax {
        message: String,
        location: Option<Location>,
    },
    DuplicateKey {
        key: String,
        path: String,
        first: Location,
        second: Location,
    },
    Tag {
        tag: String,
        path: String,
        location: Location,
    },
    MultipleDocuments {
        location: Location,
    },
    ComplexKey {
        location: Location,
    },
    NotFinite {
        text: String,
        location: Location,
    },
    AliasBomb {
        location: Location,
    },
    /// A merge key (`<<`) whose value is not a mapping or a list of them.
    Merge {
        found: String,
        path: String,
        location: Location,
    },
    TooDeep {
        location: Location,
    },
}

/// Parses text into a generic value. Fails with a PB001 (syntax) or PB005
/// (empty or too large) finding that carries the line and column; see
/// [`parse_document`] for every finding of a refusal.
pub fn parse_value(text: &str, format: Format) -> Result<Value, Finding> {
    parse_document(text, format).map_err(|findings| {
        // `parse_document` never fails without a finding; the fallback
        // only keeps this function total.
        findings.into_iter().next().unwrap_or_else(empty)
    })
}

/// Parses a playbook's text. Like [`parse_document`], except that a legacy
/// (agenterm) YAML file may hold further documents: agenterm read only the
/// first, and so does this, with a warning where the second starts. A file
/// with a `schema_version` still holds exactly one document.
pub fn parse_playbook(text: &str, format: Format) -> Result<(Value, Vec<Finding>), Vec<Finding>> {
    parse_playbook_mapped(text, format, false).map(|(value, notes, _)| (value, notes))
}

/// A parsed playbook, its notes, and where its nodes are when the parse
/// could map them on the way.
pub(crate) type MappedPlaybook = (Value, Vec<Finding>, Option<SourceMap>);

/// [`parse_playbook`], also mapping node positions when `map` is set and
/// the text is one YAML document (see [`SourceMap`]).
pub(crate) fn parse_playbook_mapped(
    text: &str,
    format: Format,
    map: bool,
) -> Result<MappedPlaybook, Vec<Finding>> {
    match parse_checked(text, format, map) {
        Ok((value, map)) => Ok((value, Vec::new(), map)),
        // Every other check passed before the parser met the second `---`
        // (size, NUL, nesting), and the first document passed the parser's.
        Err(findings)
            if format == Format::Yaml
                && findings.len() == 1
                && findings[0].message.starts_with(SECOND_DOCUMENT) =>
        {
            let text = text.trim_start_matches('\u{feff}');
            let Ok((value, second)) = yaml::parse_first(text) else {
                return Err(findings);
            };
            match second {
                // Only an empty trailing `---` separated the documents.
                None if value.is_object() => return Ok((value, Vec::new(), None)),
                Some(_) if crate::legacy::is_legacy(&value) => {}
                _ => return Err(findings),
            }
            let notes = second
                .map(|at| {
                    let mut finding = Finding::new(
                        Code::UnsupportedYaml,
                        "",
                        format!(
                            "a second YAML document starts at line {}; like agenterm, only the first is read",
                            at.line
                        ),
                        "move each further playbook into its own file",
                    );
                    finding.severity = crate::finding::Severity::Warning;
                    located(finding, Some(at))
                })
                .into_iter()
                .collect();
            Ok((value, notes, None))
        }
        Err(findings) => Err(findings),
    }
}

/// How the refusal of a second document begins.
const SECOND_DOCUMENT: &str = "a second YAML document starts here";

/// Parses text into a generic value, or says why not. A key given twice
/// yields two findings, one at each place, each naming the other.
pub fn parse_document(text: &str, format: Format) -> Result<Value, Vec<Finding>> {
    parse_checked(text, format, false).map(|(value, _)| value)
}

/// [`parse_document`], also mapping node positions from the same parse when
/// `map` is set and the format is YAML.
fn parse_checked(
    text: &str,
    format: Format,
    map: bool,
) -> Result<(Value, Option<SourceMap>), Vec<Finding>> {
    if text.len() > MAX_DOCUMENT_BYTES {
        return Err(vec![Finding::new(
            Code::DocumentSize,
            "",
            format!(
                "the document is {} bytes; the limit is {} bytes",
                text.len(),
                MAX_DOCUMENT_BYTES
            ),
            "split the playbook or remove generated content; a playbook of 500 roles is about 300 KB",
        )]);
    }
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() || (format == Format::Yaml && yaml_is_only_comments(text)) {
        return Err(vec![empty()]);
    }
    if let Some(at) = text.find('\0') {
        let mut finding = Finding::new(
            Code::Syntax,
            "",
            "the file contains a NUL byte; it is binary, not YAML or JSON",
            "open a playbook file written as YAML or JSON text",
        );
        finding.location = Some(nesting::location_of(text, at));
        return Err(vec![finding]);
    }
    // Before any parser: their cost on deep flow nesting is quadratic.
    if let Some(location) = nesting::too_deep(text) {
        return Err(problem_findings(Problem::TooDeep { location }, format));
    }
    let parsed = match format {
        Format::Json => json::parse(text).map(|value| (value, None)),
        Format::Yaml if map => yaml::parse_mapped(text).map(|(value, map)| (value, Some(map))),
        Format::Yaml => yaml::parse(text).map(|value| (value, None)),
    };
    match parsed {
        Ok((Value::Null, _)) => Err(vec![empty()]),
        Ok(parsed) => Ok(parsed),
        Err(problem) => Err(problem_findings(problem, format)),
    }
}

fn empty() -> Finding {
    Finding::new(
        Code::DocumentSize,
        "",
        "the document is empty",
        "start from a template: `playbook template worker`, or copy playbooks/tdd.yaml",
    )
}

fn located(mut finding: Finding, location: Option<Location>) -> Finding {
    finding.location = location.filter(|l| l.line > 0);
    finding
}

fn problem_findings(problem: Problem, format: Format) -> Vec<Finding> {
    let unsupported = |location: Location, message: String, hint: &str| {
        vec![located(
            Finding::new(Code::UnsupportedYaml, "", message, hint),
            Some(location),
        )]
    };
    let unsupported_at = |path: String, location: Location, message: String, hint: &str| {
        vec![located(
            Finding::new(Code::UnsupportedYaml, path, message, hint),
            Some(location),
        )]
    };
    match problem {
        Problem::Syntax { message, location } => vec![located(
            Finding::new(
                Code::Syntax,
                "",
                format!("not valid {}: {message}", format_name(format)),
                syntax_hint(&message),
            ),
            location,
        )],
        Problem::DuplicateKey {
            key,
            path,
            first,
            second,
        } => {
            let at = |l: Location| format!("line {}, column {}", l.line, l.column);
            let hint = "keep one of the two: readers disagree on which one counts, so a reviewer may read the other";
            vec![
                located(
                    Finding::new(
                        Code::DuplicateKey,
                        path.clone(),
                        format!(
                            "the key `{key}` is given twice in the same mapping; the other one is at {}",
                            at(first)
                        ),
                        hint,
                    ),
                    Some(second),
                ),
                located(
                    Finding::new(
                        Code::DuplicateKey,
                        path,
                        format!(
                            "the key `{key}` is given twice in the same mapping; the other one is at {}",
                            at(second)
                        ),
                        hint,
                    ),
                    Some(first),
                ),
            ]
        }
        Problem::Tag {
            tag,
            path,
            location,
        } => unsupported_at(
            path,
            location,
            format!(
                "the YAML tag `{tag}` is not supported; a playbook holds plain strings, numbers, booleans, lists and mappings"
            ),
            "remove the tag; quote the value if it must stay a string",
        ),
        Problem::MultipleDocuments { location } => unsupported(
            location,
            format!("{SECOND_DOCUMENT}; a file holds one playbook"),
            "remove the `---` line and what follows, or move it to its own file",
        ),
        Problem::ComplexKey { location } => unsupported(
            location,
            "a mapping key is a list, a mapping or an alias; keys must be plain text".into(),
            "write the key as text",
        ),
        Problem::NotFinite { text, location } => unsupported(
            location,
            format!("`{text}` is not a finite number, which JSON cannot hold"),
            "write a finite number, or quote the value if it is text",
        ),
        Problem::AliasBomb { location } => vec![located(
            Finding::new(
                Code::DocumentSize,
                "",
                format!(
                    "YAML aliases expand the document past {} nodes or {} bytes",
                    yaml::MAX_ALIAS_NODES,
                    yaml::MAX_ALIAS_BYTES
                ),
                "write the repeated parts out, or use fewer and smaller anchors",
            ),
            Some(location),
        )],
        Problem::Merge {
            found,
            path,
            location,
        } => vec![located(
            Finding::new(
                Code::Syntax,
                path,
                format!(
                    "the merge key `<<` is given {found}; it merges a mapping (`<<: *base`) or a list of mappings (`<<: [*first, *second]`) into this one"
                ),
                "point `<<` at an anchored mapping (`base: &base {...}`), or quote the key (`\"<<\"`) if it is an ordinary field",
            ),
            Some(location),
        )],
        Problem::TooDeep { location } => vec![located(
            Finding::new(
                Code::DocumentSize,
                "",
                format!(
                    "the document nests deeper than {} levels",
                    nesting::MAX_NESTING
                ),
                "a playbook needs fewer than 10 levels; look for unclosed brackets",
            ),
            Some(location),
        )],
    }
}

pub(crate) fn yaml_is_only_comments(text: &str) -> bool {
    // YAML ends a line at `\n`, `\r\n` or a lone `\r`: split on both
    // characters, or a lone-CR file that starts with a comment is one
    // "comment line" and reads as empty.
    text.split(['\n', '\r']).all(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with('#') || line == "---" || line == "..."
    })
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Yaml => "YAML",
        Format::Json => "JSON",
    }
}

fn syntax_hint(message: &str) -> &'static str {
    if message.contains("recursion limit") {
        "the document nests deeper than 128 levels; a playbook needs fewer than 10"
    } else if message.contains("tab") {
        "YAML indentation must use spaces, not tabs"
    } else if message.contains("duplicate") {
        "remove or rename the repeated key"
    } else {
        "fix the syntax at the position shown; indentation and unclosed quotes or brackets are the usual causes"
    }
}

/// Checks `schema_version` before anything else reads the document: an
/// unknown major version fails closed (spec/contracts.md, Contract Version).
pub fn check_version(value: &Value) -> Result<Option<Finding>, Finding> {
    let Some(version) = value.get("schema_version") else {
        return Ok(Some(Finding::new(
            Code::MissingVersion,
            "",
            "no schema_version: read as a legacy 1.0.0 playbook",
            format!(
                "legacy files are read as agenterm read them (docs/lints.md); `playbook migrate FILE` upgrades one to schema_version \"{SCHEMA_VERSION}\""
            ),
        )));
    };
    // A non-string version is a type error, which structural validation reports.
    let Some(text) = version.as_str() else {
        return Ok(None);
    };
    let supported_major = SCHEMA_VERSION.split('.').next().unwrap_or("1");
    match text.split('.').next() {
        Some(major) if major == supported_major => Ok(None),
        _ => Err(Finding::new(
            Code::UnsupportedVersion,
            "/schema_version",
            format!(
                "schema_version \"{text}\" has an unknown major version; this build reads {supported_major}.x.y"
            ),
            format!(
                "use a Playbook Studio that supports it, or rewrite the file for schema_version \"{SCHEMA_VERSION}\""
            ),
        )),
    }
}

/// A playbook could not be written as text.
#[derive(Debug, thiserror::Error)]
#[error("could not write the playbook as {format:?}: {message}")]
pub struct WriteError {
    pub format: Format,
    pub message: String,
}

/// Serialises a playbook. YAML keeps field order; JSON is pretty-printed.
pub fn to_string(playbook: &Playbook, format: Format) -> Result<String, WriteError> {
    let error = |message: String| WriteError { format, message };
    match format {
        Format::Json => serde_json::to_string_pretty(playbook)
            .map(|text| text + "\n")
            .map_err(|e| error(e.to_string())),
        Format::Yaml => yaml_serde::to_string(playbook).map_err(|e| error(e.to_string())),
    }
}

/// Converts a structurally valid value into the typed model.
pub fn from_value(value: Value) -> Result<Playbook, Finding> {
    match typed::playbook(&value) {
        Some(playbook) => Ok(playbook),
        None => from_value_derived(value),
    }
}

/// [`from_value`] for a value the caller keeps: only the text the model
/// holds is copied, and the value is neither consumed nor freed here.
pub fn from_parsed(value: &Value) -> Result<Playbook, Finding> {
    match typed::playbook(value) {
        Some(playbook) => Ok(playbook),
        // Only a document the reader does not know (a null, a fractional
        // count, a missing field) is copied, for the derive's verdict and message.
        None => from_value_derived(value.clone()),
    }
}

/// The derive's reading, which decides every document the reader of
/// `typed` leaves to it and words the error. The error is placed at the
/// value the derive stopped at (serde_path_to_error tracks it), never at
/// `/`: a value that does not fit its type is reported at its field, as the
/// schema's findings are.
pub fn from_value_derived(value: Value) -> Result<Playbook, Finding> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = pointer_of(e.path());
        let message = if path.is_empty() {
            format!(
                "the document does not match the playbook format: {}",
                e.inner()
            )
        } else {
            format!("this value does not fit the playbook format: {}", e.inner())
        };
        Finding::new(
            Code::Schema,
            path,
            message,
            "compare the file with `playbook schema`",
        )
    })
}

/// The JSON pointer of a serde path, as far as its steps are known.
fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => {
                pointer.push('/');
                pointer.push_str(&index.to_string());
            }
            Segment::Map { key } => {
                pointer.push('/');
                pointer.push_str(&crate::finding::escape_pointer(key));
            }
            // A variant names no step into the document; past an unknown
            // step the rest would point at the wrong value.
            Segment::Enum { .. } => {}
            Segment::Unknown => break,
        }
    }
    pointer
}
