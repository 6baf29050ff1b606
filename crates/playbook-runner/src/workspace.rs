//! The workspace of a real run: the person's repository, one git worktree
//! per task, and the tools an agent may call, confined to its worktree.
//!
//! - [`Repo`] opens the repository without changing it: it refuses a folder
//!   that is not git, a repository with no commit, a dirty working tree and
//!   a base that is not a commit, and records the base commit.
//! - [`Worktrees`] gives each task its own `git worktree` on its own branch
//!   `playbook/<run id, first 8>/<task id>` from the base commit, inside the
//!   repository's git directory (`<common dir>/playbook/worktrees/…`) so the
//!   person's checkout never shows it; a passed task's branch is kept for the
//!   person to merge (never merged, never pushed), a failed task's worktree
//!   stays for inspection, and [`Worktrees::clean`] removes them (not a
//!   run's still going on, which holds a lock; not one with uncommitted
//!   changes, unless forced).
//! - [`WorktreeTools`] is the engine's `Tools` port: `check` refuses a path
//!   that leaves the worktree through a symbolic link (the engine has
//!   already refused what the path's text shows); `run` executes the
//!   catalog's tools there, each bounded in size and time; `branch_paths`
//!   lists what a task's branch changes, for the engine to hold to its
//!   scopes; `release` frees a task's place when it leaves its stage.
//! - [`Guard`] looks, after each invocation, at what an unsandboxed program
//!   left outside the task's branch and worktree: processes still running
//!   are killed, the git configuration and hooks (the worktrees' own
//!   included) are put back, moved refs are reported.
//!
//! `git` runs as a real process (the CLI people's repositories are made
//! with), with a deadline, never prompting, never taking optional locks,
//! never starting a hook or file system monitor a configuration names.
//!
//! **Invariant:** nothing here changes the person's working tree, index,
//! HEAD or existing branches (the guard only puts back what a program
//! changed in the git directory), and no tool reads or writes outside the
//! task's worktree. Commands an agent runs (`run_command`) are confined by time and
//! output, not by the file system: they run as the user, like the agent
//! process itself.

mod command;
mod confine;
mod error;
mod exec;
mod files;
mod git;
mod git_tools;
mod guard;
pub(crate) mod live;
mod repo;
mod tools;
mod worktree;

pub use command::{Captured, Finished};
pub use confine::{Confined, confine};
pub use error::{WorkspaceError, WorkspaceErrorKind};
pub use guard::Guard;
pub use repo::Repo;
pub use tools::{SharedWorktrees, WorktreeTools};
pub use worktree::{CleanReport, Uncommitted, Worktrees};

/// Runs `argv` in `cwd` with a deadline, clipped output, and its whole
/// process group killed at the end: for callers of the runner (verification)
/// that need the same bounds as `run_command`.
pub fn run_bounded(
    argv: &[std::ffi::OsString],
    cwd: &std::path::Path,
    timeout: std::time::Duration,
    limit: usize,
) -> Result<Finished, String> {
    command::run(&command::Spec {
        argv,
        cwd,
        env: &[],
        timeout,
        limit,
        cancel: None,
    })
    .map_err(|e| e.0)
}
