//! `playbook preview` and `playbook prompt`: run a playbook with scripted
//! agents and show what the orchestrator decides, or print the prompt a role
//! receives.
//!
//! The text format is a live progress report (one line per decision as it
//! happens, stamped with virtual time) followed by a summary; the jsonl
//! format is the event log itself, byte-identical for the same playbook,
//! scenario and seed. Exit code 0 only when every task passed.

use playbook_core::printable::printable;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde_json::{Map, Value, json};

use playbook_orchestrator::agent::{ApprovalDecision, ApprovalRequest, ApprovalSubject, Approver};
use playbook_orchestrator::event::{EventRecord, FnSink, JsonlSink, Outcome, describe};
use playbook_orchestrator::scenario::{MAX_SCENARIO_BYTES, RoleMapping, Scenario, Unmatched};
use playbook_orchestrator::{AnyApprover, RunOptions, RunReport, run_blocking};

use playbook_redact::redact_str;

use crate::input;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ApproveMode {
    /// Approve every request.
    Auto,
    /// Deny every request.
    Deny,
    /// Ask on the terminal; end of input denies.
    Ask,
}

#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum PreviewFormat {
    /// Live progress report and a summary.
    #[default]
    Text,
    /// The event log, one JSON object per line.
    Jsonl,
}

#[derive(Args)]
pub struct PreviewArgs {
    /// Playbook file (YAML or JSON), or `-` for standard input.
    pub file: String,
    /// Scenario file (YAML or JSON); without one every role passes at once.
    #[arg(long)]
    pub scenario: Option<String>,
    /// Seed of every choice; the scenario's seed, or 0, when absent.
    #[arg(long)]
    pub seed: Option<u64>,
    /// How approvals are answered; the scenario's `approvals` when absent.
    #[arg(long, value_enum)]
    pub approve: Option<ApproveMode>,
    #[arg(long, value_enum, default_value_t = PreviewFormat::Text)]
    pub format: PreviewFormat,
    /// Play the scenario's role OLD as the playbook's role NEW (a name or a
    /// selector such as `mode:worker#1`); repeatable.
    #[arg(long = "map", value_name = "OLD=NEW", value_parser = parse_mapping)]
    pub map: Vec<RoleMapping>,
}

fn parse_mapping(text: &str) -> Result<RoleMapping, String> {
    RoleMapping::parse(text)
}

#[derive(Args)]
pub struct PromptArgs {
    /// Playbook file (YAML or JSON).
    pub file: String,
    /// Name of the role.
    pub role: String,
    /// Scenario whose run input fills the placeholders (its first task).
    #[arg(long)]
    pub scenario: Option<String>,
}

fn read_scenario(path: Option<&str>) -> Result<(Scenario, Option<String>)> {
    let Some(path) = path else {
        return Ok((Scenario::default(), None));
    };
    let bytes = input::read_file(path, MAX_SCENARIO_BYTES, "scenarios")?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("cannot read {path}: it is not UTF-8 text"))?;
    let scenario = Scenario::parse(&text).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    let name = scenario.name.clone().or_else(|| {
        Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
    });
    Ok((scenario, name))
}

/// Asks the approval question on standard error (preview and run ask alike).
pub(crate) fn ask(request: &ApprovalRequest<'_>) {
    let what = match &request.subject {
        ApprovalSubject::Tool { tool } => format!("tool `{tool}`"),
        ApprovalSubject::Gate { gate } => format!("gate `{gate}`"),
    };
    let role = request.role.map(|r| format!(" ({r})")).unwrap_or_default();
    // The question must show what is approved, exactly: no name in it may
    // move the cursor or rewrite the line.
    let question = format!(
        "approve {what} for {}{role} in stage {}?",
        request.task_id, request.stage
    );
    eprint!("{} [y/N] ", printable(&question));
    let _ = std::io::stderr().flush();
}

