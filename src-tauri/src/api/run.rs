//! Request and response types of a real run in the app (Run mode). Paths
//! the person chose in a native dialog stay on the Rust side; the UI refers
//! to them by the id it was given, so the web view can never name a folder
//! or a file of its own.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A repository folder the person chose (`run_choose_repository`).
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct RepoChoice {
    /// What `run_start` takes instead of a path.
    #[ts(type = "number")]
    pub id: u64,
    /// The top of the repository's working tree (shown, never sent back).
    pub path: String,
    /// The short commit of `HEAD`, where a run's branches start.
    pub commit: String,
    /// The checked-out branch; absent on a detached `HEAD`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub branch: Option<String>,
    /// Uncommitted changes: a run refuses such a repository, so the UI says
    /// so before the person presses Run.
    pub dirty: bool,
}

/// An agents file the person chose (`run_choose_agents_file`).
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct AgentsFileChoice {
    #[ts(type = "number")]
    pub id: u64,
    pub path: String,
    /// The agent names it defines, offered beside the built-in ones.
    pub agents: Vec<String>,
}

/// What to run: the repository and agents file by the ids their dialogs
/// gave, the goal and the agent; to record the run, the library playbook
/// and the version the edits started from (as a preview's request).
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(export)]
pub struct RealRunRequest {
    #[ts(type = "number")]
    pub repository: u64,
    pub goal: String,
    /// The agent for every role; empty: each role's first `allowed_agents`.
    #[serde(default)]
    pub agent: String,
    #[serde(default)]
    #[ts(optional, type = "number")]
    pub agents_file: Option<u64>,
    #[serde(default)]
    #[ts(optional)]
    pub playbook: Option<String>,
    #[serde(default)]
    #[ts(optional)]
    pub base: Option<u32>,
}

/// A task of a finished run and the branch its work is on.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct TaskBranchView {
    pub task_id: String,
    pub title: String,
    pub state: playbook_orchestrator::event::TaskState,
    /// Why the task did not pass, in the engine's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reason: Option<String>,
    /// The branch the task's worktree is on; absent when the task never got one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub branch: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub worktree: Option<String>,
    /// Commits on the branch since the run's base commit.
    #[ts(type = "number")]
    pub commits: u64,
}

/// The end of a real run; its events were streamed as `run-event`.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct RealRunResult {
    /// Names this finished run for `run_diff`.
    #[ts(type = "number")]
    pub id: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub outcome: Option<playbook_orchestrator::Outcome>,
    #[ts(type = "number")]
    pub events: u64,
    pub repository: String,
    /// The full commit every task's branch started from.
    pub base_commit: String,
    pub tasks: Vec<TaskBranchView>,
    /// The per-run log directory (events, audit, worklogs, ledger).
    pub run_dir: String,
    /// Context files (`AGENTS.md`, `policy/*.json` ...) the repository lacks.
    pub absent: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub run: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub record_error: Option<String>,
}

/// A task branch's changes against the run's base commit.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct BranchDiff {
    pub branch: String,
    /// `git log --oneline base..branch`, newest first.
    pub commits: Vec<String>,
    /// `git diff base..branch`, cut at the size limit.
    pub diff: String,
    /// True when the diff was longer than the limit and is cut.
    pub truncated: bool,
}
