//! One real run: the repository checked, the context bundle read, the
//! preflight passed, then the engine driven with process agents, the MCP
//! gateway, worktree tools and a real clock. The CLI (`playbook run`) and
//! the app call [`run`]; both get the same events and the same records.
//!
//! **Records.** Every run writes a per-run log under the repository's git
//! directory, `<git common dir>/playbook/runs/<run id>/` (spec 004 §7):
//! `events.jsonl` as the events happen, then `report.json` (outcome, tasks,
//! bounds), `audit.json` (inputs, context hashes, every agent invocation
//! with every tool call, allowed or blocked), `worklogs.json`,
//! `ledger.json` and `verifications.json`. Everything passes the engine's
//! redaction first, and the files are written even when the run is stopped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use playbook_core::model::{Playbook, RoleMode};
use playbook_orchestrator::agent::{AgentOutcome, Approver};
use playbook_orchestrator::clock::{Clock, Rng};
use playbook_orchestrator::event::{EventRecord, EventSink, PreflightResult};
use playbook_orchestrator::scenario::{Limits, RunInput, Scenario};
use playbook_orchestrator::stop::Stop;
use playbook_orchestrator::{Ports, RunOptions, RunReport};

use playbook_orchestrator::agent::RoleAssigner;
use playbook_orchestrator::envelope::RoleAssignmentRequest;
use playbook_orchestrator::scenario::ScriptedAssigner;

use crate::agents::{self, AgentDef, Placeholders};
use crate::assigner::CommandAssigner;
use crate::context::{self, Bundle};
use crate::gateway::Broker;
use crate::gateway::wire::ToolInfo;
use crate::private_dir::PrivateDir;
use crate::process::{Host, InvocationRecord, Launch, Prepared, ProcessAgent};
use crate::verify::{self, VerifyStatus};
use crate::workspace::{Guard, Repo, SharedWorktrees, WorktreeTools, Worktrees};

/// How much a run may spend. `None`: the default.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    /// Most agent invocations; default the static worst case of the run
    /// (the sum of the stage bounds the preview prints).
    pub agent_calls: Option<u64>,
    /// Most tool calls in the run; default 100 000.
    pub tool_calls: Option<u64>,
    /// Most wall time; default none.
    pub wall_time: Option<Duration>,
}

/// Everything a run needs besides its approver and event sink.
pub struct RunRequest {
    pub playbook: Playbook,
    /// The repository to run on (any folder inside its working tree).
    pub repo: PathBuf,
    /// The commit every task's branch starts from; default `HEAD`.
    pub base_ref: Option<String>,
    /// Goal, tasks and input values, as in a scenario's `input`.
    pub input: RunInput,
    /// The user's agent definitions (docs/agents.md); the built-ins exist
    /// without it.
    pub agents_file: Option<PathBuf>,
    /// The agent for every role (must be in a role's `allowed_agents` when
    /// the role lists any); default the first of a role's `allowed_agents`
    /// that can start.
    pub agent: Option<String>,
    /// A role assigner command (request JSON on stdin, response on stdout).
    pub assigner: Option<Vec<String>>,
    /// The project description checked against `policy/project-schema.json`.
    pub project: Option<PathBuf>,
    /// Program and arguments that start the MCP relay (`playbook gateway`).
    pub gateway_command: Vec<String>,
    pub budget: Budget,
    pub stop: Stop,
}

/// Why a run did not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Repo(String),
    #[error("{0}")]
    Context(String),
    #[error("{0}")]
    Agent(String),
    #[error("{0}")]
    Io(String),
}

/// A task's branch after the run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TaskBranch {
    pub task_id: String,
    pub branch: String,
    pub worktree: PathBuf,
    pub passed: bool,
}

/// What a run produced.
pub struct RunResult {
    pub report: RunReport,
    /// The per-run log directory.
    pub run_dir: PathBuf,
    pub branches: Vec<TaskBranch>,
    pub verifications: Vec<serde_json::Value>,
    /// Context files the repository did not have.
    pub absent: Vec<String>,
}

