//! The mandatory preflight (spec/role-scoped-agent-runs.md §6): the issue
//! template is present and unchanged, and the project schema matches.
//!
//! It applies when the repository has governance files (any of `AGENTS.md`,
//! `agents/`, `policy/` at the run's commit); otherwise each check is
//! reported as not applicable, which does not stop the run. A failed check
//! is a hard stop, and its detail names exactly what drifted.

use std::collections::BTreeSet;
use std::path::Path;

use indexmap::IndexMap;
use playbook_core::document::{Format, parse_value};
use playbook_orchestrator::event::PreflightResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::bundle::parse_policy;
use super::git::{AtCommit, Kind, MAX_CONTEXT_FILE_BYTES};
use super::sha256_hex;

/// The issue template every governed repository must carry, unchanged.
pub const ISSUE_TEMPLATE: &str = ".github/ISSUE_TEMPLATE/milestone-task.yml";
/// Optional pin of the issue template: `{"issue_template_sha256": "<hex>"}`.
pub const PREFLIGHT_POLICY: &str = "policy/preflight.json";
/// The required project and field options.
pub const PROJECT_SCHEMA: &str = "policy/project-schema.json";

/// One check of the preflight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PreflightCheckResult {
    pub name: String,
    /// A check that does not apply counts as passed.
    pub passed: bool,
    pub applicable: bool,
    pub detail: String,
}

/// Every check of the preflight, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PreflightReport {
    /// The repository has governance files, so the checks applied.
    pub governed: bool,
    pub checks: Vec<PreflightCheckResult>,
}

impl PreflightReport {
    /// No check failed: the run may start.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }

    pub fn failures(&self) -> impl Iterator<Item = &PreflightCheckResult> {
        self.checks.iter().filter(|c| !c.passed)
    }

    /// The checks as the engine records them (`RunOptions::preflight`).
    pub fn results(&self) -> Vec<PreflightResult> {
        self.checks
            .iter()
            .map(|c| PreflightResult {
                name: c.name.clone(),
                passed: c.passed,
                detail: c.detail.clone(),
            })
            .collect()
    }
}

/// A project description (`--project FILE`) and the shape of
/// `policy/project-schema.json`: the project's name and, for each field,
/// its options. Both must match exactly; option order does not matter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectDescription {
    pub project: String,
    #[serde(default)]
    pub fields: IndexMap<String, Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PreflightPolicy {
    #[serde(default)]
    issue_template_sha256: Option<String>,
}

fn check(name: &str, passed: bool, detail: String) -> PreflightCheckResult {
    PreflightCheckResult {
        name: name.into(),
        passed,
        applicable: true,
        detail,
    }
}

/// Runs the preflight of `repo_dir` at `commit`, with the project
/// description file `project` (`--project FILE`), if given. Never fails:
/// a problem is a failed check naming it.
pub fn preflight(repo_dir: &Path, commit: &str, project: Option<&Path>) -> PreflightReport {
    let at = match AtCommit::resolve(repo_dir, commit) {
        Ok(at) => at,
        Err(e) => {
            return PreflightReport {
                governed: false,
                checks: vec![check("repository", false, e.to_string())],
            };
        }
    };
    let governed = match at.list("") {
        Ok(root) => root.iter().any(|e| match e.name.as_str() {
            "AGENTS.md" => true,
            "agents" | "policy" => e.kind == Kind::Dir,
            _ => false,
        }),
        Err(e) => {
            return PreflightReport {
                governed: false,
                checks: vec![check("repository", false, e.to_string())],
            };
        }
    };
    if !governed {
        let na = |name: &str| {
            PreflightCheckResult {
            name: name.into(),
            passed: true,
            applicable: false,
            detail: "not applicable: no governance files (AGENTS.md, agents/, policy/) at the run's commit".into(),
        }
        };
        return PreflightReport {
            governed,
            checks: vec![na("issue_template"), na("project_schema")],
        };
    }
    PreflightReport {
        governed,
        checks: vec![issue_template(&at), project_schema(&at, project)],
    }
}

