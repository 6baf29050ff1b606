//! One `git worktree` per task, on its own branch from the run's base
//! commit, kept inside the repository's git directory so the person's
//! checkout never sees it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::error::{WorkspaceError, WorkspaceErrorKind};
use super::git;
use super::git_tools;
use super::live::{self, RunLock};
use super::repo::Repo;

/// Longest task id accepted: it becomes a folder and a branch name.
const MAX_ID: usize = 100;

/// Refuses an id that cannot safely be a folder name and a branch name
/// component: only letters, digits, `.`, `_` and `-`, not starting with `.`
/// or `-`, no `..`, not ending in `.lock`.
fn check_id(what: &str, id: &str) -> Result<(), WorkspaceError> {
    let ok = !id.is_empty()
        && id.len() <= MAX_ID
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !id.starts_with(['.', '-'])
        && !id.contains("..")
        && !id.ends_with(".lock")
        && !id.ends_with('.');
    if ok {
        return Ok(());
    }
    Err(WorkspaceError::new(
        WorkspaceErrorKind::BadId,
        format!(
            "{what} `{}` cannot name a branch and a folder; use 1 to {MAX_ID} letters, digits, `.`, `_` or `-`, not starting with `.` or `-`",
            id.escape_debug()
        ),
    ))
}

/// A worktree holding changes not committed, and their paths (tracked
/// files changed, untracked files not ignored).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Uncommitted {
    pub worktree: PathBuf,
    pub paths: Vec<String>,
}

/// What `clean` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CleanReport {
    /// Worktree folders removed.
    pub removed_worktrees: Vec<PathBuf>,
    /// Worktrees removed with changes not committed (`force`): the changes
    /// named here are gone.
    pub discarded: Vec<Uncommitted>,
    /// Worktrees not removed because they hold changes not committed
    /// (without `force`), with those changes.
    pub kept_worktrees: Vec<Uncommitted>,
    /// Runs still going on (their id, first 8): their worktrees and branches
    /// are left alone.
    pub live_runs: Vec<String>,
    /// Task branches kept: they have commits beyond their base.
    pub kept_branches: Vec<String>,
    /// Task branches deleted: they had nothing beyond their base.
    pub deleted_branches: Vec<String>,
    /// What could not be cleaned, and why.
    pub problems: Vec<String>,
}

#[derive(Debug, Clone)]
struct Live {
    path: PathBuf,
}

/// The worktrees of one run.
#[derive(Debug)]
pub struct Worktrees {
    repo: Repo,
    run8: String,
    max_parallel: u32,
    /// The tasks at work now: what `max_parallel` counts.
    live: BTreeMap<String, Live>,
    /// Finished tasks, and whether they passed.
    finished: BTreeMap<String, bool>,
    /// Every task that had a worktree in this run (its branch exists).
    made: BTreeSet<String>,
    /// Marks the run as going on, for `clean` and other runs' guards, for
    /// as long as this lives.
    _live: RunLock,
}

impl Worktrees {
    /// The worktrees of run `run_id`; at most `max_parallel` live at once.
    pub fn new(repo: &Repo, run_id: &str, max_parallel: u32) -> Result<Worktrees, WorkspaceError> {
        let run8: String = run_id.chars().take(8).collect();
        check_id("run id", &run8)?;
        if repo.base_sha().is_empty() {
            return Err(WorkspaceError::new(
                WorkspaceErrorKind::BadBaseRef,
                format!(
                    "the repository at {} was opened for cleaning only and has no base commit; open it with Repo::open for a run",
                    repo.root().display()
                ),
            ));
        }
        Ok(Worktrees {
            _live: RunLock::take(repo.common_dir(), &run8)?,
            repo: repo.clone(),
            run8,
            max_parallel: max_parallel.max(1),
            live: BTreeMap::new(),
            finished: BTreeMap::new(),
            made: BTreeSet::new(),
        })
    }

    pub fn repo(&self) -> &Repo {
        &self.repo
    }

    /// The branch of a task: `playbook/<run id, first 8>/<task id>`.
    pub fn branch_for(&self, task_id: &str) -> String {
        format!("playbook/{}/{task_id}", self.run8)
    }

