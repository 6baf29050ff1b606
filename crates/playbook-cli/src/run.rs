//! `playbook run`: a playbook drives real agent processes on a real git
//! repository, every contract enforced at the tool gateway; `playbook run
//! clean` removes the worktrees runs left. And `playbook gateway`, the MCP
//! relay a run hands to its agent processes.
//!
//! The text format is the preview's live report (one line per decision,
//! stamped with the time since the start) and summary, followed by each
//! task's branch and the per-run log's directory; `jsonl` prints the event
//! log. Exit 0 only when every task passed; Ctrl+C stops the run, recorded
//! as stopped with its worktrees kept.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};
use clap::{Args, Subcommand};

use playbook_orchestrator::AnyApprover;
use playbook_orchestrator::agent::{ApprovalDecision, ApprovalRequest, Approver};
use playbook_orchestrator::event::{EventRecord, FnSink, JsonlSink, Outcome, describe};
use playbook_orchestrator::scenario::RunInput;
use playbook_orchestrator::scenario::limits::{MAX_RUN_TOOL_CALLS, MAX_STEPS};
use playbook_orchestrator::stop::Stop;
use playbook_redact::redact_str;
use playbook_runner::runner::{Budget, RunRequest, RunResult};

use crate::input;
use crate::preview::{ApproveMode, PreviewFormat, clock, summary};

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct RunArgs {
    #[command(subcommand)]
    command: Option<RunCommand>,
    /// Playbook file (YAML or JSON).
    #[arg(required = true)]
    file: Option<String>,
    /// The git repository to run on; it must have no uncommitted changes.
    #[arg(long, value_name = "DIR", required = true)]
    repo: Option<PathBuf>,
    /// The commit every task's branch starts from [default: HEAD].
    #[arg(long, value_name = "REF")]
    base_ref: Option<String>,
    /// The run's goal (one task carries it when --input gives no tasks).
    #[arg(long)]
    goal: Option<String>,
    /// The run input: goal, tasks, values (YAML or JSON, the `input` section of a scenario).
    #[arg(long, value_name = "FILE")]
    input: Option<String>,
    /// Agent definitions (docs/agents.md); the built-ins need none.
    #[arg(long, value_name = "FILE")]
    agents: Option<PathBuf>,
    /// The agent for every role [default: the first of a role's allowed_agents that can start].
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// A role assigner command, run through no shell (request JSON in, response JSON out).
    #[arg(long, value_name = "PROGRAM", num_args = 1.., allow_hyphen_values = false)]
    assigner: Option<Vec<String>>,
    /// How approvals are answered [default: ask on the terminal].
    #[arg(long, value_enum)]
    approve: Option<ApproveMode>,
    /// The project description checked against policy/project-schema.json.
    #[arg(long, value_name = "FILE")]
    project: Option<PathBuf>,
    /// Most agent calls [default: the static worst case of the run].
    // Checked here, against the run's own limits, so that a refusal names
    // the flag given rather than the limit it becomes (`limits.max_steps`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=MAX_STEPS))]
    max_agent_calls: Option<u64>,
    /// Most tool calls in the run [default: 100000].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=MAX_RUN_TOOL_CALLS))]
    max_tool_calls: Option<u64>,
    /// Most wall time, in minutes.
    #[arg(long, value_name = "MINUTES")]
    max_minutes: Option<u64>,
    /// Library file to record the run in [default: $PLAYBOOK_DB, else the platform's].
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = PreviewFormat::Text)]
    format: PreviewFormat,
}

#[derive(Subcommand)]
enum RunCommand {
    /// Remove the worktrees runs left in a repository (branches with work are kept).
    ///
    /// A run still going on is left alone. A worktree with changes not
    /// committed is kept and its changes are named, unless --force.
    Clean {
        /// The repository.
        #[arg(long, value_name = "DIR")]
        repo: PathBuf,
        /// Also remove worktrees with changes not committed; the changes
        /// discarded are named.
        #[arg(long)]
        force: bool,
    },
}

