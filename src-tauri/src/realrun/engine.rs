//! The one place the app calls the runner of real runs
//! (`playbook_runner::runner::run`, shared with `playbook run`): the
//! request built from the app's choices, the runner driven on its own
//! single-threaded runtime (its ports are not `Send`), its result handed
//! back in the app's terms.

use std::path::PathBuf;

use playbook_core::Playbook;
use playbook_orchestrator::agent::Approver;
use playbook_orchestrator::scenario::RunInput;
use playbook_orchestrator::stop::Stop;
use playbook_orchestrator::{EventSink, RunReport};
use playbook_runner::runner::{Budget, RunError, RunRequest};

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
    let gateway = gateway_command()?;
    // The runner's ports hold `Rc`s: one thread, its own runtime, with the
    // IO and time drivers its processes and sockets need.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| EngineError::Io(format!("cannot start the run's runtime: {e}")))?;
    let runner_request = RunRequest {
        playbook: request.playbook,
        repo: request.repo,
        base_ref: Some(request.base_commit),
        input: RunInput {
            goal: request.goal,
            ..RunInput::default()
        },
        agents_file: request.agents_file,
        agent: request.agent,
        assigner: None,
        project: None,
        gateway_command: gateway,
        budget: Budget::default(),
        stop: request.stop,
    };
    let result = runtime
        .block_on(playbook_runner::runner::run(runner_request, approver, sink))
        .map_err(|e| match e {
            RunError::Repo(m) | RunError::Context(m) => EngineError::Repository(m),
            RunError::Agent(m) => EngineError::Agent(m),
            RunError::Io(m) => EngineError::Io(m),
        })?;
    Ok(EngineResult {
        report: result.report,
        run_dir: result.run_dir,
        branches: result
            .branches
            .into_iter()
            .map(|b| EngineBranch {
                task_id: b.task_id,
                branch: b.branch,
                worktree: b.worktree,
            })
            .collect(),
        absent: result.absent,
    })
}

/// `[this program, "gateway"]`: the app serves the run's MCP relay itself
/// (see `main.rs`).
fn gateway_command() -> Result<Vec<String>, EngineError> {
    let exe = std::env::current_exe().map_err(|e| {
        EngineError::Io(format!(
            "cannot find the app's own program, which serves the tool gateway: {e}"
        ))
    })?;
    let exe = exe.to_str().ok_or_else(|| {
        EngineError::Io(format!(
            "the app's program path {} is not UTF-8; move the app to a folder whose path is",
            exe.display()
        ))
    })?;
    Ok(vec![exe.to_string(), "gateway".to_string()])
}
