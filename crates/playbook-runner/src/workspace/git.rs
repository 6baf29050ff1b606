//! `git`, run as a real process with bounds: the CLI people's repositories
//! are made with, never a library reimplementation of it.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use super::command::{self, Finished, Spec};
use super::error::{WorkspaceError, WorkspaceErrorKind};

/// Bytes kept of a git command's output: enough for any ref listing or
/// status of a real repository, bounded against a hostile one.
pub const GIT_OUTPUT_LIMIT: usize = 8 * 1024 * 1024;

/// Every git command ends within this time (a hook included).
pub const GIT_TIMEOUT: Duration = Duration::from_secs(300);

/// The environment of every git command: no prompt for credentials, no
/// optional lock (so `git status` never rewrites the user's index), no
/// editor, messages in one language.
const ENV: &[(&str, &str)] = &[
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_EDITOR", "true"),
    ("GIT_LITERAL_PATHSPECS", "1"),
    ("LC_ALL", "C"),
];

/// Runs `git args…` in `dir` with the given output limit.
pub fn run_limited(dir: &Path, args: &[&str], limit: usize) -> Result<Finished, WorkspaceError> {
    let mut argv: Vec<OsString> = vec!["git".into()];
    argv.extend(args.iter().map(OsString::from));
    command::run(&Spec {
        argv: &argv,
        cwd: dir,
        env: ENV,
        timeout: GIT_TIMEOUT,
        limit,
        cancel: None,
    })
    .map_err(|e| {
        WorkspaceError::new(
            WorkspaceErrorKind::Git,
            format!("{}; install git and make sure it is on PATH", e.0),
        )
    })
}

/// Runs `git args…` in `dir`.
pub fn run(dir: &Path, args: &[&str]) -> Result<Finished, WorkspaceError> {
    run_limited(dir, args, GIT_OUTPUT_LIMIT)
}

/// Runs `git args…` in `dir` and returns its stdout, trimmed; a failure is
/// an error quoting git's own words.
pub fn text(dir: &Path, args: &[&str]) -> Result<String, WorkspaceError> {
    let out = run(dir, args)?;
    if out.success() {
        return Ok(out.stdout.text().trim_end().to_string());
    }
    Err(failure(dir, args, &out))
}

/// The error for a git command that failed.
pub fn failure(dir: &Path, args: &[&str], out: &Finished) -> WorkspaceError {
    let what = if out.timed_out {
        format!("did not finish within {} s", GIT_TIMEOUT.as_secs())
    } else {
        let stderr = out.stderr.text();
        // Redacted before it is cut: a credential the cut split (a remote
        // URL with a password) would no longer be recognised downstream.
        let stderr = playbook_redact::redact_then_clip(stderr.trim(), 2000, "…");
        format!("failed: {stderr}")
    };
    WorkspaceError::new(
        WorkspaceErrorKind::Git,
        format!("`git {}` in {} {what}", args.join(" "), dir.display()),
    )
}

/// The commit `rev` names in `dir`, or `None` when it names none. `rev` is
/// passed after `--end-of-options`, so a value such as `--output=x` is a
/// (bad) revision, never an option.
pub fn resolve_commit(dir: &Path, rev: &str) -> Result<Option<String>, WorkspaceError> {
    if rev.is_empty() || rev.contains('\0') {
        return Ok(None);
    }
    let spec = format!("{rev}^{{commit}}");
    let out = run(
        dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &spec,
        ],
    )?;
    if out.timed_out {
        return Err(failure(dir, &["rev-parse", rev], &out));
    }
    let sha = out.stdout.text().trim().to_string();
    Ok((out.success() && !sha.is_empty()).then_some(sha))
}

/// Whether `ancestor` is an ancestor of (or equal to) `descendant`.
pub fn is_ancestor(dir: &Path, ancestor: &str, descendant: &str) -> Result<bool, WorkspaceError> {
    let args = ["merge-base", "--is-ancestor", ancestor, descendant];
    let out = run(dir, &args)?;
    match out.code() {
        Some(0) => Ok(true),
        Some(1) => Ok(false),
        _ => Err(failure(dir, &args, &out)),
    }
}