/// Reads a file at the commit: `Ok(None)` when it is not there.
fn committed(at: &AtCommit<'_>, path: &str) -> Result<Option<Vec<u8>>, String> {
    match at.entry(path) {
        Ok(None) => Ok(None),
        Ok(Some(entry)) => at.read(path, &entry).map(Some).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

fn issue_template(at: &AtCommit<'_>) -> PreflightCheckResult {
    let name = "issue_template";
    let short = &at.commit[..at.commit.len().min(12)];
    let bytes = match committed(at, ISSUE_TEMPLATE) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            return check(
                name,
                false,
                format!(
                    "{ISSUE_TEMPLATE} does not exist at commit {short}; commit the issue template"
                ),
            );
        }
        Err(e) => return check(name, false, e),
    };
    let hash = sha256_hex(&bytes);

    // The pin, when the repository has one.
    let pin = match committed(at, PREFLIGHT_POLICY) {
        Ok(None) => None,
        Ok(Some(text)) => {
            let parsed = std::str::from_utf8(&text)
                .map_err(|_| format!("{PREFLIGHT_POLICY} is not UTF-8 text"))
                .and_then(|t| parse_policy(PREFLIGHT_POLICY, t).map_err(|e| e.to_string()))
                .and_then(|mut v| {
                    if let Value::Object(map) = &mut v {
                        map.retain(|k, _| !k.starts_with("x_"));
                    }
                    serde_json::from_value::<PreflightPolicy>(v).map_err(|e| {
                        format!(
                            "{PREFLIGHT_POLICY}: {e}; the shape is {{\"issue_template_sha256\": \"<64 hex digits>\"}}"
                        )
                    })
                });
            match parsed {
                Ok(policy) => policy.issue_template_sha256,
                Err(e) => return check(name, false, e),
            }
        }
        Err(e) => return check(name, false, e),
    };
    if let Some(pinned) = &pin
        && !pinned.trim().eq_ignore_ascii_case(&hash)
    {
        return check(
            name,
            false,
            format!(
                "{ISSUE_TEMPLATE} drifted: sha256 {hash} at commit {short}, but {PREFLIGHT_POLICY} pins {}",
                pinned.trim()
            ),
        );
    }

    // The working tree must hold the committed template.
    let Some(top) = at.working_tree() else {
        return check(
            name,
            false,
            format!(
                "the repository has no working tree to compare {ISSUE_TEMPLATE} with (committed sha256 {hash}); run in a checkout, not a bare repository"
            ),
        );
    };
    let on_disk = top.join(ISSUE_TEMPLATE);
    let working = match std::fs::symlink_metadata(&on_disk) {
        Err(_) => Err(format!(
            "{ISSUE_TEMPLATE} is missing from the working tree (committed sha256 {hash}); restore it with `git checkout -- {ISSUE_TEMPLATE}`"
        )),
        Ok(meta) if !meta.file_type().is_file() => Err(format!(
            "{ISSUE_TEMPLATE} in the working tree is not a regular file (committed sha256 {hash})"
        )),
        Ok(meta) if meta.len() > MAX_CONTEXT_FILE_BYTES => Err(format!(
            "{ISSUE_TEMPLATE} in the working tree is {} bytes, over the {MAX_CONTEXT_FILE_BYTES}-byte limit (committed sha256 {hash})",
            meta.len()
        )),
        Ok(_) => read_capped_bytes(&on_disk)
            .map_err(|e| format!("cannot read {ISSUE_TEMPLATE} in the working tree: {e}")),
    };
    match working {
        Err(e) => check(name, false, e),
        Ok(disk) => {
            let disk_hash = sha256_hex(&disk);
            if disk_hash != hash {
                check(
                    name,
                    false,
                    format!(
                        "{ISSUE_TEMPLATE} drifted: the working tree has sha256 {disk_hash}, commit {short} has sha256 {hash}; commit or revert the edit"
                    ),
                )
            } else {
                let pinned = if pin.is_some() {
                    format!(", as pinned in {PREFLIGHT_POLICY}")
                } else {
                    String::new()
                };
                check(
                    name,
                    true,
                    format!("{ISSUE_TEMPLATE} present and unchanged (sha256 {hash}{pinned})"),
                )
            }
        }
    }
}