    /// Where the worktree of a task lives (whether or not it exists).
    pub fn path_for(&self, task_id: &str) -> PathBuf {
        self.repo.worktrees_dir().join(&self.run8).join(task_id)
    }

    /// The commit a task's branch started from.
    pub fn base_sha(&self) -> &str {
        self.repo.base_sha()
    }

    /// Whether the task finished, and passed.
    pub fn finished(&self, task_id: &str) -> Option<bool> {
        self.finished.get(task_id).copied()
    }

    /// Whether the task had a worktree in this run, so a branch.
    pub fn had_worktree(&self, task_id: &str) -> bool {
        self.made.contains(task_id)
    }

    /// Whether the task is at work now (counted against `max_parallel`).
    pub fn is_live(&self, task_id: &str) -> bool {
        self.live.contains_key(task_id)
    }

    /// The worktrees of the tasks at work now (canonical paths).
    pub fn live_paths(&self) -> Vec<PathBuf> {
        self.live.values().map(|l| l.path.clone()).collect()
    }

    /// The worktree of a task, made on first use (so an agent process can
    /// be started in it before its first tool call). Same as [`acquire`].
    ///
    /// [`acquire`]: Worktrees::acquire
    pub fn worktree_for(&mut self, task_id: &str) -> Result<PathBuf, WorkspaceError> {
        self.acquire(task_id)
    }

