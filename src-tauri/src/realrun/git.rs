//! The little of git the Run mode needs, through the git CLI: what a chosen
//! folder is, and what a task's branch holds. Every call runs without a
//! terminal prompt, external diff drivers or text conversion filters (a
//! repository's configuration must not run programs when the app shows a
//! diff), and its output is read only up to a limit.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The most of a diff the window shows; the rest is cut and said to be.
pub const DIFF_LIMIT: usize = 512 * 1024;
/// The most commits listed for one branch.
pub const LOG_LIMIT: usize = 200;
/// The most any other git answer may be.
const SMALL_LIMIT: usize = 64 * 1024;

/// What `git` printed, up to a limit, and whether it said more.
pub struct Output {
    pub text: String,
    pub truncated: bool,
}

/// Runs `git -C dir args…`; its standard output up to `limit` bytes. An
/// error names the command and git's own words.
pub fn git(dir: &Path, args: &[&str], limit: usize) -> Result<Output, String> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.quotepath=off", "-c", "color.ui=never"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("git could not start ({e}); install git and try again"))?;
    // Standard error is drained beside standard output, so a git that
    // writes much to it never blocks with both pipes full.
    let errors = child.stderr.take().map(|err| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut err = err;
            let _ = (&mut err).take(SMALL_LIMIT as u64).read_to_end(&mut kept);
            let _ = std::io::copy(&mut err, &mut std::io::sink());
            String::from_utf8_lossy(&kept).into_owned()
        })
    });
    let mut bytes = Vec::new();
    let read = child
        .stdout
        .take()
        .map(|out| out.take(limit as u64 + 1).read_to_end(&mut bytes));
    let truncated = bytes.len() > limit;
    if truncated {
        // Enough is read: the rest is not wanted, so git need not finish.
        let _ = child.kill();
    }
    let status = child
        .wait()
        .map_err(|e| format!("git did not finish: {e}"))?;
    let stderr = errors
        .and_then(|reader| reader.join().ok())
        .unwrap_or_default();
    if let Some(Err(e)) = read {
        return Err(format!("could not read git's output: {e}"));
    }
    if !truncated && !status.success() {
        return Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            stderr.trim()
        ));
    }
    bytes.truncate(limit);
    Ok(Output {
        text: String::from_utf8_lossy(&bytes).into_owned(),
        truncated,
    })
}

fn line(dir: &Path, args: &[&str]) -> Result<String, String> {
    Ok(git(dir, args, SMALL_LIMIT)?.text.trim().to_string())
}

/// A chosen folder, as git sees it.
pub struct Checkout {
    pub root: PathBuf,
    pub commit: String,
    pub branch: Option<String>,
    pub dirty: bool,
}

/// Reads the checkout `dir` is in; an error in words when it is not one.
pub fn checkout(dir: &Path) -> Result<Checkout, String> {
    let root = line(dir, &["rev-parse", "--show-toplevel"]).map_err(|_| {
        format!(
            "{} is not inside a git repository: choose the folder of a git checkout (`git init` makes one)",
            dir.display()
        )
    })?;
    let root = PathBuf::from(root);
    let commit = line(&root, &["rev-parse", "--short", "--verify", "HEAD^{commit}"]).map_err(|_| {
        format!(
            "{} has no commit yet: a run starts its branches from a commit, so commit something first",
            root.display()
        )
    })?;
    let branch = line(&root, &["symbolic-ref", "--quiet", "--short", "HEAD"])
        .ok()
        .filter(|b| !b.is_empty());
    let dirty = !git(
        &root,
        &["status", "--porcelain", "--untracked-files=normal"],
        SMALL_LIMIT,
    )?
    .text
    .trim()
    .is_empty();
    Ok(Checkout {
        root,
        commit,
        branch,
        dirty,
    })
}

/// The commits of `branch` since `base`, newest first.
pub fn commits(repo: &Path, base: &str, branch: &str) -> Result<Vec<String>, String> {
    let range = format!("{base}..{branch}");
    let max = format!("--max-count={LOG_LIMIT}");
    let out = git(
        repo,
        &["log", "--no-decorate", "--format=%h %s", &max, &range, "--"],
        SMALL_LIMIT * 4,
    )?;
    Ok(out.text.lines().map(str::to_string).collect())
}

/// `git diff base..branch`, cut at [`DIFF_LIMIT`].
pub fn diff(repo: &Path, base: &str, branch: &str) -> Result<Output, String> {
    let range = format!("{base}..{branch}");
    git(
        repo,
        &[
            "diff",
            "--no-ext-diff",
            "--no-textconv",
            "--no-color",
            &range,
            "--",
        ],
        DIFF_LIMIT,
    )
}
