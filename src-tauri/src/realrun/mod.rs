//! Real runs in the app (Run mode): a playbook driving agent processes on a
//! repository the person chose, through the same runner as `playbook run`.
//!
//! Least privilege at the IPC boundary: the folders and files chosen in a
//! native dialog are kept here, in [`Runs`], and the web view gets only an
//! id for each; a finished run's branches are kept the same way, so
//! `run_diff` shows only a branch a run of this window made, against that
//! run's base commit. The web view can never name a path or a git revision.
//!
//! One real run at a time: a second start while one goes on is refused
//! (`busy`). Stop asks the run's [`Stop`] flag; the runner ends the agent
//! process at once and the run is recorded as stopped.

mod agents;
mod engine;
pub mod git;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use playbook_orchestrator::EventRecord;
use playbook_orchestrator::agent::Approver;
use playbook_orchestrator::event::TaskState;
use playbook_orchestrator::stop::Stop;
use serde_json::Value;

pub use agents::{BUILT_IN, names_in as agent_names_in};

use crate::api::{
    AgentsFileChoice, BranchDiff, RealRunRequest, RealRunResult, RepoChoice, TaskBranchView,
};
use crate::error::{AppError, ErrorCode, Result};
use crate::library::Library;
use crate::recording::{Live, Recorder};
use crate::workbench;
use engine::{EngineError, EngineRequest};

/// Finished runs whose branches the window can still ask about.
const KEPT_RUNS: usize = 16;
/// The longest goal a run takes (it goes into every prompt).
const GOAL_LIMIT: usize = 10_000;

/// What the window chose and ran, kept on the Rust side.
#[derive(Default)]
pub struct Runs(Mutex<State>);

#[derive(Default)]
struct State {
    next: u64,
    repositories: HashMap<u64, PathBuf>,
    agents_files: HashMap<u64, PathBuf>,
    /// The stop flag of the run going on.
    active: Option<Stop>,
    finished: BTreeMap<u64, Finished>,
}

/// A finished run's repository, base commit and task branches.
struct Finished {
    repo: PathBuf,
    base: String,
    branches: HashMap<String, String>,
}

impl State {
    fn id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }
}

/// Clears the active run when the run ends, however it ends.
struct ActiveRun<'r>(&'r Runs);

impl Drop for ActiveRun<'_> {
    fn drop(&mut self) {
        self.0.state().active = None;
    }
}

impl Runs {
    fn state(&self) -> MutexGuard<'_, State> {
        // The state is plain maps; a panic elsewhere leaves them usable.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps a folder chosen in the dialog; refused when it is not in a git
    /// checkout with a commit.
    pub fn add_repository(&self, dir: &Path) -> Result<RepoChoice> {
        let checkout = git::checkout(dir).map_err(|m| AppError::new(ErrorCode::Repository, m))?;
        let mut state = self.state();
        let id = state.id();
        state.repositories.insert(id, checkout.root.clone());
        Ok(RepoChoice {
            id,
            path: checkout.root.display().to_string(),
            commit: short(&checkout.commit),
            branch: checkout.branch,
            dirty: checkout.dirty,
        })
    }

    /// Where the folder dialog opens: beside the repository chosen last,
    /// else the home folder.
    pub fn dialog_start(&self) -> Option<PathBuf> {
        let state = self.state();
        let last = state
            .repositories
            .iter()
            .max_by_key(|(id, _)| **id)
            .and_then(|(_, root)| root.parent().map(Path::to_path_buf));
        last.or_else(|| std::env::var_os("HOME").map(PathBuf::from))
            .filter(|dir| dir.is_dir())
    }

    /// Keeps an agents file chosen in the dialog, with the names it defines.
    pub fn add_agents_file(&self, path: &Path) -> Result<AgentsFileChoice> {
        let names = agents::names(path).map_err(|m| AppError::new(ErrorCode::InvalidInput, m))?;
        let mut state = self.state();
        let id = state.id();
        state.agents_files.insert(id, path.to_path_buf());
        Ok(AgentsFileChoice {
            id,
            path: path.display().to_string(),
            agents: names,
        })
    }