/// Whether an answer line approves: `y` or `yes`, any case.
pub(crate) fn approves(line: &str) -> bool {
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// Asks a person on the terminal. End of input (or a read error) denies.
struct Terminal;

impl Approver for Terminal {
    async fn decide(&mut self, request: &ApprovalRequest<'_>) -> ApprovalDecision {
        ask(request);
        let mut line = String::new();
        let approved = std::io::stdin().lock().read_line(&mut line).is_ok() && approves(&line);
        ApprovalDecision {
            approved,
            by: "user".into(),
            waited_ms: 0,
        }
    }
}

pub fn preview(args: PreviewArgs) -> Result<ExitCode> {
    let source = input::read(&args.file)?;
    let report = playbook_core::validate_source(&source.text, source.format, &source.options());
    let Some(playbook) = report.playbook else {
        for f in &report.findings {
            let line = format!("{}: {} {} {}", args.file, f.code, f.path, f.message);
            eprintln!("{}", redact_str(&line));
        }
        eprintln!(
            "{}: not a structurally valid playbook; nothing was run",
            args.file
        );
        return Ok(ExitCode::from(1));
    };
    let (mut scenario, scenario_name) = read_scenario(args.scenario.as_deref())?;
    let scenario_path = args.scenario.as_deref().unwrap_or("the scenario");
    if !args.map.is_empty() {
        scenario
            .map_roles(&args.map, &playbook)
            .map_err(|e| anyhow::anyhow!("{scenario_path}: {e}"))?;
    }
    // The run refuses such a scenario itself (its log says why); the
    // person at the terminal also learns the exact flags that fix it.
    let unmatched = scenario.unmatched(&playbook);
    if !unmatched.is_empty() {
        eprintln!("{}", redact_str(&mapping_hint(scenario_path, &unmatched)));
    }
    let options = RunOptions {
        seed: args.seed.or(scenario.seed).unwrap_or(0),
        scenario_name,
        // A plan of many tasks parks their state in a temporary file.
        spill: Some(playbook_runner::spill::port()),
        ..Default::default()
    };
    let asks_a_person = matches!(args.approve, Some(ApproveMode::Ask));
    let approver: AnyApprover<'_, Terminal> = match args.approve {
        Some(ApproveMode::Auto) => AnyApprover::Auto(Default::default()),
        Some(ApproveMode::Deny) => AnyApprover::Deny(Default::default()),
        Some(ApproveMode::Ask) => AnyApprover::Other(Terminal),
        None => AnyApprover::Scenario(playbook_orchestrator::scenario::ScriptedApprover {
            script: scenario.approvals.as_ref(),
        }),
    };
    let stdout = std::io::stdout();
    let report = match args.format {
        PreviewFormat::Jsonl => {
            // A preview waits on nothing but a person asked to approve
            // (`--approve ask`): then each event is written as it happens,
            // so whoever reads the log sees what led to the question. Else
            // the simulation runs flat out and its events go out in blocks:
            // a write per line costs a system call per event (a preview of
            // 117 000 events into a pipe took about a third longer).
            let out: Box<dyn Write> = if asks_a_person {
                Box::new(std::io::LineWriter::new(stdout.lock()))
            } else {
                Box::new(std::io::BufWriter::new(stdout.lock()))
            };
            let mut sink = JsonlSink::new(out);
            let report = run_blocking(&playbook, &scenario, &options, approver, &mut sink);
            if let Some(e) = sink.error.take() {
                return Err(e).context("cannot write the event log");
            }
            sink.into_inner()
                .flush()
                .context("cannot write the event log")?;
            report
        }
        PreviewFormat::Text => {
            let mut out = stdout.lock();
            let mut sink = FnSink(|record: &EventRecord| {
                // Events come redacted from the engine; the text is
                // redacted again because it is a record of its own.
                if let Some(line) = describe(&record.event) {
                    let _ = writeln!(out, "{} {}", clock(record.t_ms), redact_str(&line));
                }
            });
            let report = run_blocking(&playbook, &scenario, &options, approver, &mut sink);
            // Like the live lines: a closed pipe ends the output, not the run.
            let _ = out.write_all(redact_str(&summary(&report)).as_bytes());
            report
        }
    };
    Ok(if report.outcome == Some(Outcome::Passed) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// What to add to the command line so that the scenario's unmatched keys
/// address roles the playbook has: one `--map` per key, with its best
/// candidate (or a placeholder when nothing resembles it).
pub(crate) fn mapping_hint(scenario: &str, unmatched: &[Unmatched]) -> String {
    let mut out = format!(
        "{scenario}: the scenario scripts {} role key(s) this playbook lacks:\n",
        unmatched.len()
    );
    let mut flags = Vec::new();
    for u in unmatched {
        out.push_str(&format!("  {}\n", u.reason));
        let to = u.candidates.first().map_or("ROLE", String::as_str);
        flags.push(format!(
            "--map {}",
            shell_word(&format!("{}={to}", u.selector))
        ));
    }
    out.push_str(&format!("add: {}", flags.join(" ")));
    out
}

/// A word as typed in a shell: quoted when it holds anything but plain
/// name characters.
fn shell_word(word: &str) -> String {
    let plain = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '#' | '.' | '='));
    let word = playbook_orchestrator::scenario::selector::short(word);
    match plain && !word.starts_with('#') {
        true => word,
        false => format!("'{}'", word.replace('\'', "'\\''")),
    }
}

/// Virtual time as `hh:mm:ss.mmm`.
pub(crate) fn clock(t_ms: u64) -> String {
    let s = t_ms / 1000;
    format!(
        "[{:02}:{:02}:{:02}.{:03}]",
        s / 3600,
        (s / 60) % 60,
        s % 60,
        t_ms % 1000
    )
}

