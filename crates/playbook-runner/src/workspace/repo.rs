//! The person's repository, opened read-only: a run starts from one of its
//! commits and never touches its working tree, index, HEAD or branches.

use std::path::{Path, PathBuf};

use super::error::{WorkspaceError, WorkspaceErrorKind};
use super::git;
use super::guard::OwnWorktrees;

/// How many paths a dirty-tree error names.
const SHOWN_PATHS: usize = 5;

/// The identity a run's commits carry when the repository has none.
pub(crate) const AGENT_NAME: &str = "Playbook Studio agent";
pub(crate) const AGENT_EMAIL: &str = "agent@playbook.invalid";

/// A repository a run may start from: a clean working tree with a base
/// commit.
#[derive(Debug, Clone)]
pub struct Repo {
    top: PathBuf,
    common_dir: PathBuf,
    base_ref: String,
    base_sha: String,
    /// `-c user.name=… -c user.email=…` when the repository's configuration
    /// has no identity; passed per command, never written to a config file.
    identity: Vec<String>,
    /// The worktrees a run made here, as made: recorded by its `Worktrees`,
    /// compared by its `Guard` (clones of this `Repo` share the record).
    own: OwnWorktrees,
}

fn err(kind: WorkspaceErrorKind, message: String) -> WorkspaceError {
    WorkspaceError::new(kind, message)
}

impl Repo {
    /// Opens `dir` for a run from `base_ref` (default `HEAD`). Refuses a
    /// folder that is not a git working tree, a repository without a
    /// commit, a dirty working tree, and a base that is not a commit.
    pub fn open(dir: &Path, base_ref: Option<&str>) -> Result<Repo, WorkspaceError> {
        let (top, common_dir) = locate(dir)?;
        let base_ref = base_ref.unwrap_or("HEAD").to_string();
        let base_sha = match git::resolve_commit(&top, &base_ref)? {
            Some(sha) => sha,
            None if !has_commit(&top)? => {
                return Err(err(
                    WorkspaceErrorKind::NoCommit,
                    format!(
                        "the repository at {} has no commit; commit once (for example `git commit --allow-empty -m init`) so a run has a base",
                        top.display()
                    ),
                ));
            }
            None => {
                return Err(err(
                    WorkspaceErrorKind::BadBaseRef,
                    format!(
                        "base ref `{}` does not name a commit in {}; give a branch, tag or commit that exists (see `git branch -a`)",
                        base_ref.escape_debug(),
                        top.display()
                    ),
                ));
            }
        };
        check_clean(&top)?;
        let identity = identity(&top)?;
        Ok(Repo {
            top,
            common_dir,
            base_ref,
            base_sha,
            identity,
            own: OwnWorktrees::default(),
        })
    }

    /// Opens `dir` to tidy up after runs (`playbook run clean`): no base
    /// is needed and the person's own changes may be in progress, so only
    /// a folder that is not a git working tree is refused.
    pub fn open_for_clean(dir: &Path) -> Result<Repo, WorkspaceError> {
        let (top, common_dir) = locate(dir)?;
        // No base: such a repository cannot start a run (Worktrees::new
        // refuses it), since its tree was never checked.
        Ok(Repo {
            identity: Vec::new(),
            top,
            common_dir,
            base_ref: String::new(),
            base_sha: String::new(),
            own: OwnWorktrees::default(),
        })
    }

    /// The top folder of the person's working tree.
    pub fn root(&self) -> &Path {
        &self.top
    }

    /// The repository's common git directory (`.git` of the main checkout).
    pub fn common_dir(&self) -> &Path {
        &self.common_dir
    }

    /// The base as the person named it.
    pub fn base_ref(&self) -> &str {
        &self.base_ref
    }

    /// The commit every task starts from.
    pub fn base_sha(&self) -> &str {
        &self.base_sha
    }

    /// Arguments that give a commit an identity when the repository has
    /// none (to put right after `git`).
    pub fn identity_args(&self) -> &[String] {
        &self.identity
    }

    /// Where a run's worktrees live: inside the common git directory, so
    /// the person's `git status` never shows them.
    pub fn worktrees_dir(&self) -> PathBuf {
        self.common_dir.join("playbook").join("worktrees")
    }

    /// The worktrees a run made in this repository, as `git worktree add`
    /// left them.
    pub(crate) fn own_worktrees(&self) -> &OwnWorktrees {
        &self.own
    }

    /// Where each task branch's base commit is recorded, so `clean` can
    /// tell a branch with work from an empty one.
    pub fn bases_dir(&self) -> PathBuf {
        self.common_dir.join("playbook").join("bases")
    }
}