/// Reads at most the context file limit (a file may grow after its size
/// was checked).
fn read_capped_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_CONTEXT_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn read_capped(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_capped_bytes(path)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

fn read_description(path: &str, text: &str) -> Result<ProjectDescription, String> {
    let mut value = parse_value(text, Format::Json).map_err(|f| {
        let at = f
            .location
            .map(|l| format!(" line {} column {}", l.line, l.column))
            .unwrap_or_default();
        format!("{path}{at}: {}", f.message)
    })?;
    if let Value::Object(map) = &mut value {
        map.retain(|k, _| !k.starts_with("x_"));
    }
    serde_json::from_value(value).map_err(|e| {
        format!(
            "{path}: {e}; the shape is {{\"project\": \"<name>\", \"fields\": {{\"<field>\": [\"<option>\", ...]}}}}"
        )
    })
}

fn project_schema(at: &AtCommit<'_>, project: Option<&Path>) -> PreflightCheckResult {
    let name = "project_schema";
    let required = match committed(at, PROJECT_SCHEMA) {
        Ok(None) => {
            return PreflightCheckResult {
                name: name.into(),
                passed: true,
                applicable: false,
                detail: format!("not applicable: no {PROJECT_SCHEMA} at the run's commit"),
            };
        }
        Ok(Some(bytes)) => match String::from_utf8(bytes) {
            Ok(text) => match read_description(PROJECT_SCHEMA, &text) {
                Ok(d) => d,
                Err(e) => return check(name, false, e),
            },
            Err(_) => return check(name, false, format!("{PROJECT_SCHEMA} is not UTF-8 text")),
        },
        Err(e) => return check(name, false, e),
    };
    let Some(file) = project else {
        return check(
            name,
            false,
            format!(
                "{PROJECT_SCHEMA} requires project `{}`: pass --project FILE, a JSON file {{\"project\": \"<name>\", \"fields\": {{\"<field>\": [\"<option>\", ...]}}}} describing the project the run works in",
                required.project
            ),
        );
    };
    let shown = file.display().to_string();
    let text = match std::fs::metadata(file) {
        Ok(meta) if meta.len() > MAX_CONTEXT_FILE_BYTES => {
            return check(
                name,
                false,
                format!(
                    "{shown} is {} bytes; the limit is {MAX_CONTEXT_FILE_BYTES}",
                    meta.len()
                ),
            );
        }
        Ok(meta) if !meta.is_file() => {
            return check(name, false, format!("{shown} is not a file"));
        }
        Ok(_) => match read_capped(file) {
            Ok(text) => text,
            Err(e) => return check(name, false, format!("cannot read {shown}: {e}")),
        },
        Err(e) => return check(name, false, format!("cannot read {shown}: {e}")),
    };
    let given = match read_description(&shown, &text) {
        Ok(d) => d,
        Err(e) => return check(name, false, e),
    };
    let drift = compare(&required, &given);
    if drift.is_empty() {
        check(
            name,
            true,
            format!(
                "project `{}` matches {PROJECT_SCHEMA} ({} field(s))",
                given.project,
                required.fields.len()
            ),
        )
    } else {
        check(
            name,
            false,
            format!(
                "{shown} does not match {PROJECT_SCHEMA}: {}",
                drift.join("; ")
            ),
        )
    }
}

/// Every difference between the required and the given project.
fn compare(required: &ProjectDescription, given: &ProjectDescription) -> Vec<String> {
    let mut drift = Vec::new();
    if required.project != given.project {
        drift.push(format!(
            "project is `{}`, required `{}`",
            given.project, required.project
        ));
    }
    for (field, options) in &required.fields {
        let Some(have) = given.fields.get(field) else {
            drift.push(format!("field `{field}` is missing"));
            continue;
        };
        let want: BTreeSet<&String> = options.iter().collect();
        let have: BTreeSet<&String> = have.iter().collect();
        for missing in want.difference(&have) {
            drift.push(format!("field `{field}` lacks option `{missing}`"));
        }
        for extra in have.difference(&want) {
            drift.push(format!(
                "field `{field}` has option `{extra}`, which {PROJECT_SCHEMA} does not list"
            ));
        }
    }
    for field in given.fields.keys() {
        if !required.fields.contains_key(field) {
            drift.push(format!("field `{field}` is not in {PROJECT_SCHEMA}"));
        }
    }
    drift
}
