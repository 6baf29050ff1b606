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

/// Configuration every git command of the runner gets on its command line,
/// which outranks every configuration file git reads (the repository's, a
/// worktree's `config.worktree`, the person's own), so none of them can make
/// the runner's git start a program:
///
/// - `core.fsmonitor` names a program git runs on every command that looks
///   at a working tree (`status`, `diff`, `add`, and the `status` that
///   `git worktree remove` runs);
/// - `core.hooksPath` at a place with no hook in it turns every hook off
///   (`post-checkout` on `worktree add`, `reference-transaction` on every
///   ref update, `post-index-change`).
///
/// Git hands command-line configuration on to the git commands it starts
/// itself (`GIT_CONFIG_PARAMETERS`), submodules' included. Diff drivers
/// (`diff.external`, `textconv`) are turned off per command
/// (`--no-ext-diff --no-textconv`); filter drivers stay on: the person's own
/// (Git LFS) decide what a checkout holds. The repository's files that could
/// define another are the ones the guard puts back before the runner looks
/// at a task's worktree again; one in the person's own `~/.gitconfig` runs
/// on their next git command anyway (docs/agent-protocol.md, section 6).
const NO_PROGRAMS: [&str; 4] = [
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
];

/// Runs `git args…` in `dir` with the given output limit; no hook and no
/// file system monitor runs (see [`NO_PROGRAMS`]).
pub fn run_limited(dir: &Path, args: &[&str], limit: usize) -> Result<Finished, WorkspaceError> {
    spawn(dir, &NO_PROGRAMS, args, limit)
}

/// Runs `git args…` in `dir` for an agent's own request, with the
/// repository's hooks on: the person's `pre-commit` or `commit-msg` hook
/// holds an agent's commit to the same rules as theirs. Only the file
/// system monitor is off; a hook runs during the invocation, as the agent's
/// own `run_command` could run it.
pub fn run_with_hooks(dir: &Path, args: &[&str], limit: usize) -> Result<Finished, WorkspaceError> {
    spawn(dir, &NO_PROGRAMS[..2], args, limit)
}

fn spawn(
    dir: &Path,
    config: &[&str],
    args: &[&str],
    limit: usize,
) -> Result<Finished, WorkspaceError> {
    let mut argv: Vec<OsString> = vec!["git".into()];
    argv.extend(config.iter().map(OsString::from));
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