/// The summary after the live report, as text. Names, verdicts, tools
/// and titles come from files and agents: each is escaped as it goes in
/// ([`printable`]), so none can rewrite the terminal or forge a line.
pub(crate) fn summary(report: &RunReport) -> String {
    use std::fmt::Write as _;
    let p = |text: &str| playbook_orchestrator::redact::printable(text).into_owned();
    let mut out = String::new();
    let _ = writeln!(out);
    let _ = writeln!(out, "summary");
    let outcome = match report.outcome {
        Some(outcome) => format!("{outcome:?}").to_lowercase(),
        None => "unknown".to_string(),
    };
    let _ = writeln!(out, "  outcome: {outcome}");
    let _ = writeln!(
        out,
        "  agent calls: {}   virtual time: {:.1} s",
        report.steps,
        report.virtual_ms as f64 / 1000.0
    );
    if !report.bounds.is_empty() {
        let _ = writeln!(out, "  worst case per stage (static bound):");
        for b in &report.bounds {
            let total = b.total.map(|t| format!(", {t} in all")).unwrap_or_default();
            let enabled = if b.enabled { "" } else { " (disabled)" };
            let _ = writeln!(
                out,
                "    {:<12} {} call(s) per task{total}, {} at once{enabled}",
                p(&b.stage),
                b.per_task,
                b.max_parallel
            );
        }
    }
    // A run that passed with refused tool calls passed *because* the
    // contract held; the summary says so rather than hiding it in the log.
    let refused: Vec<String> = report
        .audit
        .runs
        .iter()
        .flat_map(|r| r.tool_calls.iter().map(move |c| (r, c)))
        .filter_map(|(r, c)| match &c.result {
            playbook_orchestrator::agent::ToolResult::Denied { code, .. } => Some(format!(
                "{} {} `{}` ({code})",
                p(&r.task_id),
                p(&r.role),
                p(&c.tool)
            )),
            playbook_orchestrator::agent::ToolResult::Ran { .. } => None,
        })
        .collect();
    if !refused.is_empty() {
        let _ = writeln!(out, "  tool calls refused: {}", refused.len());
        for line in refused.iter().take(20) {
            let _ = writeln!(out, "    {line}");
        }
        if refused.len() > 20 {
            let _ = writeln!(out, "    … {} more in the audit log", refused.len() - 20);
        }
    }
    if !report.tasks.is_empty() {
        let _ = writeln!(out, "  tasks:");
        for t in &report.tasks {
            let rounds: Vec<String> = t
                .iterations
                .iter()
                .map(|(r, n)| format!("{}×{n}", p(r)))
                .collect();
            let code = t.code.map(|c| format!(" {c}")).unwrap_or_default();
            let verdict = t
                .last_verdict
                .as_ref()
                .map(|v| format!(", last verdict {}", p(v)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "    {:<6} {:<9}{code}  {}{verdict}  {}",
                p(&t.task_id),
                format!("{:?}", t.state).to_lowercase(),
                rounds.join(" "),
                p(&t.title)
            );
        }
    }
    out
}

pub fn prompt(args: PromptArgs) -> Result<ExitCode> {
    let source = input::read(&args.file)?;
    let report = playbook_core::validate_source(&source.text, source.format, &source.options());
    let Some(playbook) = report.playbook else {
        eprintln!("{}: not a structurally valid playbook", args.file);
        return Ok(ExitCode::from(1));
    };
    let flow = playbook_core::flow::Flow::new(&playbook);
    let Some(index) = flow.index_of(&args.role) else {
        let names: Vec<&str> = flow.roles.iter().map(|r| r.role.name.as_str()).collect();
        eprintln!(
            "{}: no role `{}`; roles: {}",
            args.file,
            args.role,
            names.join(", ")
        );
        return Ok(ExitCode::from(1));
    };
    let (scenario, _) = read_scenario(args.scenario.as_deref())?;
    let mut inputs = Map::new();
    let input = &scenario.input;
    if !input.goal.is_empty() {
        inputs.insert("goal".into(), json!(input.goal));
    }
    for (k, v) in &input.values {
        inputs.insert(k.clone(), v.clone());
    }
    if let Some(task) = input.tasks.first() {
        inputs.insert("task".into(), json!(task.title));
        inputs.insert("title".into(), json!(task.title));
        if let Some(id) = &task.id {
            inputs.insert("task_id".into(), json!(id));
        }
        if !task.acceptance_criteria.is_empty() {
            inputs.insert(
                "acceptance_criteria".into(),
                Value::from(task.acceptance_criteria.clone()),
            );
        }
        for (k, v) in &task.values {
            inputs.insert(k.clone(), v.clone());
        }
    }
    print!(
        "{}",
        playbook_orchestrator::prompt::render(&playbook, &flow.roles[index], &inputs)
    );
    Ok(ExitCode::SUCCESS)
}
