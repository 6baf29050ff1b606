//! [`WorktreeTools`]: the engine's `Tools` port, made real. `check` adds the
//! refusals only the file system can show (a symbolic link out of the
//! worktree); `run` executes the catalog's tools in the task's worktree.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use playbook_orchestrator::agent::{
    OutsideChange, Release, ToolCall, ToolContext, ToolDenial, Tools,
};
use serde_json::Value;

use super::confine::{Confined, confine};
use super::error::WorkspaceError;
use super::exec;
use super::files::{self, fail};
use super::git_tools::{self, Task};
use super::guard::Guard;
use super::worktree::Worktrees;

/// The run's worktrees, shared by the tools and the process agent (which
/// starts each agent process in its task's worktree).
pub type SharedWorktrees = Arc<Mutex<Worktrees>>;

/// The tools of a real run.
pub struct WorktreeTools {
    worktrees: SharedWorktrees,
    test_commands: Vec<Vec<String>>,
    /// The person's repository outside the run's branches, as the run
    /// found it (none: nothing is watched).
    guard: Option<Guard>,
}

/// Where a call runs.
#[derive(Clone)]
struct Place {
    root: PathBuf,
    branch: String,
    base: String,
    identity: Vec<String>,
}

/// Runs a git tool on a blocking thread: a commit may run the repository's
/// hooks for minutes, and the run's other work (the gateway, heartbeats)
/// must go on meanwhile.
async fn git_blocking<F>(place: &Place, f: F) -> Value
where
    F: FnOnce(&Task<'_>) -> Value + Send + 'static,
{
    let place = place.clone();
    let joined = tokio::task::spawn_blocking(move || {
        f(&Task {
            root: &place.root,
            branch: &place.branch,
            base: &place.base,
            identity: &place.identity,
        })
    })
    .await;
    joined.unwrap_or_else(|e| fail(format!("the git tool could not finish: {e}")))
}

/// The argument names of a tool that are paths, and whether the root
/// folder is a valid value for them.
fn path_args(tool: &str) -> &'static [(&'static str, bool)] {
    match tool {
        "read_file" | "write_file" | "edit_file" | "delete_file" => &[("path", false)],
        "list_files" | "search_code" => &[("path", true)],
        _ => &[],
    }
}

fn text_arg<'a>(args: &'a Value, key: &str) -> Result<Option<&'a str>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("`{key}` must be text")),
    }
}

/// The paths of `git_checkout`, as given.
fn checkout_paths(args: &Value) -> Result<Vec<String>, String> {
    match args.get("paths") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) if items.len() <= 1000 => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| "every item of `paths` must be a path as text".to_string())
            })
            .collect(),
        Some(_) => Err("`paths` must be a list of at most 1000 paths".into()),
    }
}

impl WorktreeTools {
    /// Tools over `worktrees`; `run_tests` runs `test_commands` (argv
    /// lists, from the verify profile or discovery) in order.
    pub fn new(worktrees: SharedWorktrees, test_commands: Vec<Vec<String>>) -> WorktreeTools {
        WorktreeTools {
            worktrees,
            test_commands,
            guard: None,
        }
    }

    /// Watches the person's repository outside the run's branches with
    /// `guard` (a snapshot taken before any agent ran): after each
    /// invocation what changed there is reported, and the git directory's
    /// configuration and hooks are put back.
    pub fn with_guard(mut self, guard: Guard) -> WorktreeTools {
        self.guard = Some(guard);
        self
    }

    /// The shared worktrees.
    pub fn worktrees(&self) -> &SharedWorktrees {
        &self.worktrees
    }

