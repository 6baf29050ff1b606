//! An agent that is a process (docs/agent-protocol.md).
//!
//! For each invocation the agent writes the rendered prompt, the assignment
//! packet and an MCP configuration into a private directory, opens a gateway
//! session for the role's tools, and starts the agent's command in the
//! task's worktree. While the process runs, [`ProcessAgent::step`] waits for
//! the first of: a tool call arriving through the gateway (returned to the
//! engine as [`AgentStep::Call`]; the engine's answer goes back to the
//! process on the next `step`), the process exiting (its answer is read),
//! the time budget running out, the heartbeat going silent, or a stop. The
//! process group is killed whenever the invocation ends, so nothing an agent
//! starts outlives it; once the process has exited, its output is read
//! until it ends or falls quiet (a program left holding it is not waited
//! for).

mod answer;
mod child;
mod files;
mod record;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use playbook_orchestrator::agent::{Agent, AgentOutcome, AgentStep, Invocation, ToolResult};
use playbook_orchestrator::stop::Stop;
use tokio::sync::oneshot;
use tokio::time::Instant;

pub use answer::{AgentAnswer, OutputForm, read_answer};
pub use child::{AgentProcess, Captured};
pub use record::{InvocationRecord, Usage, read_usage};

use crate::gateway::wire::ToolInfo;
use crate::gateway::{Broker, Session, SessionEvent};
use files::{read_small, write_new};

/// The files of one invocation, which a command line may name.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub prompt: String,
    pub prompt_file: PathBuf,
    pub packet_file: PathBuf,
    pub mcp_config: PathBuf,
    pub result_file: PathBuf,
    pub worktree: PathBuf,
    pub role: String,
    pub task_id: String,
    pub iteration: u32,
}

/// How to start the process of one invocation.
#[derive(Debug, Clone)]
pub struct Launch {
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    /// Text for standard input (none: standard input is empty).
    pub stdin: Option<String>,
    pub output: OutputForm,
    /// The agent's own time budget; the smaller of it and the task's
    /// `timeout_seconds` applies.
    pub timeout: Option<Duration>,
}

/// What the runner provides to start and check invocations.
pub trait Host {
    /// The worktree of a task (created on first use).
    fn worktree(&mut self, task_id: &str) -> Result<PathBuf, String>;
    /// The command line of an invocation.
    fn launch(&mut self, prepared: &Prepared) -> Result<Launch, String>;
    /// Checks a finished invocation's answer (verification after a worker);
    /// may turn it into a failure. Returns the outcome to report.
    fn after(
        &mut self,
        prepared: &Prepared,
        outcome: AgentOutcome,
    ) -> impl std::future::Future<Output = AgentOutcome>;
    /// Keeps the record of a finished process (the runner writes it to the
    /// run's log).
    fn record(&mut self, _record: InvocationRecord) {}
}

/// How a process ended, for its record.
struct Ended {
    how: String,
    exit_code: Option<i32>,
    stdout_bytes: usize,
    stderr_bytes: usize,
    usage: Usage,
}

impl Ended {
    fn killed(why: &str) -> Ended {
        Ended {
            how: format!("killed: {why}"),
            exit_code: None,
            stdout_bytes: 0,
            stderr_bytes: 0,
            usage: Usage::default(),
        }
    }
}

struct Running {
    process: AgentProcess,
    session: Session,
    prepared: Prepared,
    output: OutputForm,
    reply: Option<oneshot::Sender<ToolResult>>,
    started: Instant,
    /// Wall-clock start, for the record.
    started_at_ms: u64,
    program: String,
    deadline: Instant,
    silence: Duration,
    last_alive: Instant,
}

/// An agent whose every invocation is a process.
pub struct ProcessAgent<'b, H> {
    host: H,
    broker: &'b Broker,
    /// Program and arguments that start the MCP relay; the session's socket
    /// and token are appended.
    gateway_command: Vec<String>,
    /// Tools listed to each role.
    tools: HashMap<String, Vec<ToolInfo>>,
    scratch: PathBuf,
    stop: Stop,
    stdout_limit: usize,
    current: Option<Running>,
}

impl<'b, H: Host> ProcessAgent<'b, H> {
    /// `scratch` is a private directory for invocation files.
    pub fn new(
        host: H,
        broker: &'b Broker,
        gateway_command: Vec<String>,
        tools: HashMap<String, Vec<ToolInfo>>,
        scratch: PathBuf,
        stop: Stop,
        stdout_limit: usize,
    ) -> Self {
        ProcessAgent {
            host,
            broker,
            gateway_command,
            tools,
            scratch,
            stop,
            stdout_limit,
            current: None,
        }
    }

    pub fn host_mut(&mut self) -> &mut H {
        &mut self.host
    }

