//! The context bundle of a run and its mandatory preflight
//! (spec/role-scoped-agent-runs.md §3–§6).
//!
//! Before any agent starts, the run reads, **at its commit** (never from the
//! working tree, so an uncommitted edit cannot change what governs it):
//!
//! - `AGENTS.md`, the repository's global operating contract;
//! - `agents/<ROLE>.md` for each role of the playbook, the role overlay;
//! - every `policy/*.json`, the machine-readable policies.
//!
//! Each file is hashed (SHA-256) into the audit log; what is not there is
//! listed as absent, and a repository with none of these files is fine —
//! the playbook's contracts alone govern. The role is explicit: when the
//! repository has an `agents/` directory, each role that will run must have
//! its file there (exact name first, then a unique case-insensitive match).
//!
//! Tool permissions ([`effective_tools`]) start from the role's
//! `actions_allowed` and can only shrink: the policy's `allow` list
//! intersects, its `deny` list and the overlay's `forbidden_actions`
//! subtract. The preflight ([`preflight`]) checks the issue template and the
//! project schema when the repository has governance files.

mod bundle;
mod git;
mod overlay;
mod permissions;
mod preflight;

pub use bundle::{Bundle, ContextItem, ItemKind, MAX_BUNDLE_BYTES};
pub use git::MAX_CONTEXT_FILE_BYTES;
pub use overlay::Overlay;
pub use permissions::{
    NarrowReason, Narrowing, PolicyFor, ROLE_PERMISSIONS, RolePermissions, RoleRule,
    effective_tools, narrow, role_permissions_schema,
};
pub use preflight::{
    ISSUE_TEMPLATE, PREFLIGHT_POLICY, PROJECT_SCHEMA, PreflightCheckResult, PreflightReport,
    ProjectDescription, preflight,
};

/// Why the context bundle could not be read. Each message names the file
/// (or role) and how to fix it; the run does not start.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ContextError {
    #[error("{message}")]
    Git { message: String },
    #[error(
        "`{reference}` is not a usable git reference: pass a branch, tag or commit id without spaces, `:` or a leading `-`"
    )]
    BadRef { reference: String },
    #[error(
        "`{reference}` does not name a commit in {repo}; check the branch or commit with `git rev-parse {reference}`"
    )]
    MissingRef { reference: String, repo: String },
    #[error("{path} is {what} at the run's commit; context files must be regular files")]
    NotAFile { path: String, what: String },
    #[error("{path} is {size} bytes; context files are limited to {limit} bytes")]
    TooLarge { path: String, size: u64, limit: u64 },
    #[error("{path} is not UTF-8 text; save it as UTF-8")]
    NotUtf8 { path: String },
    #[error("{path} line {line} column {column}: {message}; fix the JSON and commit it")]
    MalformedPolicy {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    InvalidPolicy { path: String, message: String },
    #[error("{path}: {message}")]
    MalformedOverlay { path: String, message: String },
    #[error(
        "role `{role}` will run but the repository's agents/ directory has no agents/{role}.md (it has: {}); add the file, or rename the role, at the run's commit",
        list(existing)
    )]
    RoleFileMissing { role: String, existing: Vec<String> },
    #[error(
        "role `{role}` matches several files only by case ({}); keep one, or name one exactly agents/{role}.md",
        candidates.join(", ")
    )]
    AmbiguousRoleFile {
        role: String,
        candidates: Vec<String>,
    },
    #[error(
        "role `{role}` will run but {path} does not name it (it names: {}); add `\"{role}\": {{\"allow\": [...]}}` under `roles`",
        list(named)
    )]
    RoleNotInPolicy {
        role: String,
        path: String,
        named: Vec<String>,
    },
    #[error("a role name is empty or holds control characters: `{role}`")]
    BadRole { role: String },
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "nothing".into()
    } else {
        items.join(", ")
    }
}

/// Lowercase hexadecimal SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Finds `wanted` among `names`: the exact name first, else the one name
/// equal ignoring case. Several case-insensitive matches are ambiguous.
pub(crate) fn match_name<'n>(
    wanted: &str,
    names: impl IntoIterator<Item = &'n str> + Clone,
) -> Result<Option<&'n str>, Vec<String>> {
    if let Some(exact) = names.clone().into_iter().find(|n| *n == wanted) {
        return Ok(Some(exact));
    }
    let lower = wanted.to_lowercase();
    let folded: Vec<&str> = names
        .into_iter()
        .filter(|n| n.to_lowercase() == lower)
        .collect();
    match folded.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        many => Err(many.iter().map(|s| s.to_string()).collect()),
    }
}
