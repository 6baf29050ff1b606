//! `validate`, `fmt`, `schema` and `template`: authoring without the app.

use std::borrow::Cow;
use std::process::ExitCode;
use std::sync::LazyLock;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use playbook_contracts::EnvelopeKind;
use playbook_contracts::ValidatorCode;
use playbook_contracts::code::CODES_DOC;
use playbook_core::locate::SourceMap;
use playbook_core::schema::Published;
use playbook_core::{
    Finding, Location, Options, RoleMode, Severity, document, edit, fix, validate_source,
};
use playbook_redact::{redact_json_pointer, redact_string};
use serde::Serialize;
use serde_json::{Value, json};

use crate::{input, report};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    /// SARIF 2.1.0, for code scanning (GitHub, GitLab, IDE viewers).
    Sarif,
    /// GitHub Actions workflow commands: one annotation per finding.
    Github,
}

#[derive(Args)]
pub struct ValidateArgs {
    /// Playbook files (.yaml, .yml or .json); `-` reads standard input.
    #[arg(required = true)]
    files: Vec<String>,
    /// `json` prints the Validator Output Contract {allow, code, reason, details};
    /// `sarif` a SARIF 2.1.0 log; `github` GitHub Actions annotations.
    #[arg(long, value_enum, default_value = "text")]
    format: OutputFormat,
    /// Unknown fields without the `x_` prefix are errors, not warnings.
    #[arg(long)]
    strict: bool,
    /// Tools that need approval (comma-separated), replacing the built-in list.
    #[arg(long, value_delimiter = ',')]
    mutating_actions: Option<Vec<String>>,
}

/// One reported problem, from the playbook validator or an envelope check.
#[derive(Serialize)]
pub(crate) struct Reported {
    pub code: String,
    pub severity: Severity,
    pub path: String,
    pub message: String,
    pub hint: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// The quick fixes `playbook fix` would offer (their titles).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<FixTitle>,
}

#[derive(Serialize)]
pub(crate) struct FixTitle {
    pub title: String,
}

impl From<Finding> for Reported {
    fn from(f: Finding) -> Self {
        Reported {
            code: f.code.as_str().to_string(),
            severity: f.severity,
            path: f.path,
            message: f.message,
            hint: f.hint,
            location: f.location,
            fixes: Vec::new(),
        }
    }
}

/// What validating one file gave.
pub(crate) struct FileOutcome {
    pub file: String,
    /// `playbook`, or the envelope kind the file was recognised as.
    pub kind: &'static str,
    pub findings: Vec<Reported>,
    /// A file that could not be read at all.
    pub read_error: Option<String>,
}