/// The top of the working tree `dir` is in, and the common git directory;
/// refuses a folder that is not in a git working tree.
fn locate(dir: &Path) -> Result<(PathBuf, PathBuf), WorkspaceError> {
    let shown = dir.display();
    let meta = std::fs::metadata(dir).map_err(|e| {
        err(
            WorkspaceErrorKind::NotARepository,
            format!("{shown} cannot be opened ({e}); choose an existing folder"),
        )
    })?;
    if !meta.is_dir() {
        return Err(err(
            WorkspaceErrorKind::NotARepository,
            format!("{shown} is not a folder; choose the folder of a git repository"),
        ));
    }
    let inside = git::run(dir, &["rev-parse", "--is-inside-work-tree"])?;
    if !inside.success() || inside.stdout.text().trim() != "true" {
        // Git's own words matter when it refuses a repository it sees
        // (for example one owned by another user: `safe.directory`).
        let said = inside.stderr.text();
        let said = said.lines().next().unwrap_or_default().trim();
        let said = if said.is_empty() || said.contains("not a git repository") {
            String::new()
        } else {
            format!(" (git says: {said})")
        };
        return Err(err(
            WorkspaceErrorKind::NotARepository,
            format!(
                "{shown} is not inside a git working tree{said}; run `git init` and commit there, or choose a repository's folder"
            ),
        ));
    }
    let top = PathBuf::from(git::text(dir, &["rev-parse", "--show-toplevel"])?);
    let top = top.canonicalize().unwrap_or(top);
    let common = git::text(
        &top,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )?;
    let common_dir = PathBuf::from(&common);
    let common_dir = common_dir.canonicalize().unwrap_or(common_dir);
    Ok((top, common_dir))
}

/// `-c` arguments giving commits an identity when the configuration has
/// none; nothing when it has one.
fn identity(top: &Path) -> Result<Vec<String>, WorkspaceError> {
    if has_identity(top)? {
        return Ok(Vec::new());
    }
    Ok(vec![
        "-c".into(),
        format!("user.name={AGENT_NAME}"),
        "-c".into(),
        format!("user.email={AGENT_EMAIL}"),
    ])
}

fn has_commit(dir: &Path) -> Result<bool, WorkspaceError> {
    let out = git::run(dir, &["rev-list", "-n", "1", "--all"])?;
    Ok(out.success() && !out.stdout.text().trim().is_empty())
}

fn has_identity(dir: &Path) -> Result<bool, WorkspaceError> {
    let set = |key: &str| -> Result<bool, WorkspaceError> {
        let out = git::run(dir, &["config", "--get", key])?;
        Ok(out.success() && !out.stdout.text().trim().is_empty())
    };
    Ok(set("user.name")? && set("user.email")?)
}

/// Refuses a working tree with tracked changes or untracked files that are
/// not ignored, naming the first few of each.
fn check_clean(top: &Path) -> Result<(), WorkspaceError> {
    // Explicit options, so a repository's `status.showUntrackedFiles=no`
    // cannot hide an untracked file from the check.
    let args = [
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=normal",
        "--ignore-submodules=none",
    ];
    let out = git::run(top, &args)?;
    if !out.success() {
        return Err(git::failure(top, &args, &out));
    }
    let text = out.stdout.text();
    let mut tracked = Vec::new();
    let mut untracked = Vec::new();
    let mut entries = text.split('\0').filter(|e| !e.is_empty());
    while let Some(entry) = entries.next() {
        // `XY path`: two status letters, a space, the path.
        let code = entry.get(..2).unwrap_or(entry);
        let path = entry.get(3..).unwrap_or_default();
        if code.starts_with("??") {
            untracked.push(path.to_string());
        } else {
            tracked.push(path.to_string());
            // A rename or copy is followed by its original path.
            if code.starts_with('R') || code.starts_with('C') {
                entries.next();
            }
        }
    }
    if tracked.is_empty() && untracked.is_empty() {
        return Ok(());
    }
    let list = |paths: &[String]| {
        let mut s = paths
            .iter()
            .take(SHOWN_PATHS)
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ");
        if paths.len() > SHOWN_PATHS {
            s.push_str(&format!(" and {} more", paths.len() - SHOWN_PATHS));
        }
        s
    };
    let mut parts = Vec::new();
    if !tracked.is_empty() {
        parts.push(format!(
            "{} tracked change(s): {}",
            tracked.len(),
            list(&tracked)
        ));
    }
    if !untracked.is_empty() {
        parts.push(format!(
            "{} untracked path(s): {}",
            untracked.len(),
            list(&untracked)
        ));
    }
    Err(err(
        WorkspaceErrorKind::DirtyTree,
        format!(
            "the working tree of {} is not clean ({}); commit or stash them (`git stash -u`), or ignore them in .gitignore, then start the run again",
            top.display(),
            parts.join("; ")
        ),
    ))
}