/// The wall clock, read once: durations come from the processes.
struct WallClock(u64);

impl Clock for WallClock {
    fn start_ms(&self) -> u64 {
        self.0
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// A seed from the operating system: real runs are not replays, and each
/// needs its own run id.
fn fresh_seed() -> u64 {
    use std::io::Read;
    let mut bytes = [0u8; 8];
    match std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes)) {
        Ok(()) => u64::from_le_bytes(bytes),
        Err(_) => now_ms() ^ u64::from(std::process::id()),
    }
}

/// How long the verification after a worker may take.
const VERIFY_TIMEOUT: Duration = Duration::from_secs(900);

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The role assigner of a run: a command, or the first role of the stage.
enum Assigner {
    Command(CommandAssigner),
    First(ScriptedAssigner<'static>),
}

impl RoleAssigner for Assigner {
    async fn assign(&mut self, stage: &str, request: &RoleAssignmentRequest) -> String {
        match self {
            Assigner::Command(a) => a.assign(stage, request).await,
            Assigner::First(a) => a.assign(stage, request).await,
        }
    }
}

/// The ports' host: worktrees, agent command lines, verification.
struct RunHost {
    worktrees: SharedWorktrees,
    agents: HashMap<String, AgentDef>,
    workers: Vec<String>,
    verify_commands: Option<Vec<String>>,
    verifications: Vec<serde_json::Value>,
    /// `invocations.jsonl` of the run's log, a line per process as it ends.
    invocations: Option<std::fs::File>,
}

impl Host for RunHost {
    fn worktree(&mut self, task_id: &str) -> Result<PathBuf, String> {
        lock(&self.worktrees)
            .worktree_for(task_id)
            .map_err(|e| e.to_string())
    }

    fn launch(&mut self, prepared: &Prepared) -> Result<Launch, String> {
        let def = self
            .agents
            .get(&prepared.role)
            .ok_or_else(|| format!("no agent is chosen for role `{}`", prepared.role))?;
        Ok(agents::launch(def, &Placeholders::from_prepared(prepared)))
    }

    fn record(&mut self, record: InvocationRecord) {
        use std::io::Write;
        if let Some(file) = self.invocations.as_mut() {
            let mut value = serde_json::to_value(&record).unwrap_or_default();
            playbook_redact::redact_value(&mut value);
            // Written as each process ends: a crash keeps what came before.
            let _ = writeln!(file, "{value}");
        }
    }

    async fn after(&mut self, prepared: &Prepared, outcome: AgentOutcome) -> AgentOutcome {
        if !self.workers.contains(&prepared.role) {
            return outcome;
        }
        let profile = playbook_contracts::VerifyProfile {
            mode: "smoke".into(),
            commands: self.verify_commands.clone().unwrap_or_default(),
        };
        let verification = verify::verify(&prepared.worktree, &profile, VERIFY_TIMEOUT).await;
        self.verifications.push(serde_json::json!({
            "task_id": prepared.task_id,
            "role": prepared.role,
            "iteration": prepared.iteration,
            "summary": verification.summary(),
            "verification": verification,
        }));
        if verification.status != VerifyStatus::Fail {
            return outcome;
        }
        let output = verification
            .commands
            .last()
            .map(|c| serde_json::to_string(c).unwrap_or_default())
            .unwrap_or_default();
        AgentOutcome::Error {
            message: format!(
                "{}; the step counts as failed whatever the agent answered: {output}",
                verification.summary()
            ),
        }
    }
}

/// Writes each event to the per-run log and passes it on.
struct Tee<'s, S> {
    log: playbook_orchestrator::event::JsonlSink<std::io::BufWriter<std::fs::File>>,
    next: &'s mut S,
}

impl<S: EventSink> EventSink for Tee<'_, S> {
    fn emit(&mut self, record: &EventRecord) {
        self.log.emit(record);
        // Each line reaches the disk as it happens: a crash or a kill leaves
        // the log of everything up to it.
        let _ = self.log_flush();
        self.next.emit(record);
    }

    fn record(&mut self, record: playbook_orchestrator::event::RunRecord<'_>) {
        self.next.record(record);
    }
}