    /// The worktree of a task: made on first call, the same path after
    /// (made again from the task's branch after [`leave`]). Refused when
    /// `max_parallel` tasks are already at work: a task counts from its
    /// first call until it leaves its stage or finishes.
    ///
    /// [`leave`]: Worktrees::leave
    pub fn acquire(&mut self, task_id: &str) -> Result<PathBuf, WorkspaceError> {
        check_id("task id", task_id)?;
        if let Some(live) = self.live.get(task_id) {
            return Ok(live.path.clone());
        }
        if self.live.len() >= self.max_parallel as usize {
            return Err(WorkspaceError::new(
                WorkspaceErrorKind::TooManyWorktrees,
                format!(
                    "task `{task_id}` needs a worktree but {} are live ({}), the most max_parallel_worktrees allows; finish a task first or raise the limit",
                    self.live.len(),
                    self.live.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        let path = self.path_for(task_id);
        let branch = self.branch_for(task_id);
        let top = self.repo.root().to_path_buf();
        let known = registered(&top, &path)?;
        if !(known && path.join(".git").is_file()) {
            // Whatever is left from an earlier attempt (a folder git no
            // longer knows, or git's record of a folder that is gone) is
            // ours, under the git directory: clear it and start again.
            // Only this path: a global `git worktree prune` would also drop
            // the person's own worktrees on a drive that is not mounted.
            if known {
                let text = path.to_string_lossy().into_owned();
                let _ = git::run(&top, &["worktree", "remove", "--force", "--force", &text]);
            }
            if path.exists() {
                std::fs::remove_dir_all(&path).map_err(|e| io_err(&path, e))?;
            }
            let parent = path.parent().unwrap_or(&path);
            std::fs::create_dir_all(parent).map_err(|e| io_err(parent, e))?;
            let path_text = path.to_string_lossy().into_owned();
            let full = format!("refs/heads/{branch}");
            let exists = git::resolve_commit(&top, &full)?.is_some();
            let args: Vec<&str> = if exists {
                vec!["worktree", "add", "--quiet", &path_text, &branch]
            } else {
                vec![
                    "worktree",
                    "add",
                    "--quiet",
                    "-b",
                    &branch,
                    &path_text,
                    self.repo.base_sha(),
                ]
            };
            let out = git::run(&top, &args)?;
            if !out.success() {
                return Err(git::failure(&top, &args, &out));
            }
            self.record_base(task_id)?;
            // As git made it, before any agent ran there: what the guard
            // puts the worktree's git files back to.
            let made = path.canonicalize().map_err(|e| io_err(&path, e))?;
            self.repo
                .own_worktrees()
                .record(self.repo.common_dir(), &made);
        }
        let path = path.canonicalize().map_err(|e| io_err(&path, e))?;
        self.finished.remove(task_id);
        self.made.insert(task_id.to_string());
        self.live
            .insert(task_id.to_string(), Live { path: path.clone() });
        Ok(path)
    }

    /// Writes the base of a task's branch beside the worktrees, for `clean`.
    fn record_base(&self, task_id: &str) -> Result<(), WorkspaceError> {
        let dir = self.repo.bases_dir().join(&self.run8);
        std::fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
        let file = dir.join(task_id);
        // A new file under the name: an agent of an earlier task knows this
        // folder (its run id) and may have planted a FIFO or link here.
        crate::regular_file::overwrite(&file, self.repo.base_sha().as_bytes())
            .map_err(|e| io_err(&file, e))
    }

    /// The task left its stage and waits for the next one: it no longer
    /// counts against `max_parallel`. Its work is on its branch, so its
    /// worktree is removed when it has no uncommitted change (the next
    /// stage makes it again from the branch; ignored build outputs do not
    /// survive); with changes git keeps it, and the next stage finds it as
    /// it was.
    pub fn leave(&mut self, task_id: &str) -> Result<(), WorkspaceError> {
        check_id("task id", task_id)?;
        let Some(live) = self.live.remove(task_id) else {
            return Ok(());
        };
        // Without `--force`, git refuses to remove a worktree with changes
        // not committed.
        let path = live.path.to_string_lossy().into_owned();
        let _ = git::run(self.repo.root(), &["worktree", "remove", &path])?;
        self.forget_if_gone(&live.path);
        Ok(())
    }

    /// Forgets the record of a worktree the run removed.
    fn forget_if_gone(&self, path: &Path) {
        if std::fs::symlink_metadata(path).is_err() {
            self.repo.own_worktrees().forget(path);
        }
    }

    /// Ends a task, freeing its place. A passed task's worktree is removed
    /// when it has no uncommitted change, and its branch is kept for the
    /// person to merge (never merged, never pushed); a failed task's
    /// worktree is kept for inspection until `clean`.
    pub fn finish(&mut self, task_id: &str, passed: bool) -> Result<(), WorkspaceError> {
        check_id("task id", task_id)?;
        let Some(live) = self.live.remove(task_id) else {
            self.finished.insert(task_id.to_string(), passed);
            return Ok(());
        };
        self.finished.insert(task_id.to_string(), passed);
        if passed {
            // Without `--force`, git refuses to remove a worktree with
            // changes not committed: they stay for the person to see.
            let path = live.path.to_string_lossy().into_owned();
            let _ = git::run(self.repo.root(), &["worktree", "remove", &path])?;
            self.forget_if_gone(&live.path);
        }
        Ok(())
    }

    /// Removes the worktrees runs left in `repo` (opened with
    /// [`Repo::open_for_clean`] when the person's tree may be dirty), keeps
    /// the task branches that have commits beyond their base and deletes the
    /// empty ones. Safe to run again: a second run finds nothing to do.
    ///
    /// Two things are left alone, and said: everything of a run still going
    /// on (its worktrees are at work; see [`live`]), and, unless `force`, a
    /// worktree with changes not committed (a failed task's half-done work,
    /// or the person's own edits made there), named with those changes. With
    /// `force` such a worktree is removed and its changes are named as
    /// discarded. Ignored files (build outputs) go with their worktree
    /// either way.
    pub fn clean(repo: &Repo, force: bool) -> Result<CleanReport, WorkspaceError> {
        let top = repo.root();
        let common = repo.common_dir();
        let mut report = CleanReport::default();
        let ours = repo.worktrees_dir();
        let mut runs = LiveRuns::new(common);
        // Worktrees that stay, so neither their folder nor their branch goes.
        let mut stay: Vec<PathBuf> = Vec::new();
        for path in listed_worktrees(top)? {
            let Some(run8) = run_folder(&ours, &path) else {
                continue;
            };
            if runs.live(&run8) {
                stay.push(path);
                continue;
            }
            let uncommitted = if path.join(".git").exists() {
                match git_tools::uncommitted_paths(&path) {
                    Ok(paths) => paths,
                    Err(why) if !force => {
                        report.problems.push(format!(
                            "{} was kept: its changes could not be listed ({why}); look at it, or remove it with --force",
                            path.display()
                        ));
                        stay.push(path);
                        continue;
                    }
                    Err(_) => Vec::new(),
                }
            } else {
                // Its folder is gone: nothing in it to lose.
                Vec::new()
            };
            if !uncommitted.is_empty() && !force {
                report.kept_worktrees.push(Uncommitted {
                    worktree: path.clone(),
                    paths: uncommitted,
                });
                stay.push(path);
                continue;
            }
            let text = path.to_string_lossy().into_owned();
            let args = ["worktree", "remove", "--force", "--force", &text];
            let out = git::run(top, &args)?;
            if out.success() {
                if !uncommitted.is_empty() {
                    report.discarded.push(Uncommitted {
                        worktree: path.clone(),
                        paths: uncommitted,
                    });
                }
                report.removed_worktrees.push(path);
            } else {
                report.problems.push(git::failure(top, &args, &out).message);
                stay.push(path);
            }
        }
        remove_leftovers(&ours, &stay, &mut runs, &mut report);
        let refs = git::text(
            top,
            &[
                "for-each-ref",
                "--format=%(refname) %(objectname)",
                "refs/heads/playbook/",
            ],
        )?;
        for line in refs.lines() {
            let Some((refname, tip)) = line.split_once(' ') else {
                continue;
            };
            let branch = refname.trim_start_matches("refs/heads/").to_string();
            let run_task = branch
                .strip_prefix("playbook/")
                .and_then(|rest| rest.split_once('/'));
            if let Some((run8, task)) = run_task {
                if runs.live(run8) {
                    continue;
                }
                // A worktree that stays is on this branch (and is named,
                // if kept for its changes): deleting the branch would leave
                // it on none.
                if stay.contains(&ours.join(run8).join(task)) {
                    continue;
                }
            }
            let base = branch_base(repo, &branch);
            let has_work = match &base {
                Some(base) => base != tip,
                None => true,
            };
            if has_work {
                report.kept_branches.push(branch);
                continue;
            }
            let out = git::run(top, &["update-ref", "-d", refname, tip])?;
            if out.success() {
                if let Some(file) = base_file(repo, &branch) {
                    let _ = std::fs::remove_file(&file);
                    if let Some(dir) = file.parent() {
                        // Only once it is empty: other branches' bases stay.
                        let _ = std::fs::remove_dir(dir);
                    }
                }
                report.deleted_branches.push(branch);
            } else {
                report.problems.push(format!(
                    "branch `{branch}` could not be deleted: {}",
                    out.stderr.text().trim()
                ));
            }
        }
        // A run's mark goes with the last of its worktrees and branches.
        for run8 in live::listed(common) {
            let prefix = format!("playbook/{run8}/");
            let left = report.kept_branches.iter().any(|b| b.starts_with(&prefix))
                || stay
                    .iter()
                    .any(|p| run_folder(&ours, p).as_deref() == Some(&run8));
            if !left && !runs.live(&run8) {
                live::remove_if_over(common, &run8);
            }
        }
        // Only once empty: what is left there is a run's that stays.
        let _ = std::fs::remove_dir(live::dir(common));
        let _ = std::fs::remove_dir(repo.bases_dir());
        report.live_runs = runs.seen_live();
        Ok(report)
    }
}

/// Which runs are going on, each asked once.
struct LiveRuns<'a> {
    common: &'a Path,
    known: BTreeMap<String, bool>,
}

impl<'a> LiveRuns<'a> {
    fn new(common: &'a Path) -> LiveRuns<'a> {
        LiveRuns {
            common,
            known: BTreeMap::new(),
        }
    }

    fn live(&mut self, run8: &str) -> bool {
        if let Some(live) = self.known.get(run8) {
            return *live;
        }
        let live = live::is_live(self.common, run8);
        self.known.insert(run8.to_string(), live);
        live
    }

    fn seen_live(&self) -> Vec<String> {
        self.known
            .iter()
            .filter(|(_, live)| **live)
            .map(|(run8, _)| run8.clone())
            .collect()
    }
}

/// The run (`<run8>`) a worktree under `ours` (`ours/<run8>/<task>`) is of;
/// `None` for a worktree elsewhere.
fn run_folder(ours: &Path, path: &Path) -> Option<String> {
    let rest = path.strip_prefix(ours).ok()?;
    match rest.components().next()? {
        std::path::Component::Normal(run8) => run8.to_str().map(str::to_string),
        _ => None,
    }
}

/// Removes what is left under `ours` that git no longer knows (a crash
/// between mkdir and `worktree add`), except live runs' folders and the
/// worktrees that stay; links are removed, never followed.
fn remove_leftovers(
    ours: &Path,
    stay: &[PathBuf],
    runs: &mut LiveRuns<'_>,
    report: &mut CleanReport,
) {
    let Ok(entries) = std::fs::read_dir(ours) else {
        return;
    };
    for entry in entries.flatten() {
        let run_dir = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if runs.live(&name) {
            continue;
        }
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && let Ok(tasks) = std::fs::read_dir(&run_dir) {
            for task in tasks.flatten() {
                let path = task.path();
                if stay.contains(&path) {
                    continue;
                }
                if let Err(e) = remove_any(&path) {
                    report
                        .problems
                        .push(format!("{} could not be removed: {e}", path.display()));
                }
            }
            // Stays while a kept worktree is in it.
            let _ = std::fs::remove_dir(&run_dir);
        } else if !is_dir && let Err(e) = remove_any(&run_dir) {
            report
                .problems
                .push(format!("{} could not be removed: {e}", run_dir.display()));
        }
    }
    let _ = std::fs::remove_dir(ours);
}

/// Removes a file, link or folder; a link is removed, never followed.
fn remove_any(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
    }
}

fn io_err(path: &Path, e: std::io::Error) -> WorkspaceError {
    WorkspaceError::new(
        WorkspaceErrorKind::Io,
        format!(
            "{}: {e}; check that the repository's git directory is writable",
            path.display()
        ),
    )
}

/// The file recording the base of a task branch `playbook/<run8>/<task>`.
fn base_file(repo: &Repo, branch: &str) -> Option<PathBuf> {
    let rest = branch.strip_prefix("playbook/")?;
    let (run8, task) = rest.split_once('/')?;
    if check_id("run id", run8).is_err() || check_id("task id", task).is_err() {
        return None;
    }
    Some(repo.bases_dir().join(run8).join(task))
}

/// The recorded base commit of a task branch, if one was recorded.
fn branch_base(repo: &Repo, branch: &str) -> Option<String> {
    // Never blocking, never through a link: an agent can reach this file.
    let (bytes, _) = crate::regular_file::read_bounded(&base_file(repo, branch)?, 256)
        .ok()
        .flatten()?;
    let text = String::from_utf8(bytes).ok()?;
    let sha = text.trim();
    (!sha.is_empty() && sha.bytes().all(|b| b.is_ascii_hexdigit())).then(|| sha.to_string())
}

/// The worktrees git knows of, canonical paths.
fn listed_worktrees(top: &Path) -> Result<Vec<PathBuf>, WorkspaceError> {
    let list = git::text(top, &["worktree", "list", "--porcelain", "-z"])?;
    Ok(list
        .split('\0')
        .filter_map(|field| field.strip_prefix("worktree "))
        .map(|p| {
            let p = PathBuf::from(p);
            p.canonicalize().unwrap_or(p)
        })
        .collect())
}

/// Whether git knows `path` as a worktree.
fn registered(top: &Path, path: &Path) -> Result<bool, WorkspaceError> {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    Ok(listed_worktrees(top)?.contains(&path))
}

#[cfg(test)]
mod tests {
    use super::check_id;

    #[test]
    fn ids_that_cannot_name_a_branch_or_folder_are_refused() {
        for good in ["T1", "task-2", "a.b_c", "0123abcd"] {
            assert!(check_id("task id", good).is_ok(), "{good}");
        }
        for bad in [
            "", ".", "..", "a/b", "../x", "-x", ".hidden", "a..b", "x.lock", "a b", "a\0b", "ä",
            "a:b", "a~1", "a^", "x.",
        ] {
            assert!(check_id("task id", bad).is_err(), "{bad:?}");
        }
        assert!(check_id("task id", &"a".repeat(101)).is_err());
    }
}
