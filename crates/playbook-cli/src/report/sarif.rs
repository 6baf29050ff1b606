//! `validate --format sarif`: a SARIF 2.1.0 log (OASIS), the format code
//! scanning services read (GitHub code scanning, GitLab, IDE viewers).
//!
//! The log is built from typed structs holding only the parts of the
//! standard this report fills. A published crate for the SARIF types was
//! considered; its build pulls in a licence the workspace does not allow.
//! A test checks every log against the official JSON Schema.

use std::collections::HashMap;

use anyhow::Result;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use playbook_contracts::ValidatorCode;
use playbook_core::{Code, Severity};
use serde::Serialize;

use super::docs::{self, RuleDoc};
use crate::authoring::{FileOutcome, Reported};

const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

#[derive(Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    invocations: Vec<Invocation>,
    /// Columns count characters (Unicode code points), as the locator's do.
    column_kind: &'static str,
    results: Vec<SarifResult>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<String>,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    name: String,
    short_description: Text,
    full_description: Text,
    help: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<String>,
    default_configuration: Configuration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct RuleProperties {
    /// Where the rule is documented, relative to the docs folder; present
    /// even when no absolute docs URL is configured.
    documentation: String,
}

#[derive(Serialize)]
struct Configuration {
    level: Level,
}

#[derive(Serialize)]
struct Text {
    text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    markdown: Option<String>,
}

#[derive(Clone, Copy, Serialize)]
#[serde(rename_all = "lowercase")]
enum Level {
    Error,
    Warning,
    Note,
}

impl From<Severity> for Level {
    fn from(severity: Severity) -> Level {
        match severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
            Severity::Info => Level::Note,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    /// Every file was read: findings are results, not failures. A file
    /// that could not be read is work the validator could not do, so the
    /// run is not successful (SARIF 2.1.0 §3.20.14) and the file is named
    /// in a notification as well as in a `READ_ERROR` result.
    execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

/// SARIF 2.1.0 §3.58: a problem of the tool's own run.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Notification {
    level: Level,
    message: Text,
    locations: Vec<ResultLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: String,
    rule_index: usize,
    level: Level,
    message: Text,
    locations: Vec<ResultLocation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<ResultProperties>,
}

#[derive(Serialize)]
struct ResultProperties {
    /// JSON pointer of the offending value in the document.
    pointer: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultLocation {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    /// `%SRCROOT%` for relative paths: code scanning resolves them against
    /// the checked-out repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<usize>,
}

/// The rules of the run: every lint code (so a viewer can list what is
/// checked even with no result), then any other code the results carry.
struct Rules {
    rules: Vec<Rule>,
    index: HashMap<String, usize>,
}

impl Rules {
    fn new() -> Rules {
        let mut rules = Rules {
            rules: Vec::new(),
            index: HashMap::new(),
        };
        for code in Code::ALL {
            rules.add(RuleDoc::lint(*code));
        }
        rules
    }

    fn add(&mut self, doc: RuleDoc) -> usize {
        let index = self.rules.len();
        self.index.insert(doc.id.clone(), index);
        let text = doc.text();
        self.rules.push(Rule {
            help_uri: doc.help_uri(),
            short_description: Text {
                text: doc.title.clone(),
                markdown: None,
            },
            full_description: Text {
                text: text.clone(),
                markdown: Some(doc.markdown.clone()),
            },
            help: Text {
                text,
                markdown: Some(doc.markdown),
            },
            default_configuration: Configuration {
                level: doc.default_severity.into(),
            },
            properties: RuleProperties {
                documentation: format!("docs/{}", doc.doc_ref),
            },
            id: doc.id,
            name: doc.name,
        });
        index
    }