impl<S> Tee<'_, S> {
    fn log_flush(&mut self) -> std::io::Result<()> {
        self.log.flush()
    }
}

/// The agent definition each role runs with.
fn choose_agents(
    playbook: &Playbook,
    chosen: Option<&str>,
    file: Option<&Path>,
) -> Result<HashMap<String, AgentDef>, RunError> {
    let mut out = HashMap::new();
    for role in playbook.roles().map(|r| r.role) {
        {
            let allowed = role.allowed_agents().to_vec();
            let candidates: Vec<String> = match chosen {
                Some(name)
                    if allowed.is_empty()
                        || allowed.iter().any(|a| {
                            a == name || agents::canonical(a) == agents::canonical(name)
                        }) =>
                {
                    vec![name.to_string()]
                }
                Some(name) => {
                    return Err(RunError::Agent(format!(
                        "role `{}` allows the agents {} and not `{name}`; pick one of them with --agent, or add `{name}` to its allowed_agents",
                        role.name,
                        allowed.join(", ")
                    )));
                }
                None if allowed.is_empty() => {
                    return Err(RunError::Agent(format!(
                        "role `{}` names no allowed_agents; choose the agent with --agent NAME (docs/agents.md)",
                        role.name
                    )));
                }
                None => allowed,
            };
            let mut tried = Vec::new();
            let def = candidates
                .iter()
                .find_map(|name| match agents::resolve(name, file) {
                    Ok(def) => Some(def),
                    Err(e) => {
                        tried.push(e.to_string());
                        None
                    }
                });
            match def {
                Some(def) => {
                    out.insert(role.name.clone(), def);
                }
                None => {
                    return Err(RunError::Agent(format!(
                        "no agent of role `{}` can start: {}",
                        role.name,
                        tried.join("; ")
                    )));
                }
            }
        }
    }
    Ok(out)
}