    /// Asks the run going on to stop; false when none goes on.
    pub fn stop(&self) -> bool {
        match &self.state().active {
            Some(stop) => {
                stop.request();
                true
            }
            None => false,
        }
    }

    /// The commits and diff of a task's branch of finished run `run`.
    pub fn diff(&self, run: u64, task_id: &str) -> Result<BranchDiff> {
        let (repo, base, branch) = {
            let state = self.state();
            let finished = state.finished.get(&run).ok_or_else(|| {
                AppError::new(
                    ErrorCode::NotFound,
                    format!("run {run} is not one this window finished; run again"),
                )
            })?;
            let branch = finished.branches.get(task_id).ok_or_else(|| {
                AppError::new(
                    ErrorCode::NotFound,
                    format!("task {task_id:?} of run {run} has no branch"),
                )
            })?;
            (finished.repo.clone(), finished.base.clone(), branch.clone())
        };
        let failed = |m: String| AppError::new(ErrorCode::Repository, m);
        let commits = git::commits(&repo, &base, &branch).map_err(failed)?;
        let diff = git::diff(&repo, &base, &branch).map_err(failed)?;
        Ok(BranchDiff {
            branch,
            commits,
            diff: diff.text,
            truncated: diff.truncated,
        })
    }

    /// Marks a run as going on; refused while another does.
    fn begin(&self, request: &RealRunRequest) -> Result<(PathBuf, Option<PathBuf>, Stop)> {
        let mut state = self.state();
        if state.active.is_some() {
            return Err(AppError::new(
                ErrorCode::Busy,
                "a run is going on; stop it or wait for it to end before starting another",
            ));
        }
        let repo = state
            .repositories
            .get(&request.repository)
            .cloned()
            .ok_or_else(|| {
                AppError::new(
                    ErrorCode::InvalidInput,
                    "choose the repository again: this window does not know that one",
                )
            })?;
        let agents_file = match request.agents_file {
            Some(id) => Some(state.agents_files.get(&id).cloned().ok_or_else(|| {
                AppError::new(
                    ErrorCode::InvalidInput,
                    "choose the agents file again: this window does not know that one",
                )
            })?),
            None => None,
        };
        let stop = Stop::new();
        state.active = Some(stop.clone());
        Ok((repo, agents_file, stop))
    }

    fn keep(&self, finished: Finished) -> u64 {
        let mut state = self.state();
        let id = state.id();
        state.finished.insert(id, finished);
        while state.finished.len() > KEPT_RUNS {
            state.finished.pop_first();
        }
        id
    }
}

fn short(commit: &str) -> String {
    commit.chars().take(12).collect()
}

/// The goal and agent name, checked before anything starts.
fn check_request(request: &RealRunRequest) -> Result<(String, Option<String>)> {
    let goal = request.goal.trim();
    if goal.is_empty() {
        return Err(AppError::new(
            ErrorCode::InvalidInput,
            "write the run's goal: what the agents are to achieve",
        ));
    }
    if goal.chars().count() > GOAL_LIMIT {
        return Err(AppError::new(
            ErrorCode::InvalidInput,
            format!("the goal is longer than {GOAL_LIMIT} characters; shorten it"),
        ));
    }
    let agent = request.agent.trim();
    let valid = agent.len() <= 64
        && agent
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !valid {
        return Err(AppError::new(
            ErrorCode::InvalidInput,
            format!(
                "{agent:?} is not an agent name: use letters, digits, `-`, `_` or `.` (at most 64), e.g. claude-code"
            ),
        ));
    }
    Ok((
        goal.to_string(),
        (!agent.is_empty()).then(|| agent.to_string()),
    ))
}