    /// The index of `code`'s rule, adding it on first use. A code that is
    /// documented nowhere still gets a rule, named after itself, so every
    /// result refers to one.
    fn index_of(&mut self, code: &str) -> usize {
        if let Some(index) = self.index.get(code) {
            return *index;
        }
        let doc = RuleDoc::of(code).unwrap_or_else(|| RuleDoc {
            id: code.to_string(),
            name: code.to_string(),
            title: format!("Finding {code}."),
            markdown: format!("Finding {code}; see docs/error-codes.md."),
            default_severity: Severity::Error,
            doc_ref: "error-codes.md".to_string(),
        });
        self.add(doc)
    }
}

/// The SARIF log of a validate run, one run for all files.
pub fn render(outcomes: &[FileOutcome]) -> Result<String> {
    let mut rules = Rules::new();
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    for outcome in outcomes {
        if let Some(error) = &outcome.read_error {
            notifications.push(Notification {
                level: Level::Error,
                message: Text {
                    text: error.clone(),
                    markdown: None,
                },
                locations: vec![location(&outcome.file, None)],
            });
            let code = ValidatorCode::ReadError.as_str();
            results.push(SarifResult {
                rule_index: rules.index_of(code),
                rule_id: code.to_string(),
                level: Level::Error,
                message: Text {
                    text: error.clone(),
                    markdown: None,
                },
                locations: vec![location(&outcome.file, None)],
                properties: None,
            });
        }
        for finding in &outcome.findings {
            results.push(result(&mut rules, &outcome.file, finding));
        }
    }
    let log = Log {
        schema: SCHEMA_URI,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "playbook",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: docs::docs_url(),
                    rules: rules.rules,
                },
            },
            invocations: vec![Invocation {
                execution_successful: notifications.is_empty(),
                tool_execution_notifications: notifications,
            }],
            column_kind: "unicodeCodePoints",
            results,
        }],
    };
    Ok(serde_json::to_string_pretty(&log)?)
}

fn result(rules: &mut Rules, file: &str, finding: &Reported) -> SarifResult {
    let text = if finding.hint.is_empty() {
        finding.message.clone()
    } else {
        format!("{}\nhint: {}", finding.message, finding.hint)
    };
    SarifResult {
        rule_index: rules.index_of(&finding.code),
        rule_id: finding.code.clone(),
        level: finding.severity.into(),
        message: Text {
            text,
            markdown: None,
        },
        locations: vec![location(
            file,
            finding.location.and_then(|l| {
                // SARIF lines and columns start at 1; a position the
                // locator could not give is left out rather than invented.
                (l.line >= 1).then_some(Region {
                    start_line: l.line,
                    start_column: (l.column >= 1).then_some(l.column),
                })
            }),
        )],
        properties: (!finding.path.is_empty()).then(|| ResultProperties {
            pointer: finding.path.clone(),
        }),
    }
}

fn location(file: &str, region: Option<Region>) -> ResultLocation {
    let (uri, relative) = artifact_uri(file);
    ResultLocation {
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation {
                uri,
                uri_base_id: relative.then_some("%SRCROOT%"),
            },
            region,
        },
    }
}

/// Bytes kept as they are in a path segment: RFC 3986 unreserved characters
/// and the `/` separator. Everything else (spaces, `%`, `#`, `?`, `:`,
/// non-ASCII) is percent-encoded, so a file name can never read as a scheme,
/// a query or a fragment.
const PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// The URI of a file as given on the command line, and whether it is
/// relative (to the working directory, normally the repository root).
/// Absolute paths become `file://` URIs; `-` (standard input) stays `-`.
pub fn artifact_uri(file: &str) -> (String, bool) {
    let mut path = file.to_string();
    if cfg!(windows) {
        path = path.replace('\\', "/");
    }
    let drive =
        path.len() >= 2 && path.as_bytes()[1] == b':' && path.as_bytes()[0].is_ascii_alphabetic();
    if path.starts_with('/') || (cfg!(windows) && drive) {
        let encoded = utf8_percent_encode(&path, PATH).to_string();
        let encoded = if drive {
            // Keep the drive's colon: `file:///C:/dir/x.yaml`.
            format!("/{}:{}", &path[..1], &encoded[4..])
        } else {
            encoded
        };
        return (format!("file://{encoded}"), false);
    }
    while let Some(rest) = path.strip_prefix("./") {
        path = rest.to_string();
    }
    (utf8_percent_encode(&path, PATH).to_string(), true)
}

#[cfg(test)]
mod tests {
    use super::artifact_uri;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(
            artifact_uri("playbooks/tdd.yaml"),
            ("playbooks/tdd.yaml".into(), true)
        );
        assert_eq!(artifact_uri("./a/./b.yaml").0, "a/./b.yaml");
        assert_eq!(
            artifact_uri("my dir/50%#1?.yaml").0,
            "my%20dir/50%25%231%3F.yaml"
        );
        assert_eq!(artifact_uri("c:x.yaml").0, "c%3Ax.yaml");
        assert_eq!(artifact_uri("rôle.yaml").0, "r%C3%B4le.yaml");
        assert_eq!(
            artifact_uri("/tmp/a b.yaml"),
            ("file:///tmp/a%20b.yaml".into(), false)
        );
    }
}