#[derive(Args)]
pub struct GatewayArgs {
    /// The run's gateway socket.
    #[arg(long)]
    socket: PathBuf,
    /// The invocation's token.
    #[arg(long)]
    token: String,
}

pub fn gateway(args: GatewayArgs) -> Result<ExitCode> {
    playbook_runner::gateway::relay(&args.socket, &args.token).map_err(|e| anyhow!(e))?;
    Ok(ExitCode::SUCCESS)
}

/// Asks the person at the terminal, without blocking the run's other work
/// (the gateway, a stop): end of input denies.
struct Ask;

impl Approver for Ask {
    async fn decide(&mut self, request: &ApprovalRequest<'_>) -> ApprovalDecision {
        use tokio::io::AsyncBufReadExt;
        crate::preview::ask(request);
        let started = std::time::Instant::now();
        let mut line = String::new();
        let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
        let approved = stdin.read_line(&mut line).await.is_ok() && crate::preview::approves(&line);
        ApprovalDecision {
            approved,
            by: "user".into(),
            waited_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        }
    }
}

fn read_input(path: Option<&str>, goal: Option<String>) -> Result<RunInput> {
    let mut run_input = match path {
        None => RunInput::default(),
        Some(path) => {
            let bytes = input::read_file(
                path,
                playbook_orchestrator::scenario::MAX_SCENARIO_BYTES,
                "run inputs",
            )?;
            let text = String::from_utf8(bytes)
                .map_err(|_| anyhow!("cannot read {path}: it is not UTF-8 text"))?;
            RunInput::parse(&text).map_err(|e| anyhow!("{path}: {}", e.message))?
        }
    };
    if let Some(goal) = goal {
        run_input.goal = goal;
    }
    Ok(run_input)
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    if let Some(RunCommand::Clean { repo, force }) = args.command {
        return clean(&repo, force);
    }
    let (Some(file), Some(repo)) = (args.file.clone(), args.repo.clone()) else {
        return Err(anyhow!("give a playbook file and --repo DIR"));
    };
    let source = input::read(&file)?;
    let report = playbook_core::validate_source(&source.text, source.format, &source.options());
    let errors: Vec<_> = report.findings.iter().filter(|f| f.is_error()).collect();
    let Some(playbook) = report.playbook.clone().filter(|_| errors.is_empty()) else {
        for f in &errors {
            eprintln!(
                "{}",
                redact_str(&format!("{file}: {} {} {}", f.code, f.path, f.message))
            );
        }
        eprintln!("{file}: the playbook has errors; nothing was run");
        return Ok(ExitCode::from(1));
    };
    let run_input = read_input(args.input.as_deref(), args.goal.clone())?;
    let exe =
        std::env::current_exe().context("cannot find the playbook binary for the tool gateway")?;
    let stop = Stop::new();
    let request = RunRequest {
        playbook: playbook.clone(),
        repo,
        base_ref: args.base_ref.clone(),
        input: run_input,
        agents_file: args.agents.clone(),
        agent: args.agent.clone(),
        assigner: args.assigner.clone(),
        project: args.project.clone(),
        gateway_command: vec![exe.display().to_string(), "gateway".into()],
        budget: Budget {
            agent_calls: args.max_agent_calls,
            tool_calls: args.max_tool_calls,
            wall_time: args
                .max_minutes
                .map(|m| std::time::Duration::from_secs(m.saturating_mul(60))),
        },
        stop: stop.clone(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the run's runtime")?;
    let format = args.format;
    {
        let _context = runtime.enter();
        watch_stop_signals(&stop).context("cannot watch for stop signals")?;
    }
    // A reader of the output that goes away (`| head`, a closed pipe) must
    // not kill the run by SIGPIPE before it has stopped its agents: writes
    // fail instead, and every sink ignores a failed write. Children get the
    // default action back (the standard library resets it when it starts
    // a program).
    // SAFETY: `signal` only changes this process's disposition of SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let outcome = runtime.block_on(async move {
        let mut approver: AnyApprover<'_, Ask> = match args.approve {
            Some(ApproveMode::Auto) => AnyApprover::Auto(Default::default()),
            Some(ApproveMode::Deny) => AnyApprover::Deny(Default::default()),
            Some(ApproveMode::Ask) | None => AnyApprover::Other(Ask),
        };
        match format {
            PreviewFormat::Jsonl => {
                // Line-buffered (one event, one write): a reader of the pipe
                // sees each event as it happens, and a run that is killed
                // has written every event so far. A run waits on its agents,
                // not on these writes. Said here, not left to the standard
                // library, whose stdout promises lines only to a terminal.
                let mut sink = JsonlSink::new(std::io::LineWriter::new(std::io::stdout()));
                let result = playbook_runner::runner::run(request, &mut approver, &mut sink).await;
                let _ = sink.flush();
                result
            }
            PreviewFormat::Text => {
                let mut sink = FnSink(|record: &EventRecord| {
                    if let Some(line) = describe(&record.event) {
                        let mut out = std::io::stdout().lock();
                        let _ = writeln!(out, "{} {}", clock(record.t_ms), redact_str(&line));
                    }
                });
                playbook_runner::runner::run(request, &mut approver, &mut sink).await
            }
        }
    });
    let result = outcome.map_err(|e| anyhow!(e))?;
    // Written without panicking on a terminal or pipe that is gone (a
    // hang-up), so the run is still recorded in the library below.
    if matches!(format, PreviewFormat::Text) {
        let _ = write!(
            std::io::stdout(),
            "{}{}",
            redact_str(&summary(&result.report)),
            redact_str(&branches(&result))
        );
    } else {
        let _ = write!(std::io::stderr(), "{}", redact_str(&branches(&result)));
    }
    record_in_library(args.db.clone(), &playbook, &result);
    Ok(if result.report.outcome == Some(Outcome::Passed) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Ctrl+C (INT), `kill` (TERM) and a closed terminal (HUP) all stop the run
/// the same way: the running agent's process group is killed and the
/// records are written. Left to their default action, TERM and HUP would
/// end this process at once and leave the agents, their children and the
/// gateway running, with no report. Registered before the run starts (from
/// inside the runtime), so no signal can come before its handler.
fn watch_stop_signals(stop: &Stop) -> std::io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    for (kind, name) in [
        (SignalKind::interrupt(), "interrupt"),
        (SignalKind::terminate(), "terminate"),
        (SignalKind::hangup(), "hang-up"),
    ] {
        let mut signals = signal(kind)?;
        let stop = stop.clone();
        tokio::spawn(async move {
            while signals.recv().await.is_some() {
                let first = stop.reason().is_none();
                stop.request();
                // Requested before anything is written: after a hang-up the
                // terminal is gone, and a failed write must not keep the
                // stop from happening.
                if first {
                    let _ = writeln!(
                        std::io::stderr(),
                        "stopping ({name}): the running agent is killed; worktrees and records are kept"
                    );
                }
            }
        });
    }
    Ok(())
}

