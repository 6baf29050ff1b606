//! The git tools of a task: status, diff, commit, checkpoint, and the
//! history moves (reset, checkout) — always on the task's own branch, and
//! only to commits of the task's own history (between its base and its
//! tip). Nothing is ever pushed or merged.

use std::path::Path;

use serde_json::{Value, json};

use super::files::fail;
use super::git;

/// Bytes of a diff or status returned to the agent.
pub const DIFF_LIMIT: usize = 256 * 1024;

/// Where a git tool works: the worktree, its branch, its base, and the
/// commit identity to use.
pub struct Task<'a> {
    pub root: &'a Path,
    pub branch: &'a str,
    pub base: &'a str,
    pub identity: &'a [String],
}

fn git_error(e: super::WorkspaceError) -> Value {
    fail(e.message)
}

/// Runs git in the worktree; `Err` is a ready failure result.
fn run(task: &Task<'_>, args: &[&str], limit: usize) -> Result<super::command::Finished, Value> {
    git::run_limited(task.root, args, limit).map_err(git_error)
}

/// Refuses to act when the worktree is not on the task's branch (a command
/// the agent ran switched it): a commit would land on another branch.
fn on_branch(task: &Task<'_>) -> Result<String, Value> {
    let head = git::text(task.root, &["symbolic-ref", "-q", "HEAD"]).unwrap_or_default();
    if head != format!("refs/heads/{}", task.branch) {
        return Err(fail(format!(
            "the worktree is not on the task's branch `{}` (HEAD is `{}`); switch back with `git switch {}` before using the git tools",
            task.branch,
            if head.is_empty() { "detached" } else { &head },
            task.branch
        )));
    }
    git::resolve_commit(task.root, "HEAD")
        .map_err(git_error)?
        .ok_or_else(|| fail("the task's branch has no commit"))
}