/// Runs a playbook on a repository. `Err` only when the run cannot start
/// (a repository that is not usable, a context bundle or agent that is
/// missing); every other outcome — a failed preflight included — is a
/// report, with its records written.
pub async fn run<P: Approver, S: EventSink>(
    mut request: RunRequest,
    approver: &mut P,
    sink: &mut S,
) -> Result<RunResult, RunError> {
    let repo = Repo::open(&request.repo, request.base_ref.as_deref())
        .map_err(|e| RunError::Repo(e.to_string()))?;
    let commit = repo.base_sha().to_string();

    // The context bundle, read at the run's commit, narrows each role's
    // tools before the engine sees the playbook: the prompts, the gateway's
    // listing and its checks all follow the narrowed contract.
    let role_names: Vec<String> = request
        .playbook
        .roles()
        .map(|r| r.role.name.clone())
        .collect();
    let names: Vec<&str> = role_names.iter().map(String::as_str).collect();
    let bundle =
        Bundle::read(repo.root(), &commit, &names).map_err(|e| RunError::Context(e.to_string()))?;
    for stage in request.playbook.workflow.values_mut() {
        for role in stage.roles.iter_mut().flatten() {
            let (tools, _narrowed) =
                context::effective_tools(&bundle, &role.name, role.actions_allowed());
            role.actions_allowed = Some(tools);
        }
    }
    let preflight: Vec<PreflightResult> =
        context::preflight(repo.root(), &commit, request.project.as_deref()).results();
    let agents = choose_agents(
        &request.playbook,
        request.agent.as_deref(),
        request.agents_file.as_deref(),
    )?;

    let seed = fresh_seed();
    let run_id = Rng::new(seed).uuid_v4();
    let run_dir = repo
        .common_dir()
        .join("playbook")
        .join("runs")
        .join(&run_id);
    let io = |what: &str, e: std::io::Error| RunError::Io(format!("cannot {what}: {e}"));
    std::fs::create_dir_all(&run_dir).map_err(|e| io("create the run's log directory", e))?;
    // Sockets have a short path limit; a fresh private directory in the
    // system's temporary directory keeps it short and unreadable by others.
    // Those of runs that were killed go first: they hold tokens.
    let _ = crate::private_dir::sweep();
    let private = PrivateDir::create().map_err(|e| io("create the run's private directory", e))?;
    let broker = Broker::bind(private.path()).map_err(|e| io("open the tool gateway", e))?;

    // Worktrees live as long as their tasks, across stages: the cap is the
    // widest stage's.
    let max_parallel = request
        .playbook
        .workflow
        .values()
        .map(|s| s.max_parallel_worktrees())
        .max()
        .unwrap_or(1)
        .max(1);
    let worktrees: SharedWorktrees = std::sync::Arc::new(std::sync::Mutex::new(
        Worktrees::new(&repo, &run_id, max_parallel).map_err(|e| RunError::Repo(e.to_string()))?,
    ));
    // The repository's git directory and refs as they are before any agent
    // runs: after each invocation the tools kill what outlived it, compare,
    // put the git configuration and hooks back, and report what else moved.
    let guard = Guard::snapshot(&repo, &run_id).map_err(|e| RunError::Repo(e.to_string()))?;
    let test_commands = verify::discover(repo.root()).unwrap_or_default();
    let mut tools = WorktreeTools::new(worktrees.clone(), test_commands).with_guard(guard);
    let catalog: HashMap<String, Vec<ToolInfo>> = request
        .playbook
        .roles()
        .map(|r| (r.role.name.clone(), listed_tools(r.role.actions_allowed())))
        .collect();
    let workers = request
        .playbook
        .roles()
        .filter(|r| r.role.mode == Some(RoleMode::Worker))
        .map(|r| r.role.name.clone())
        .collect();
    let host = RunHost {
        worktrees: worktrees.clone(),
        agents: agents.clone(),
        workers,
        verify_commands: request
            .input
            .values
            .get("verify_commands")
            .and_then(|v| serde_json::from_value(v.clone()).ok()),
        verifications: Vec::new(),
        invocations: std::fs::File::create(run_dir.join("invocations.jsonl")).ok(),
    };
    let mut agent = ProcessAgent::new(
        host,
        &broker,
        request.gateway_command.clone(),
        catalog,
        private.path().join("invocations"),
        request.stop.clone(),
        1024 * 1024,
    );

    let mut input = request.input.clone();
    input
        .values
        .insert("repo".into(), repo.root().display().to_string().into());
    input
        .values
        .insert("base_ref".into(), commit.clone().into());
    let known = (!input.tasks.is_empty()).then_some(input.tasks.len() as u32);
    let worst: Option<u64> = playbook_orchestrator::bound::stage_bounds(&request.playbook, known)
        .iter()
        .filter(|b| b.enabled)
        .map(|b| b.total)
        .sum();
    let scenario = Scenario {
        name: Some(format!("run on {}", repo.root().display())),
        input,
        limits: Some(Limits {
            max_steps: request.budget.agent_calls.or(worst),
            max_run_tool_calls: request.budget.tool_calls,
            ..Default::default()
        }),
        ..Default::default()
    };
    let options = RunOptions {
        seed,
        scenario_name: scenario.name.clone(),
        agent_name: {
            let mut names: Vec<&str> = agents.values().map(|d| d.name.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            names.join(", ")
        },
        stop: request.stop.clone(),
        preflight: Some(preflight),
        context_files: bundle.files(),
        context_absent: bundle.absent.clone(),
        ..Default::default()
    };
    let watchdog = request.budget.wall_time.map(|limit| {
        let stop = request.stop.clone();
        tokio::spawn(async move {
            tokio::time::sleep(limit).await;
            stop.wall_time_exhausted();
        })
    });
    let mut assigner = match request.assigner.clone() {
        Some(argv) => Assigner::Command(CommandAssigner::new(
            argv,
            repo.root().to_path_buf(),
            Duration::from_secs(60),
        )),
        None => Assigner::First(ScriptedAssigner { script: None }),
    };
    let log = std::fs::File::create(run_dir.join("events.jsonl"))
        .map_err(|e| io("write the run's event log", e))?;
    let mut tee = Tee {
        log: playbook_orchestrator::event::JsonlSink::new(std::io::BufWriter::new(log)),
        next: sink,
    };
    let clock = WallClock(now_ms());
    let ports = Ports {
        agent: &mut agent,
        approver,
        assigner: &mut assigner,
        tools: &mut tools,
        clock: &clock,
        sink: &mut tee,
    };
    let report = playbook_orchestrator::run(&request.playbook, &scenario, &options, ports).await;
    if let Some(w) = watchdog {
        w.abort();
    }
    let verifications = std::mem::take(&mut agent.host_mut().verifications);

    let mut branches = Vec::new();
    for task in &report.tasks {
        let passed = task.state == playbook_orchestrator::event::TaskState::Done;
        let mut wt = lock(&worktrees);
        // Only tasks an agent worked on have a branch; asking for one here
        // would create it.
        if !wt.had_worktree(&task.task_id) {
            continue;
        }
        branches.push(TaskBranch {
            task_id: task.task_id.clone(),
            branch: wt.branch_for(&task.task_id),
            worktree: wt.path_for(&task.task_id),
            passed,
        });
        let _ = wt.finish(&task.task_id, passed);
    }
    write_records(&run_dir, &report, &branches, &verifications);
    Ok(RunResult {
        report,
        run_dir,
        branches,
        verifications,
        absent: bundle.absent.clone(),
    })
}

/// The tools of the catalog a role may use, as the gateway lists them.
fn listed_tools(allowed: &[String]) -> Vec<ToolInfo> {
    playbook_orchestrator::toolset::CATALOG
        .iter()
        .filter(|t| allowed.iter().any(|a| a == t.name))
        .map(|t| ToolInfo {
            name: t.name.to_string(),
            description: t.description.to_string(),
            input_schema: (t.schema)(),
        })
        .collect()
}

/// The per-run log's records; each is redacted again, as every record is.
fn write_records(
    dir: &Path,
    report: &RunReport,
    branches: &[TaskBranch],
    verifications: &[serde_json::Value],
) {
    let summary = serde_json::json!({
        "run_id": report.run_id,
        "outcome": report.outcome,
        "steps": report.steps,
        "duration_ms": report.virtual_ms,
        "tasks": report.tasks,
        "bounds": report.bounds,
        "branches": branches,
    });
    let files: [(&str, serde_json::Value); 6] = [
        ("report.json", summary),
        (
            "audit.json",
            serde_json::to_value(&report.audit).unwrap_or_default(),
        ),
        (
            "worklogs.json",
            report
                .worklogs
                .tasks()
                .map(|(task, entries)| {
                    (
                        task.to_string(),
                        serde_json::to_value(entries).unwrap_or_default(),
                    )
                })
                .collect::<serde_json::Map<_, _>>()
                .into(),
        ),
        (
            "ledger.json",
            report
                .ledger
                .rows()
                .map(|(task, row)| {
                    (
                        task.to_string(),
                        serde_json::to_value(row).unwrap_or_default(),
                    )
                })
                .collect::<serde_json::Map<_, _>>()
                .into(),
        ),
        (
            "outputs.json",
            serde_json::to_value(&report.outputs).unwrap_or_default(),
        ),
        (
            "verifications.json",
            serde_json::Value::from(verifications.to_vec()),
        ),
    ];
    for (name, mut value) in files {
        playbook_redact::redact_value(&mut value);
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        // The run's folder is known to its agents (`PLAYBOOK_RUN_ID`): a
        // FIFO or link planted under one of these names must neither hang
        // the end of the run nor redirect the write, so each name gets a
        // new file.
        let _ = crate::regular_file::overwrite(&dir.join(name), (text + "\n").as_bytes());
    }
}
