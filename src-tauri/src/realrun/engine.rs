//! The one place the app calls the runner of real runs
//! (`playbook_runner::runner::run`, shared with `playbook run`): the
//! request built from the app's choices, the runner driven on its own
//! single-threaded runtime (its ports are not `Send`), its result handed
//! back in the app's terms.

use std::path::PathBuf;

use playbook_core::Playbook;
use playbook_orchestrator::agent::Approver;
use playbook_orchestrator::stop::Stop;
use playbook_orchestrator::{EventSink, RunReport};

/// What the app asks of a run.
pub(crate) struct EngineRequest {
    pub playbook: Playbook,
    pub repo: PathBuf,
    /// The full commit the branches start from, read when the run starts.
    pub base_commit: String,
    pub goal: String,
    pub agent: Option<String>,
    pub agents_file: Option<PathBuf>,
    pub stop: Stop,
}

/// A task's branch after the run.
pub(crate) struct EngineBranch {
    pub task_id: String,
    pub branch: String,
    pub worktree: PathBuf,
}

pub(crate) struct EngineResult {
    pub report: RunReport,
    pub run_dir: PathBuf,
    pub branches: Vec<EngineBranch>,
    pub absent: Vec<String>,
}

/// Why a run did not start, by who can fix it.
// Until the runner's `run` is on main only `Io` is made here.
#[allow(dead_code)]
pub(crate) enum EngineError {
    /// The repository or its context bundle is not usable (not git, dirty,
    /// missing base, unreadable policy files).
    Repository(String),
    /// No agent can start (unknown name, program not found).
    Agent(String),
    /// The machine failed (a directory, the runtime).
    Io(String),
}

/// Runs the playbook on the repository; blocks until the run ends.
pub(crate) fn run(
    request: EngineRequest,
    approver: &mut impl Approver,
    sink: &mut impl EventSink,
) -> Result<EngineResult, EngineError> {
    let EngineRequest {
        playbook,
        repo,
        base_commit,
        goal,
        agent,
        agents_file,
        stop,
    } = request;
    let _ = (
        playbook,
        repo,
        base_commit,
        goal,
        agent,
        agents_file,
        stop,
        approver,
        sink,
    );
    Err(EngineError::Io(
        "this build of the app has no runner for real runs yet; use `playbook run` from the command line".to_string(),
    ))
}