    fn prepare(&mut self, inv: &Invocation<'_>, session: &Session) -> Result<Prepared, String> {
        let worktree = self.host.worktree(inv.task_id)?;
        let scratch_io = |e: std::io::Error| {
            format!(
                "cannot prepare the invocation in {}: {e}",
                self.scratch.display()
            )
        };
        std::fs::create_dir_all(&self.scratch).map_err(scratch_io)?;
        // A new folder of a name no one can guess, per invocation: an agent
        // knows where its own files are (its environment names them), and a
        // FIFO or link it planted where a later invocation's files go would
        // hang the run (opening a FIFO to write blocks) or redirect the
        // write. The files are then created new in it (`write_new`).
        let dir = tempfile::Builder::new()
            .prefix(&format!("{}-{}-{}-", inv.task_id, inv.role, inv.iteration))
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir_in(&self.scratch)
            .map_err(scratch_io)?
            .keep();
        let io =
            |e: std::io::Error| format!("cannot prepare the invocation in {}: {e}", dir.display());
        let prepared = Prepared {
            prompt: inv.prompt.to_string(),
            prompt_file: dir.join("prompt.md"),
            packet_file: dir.join("assignment.json"),
            mcp_config: dir.join("mcp.json"),
            result_file: dir.join("answer.json"),
            worktree,
            role: inv.role.to_string(),
            task_id: inv.task_id.to_string(),
            iteration: inv.iteration,
        };
        let packet = serde_json::to_string_pretty(inv.packet).map_err(|e| e.to_string())?;
        let mut args: Vec<String> = self.gateway_command[1..].to_vec();
        args.extend([
            "--socket".into(),
            self.broker.socket_path().display().to_string(),
            "--token".into(),
            session.token.clone(),
        ]);
        let mcp = serde_json::json!({
            "mcpServers": {
                "playbook": {
                    "type": "stdio",
                    "command": self.gateway_command.first().cloned().unwrap_or_default(),
                    "args": args,
                }
            }
        });
        write_new(&prepared.prompt_file, prepared.prompt.as_bytes()).map_err(io)?;
        write_new(&prepared.packet_file, packet.as_bytes()).map_err(io)?;
        write_new(&prepared.mcp_config, mcp.to_string().as_bytes()).map_err(io)?;
        Ok(prepared)
    }

    fn start(&mut self, inv: &Invocation<'_>) -> Result<Running, String> {
        let tools = self.tools.get(inv.role).cloned().unwrap_or_default();
        let session = self
            .broker
            .open_session(tools)
            .map_err(|e| format!("cannot open a gateway session: {e}"))?;
        let prepared = self.prepare(inv, &session)?;
        let launch = self.host.launch(&prepared)?;
        let mut env = launch.env.clone();
        env.extend([
            (
                "PLAYBOOK_PROMPT_FILE".into(),
                prepared.prompt_file.display().to_string(),
            ),
            (
                "PLAYBOOK_ASSIGNMENT_FILE".into(),
                prepared.packet_file.display().to_string(),
            ),
            (
                "PLAYBOOK_MCP_CONFIG".into(),
                prepared.mcp_config.display().to_string(),
            ),
            (
                "PLAYBOOK_RESULT_FILE".into(),
                prepared.result_file.display().to_string(),
            ),
            ("PLAYBOOK_ROLE".into(), prepared.role.clone()),
            ("PLAYBOOK_TASK_ID".into(), prepared.task_id.clone()),
            ("PLAYBOOK_ITERATION".into(), prepared.iteration.to_string()),
            ("PLAYBOOK_RUN_ID".into(), inv.run_id.to_string()),
        ]);
        let process = AgentProcess::spawn(
            &launch.argv,
            &launch.cwd,
            &env,
            launch.stdin.clone(),
            self.stdout_limit,
        )
        .map_err(|e| {
            let program = launch.argv.first().map(String::as_str).unwrap_or("");
            format!("cannot start agent program `{program}`: {e}")
        })?;
        let task = &inv.packet.task;
        let task_timeout = Duration::from_secs(task.timeout_seconds);
        let timeout = launch.timeout.map_or(task_timeout, |t| t.min(task_timeout));
        let now = Instant::now();
        Ok(Running {
            process,
            session,
            prepared,
            output: launch.output,
            reply: None,
            started: now,
            started_at_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            program: launch.argv.first().cloned().unwrap_or_default(),
            deadline: now + timeout,
            // Two missed heartbeats: one late sign of life is not a hang.
            silence: Duration::from_secs(task.heartbeat_interval_seconds.saturating_mul(2)),
            last_alive: now,
        })
    }

    fn keep_record(&mut self, run: &Running, duration_ms: u64, ended: Ended) {
        self.host.record(InvocationRecord {
            task_id: run.prepared.task_id.clone(),
            role: run.prepared.role.clone(),
            iteration: run.prepared.iteration,
            program: run.program.clone(),
            started_at_ms: run.started_at_ms,
            duration_ms,
            ended: ended.how,
            exit_code: ended.exit_code,
            stdout_bytes: ended.stdout_bytes,
            stderr_bytes: ended.stderr_bytes,
            usage: ended.usage,
        });
    }