/// Each task's branch and the per-run log.
fn branches(result: &RunResult) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    if !result.branches.is_empty() {
        let _ = writeln!(
            out,
            "  branches (kept for you to merge; nothing was pushed):"
        );
        for b in &result.branches {
            // A worktree exists after the run only when something is left
            // in it to see: a task that did not pass, or uncommitted
            // changes git would not remove.
            let state = match (b.passed, b.worktree.exists()) {
                (true, false) => "passed".to_string(),
                (true, true) => format!(
                    "passed; uncommitted changes kept in {}",
                    b.worktree.display()
                ),
                (false, true) => format!("did not pass; worktree kept: {}", b.worktree.display()),
                (false, false) => "did not pass; its work is on the branch".to_string(),
            };
            let _ = writeln!(out, "    {:<6} {}  ({state})", b.task_id, b.branch);
        }
    }
    if !result.absent.is_empty() {
        let _ = writeln!(
            out,
            "  context files absent (the playbook's contracts alone govern): {}",
            result.absent.join(", ")
        );
    }
    let _ = writeln!(out, "  run log: {}", result.run_dir.display());
    out
}

/// Keeps the run in the library beside the playbook's previews when the
/// playbook is there; otherwise says where its record is.
fn record_in_library(db: Option<PathBuf>, playbook: &playbook_core::Playbook, result: &RunResult) {
    let path = playbook_store::resolve_db_path(db);
    let recorded = (|| -> Result<(), String> {
        let mut store = playbook_store::Store::open(&path).map_err(|e| e.to_string())?;
        let id = playbook_store::PlaybookId::new(&playbook.id).map_err(|e| e.to_string())?;
        let label = format!("run: {}", result.run_dir.display());
        let run = store
            .create_run(&id, None, &label, 0)
            .map_err(|e| e.to_string())?;
        let text = std::fs::read_to_string(result.run_dir.join("events.jsonl"))
            .map_err(|e| e.to_string())?;
        let lines: Vec<(u64, &str)> = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i as u64, l))
            .collect();
        for chunk in lines.chunks(256) {
            store.append_events(run, chunk).map_err(|e| e.to_string())?;
        }
        let status = result
            .report
            .outcome
            .and_then(|o| serde_json::to_value(o).ok())
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "unfinished".into());
        let summary = serde_json::json!({
            "kind": "run",
            "outcome": result.report.outcome,
            "run_dir": result.run_dir,
            "branches": result.branches,
        });
        store
            .finish_run(run, &status, Some(&summary.to_string()))
            .map_err(|e| e.to_string())
    })();
    if let Err(why) = recorded {
        eprintln!(
            "note: the run is not in the library ({}; `playbook db import` the playbook to keep its runs there); its record is in {}",
            redact_str(&why),
            result.run_dir.display()
        );
    }
}

