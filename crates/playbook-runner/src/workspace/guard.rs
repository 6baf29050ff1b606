//! The person's repository outside the run's own branches and worktrees,
//! looked at after every agent invocation.
//!
//! An agent process and the programs `run_command` starts run as the user,
//! not sandboxed, in a worktree whose `.git` points at the repository's
//! shared git directory. From there they can change what every later git
//! command of the person does: the configuration (`core.hooksPath`,
//! `core.fsmonitor`, aliases, filter and diff drivers name programs git
//! runs), the hooks, `info/` (attributes, excludes), the object store's
//! alternates, each linked worktree's own git files (`config.worktree`,
//! `commondir`, `gitdir`, the worktree's `.git` file: see [`admin`]); and
//! they can move refs of other branches. [`Guard`] snapshots all of it when
//! the run starts and compares after each invocation:
//!
//! - the configuration, hooks, `info/`, alternates and worktrees' git files
//!   are put back as they were, and the step that changed them counts as a
//!   scope violation: they decide which programs run on the person's next
//!   git command (and on the runner's own, which also never lets a
//!   configuration start a program: `git::NO_PROGRAMS`), and nothing a task
//!   does needs to change them;
//! - refs outside the run's branches and the checkout's `HEAD` are reported,
//!   never moved back: the person may commit, fetch or switch branches in
//!   their checkout while a run goes on, and the run cannot tell their move
//!   from an agent's (a deleted ref's commit is named, so it can be brought
//!   back). The branches and worktrees of another run going on at the same
//!   time (`live`) are that run's: its tasks move them, its guard watches
//!   them;
//! - first of all, processes of the run that outlived their invocation are
//!   killed and named: an agent's process group is killed when its
//!   invocation ends, but a program that started a new session (`setsid`,
//!   a daemon) left the group. Such a process is found by a mark it still
//!   carries when the invocation ends: the run's id in its environment
//!   (every agent process has `PLAYBOOK_RUN_ID`, and its children inherit
//!   it) or a working folder inside the worktree of a task at work (where
//!   `run_command` and verification start programs), and it started after
//!   the run did. One that dropped both marks (removed `PLAYBOOK_RUN_ID`,
//!   whatever else it kept, and left the worktree) is not found. The
//!   worktree of a task that ended is left alone: the person may open a
//!   shell in a kept worktree while the run goes on.

mod admin;
mod entries;
mod refs;
mod strays;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use playbook_orchestrator::agent::OutsideChange;

use super::error::WorkspaceError;
use super::git;
use super::live;
use super::repo::Repo;
pub(crate) use admin::OwnWorktrees;
use admin::{Admin, admin_ids, admins_dir, run_of_admin, scan_admin};
use entries::{Entry, describe_files, look, restore, scan, worktree_bookkeeping};
use refs::{describe_refs, list_refs, read_head, run_of, shown};
use strays::Strays;

/// The files of the git directory that decide what git runs and reads for
/// the person, relative to the common git directory. Folders are watched
/// with everything in them. `commondir` is not there in a main git
/// directory; one that appears sends all of git to another repository.
const WATCHED_FILES: &[&str] = &[
    "config",
    "config.worktree",
    "commondir",
    "objects/info/alternates",
];
const WATCHED_DIRS: &[&str] = &["hooks", "info"];
/// The one file under them git writes on its own: `git repack` (after an
/// automatic gc a commit can start) runs `update-server-info`. It is for
/// dumb HTTP transports and names no program.
const GIT_WRITES: &str = "info/refs";
/// Changes named in one report; the rest are counted.
const MAX_SAID: usize = 12;

/// The person's repository as the run found it, and what changed since.
#[derive(Debug)]
pub struct Guard {
    strays: Strays,
    root: PathBuf,
    common: PathBuf,
    /// The checkout's own git directory (its `HEAD`).
    git_dir: PathBuf,
    /// The run's id, first 8: its branches and worktrees are named by it.
    run8: String,
    files: BTreeMap<PathBuf, Entry>,
    /// The folders of linked worktrees that are not the run's own, by id.
    admins: BTreeMap<String, Admin>,
    /// The run's own worktrees, as made.
    own: OwnWorktrees,
    /// Runs that had ended when this one started: their branches are the
    /// person's to keep, and reported like any other.
    ended_before: BTreeSet<String>,
    /// Other runs seen going on during this one.
    others: BTreeSet<String>,
    refs: BTreeMap<String, String>,
    head: Vec<u8>,
}