/// Runs `document` on the chosen repository: refused when the playbook has
/// errors (`blocked`), the repository or agent is not usable
/// (`repository`, `agent`), or a run goes on (`busy`). Events go to
/// `on_event` as they happen and, for a library playbook, into the
/// library, labelled `run: <folder> @ <commit>`.
pub fn run(
    runs: &Runs,
    document: Value,
    request: &RealRunRequest,
    library: Option<&Library>,
    mut approver: impl Approver,
    on_event: impl FnMut(&EventRecord),
) -> Result<RealRunResult> {
    let (goal, agent) = check_request(request)?;
    let playbook = workbench::runnable(&document, "running it")?;
    let (repo, agents_file, stop) = runs.begin(request)?;
    let _active = ActiveRun(runs);
    // The base is read now, so the diffs shown later compare against the
    // commit the run really started from, whatever HEAD does meanwhile.
    let checkout = git::checkout(&repo).map_err(|m| AppError::new(ErrorCode::Repository, m))?;
    let base_commit = git::git(
        &checkout.root,
        &["rev-parse", "--verify", "HEAD^{commit}"],
        256,
    )
    .map(|o| o.text.trim().to_string())
    .map_err(|m| AppError::new(ErrorCode::Repository, m))?;
    let folder = checkout
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| checkout.root.display().to_string());
    let label = format!("run: {folder} @ {}", short(&base_commit));

    let mut record_error = None;
    let recorder = match (library, &request.playbook) {
        (Some(library), Some(id)) => {
            match library.start_run(id, request.base, &playbook, &label, 0) {
                Ok(run) => Some(Recorder::new(library, run)),
                Err(e) => {
                    record_error = Some(e);
                    None
                }
            }
        }
        _ => None,
    };
    let recorded = recorder.as_ref().map(|r| r.run);
    let mut sink = Live::new(on_event, recorder);
    let result = engine::run(
        EngineRequest {
            playbook,
            repo: checkout.root.clone(),
            base_commit: base_commit.clone(),
            goal,
            agent: agent.clone(),
            agents_file,
            stop,
        },
        &mut approver,
        &mut sink,
    );
    let finished = match result {
        Ok(finished) => finished,
        Err(e) => {
            if let Some(recorder) = sink.recorder.take() {
                let why = match &e {
                    EngineError::Repository(m) | EngineError::Agent(m) | EngineError::Io(m) => m,
                };
                let _ = recorder.finish(
                    None,
                    &serde_json::json!({ "refused": why, "repository": checkout.root }),
                );
            }
            return Err(match e {
                EngineError::Repository(m) => AppError::new(ErrorCode::Repository, m),
                EngineError::Agent(m) => AppError::new(ErrorCode::Agent, m),
                EngineError::Io(m) => AppError::new(ErrorCode::Io, m),
            });
        }
    };

    let branches: HashMap<String, (String, PathBuf)> = finished
        .branches
        .into_iter()
        .map(|b| (b.task_id, (b.branch, b.worktree)))
        .collect();
    let tasks: Vec<TaskBranchView> = finished
        .report
        .tasks
        .iter()
        .map(|t| {
            let branch = branches.get(&t.task_id);
            TaskBranchView {
                task_id: t.task_id.clone(),
                title: t.title.clone(),
                state: t.state,
                reason: t.reason.clone().filter(|_| t.state != TaskState::Done),
                branch: branch.map(|(b, _)| b.clone()),
                worktree: branch.map(|(_, w)| w.display().to_string()),
                commits: branch
                    .and_then(|(b, _)| git::commits(&checkout.root, &base_commit, b).ok())
                    .map_or(0, |c| c.len() as u64),
            }
        })
        .collect();
    let report = &finished.report;
    if let Some(recorder) = sink.recorder.take() {
        let summary = serde_json::json!({
            "outcome": report.outcome,
            "events": report.events,
            "repository": checkout.root,
            "base_commit": base_commit,
            "agent": agent,
            "run_dir": finished.run_dir,
            "tasks": tasks,
            "absent": finished.absent,
        });
        record_error = recorder.finish(report.outcome, &summary);
    }
    let id = runs.keep(Finished {
        repo: checkout.root.clone(),
        base: base_commit.clone(),
        branches: branches
            .into_iter()
            .map(|(task, (branch, _))| (task, branch))
            .collect(),
    });
    Ok(RealRunResult {
        id,
        outcome: report.outcome,
        events: report.events,
        repository: checkout.root.display().to_string(),
        base_commit,
        tasks,
        run_dir: finished.run_dir.display().to_string(),
        absent: finished.absent,
        run: recorded.filter(|_| record_error.is_none()).map(|r| r.0),
        record_error: record_error.map(|e| e.message),
    })
}