    /// The worktree of a task, made on first use.
    pub fn worktree_for(&self, task_id: &str) -> Result<PathBuf, WorkspaceError> {
        self.lock().worktree_for(task_id)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Worktrees> {
        // A panic elsewhere must not make every later call panic too.
        self.worktrees
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn place(&self, task_id: &str) -> Result<Place, WorkspaceError> {
        let mut w = self.lock();
        let root = w.acquire(task_id)?;
        Ok(Place {
            root,
            branch: w.branch_for(task_id),
            base: w.base_sha().to_string(),
            identity: w.repo().identity_args().to_vec(),
        })
    }

    /// Confines every path argument of `call` inside `root`.
    fn confine_all(root: &std::path::Path, call: &ToolCall) -> Result<Vec<Confined>, ToolDenial> {
        let mut out = Vec::new();
        for (key, allow_root) in path_args(&call.tool) {
            match call.args.get(*key) {
                Some(Value::String(raw)) => out.push(confine(root, raw, *allow_root)?),
                None | Some(Value::Null) if *allow_root => out.push(confine(root, "", true)?),
                // Missing or not text: `run` answers that the argument is
                // wrong; there is nothing to confine.
                _ => {}
            }
        }
        if call.tool == "git_checkout"
            && let Ok(paths) = checkout_paths(&call.args)
        {
            for raw in paths {
                out.push(confine(root, &raw, false)?);
            }
        }
        Ok(out)
    }
}

impl Tools for WorktreeTools {
    fn check(&mut self, ctx: &ToolContext<'_>, call: &ToolCall) -> Result<(), ToolDenial> {
        let needs_paths = !path_args(&call.tool).is_empty() || call.tool == "git_checkout";
        if !needs_paths {
            return Ok(());
        }
        match self.place(ctx.task_id) {
            Ok(place) => Self::confine_all(&place.root, call).map(|_| ()),
            // No worktree to look at: `run` reports why; it confines again
            // before touching anything.
            Err(_) => Ok(()),
        }
    }

    fn uncommitted_paths(&mut self, ctx: &ToolContext<'_>) -> Result<Vec<String>, String> {
        let place = self
            .place(ctx.task_id)
            .map_err(|e| format!("the task's worktree is not available: {e}"))?;
        git_tools::uncommitted_paths(&place.root)
    }

    fn branch_paths(&mut self, task_id: &str) -> Result<Vec<String>, String> {
        let (top, base, branch, worktree) = {
            let w = self.lock();
            // A task no agent worked on has no branch; asking would make one.
            if !w.had_worktree(task_id) {
                return Ok(Vec::new());
            }
            (
                w.repo().root().to_path_buf(),
                w.base_sha().to_string(),
                w.branch_for(task_id),
                w.path_for(task_id),
            )
        };
        git_tools::branch_paths(&top, &base, &branch, Some(&worktree))
    }

    fn release(&mut self, task_id: &str, how: Release) {
        let mut w = self.lock();
        // A worktree that cannot be removed stays on disk; the slot is
        // freed either way, and `playbook run clean` removes it.
        let _ = match how {
            Release::LeftStage => w.leave(task_id),
            Release::Ended { passed } => w.finish(task_id, passed),
        };
    }

    fn outside_changes(&mut self) -> Vec<OutsideChange> {
        let Some(guard) = self.guard.as_mut() else {
            return Vec::new();
        };
        let live = self
            .worktrees
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .live_paths();
        guard.check(&live)
    }

    async fn run(&mut self, ctx: &ToolContext<'_>, call: &ToolCall) -> Value {
        let place = match self.place(ctx.task_id) {
            Ok(p) => p,
            Err(e) => return fail(format!("the task's worktree is not available: {e}")),
        };
        // Confined again at the moment of use: the world may have changed
        // since `check` (a command of the agent planted a link).
        let confined = match Self::confine_all(&place.root, call) {
            Ok(c) => c,
            Err(ToolDenial { message, .. }) => return fail(message),
        };
        let root = place.root.as_path();
        let args = &call.args;
        let first = confined.first();
        let need_path = || {
            fail(format!(
                "`{}` needs `path`: a path relative to the worktree root",
                call.tool
            ))
        };
        match call.tool.as_str() {
            "read_file" => first.map_or_else(need_path, |t| files::read_file(root, t)),
            "list_files" => first.map_or_else(need_path, |t| files::list_files(root, t)),
            "search_code" => match (text_arg(args, "pattern"), first) {
                (Ok(Some(p)), Some(t)) if !p.is_empty() && p.len() <= 1000 => {
                    files::search_code(root, t, p)
                }
                (Ok(_), Some(_)) => {
                    fail("`pattern` must be a regular expression of 1 to 1000 characters")
                }
                (Err(e), _) => fail(e),
                (_, None) => need_path(),
            },
            "write_file" => match (text_arg(args, "content"), first) {
                (Ok(Some(c)), Some(t)) => files::write_file(t, c),
                (Ok(None), _) => fail("`content` must be the whole new text of the file"),
                (Err(e), _) => fail(e),
                (_, None) => need_path(),
            },
            "edit_file" => match (text_arg(args, "old"), text_arg(args, "new"), first) {
                (Ok(Some(old)), Ok(Some(new)), Some(t)) => files::edit_file(t, old, new),
                (Err(e), _, _) | (_, Err(e), _) => fail(e),
                (_, _, None) => need_path(),
                _ => fail("`old` and `new` are both required text"),
            },
            "delete_file" => first.map_or_else(need_path, files::delete_file),
            "run_command" => exec::run_command(root, args).await,
            "run_tests" => exec::run_tests(root, &self.test_commands).await,
            "git_status" | "git_diff" | "git_commit" | "git_checkpoint" | "git_reset" => {
                let tool = call.tool.clone();
                let args = args.clone();
                git_blocking(&place, move |task| match tool.as_str() {
                    "git_status" => git_tools::status(task),
                    "git_diff" => git_tools::diff(task, &args),
                    "git_commit" => git_tools::commit_changes(task, &args),
                    "git_checkpoint" => git_tools::checkpoint(task, &args),
                    _ => git_tools::reset(task, &args),
                })
                .await
            }
            "git_checkout" => match checkout_paths(args) {
                Ok(_) => {
                    let paths: Vec<String> = confined.iter().map(|c| c.rel.clone()).collect();
                    let args = args.clone();
                    git_blocking(&place, move |task| git_tools::checkout(task, &args, &paths)).await
                }
                Err(e) => fail(e),
            },
            "git_push" => git_tools::push(),
            other => fail(format!(
                "`{other}` is not a tool this workspace can run; the tools are those of the catalog (read_file, write_file, run_command, git_commit, …)"
            )),
        }
    }
}