impl Guard {
    /// Snapshots `repo` for the run `run_id`.
    pub fn snapshot(repo: &Repo, run_id: &str) -> Result<Guard, WorkspaceError> {
        let run8: String = run_id.chars().take(8).collect();
        let root = repo.root().to_path_buf();
        let git_dir = PathBuf::from(git::text(&root, &["rev-parse", "--absolute-git-dir"])?);
        let common = repo.common_dir().to_path_buf();
        let ended_before = live::listed(&common)
            .into_iter()
            .filter(|r| *r != run8 && !live::is_live(&common, r))
            .collect();
        let mut guard = Guard {
            strays: Strays::new(run_id),
            refs: list_refs(&root)?,
            files: scan(&common, WATCHED_FILES, WATCHED_DIRS, &[GIT_WRITES]),
            admins: BTreeMap::new(),
            own: repo.own_worktrees().clone(),
            ended_before,
            others: BTreeSet::new(),
            head: read_head(&git_dir),
            root,
            common,
            git_dir,
            run8,
        };
        for id in admin_ids(&guard.common) {
            let admin = admins_dir(&guard.common).join(&id);
            if !guard.other_runs(run_of_admin(&guard.common, &admin).as_deref()) {
                guard.admins.insert(id, scan_admin(&admin));
            }
        }
        Ok(guard)
    }

    /// Whether `run8` names another run going on during this one (or that
    /// went on since it started): its worktrees and branches are not this
    /// run's to judge. Sticky: a run seen once stays another's.
    fn other_runs(&mut self, run8: Option<&str>) -> bool {
        let Some(run8) = run8 else {
            return false;
        };
        if run8 == self.run8 || self.ended_before.contains(run8) {
            return false;
        }
        if self.others.contains(run8) {
            return true;
        }
        // A run keeps its lock file after it ends (until a clean), so one
        // that started and ended between two checks is still known.
        let other = live::is_live(&self.common, run8)
            || live::listed(&self.common).iter().any(|r| r == run8);
        if other {
            self.others.insert(run8.to_string());
        }
        other
    }

    /// What changed since the snapshot (or the last check). Processes of
    /// the run still running (carrying its id, or working in one of the
    /// `live` worktrees: those of the tasks at work) are killed; the git
    /// directory's watched files and the worktrees' git files are put back
    /// as they were (a violation); moved refs and `HEAD` are reported once
    /// each and not moved back.
    pub fn check(&mut self, live: &[PathBuf]) -> Vec<OutsideChange> {
        let mut changes = Vec::new();
        // Killed first, so nothing changes the repository while it is
        // compared and put back.
        let (killed, count) = self.strays.kill(live);
        if count > 0 {
            let more = match count.saturating_sub(killed.len()) {
                0 => String::new(),
                n => format!(" (and {n} more)"),
            };
            changes.push(OutsideChange {
                message: format!(
                    "{count} process(es) the agent started outlived its invocation (they left its process group, as `setsid` or a daemon does) and were killed: {}{more}. Nothing an agent starts may outlive its invocation; a program that must keep running belongs outside the run",
                    killed.join("; ")
                ),
                violation: false,
            });
        }
        let now = scan(&self.common, WATCHED_FILES, WATCHED_DIRS, &[GIT_WRITES]);
        self.accept_worktree_bookkeeping(&now);
        let mut said = describe_files(Path::new(""), &self.files, &now);
        let mut problems = Vec::new();
        if !said.is_empty() {
            problems = restore(&self.common, &self.files, &now);
        }
        let (more_said, more_problems) = self.check_worktrees();
        said.extend(more_said);
        problems.extend(more_problems);
        if said.len() > MAX_SAID {
            let more = said.len() - MAX_SAID;
            said.truncate(MAX_SAID);
            said.push(format!("and {more} more"));
        }
        if !said.is_empty() {
            let after = if problems.is_empty() {
                "put back as it was when the run started (a change you made yourself during the run must be made again)".to_string()
            } else {
                format!(
                    "put back as far as possible; not put back: {} — check them before using git in this repository",
                    problems.join("; ")
                )
            };
            changes.push(OutsideChange {
                message: format!(
                    "the repository's git directory ({}) was changed outside the task's worktree, by the agent's process or a program it ran: {}; {after}. Agents may not change git's configuration, hooks or info/ of the person's repository, nor a worktree's own git files",
                    self.common.display(),
                    said.join("; ")
                ),
                violation: true,
            });
        }
        let mut moved = Vec::new();
        match list_refs(&self.root) {
            Ok(refs) => {
                let runs: BTreeSet<String> = self
                    .refs
                    .keys()
                    .chain(refs.keys())
                    .filter_map(|name| run_of(name))
                    .map(str::to_string)
                    .collect();
                for run8 in &runs {
                    self.other_runs(Some(run8));
                }
                let own = format!("{}{}/", refs::RUN_BRANCHES, self.run8);
                let others = &self.others;
                moved = describe_refs(&self.refs, &refs, |name| {
                    name.starts_with(&own) || run_of(name).is_some_and(|r| others.contains(r))
                });
                self.refs = refs;
            }
            Err(e) => moved.push(format!("the refs could not be listed ({e})")),
        }
        let head = read_head(&self.git_dir);
        if head != self.head {
            moved.push(format!(
                "the checkout's HEAD changed from `{}` to `{}`",
                shown(&self.head),
                shown(&head)
            ));
            self.head = head;
        }
        if !moved.is_empty() {
            changes.push(OutsideChange {
                message: format!(
                    "the person's repository changed outside the run's branches while the agent ran: {}. The run never moves these; it left them as they are, since you may have moved them yourself — check them (`git reflog`) before you go on",
                    moved.join("; ")
                ),
                violation: false,
            });
        }
        changes
    }