fn clean(repo: &std::path::Path, force: bool) -> Result<ExitCode> {
    use playbook_runner::workspace::{Repo, Worktrees};
    let repo = Repo::open_for_clean(repo).map_err(|e| anyhow!(e.to_string()))?;
    let report = Worktrees::clean(&repo, force).map_err(|e| anyhow!(e.to_string()))?;
    // Not the repository's: the private directories (gateway socket, tokens)
    // of this user's runs that were killed before they could remove them.
    let swept = playbook_runner::private_dir::sweep();
    let changes = |u: &playbook_runner::workspace::Uncommitted| {
        const SHOWN: usize = 50;
        let more = match u.paths.len().saturating_sub(SHOWN) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let shown: Vec<&str> = u.paths.iter().take(SHOWN).map(String::as_str).collect();
        redact_str(&format!(
            "{}: {}{more}",
            u.worktree.display(),
            shown.join(", ")
        ))
        .into_owned()
    };
    if !report.live_runs.is_empty() {
        println!(
            "left alone (runs still going on): {}",
            report.live_runs.join(", ")
        );
    }
    for u in &report.discarded {
        println!("discarded changes not committed (--force): {}", changes(u));
    }
    let list = |items: Vec<String>| {
        if items.is_empty() {
            "none".to_string()
        } else {
            items.join(", ")
        }
    };
    println!(
        "removed worktrees: {}",
        list(
            report
                .removed_worktrees
                .iter()
                .map(|p| p.display().to_string())
                .collect()
        )
    );
    println!(
        "kept branches (they hold commits; merge or delete them yourself): {}",
        list(report.kept_branches)
    );
    println!(
        "deleted branches (nothing beyond their base): {}",
        list(report.deleted_branches)
    );
    for u in &report.kept_worktrees {
        eprintln!(
            "not cleaned: {} (changes not committed; commit them on the branch, or run again with --force to discard them)",
            changes(u)
        );
    }
    if !swept.removed.is_empty() {
        println!(
            "removed private directories of ended runs: {}",
            list(
                swept
                    .removed
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect()
            )
        );
    }
    if report.problems.is_empty() && report.kept_worktrees.is_empty() && swept.problems.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for problem in report.problems.iter().chain(&swept.problems) {
        eprintln!("not cleaned: {}", redact_str(problem));
    }
    Ok(ExitCode::FAILURE)
}