impl FileOutcome {
    pub fn allow(&self) -> bool {
        self.read_error.is_none() && !self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    /// The outcome with every text that comes from the document or the
    /// command line redacted: messages, hints and fix titles name roles,
    /// tools, placeholders and values as written; a pointer holds the
    /// document's own keys (a stage or role keyed by a token); the file is
    /// the path as given. What `validate` prints is kept (CI logs, code
    /// scanning, pull request annotations), so a token pasted into a
    /// playbook, or into a file's name, must not reach them. Done once
    /// here, before any format is rendered, so text, JSON, SARIF and GitHub
    /// output agree. Codes, kinds and positions are the validator's own and
    /// are left as they are; a pointer or path that held a secret still
    /// says where the finding is by its position, and is still a pointer or
    /// a path (the SARIF URI is made from the redacted path).
    fn redacted(mut self) -> FileOutcome {
        redact_string(&mut self.file);
        for finding in &mut self.findings {
            redact_string(&mut finding.message);
            redact_string(&mut finding.hint);
            if let Cow::Owned(path) = redact_json_pointer(&finding.path) {
                finding.path = path;
            }
            for fix in &mut finding.fixes {
                redact_string(&mut fix.title);
            }
        }
        if let Some(error) = &mut self.read_error {
            redact_string(error);
        }
        self
    }
}

/// Top-level field names of the playbook schema.
static PLAYBOOK_FIELDS: LazyLock<Vec<String>> = LazyLock::new(|| {
    playbook_core::schema::published()
        .into_iter()
        .find(|p| p.file == "playbook.schema.json")
        .and_then(|p| {
            p.schema
                .get("properties")
                .and_then(Value::as_object)
                .cloned()
        })
        .map(|props| props.keys().cloned().collect())
        .unwrap_or_default()
});

/// Recognises the machine payloads of the specs (assignment packets, results,
/// worklog entries...) by how many of their fields a document has, so
/// `validate` checks any document a team keeps beside its playbooks, and a
/// payload with a field missing is reported against its own contract. A
/// document with `workflow`, or with at least as many playbook fields as
/// envelope fields, is validated as a playbook.
fn detect_envelope(value: &Value) -> Option<EnvelopeKind> {
    let (kind, shared) = EnvelopeKind::recognise(value)?;
    if kind == EnvelopeKind::AssignmentPacket && shared == usize::MAX {
        return Some(kind);
    }
    if value.get("workflow").is_some() {
        return None;
    }
    let playbook = value.as_object().map_or(0, |o| {
        o.keys().filter(|k| PLAYBOOK_FIELDS.contains(k)).count()
    });
    (shared > playbook).then_some(kind)
}

fn validate_text(source: &input::Source, options: &Options) -> (&'static str, Vec<Reported>) {
    let parsed = document::parse_value(&source.text, source.format).ok();
    let envelope = parsed.as_ref().and_then(|value| {
        detect_envelope(value).map(|kind| (kind.name(), kind.check(value, options.strict)))
    });
    let Some((kind, violations)) = envelope else {
        let report = validate_source(&source.text, source.format, &source.named(options));
        let with_fixes = |finding: Finding| {
            let fixes = match &parsed {
                Some(value) => fix::fixes_for(value, &finding),
                // A document that does not load (a key given twice) may
                // still have a fix of its text.
                None => fix::fixes_for_source(&source.text, source.format, &finding),
            }
            .into_iter()
            .map(|f| FixTitle { title: f.title })
            .collect();
            Reported {
                fixes,
                ..Reported::from(finding)
            }
        };
        return (
            "playbook",
            report.findings.into_iter().map(with_fixes).collect(),
        );
    };
    let map = SourceMap::new(&source.text);
    let findings = violations
        .into_iter()
        .map(|v| Reported {
            code: v.code.as_str().to_string(),
            severity: Severity::Error,
            location: map.locate(&v.path),
            path: v.path,
            hint: format!(
                "see the {kind} contract in {} and `playbook schema {}`",
                CODES_DOC,
                EnvelopeKind::ALL
                    .iter()
                    .find(|k| k.name() == kind)
                    .map_or("--list", |k| k.schema_file())
            ),
            message: v.message,
            fixes: Vec::new(),
        })
        .collect();
    (kind, findings)
}

pub fn validate(args: ValidateArgs) -> Result<ExitCode> {
    let mut options = Options {
        strict: args.strict,
        ..Options::default()
    };
    if let Some(list) = args.mutating_actions {
        options.mutating_actions = list;
    }
    let outcomes: Vec<FileOutcome> = args
        .files
        .iter()
        .map(|file| match input::read(file) {
            Ok(source) => {
                let (kind, findings) = validate_text(&source, &options);
                FileOutcome {
                    file: file.clone(),
                    kind,
                    findings,
                    read_error: None,
                }
            }
            Err(e) => FileOutcome {
                file: file.clone(),
                kind: "unreadable",
                findings: Vec::new(),
                read_error: Some(format!("{e:#}")),
            },
        })
        .map(FileOutcome::redacted)
        .collect();
    let allow = outcomes.iter().all(FileOutcome::allow);
    match args.format {
        OutputFormat::Json => println!("{:#}", contract(&outcomes)),
        OutputFormat::Text => print_text(&outcomes),
        OutputFormat::Sarif => println!("{}", report::sarif::render(&outcomes)?),
        OutputFormat::Github => print!("{}", report::github::render(&outcomes)),
    }
    Ok(if allow {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The Validator Output Contract of spec/contracts.md for a set of files.
fn contract(outcomes: &[FileOutcome]) -> Value {
    let allow = outcomes.iter().all(FileOutcome::allow);
    let all = || outcomes.iter().flat_map(|o| o.findings.iter());
    let errors = all().filter(|f| f.severity == Severity::Error).count();
    let (code, reason) = if let Some(o) = outcomes.iter().find(|o| o.read_error.is_some()) {
        (
            ValidatorCode::ReadError,
            o.read_error.clone().unwrap_or_default(),
        )
    } else if let Some(f) = all().find(|f| f.severity == Severity::Error) {
        let code = match f.code.as_str() {
            "PB001" => ValidatorCode::ParseError,
            "PB003" | "UNSUPPORTED_VERSION" => ValidatorCode::UnsupportedSchemaVersion,
            "PB005" => ValidatorCode::DocumentSize,
            "PB002" => ValidatorCode::SchemaViolation,
            _ => ValidatorCode::ValidationFailed,
        };
        (
            code,
            format!("{errors} error(s); first: {} {}", f.code, f.message),
        )
    } else {
        let warnings = all().filter(|f| f.severity == Severity::Warning).count();
        (
            ValidatorCode::Ok,
            format!("no errors ({warnings} warning(s))"),
        )
    };
    let findings: Vec<Value> = outcomes
        .iter()
        .flat_map(|o| {
            o.findings.iter().map(|f| {
                let mut value = serde_json::to_value(f).unwrap_or(Value::Null);
                if let Some(object) = value.as_object_mut() {
                    object.insert("file".into(), Value::String(o.file.clone()));
                }
                value
            })
        })
        .collect();
    let files: Vec<Value> = outcomes
        .iter()
        .map(|o| {
            let count = |s| o.findings.iter().filter(|f| f.severity == s).count();
            let mut file = json!({
                "file": o.file,
                "kind": o.kind,
                "allow": o.allow(),
                "errors": count(Severity::Error),
                "warnings": count(Severity::Warning),
                "infos": count(Severity::Info),
            });
            if let Some(error) = &o.read_error {
                file["read_error"] = Value::String(error.clone());
            }
            file
        })
        .collect();
    json!({
        "allow": allow,
        "code": code.as_str(),
        "reason": reason,
        "details": { "findings": findings, "files": files },
    })
}

fn print_text(outcomes: &[FileOutcome]) {
    for o in outcomes {
        // The file name as given may hold anything a file name can, a line
        // break or a terminal escape among them: it must not forge a line
        // of the report or act on the terminal.
        let file = playbook_core::printable::printable(&o.file);
        if let Some(error) = &o.read_error {
            println!(
                "{file}: error: {}",
                playbook_core::printable::printable(error)
            );
            continue;
        }
        for f in &o.findings {
            let at = match f.location {
                Some(l) => format!("{file}:{}:{}", l.line, l.column),
                None => file.to_string(),
            };
            let path = if f.path.is_empty() { "/" } else { &f.path };
            println!("{at}: {}[{}]: {}", f.severity.as_str(), f.code, f.message);
            // The pointer holds the file's own keys, which may hold anything.
            println!("    at {}", playbook_core::printable::printable(path));
            println!("    hint: {}", f.hint);
        }
        let count = |s| o.findings.iter().filter(|f| f.severity == s).count();
        println!(
            "{file} ({}): {} — {} error(s), {} warning(s), {} info",
            o.kind,
            if o.allow() { "ok" } else { "FAILED" },
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info),
        );
    }
}

#[derive(Args)]
pub struct FmtArgs {
    /// Playbook files to normalise in place.
    #[arg(required = true)]
    files: Vec<String>,
    /// Only report files that are not normalised; exit 1 if any.
    #[arg(long)]
    check: bool,
    /// Write the canonical layout even for YAML files with comments, which
    /// are then lost (by default such a file keeps its layout and comments).
    #[arg(long)]
    drop_comments: bool,
}

pub fn fmt(args: FmtArgs) -> Result<ExitCode> {
    let mut clean = true;
    for file in &args.files {
        let source = input::read(file)?;
        let report = validate_source(&source.text, source.format, &source.options());
        let Some(playbook) = report.playbook else {
            bail!(
                "{file} cannot be formatted until it is a valid playbook: {}; run `playbook validate {file}` for every problem",
                input::first_error(&report.findings)
            );
        };
        // The canonical layout only where it provably keeps every comment
        // (the scanner's comments of both texts, so a comment after a tab
        // or a byte-order mark counts and a quoted `#` does not); any other
        // file keeps its layout and only values and whitespace are tidied.
        let rendered = document::to_string(&playbook, source.format)?;
        let keep_layout = !args.drop_comments && !edit::keeps_comments(&source.text, &rendered);
        let normalised = if keep_layout {
            let canonical = serde_json::to_value(&playbook)?;
            edit::tidy(&source.text, source.format, &canonical)
                .with_context(|| format!("cannot format {file}"))?
        } else {
            rendered
        };
        // A person's file keeps its line ends (CRLF stays CRLF).
        let normalised = edit::line_ends_as(&source.text, normalised);
        if normalised == source.text {
            continue;
        }
        clean = false;
        if args.check {
            println!("{file}: not normalised (run `playbook fmt {file}`)");
            continue;
        }
        input::write_edit(file, &source.text, &normalised)?;
        if keep_layout {
            println!("{file}: normalised (comments kept, so the layout is the author's)");
        } else {
            println!("{file}: normalised");
        }
    }
    Ok(if clean || !args.check {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[derive(Args)]
pub struct SchemaArgs {
    /// Schema to print (file name, e.g. playbook.schema.json). Default: the playbook schema.
    name: Option<String>,
    /// Write every published schema into this directory instead. Its own
    /// earlier files (same `$id`) are replaced; any other file of a
    /// schema's name is refused unless --force.
    #[arg(long)]
    out: Option<String>,
    /// Replace files in the --out directory that `playbook schema` did not write.
    #[arg(long, requires = "out")]
    force: bool,
    /// List the published schema files.
    #[arg(long)]
    list: bool,
}

/// Whether `path` is free for `schema`: absent, or a JSON object with the
/// schema's own `$id` (an earlier `playbook schema --out`, of any version).
fn holds_schema(path: &str, schema: &Published) -> bool {
    if std::fs::symlink_metadata(path).is_err() {
        return true;
    }
    let Ok(bytes) = input::read_file(path, playbook_core::MAX_DOCUMENT_BYTES, "schemas") else {
        return false;
    };
    let id = |v: &serde_json::Value| v.get("$id").and_then(|id| id.as_str()).map(str::to_owned);
    serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|existing| id(&existing))
        .is_some_and(|existing| Some(existing) == id(&schema.schema))
}

/// Every JSON Schema the product publishes in `schemas/`.
pub fn all_schemas() -> Vec<Published> {
    let mut all = playbook_core::schema::published();
    all.extend(playbook_orchestrator::envelope::published());
    all.extend(playbook_runner::schema::published());
    all.push(playbook_whatif::schema());
    all
}

pub fn schema(args: SchemaArgs) -> Result<ExitCode> {
    let schemas = all_schemas();
    if args.list {
        for s in &schemas {
            println!("{}", s.file);
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(dir) = args.out {
        // Regenerating `schemas/` replaces the earlier schemas (that is
        // what --out is for); a person's own file under a schema's name is
        // refused, like every other command's output, before anything is
        // written.
        let conflicts: Vec<String> = schemas
            .iter()
            .map(|s| (format!("{dir}/{}", s.file), s))
            .filter(|(path, s)| !holds_schema(path, s))
            .map(|(path, _)| path)
            .collect();
        if !conflicts.is_empty() && !args.force {
            bail!(
                "writing the schemas would replace {} file(s) that are not schemas `playbook schema` wrote; nothing was written:\n  {}\nmove them away, write into another directory, or pass --force to replace them",
                conflicts.len(),
                conflicts.join("\n  ")
            );
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {dir}"))?;
        for s in &schemas {
            let path = format!("{dir}/{}", s.file);
            input::write_atomically(&path, &(serde_json::to_string_pretty(&s.schema)? + "\n"))?;
            println!("wrote {path}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let name = args.name.unwrap_or_else(|| "playbook.schema.json".into());
    let Some(found) = schemas
        .iter()
        .find(|s| s.file == name || s.file == format!("{name}.schema.json"))
    else {
        bail!(
            "no schema named {name}; published: {}",
            schemas
                .iter()
                .map(|s| s.file)
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    println!("{}", serde_json::to_string_pretty(&found.schema)?);
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct TemplateArgs {
    /// Role mode.
    #[arg(value_enum)]
    mode: ModeArg,
    #[arg(long, value_enum, default_value = "yaml")]
    format: TemplateFormat,
}

#[derive(Clone, Copy, ValueEnum)]
enum ModeArg {
    Planner,
    Worker,
    Reviewer,
    Tester,
}

#[derive(Clone, Copy, ValueEnum)]
enum TemplateFormat {
    Yaml,
    Json,
}

pub fn template(args: TemplateArgs) -> Result<ExitCode> {
    let mode = match args.mode {
        ModeArg::Planner => RoleMode::Planner,
        ModeArg::Worker => RoleMode::Worker,
        ModeArg::Reviewer => RoleMode::Reviewer,
        ModeArg::Tester => RoleMode::Tester,
    };
    let role = playbook_core::templates::role_template(mode);
    let text = match args.format {
        TemplateFormat::Yaml => yaml_serde::to_string(&role)?,
        TemplateFormat::Json => serde_json::to_string_pretty(&role)? + "\n",
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}