    /// Compares the linked worktrees' git files with what they were and
    /// puts them back: the run's own as made, another as first seen (one
    /// made during the run by the person is taken as it is; one of another
    /// run going on is left to that run). Returns what changed and what
    /// could not be put back.
    fn check_worktrees(&mut self) -> (Vec<String>, Vec<String>) {
        let mut said = Vec::new();
        let mut problems = Vec::new();
        let folder = admins_dir(&self.common);
        if std::fs::symlink_metadata(&folder).is_ok_and(|m| !m.is_dir()) {
            // Whatever it leads to is not the repository's: never written
            // through.
            said.push("`worktrees` was replaced by a link or a file".to_string());
            problems.push(format!("`{}`", folder.display()));
            return (said, problems);
        }
        let ids = admin_ids(&self.common);
        let mut own = self.own.present();
        // A worktree of the run whose folder here is gone, or that is no
        // longer a folder itself, cannot be put back from what was recorded
        // (git's state of it, HEAD and index, is not kept): said once, then
        // forgotten, so a later step is not blamed for it again.
        own.retain(|(worktree, made)| {
            let whole = ids.contains(&made.id)
                && std::fs::symlink_metadata(worktree).is_ok_and(|m| m.is_dir());
            if !whole {
                said.push(format!(
                    "the git files of the run's worktree {} (`worktrees/{}`) were removed or replaced by a link",
                    worktree.display(),
                    made.id
                ));
                problems.push(format!("`{}`", worktree.display()));
                self.own.forget(worktree);
            }
            whole
        });
        let own_ids: BTreeMap<&str, &admin::Made> =
            own.iter().map(|(_, m)| (m.id.as_str(), m)).collect();
        for id in &ids {
            let path = folder.join(id);
            let now = scan_admin(&path);
            let before = match own_ids.get(id.as_str()) {
                Some(made) => &made.admin,
                None => {
                    if self.other_runs(run_of_admin(&self.common, &path).as_deref()) {
                        self.admins.remove(id);
                        continue;
                    }
                    match self.admins.get(id) {
                        Some(before) => before,
                        None => {
                            self.admins.insert(id.clone(), now);
                            continue;
                        }
                    }
                }
            };
            let shown = Path::new("worktrees").join(id);
            let changed = describe_files(&shown, before, &now);
            if !changed.is_empty() {
                said.extend(changed);
                problems.extend(restore(&path, before, &now));
            }
        }
        // A worktree removed (by the person, by git, by the run) is gone
        // with its files: nothing to put back.
        self.admins.retain(|id, _| ids.contains(id));
        for (worktree, made) in &own {
            let dot_git = Path::new(".git");
            let before: Admin = made
                .dot_git
                .iter()
                .map(|e| (dot_git.to_path_buf(), e.clone()))
                .collect();
            let now: Admin = look(&worktree.join(dot_git))
                .map(|e| (dot_git.to_path_buf(), e))
                .into_iter()
                .collect();
            let changed = describe_files(worktree, &before, &now);
            if !changed.is_empty() {
                said.extend(changed);
                problems.extend(restore(worktree, &before, &now));
            }
        }
        (said, problems)
    }

    /// Takes into the snapshot the one change the run's own git makes to the
    /// configuration: `git worktree add` with `worktree.useRelativePaths`
    /// (git 2.48 and later) records `extensions.relativeWorktrees` and
    /// raises the repository format version. Neither names a program.
    fn accept_worktree_bookkeeping(&mut self, now: &BTreeMap<PathBuf, Entry>) {
        let config = Path::new("config");
        let (
            Some(Entry::File {
                bytes: Some(before),
                ..
            }),
            Some(
                after @ Entry::File {
                    bytes: Some(after_bytes),
                    ..
                },
            ),
        ) = (self.files.get(config), now.get(config))
        else {
            return;
        };
        if worktree_bookkeeping(before, after_bytes) {
            self.files.insert(config.to_path_buf(), after.clone());
        }
    }
}