    async fn end(&mut self, mut run: Running, outcome: AgentOutcome, ended: Ended) -> AgentStep {
        run.process.kill_tree();
        let duration_ms = u64::try_from(run.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.keep_record(&run, duration_ms, ended);
        let outcome = if matches!(outcome, AgentOutcome::Output { .. }) {
            self.host.after(&run.prepared, outcome).await
        } else {
            outcome
        };
        AgentStep::Finish {
            outcome,
            duration_ms,
        }
    }

    async fn exited(&mut self, mut run: Running, status: std::process::ExitStatus) -> AgentStep {
        // The answer is what the process printed before it exited. A program
        // it started in the background may still hold its stdout or stderr
        // open (`sleep 300 &`): waiting for their end would wait for that
        // program. So reading stops once they are quiet, and `end` kills
        // the group; without such a program they end at once, read whole.
        run.process.mark_exited();
        let stdout = (&mut run.process.stdout).await.unwrap_or_default();
        let stderr = (&mut run.process.stderr).await.unwrap_or_default();
        // Redacted before it is cut to its last words: a credential the
        // cut split in two would no longer be recognised downstream.
        let stderr_tail = stderr.last_words(child::STDERR_TAIL);
        let mut ended = Ended {
            how: match status.code() {
                Some(code) => format!("exited with status {code}"),
                None => "killed by a signal".to_string(),
            },
            exit_code: status.code(),
            stdout_bytes: stdout.bytes.len(),
            stderr_bytes: stderr.bytes.len(),
            usage: Usage::default(),
        };
        let outcome = if !status.success() {
            let how = match status.code() {
                Some(code) => format!("exited with status {code}"),
                None => "was killed by a signal".to_string(),
            };
            AgentOutcome::Error {
                message: format!(
                    "the agent process {how}; its last words on stderr: {stderr_tail:?}"
                ),
            }
        } else if stdout.flooded {
            AgentOutcome::Error {
                message: format!(
                    "the agent printed more than {} bytes on stdout; an answer is one JSON object",
                    self.stdout_limit
                ),
            }
        } else {
            match read_small(&run.prepared.result_file, self.stdout_limit) {
                Err(message) => AgentOutcome::Error { message },
                Ok(file) => {
                    let text = String::from_utf8_lossy(&stdout.bytes);
                    ended.usage = read_usage(run.output, &text, file.as_deref());
                    read_answer(run.output, &text, file.as_deref())
                }
            }
        };
        self.end(run, outcome, ended).await
    }
}

impl<H: Host> Agent for ProcessAgent<'_, H> {
    async fn step(&mut self, inv: &Invocation<'_>, last: Option<&ToolResult>) -> AgentStep {
        if let (Some(run), Some(result)) = (self.current.as_mut(), last) {
            if let Some(reply) = run.reply.take() {
                let _ = reply.send(result.clone());
            }
            // Waiting on the run (an approval) is not the agent being silent.
            run.last_alive = Instant::now();
        }
        let mut run = match self.current.take() {
            Some(run) => run,
            None => match self.start(inv) {
                Ok(run) => run,
                Err(message) => {
                    return AgentStep::Finish {
                        outcome: AgentOutcome::Error { message },
                        duration_ms: 0,
                    };
                }
            },
        };
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        loop {
            let silent_until = run.last_alive + run.silence;
            tokio::select! {
                event = run.session.events.recv() => match event {
                    Some(SessionEvent::Call { call, reply }) => {
                        run.reply = Some(reply);
                        run.last_alive = Instant::now();
                        self.current = Some(run);
                        return AgentStep::Call(call);
                    }
                    Some(SessionEvent::Alive) => run.last_alive = Instant::now(),
                    None => {}
                },
                Some(()) = run.process.alive.recv() => run.last_alive = Instant::now(),
                status = run.process.child.wait() => {
                    return match status {
                        Ok(status) => self.exited(run, status).await,
                        Err(e) => {
                            let message = format!("waiting for the agent process failed: {e}");
                            self.end(run, AgentOutcome::Error { message }, Ended::killed("lost")).await
                        }
                    };
                }
                _ = tokio::time::sleep_until(run.deadline) => {
                    let secs = run.deadline.duration_since(run.started).as_secs();
                    let message = format!("the agent process ran past its time budget of {secs} s and was killed");
                    return self.end(run, AgentOutcome::TimedOut { message }, Ended::killed("time budget")).await;
                }
                _ = tokio::time::sleep_until(silent_until) => {
                    let message = format!(
                        "the agent process showed no sign of life (output or gateway message) for {} s, twice its heartbeat interval, and was killed",
                        run.silence.as_secs()
                    );
                    return self.end(run, AgentOutcome::TimedOut { message }, Ended::killed("silent")).await;
                }
                _ = tick.tick() => {
                    if let Some((_, why)) = self.stop.reason() {
                        let message = format!("{why}; the agent process was killed");
                        return self.end(run, AgentOutcome::Error { message }, Ended::killed("stopped")).await;
                    }
                }
            }
        }
    }

    fn abort(&mut self, _invocation: &Invocation<'_>) {
        if let Some(mut run) = self.current.take() {
            run.process.kill_tree();
            let duration_ms = u64::try_from(run.started.elapsed().as_millis()).unwrap_or(u64::MAX);
            self.keep_record(&run, duration_ms, Ended::killed("ended by the run"));
        }
    }
}