/// Reads a `ref` argument and resolves it to a commit of the task's own
/// history: the base, the tip, or a commit between them.
fn own_commit(task: &Task<'_>, args: &Value) -> Result<String, Value> {
    let rev = match args.get("ref") {
        Some(Value::String(r)) if !r.is_empty() && r.len() <= 256 => r.clone(),
        _ => {
            return Err(fail(
                "`ref` must be a commit, branch or tag name (1 to 256 characters)",
            ));
        }
    };
    let tip = on_branch(task)?;
    let sha = git::resolve_commit(task.root, &rev)
        .map_err(git_error)?
        .ok_or_else(|| fail(format!("`{}` does not name a commit", rev.escape_debug())))?;
    let after_base = git::is_ancestor(task.root, task.base, &sha).map_err(git_error)?;
    let before_tip = git::is_ancestor(task.root, &sha, &tip).map_err(git_error)?;
    if !(after_base && before_tip) {
        return Err(fail(format!(
            "`{}` ({}) is not in the task's own history (from its base {} to its branch tip {}); only those commits can be reset to or checked out from — `git log {}..HEAD` lists them",
            rev.escape_debug(),
            short(&sha),
            short(task.base),
            short(&tip),
            short(task.base),
        )));
    }
    Ok(sha)
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

pub fn status(task: &Task<'_>) -> Value {
    let out = match run(task, &["status", "--porcelain=v1", "--branch"], DIFF_LIMIT) {
        Ok(o) => o,
        Err(v) => return v,
    };
    if !out.success() {
        return fail(git::failure(task.root, &["status"], &out).message);
    }
    let text = out.stdout.text();
    let clean = text.lines().all(|l| l.starts_with("##"));
    json!({ "ok": true, "status": text, "clean": clean, "clipped": out.stdout.clipped })
}

/// Every path `git add -A` would record in the worktree at `root`: changed,
/// added, deleted, and both sides of a rename; untracked files one by one,
/// ignored ones not (`git add -A` leaves them).
pub fn uncommitted_paths(root: &Path) -> Result<Vec<String>, String> {
    let args = [
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=all",
        "--no-renames",
        // A submodule's new commit is still listed; its working tree is not
        // looked into, so no git runs there with the submodule's own
        // configuration (its filter drivers).
        "--ignore-submodules=dirty",
    ];
    let out = git::run(root, &args).map_err(|e| e.message)?;
    if !out.success() {
        return Err(git::failure(root, &["status"], &out).message);
    }
    if out.stdout.clipped {
        return Err("the worktree has more changes than can be listed".into());
    }
    // Entries are `XY path`, NUL-terminated (no renames: one path each).
    let text = out.stdout.text();
    Ok(text
        .split('\0')
        .filter(|entry| entry.len() > 3)
        .map(|entry| entry[3..].to_string())
        .collect())
}

/// Every path the branch `branch` changes since `base` (`git diff
/// --name-only` of the two trees, each side of a rename named), plus what
/// the worktree at `worktree`, if it still exists, holds uncommitted: what
/// the branch would bring to the person. Run from the repository's root
/// `top`. A branch that is gone is an error: nothing can be checked.
pub fn branch_paths(
    top: &Path,
    base: &str,
    branch: &str,
    worktree: Option<&Path>,
) -> Result<Vec<String>, String> {
    let full = format!("refs/heads/{branch}");
    let tip = git::resolve_commit(top, &full)
        .map_err(|e| e.message)?
        .ok_or_else(|| {
            format!("the task's branch `{branch}` no longer exists (a program deleted it)")
        })?;
    let args = [
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        base,
        &tip,
        "--",
    ];
    let out = git::run(top, &args).map_err(|e| e.message)?;
    if !out.success() {
        return Err(git::failure(top, &args, &out).message);
    }
    if out.stdout.clipped {
        return Err(format!(
            "the branch `{branch}` changes more paths than can be listed"
        ));
    }
    let mut paths: Vec<String> = out
        .stdout
        .text()
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    if let Some(root) = worktree.filter(|w| w.join(".git").is_file()) {
        paths.extend(uncommitted_paths(root)?);
    }
    paths.sort();
    paths.dedup();
    Ok(paths)
}

pub fn diff(task: &Task<'_>, args: &Value) -> Value {
    let against = match args.get("ref") {
        None | Some(Value::Null) => task.base.to_string(),
        Some(Value::String(r)) => match git::resolve_commit(task.root, r) {
            Ok(Some(sha)) => sha,
            Ok(None) => return fail(format!("`{}` does not name a commit", r.escape_debug())),
            Err(e) => return git_error(e),
        },
        Some(_) => return fail("`ref` must be text"),
    };
    let out = match run(
        task,
        &[
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            &against,
            "--",
        ],
        DIFF_LIMIT,
    ) {
        Ok(o) => o,
        Err(v) => return v,
    };
    if !out.success() {
        return fail(git::failure(task.root, &["diff"], &out).message);
    }
    // New files not yet added do not show in a diff; name them apart.
    let untracked = run(
        task,
        &["ls-files", "--others", "--exclude-standard", "-z"],
        DIFF_LIMIT,
    )
    .map(|o| {
        o.stdout
            .text()
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect::<Vec<_>>()
    })
    .unwrap_or_default();
    json!({
        "ok": true,
        "against": against,
        "diff": out.stdout.text(),
        "clipped": out.stdout.clipped,
        "untracked": untracked,
    })
}

/// `git add -A` and a commit with `message` on the task's branch.
fn commit(task: &Task<'_>, message: &str, allow_empty: bool) -> Value {
    if message.contains('\0') {
        return fail("the commit message contains a NUL byte");
    }
    if let Err(v) = on_branch(task) {
        return v;
    }
    let add = match run(task, &["add", "-A"], DIFF_LIMIT) {
        Ok(o) => o,
        Err(v) => return v,
    };
    if !add.success() {
        return fail(git::failure(task.root, &["add", "-A"], &add).message);
    }
    if !allow_empty {
        let staged = match run(
            task,
            &[
                "diff",
                "--cached",
                "--quiet",
                "--no-ext-diff",
                "--no-textconv",
            ],
            DIFF_LIMIT,
        ) {
            Ok(o) => o,
            Err(v) => return v,
        };
        if staged.code() == Some(0) {
            return json!({
                "ok": true,
                "committed": false,
                "note": "nothing to commit: the worktree has no change since the branch's last commit",
            });
        }
    }
    let mut args: Vec<&str> = task.identity.iter().map(String::as_str).collect();
    args.extend(["commit", "--quiet", "-m", message]);
    if allow_empty {
        args.push("--allow-empty");
    }
    // The one command with the repository's hooks on (see
    // `git::run_with_hooks`).
    let out = match git::run_with_hooks(task.root, &args, DIFF_LIMIT) {
        Ok(o) => o,
        Err(e) => return git_error(e),
    };
    if !out.success() {
        return fail(format!(
            "{} (a hook of the repository may have refused the commit)",
            git::failure(task.root, &["commit"], &out).message
        ));
    }
    match git::resolve_commit(task.root, "HEAD") {
        Ok(Some(sha)) => {
            json!({ "ok": true, "committed": true, "commit": sha, "branch": task.branch })
        }
        Ok(None) => fail("the commit was made but HEAD does not resolve"),
        Err(e) => git_error(e),
    }
}

pub fn commit_changes(task: &Task<'_>, args: &Value) -> Value {
    match args.get("message") {
        Some(Value::String(m)) if !m.trim().is_empty() => commit(task, m, false),
        _ => fail("`message` must be a non-empty text describing the change"),
    }
}

pub fn checkpoint(task: &Task<'_>, args: &Value) -> Value {
    let label = match args.get("label") {
        None | Some(Value::Null) => "unnamed".to_string(),
        Some(Value::String(l)) if l.len() <= 200 => {
            let l = l.trim();
            if l.is_empty() {
                "unnamed".into()
            } else {
                l.to_string()
            }
        }
        Some(_) => return fail("`label` must be text of at most 200 characters"),
    };
    let mut out = commit(task, &format!("checkpoint: {label}"), true);
    if out["ok"] == true {
        out["label"] = json!(label);
    }
    out
}

pub fn reset(task: &Task<'_>, args: &Value) -> Value {
    let sha = match own_commit(task, args) {
        Ok(s) => s,
        Err(v) => return v,
    };
    match run(task, &["reset", "--hard", "--quiet", &sha], DIFF_LIMIT) {
        Ok(o) if o.success() => json!({ "ok": true, "commit": sha, "branch": task.branch }),
        Ok(o) => fail(git::failure(task.root, &["reset", "--hard"], &o).message),
        Err(v) => v,
    }
}

/// Restores `paths` (already confined, relative) or every file from a
/// commit of the task's history; HEAD and the branch stay where they are.
pub fn checkout(task: &Task<'_>, args: &Value, paths: &[String]) -> Value {
    let sha = match own_commit(task, args) {
        Ok(s) => s,
        Err(v) => return v,
    };
    let mut argv: Vec<&str> = vec!["checkout", "--quiet", &sha, "--"];
    if paths.is_empty() {
        argv.push(".");
    } else {
        argv.extend(paths.iter().map(String::as_str));
    }
    match run(task, &argv, DIFF_LIMIT) {
        Ok(o) if o.success() => {
            json!({ "ok": true, "commit": sha, "restored": if paths.is_empty() { vec![".".to_string()] } else { paths.to_vec() } })
        }
        Ok(o) => fail(git::failure(task.root, &["checkout"], &o).message),
        Err(v) => v,
    }
}

pub fn push() -> Value {
    fail(
        "git_push never runs: a run keeps its branches local for a person to review and merge; finish the task and leave the branch",
    )
}
