//! The engine: runs a validated playbook over a run input, stage by stage,
//! enforcing every role contract.
//!
//! **Scheduling.** Stages run in order; a stage starts when every task has
//! finished the previous one, so stage gates see final counters. Within a
//! stage, tasks run concurrently on up to `max_parallel_worktrees` worktrees.
//! Concurrency is simulated in virtual time: each agent invocation starts at
//! an instant and completes `duration_ms` later; the engine always processes
//! the earliest pending instant next (ties by the order they were scheduled).
//! Nothing depends on the wall clock or on thread timing, so the event log is
//! reproducible byte for byte.
//!
//! **Routing** follows `playbook_core::flow`: a task enters a stage at the
//! role the assignment selects (the first role by default). After a role's
//! output passes its gate, the task goes to the first `handoff_to` target
//! that did not first run before this role for the task (forward), to the
//! next role of the stage when there is no `handoff_to`, or leaves the stage.
//! When the gate fails, the task goes back to a `handoff_to` target that first
//! ran earlier (reviewer → worker): the review loop, bounded by the smallest
//! `retry_policy.max_iterations` on the loop's roles.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde_json::{Map, Value, json};

use playbook_core::flow::Flow;
use playbook_core::gate::{self, Gate, Verdict};
use playbook_core::model::{Playbook, RoleMode};
use playbook_core::validate::{DEFAULT_MUTATING_ACTIONS, ESCALATION_TRIGGERS};

use crate::agent::{
    Agent, AgentOutcome, AgentOutput, AgentStep, ApprovalRequest, ApprovalSubject, Approver,
    Invocation, Release, RoleAssigner, ToolResult, Tools,
};
use crate::audit::{
    AgentRunRecord, AuditInputs, AuditLog, ContextSnapshot, ToolCallRecord, sha256_hex,
};
use crate::bound::{StageBound, loop_bounds, stage_bounds};
use crate::clock::{Clock, Rng, iso8601};
use crate::code::ErrorCode;
use crate::envelope::{
    self, ActiveLock, AssignmentPacket, AssignmentStage, AssignmentTask, Blocker, CONTRACT_VERSION,
    Caps, ContextItem, ContextKind, Envelope, HandoffBundle, LedgerDelta, LedgerRow, LedgerStatus,
    OrchestratorOutput, OutputSchemaName, PacketTask, PacketType, Priority, ResultStatus,
    RoleAssignmentRequest, RoleAssignmentResponse, SubagentResult, TaskIdString, TaskType,
    WorklogEntry,
};
use crate::event::{
    Event, EventRecord, EventSink, GateScope, HandoffReason, Outcome, PreflightResult, RunRecord,
    TaskState,
};
use crate::ledger::{DeltaStream, Ledger};
use crate::scenario::{Scenario, ViolationPolicy};
use crate::worklog::Worklogs;

mod admission;
mod enforce;
mod explain;
mod gates;
mod park;
mod records;
mod schedule;
mod setup;
mod state;
mod step;
mod text;
mod tools;
mod waiting;

pub use admission::{overlaps, parse_assignment};
use explain::*;
use gates::*;
pub use setup::Prepared;
use state::*;
use text::*;
use waiting::{LOCK, NEVER, Waiting};

/// Default lock/dependency/cap wait before a task is blocked.
pub const DEFAULT_WAIT_MS: u64 = 600_000;
/// Default longest approval wait.
pub const DEFAULT_APPROVAL_TIMEOUT_MS: u64 = 300_000;
/// Default most agent invocations in a run.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000;
/// Default most tool calls in one invocation.
pub const DEFAULT_MAX_TOOL_CALLS: u32 = 64;
/// Default largest output text.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 1024 * 1024;
/// Default most tool calls in a run.
pub const DEFAULT_MAX_RUN_TOOL_CALLS: u64 = 100_000;
/// Default bytes of parked task state kept in memory before a spill store
/// takes them: a few thousand tasks of the reference flow.
pub const DEFAULT_PARK_MEMORY_BYTES: usize = 8 * 1024 * 1024;
/// Default most tasks a run keeps live between stages without parking.
pub const DEFAULT_PARK_ABOVE_TASKS: usize = 256;
/// Most tasks a planner may create.
pub const MAX_CREATED_TASKS: usize = 100_000;

/// How a run is configured beyond the playbook and scenario.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub seed: u64,
    /// Reject unknown non-`x_` fields in envelopes received.
    pub strict_envelopes: bool,
    /// Options of the validation that must pass before the run.
    pub validation: playbook_core::Options,
    /// Name shown in events and audit (usually the scenario file name).
    pub scenario_name: Option<String>,
    /// Name of the agent implementation, for the audit log.
    pub agent_name: String,
    /// Read before every agent and tool call: a person or the runner's
    /// wall-time budget stops the run.
    pub stop: crate::stop::Stop,
    /// A real run's preflight, checked by the runner against the
    /// repository; a failed check refuses the run exactly as a scenario's
    /// preflight does. `None`: the scenario's `preflight` applies.
    pub preflight: Option<Vec<crate::event::PreflightResult>>,
    /// A real run's context bundle (path → SHA-256) and the context files
    /// that were absent, for the audit log.
    pub context_files: indexmap::IndexMap<String, String>,
    pub context_absent: Vec<String>,
    /// Keep the per-call records (the audit log's runs, the worklogs, the
    /// orchestrator outputs' ledger deltas) and the handoff bundle in the
    /// report. Off, each record goes to [`EventSink::record`] when complete
    /// and is then dropped, and there is no handoff bundle, so the run's
    /// memory does not grow with its steps (a simulation of many runs); the
    /// engine does the same work either way. Task summaries are kept.
    pub keep_records: bool,
    /// Build the report's records: task summaries, findings, bounds, the
    /// audit log's header, the ledger, worklogs and orchestrator outputs,
    /// each redacted before it is returned. Off (a caller that reads only
    /// its sink: a simulation), the report holds the run id, outcome and
    /// counters only. The run is the same either way: every check is made,
    /// every event and record reaches the sink, the output envelopes are
    /// built and checked; only copies nobody reads are not made, nor
    /// redacted, nor freed.
    pub build_report: bool,
    /// Bytes of parked task state (a task between stages, `engine/park.rs`)
    /// kept in memory; beyond them blocks go to [`Self::spill`]. Without a
    /// spill store every block stays in memory.
    pub park_memory_bytes: usize,
    /// A run of at most this many tasks parks none: their live state is a
    /// bounded few hundred KB, and parking (an encode and a decode per task
    /// per stage) would cost a simulation of a few tasks per run a fifth of
    /// its time for nothing. Above it every task leaving a stage is parked.
    ///
    /// `None` (the default) decides by the report: a run that builds its
    /// report ([`Self::build_report`]) parks none, because the report reads
    /// every task's state at the run's end, so all of it is live then
    /// whatever was parked before: parking would cost time and lower no
    /// peak. A run without a report parks above
    /// [`DEFAULT_PARK_ABOVE_TASKS`] tasks.
    pub park_above_tasks: Option<usize>,
    /// The run's spill store (a port: the engine does no IO), opened the
    /// first time the memory bound is reached.
    pub spill: Option<crate::spill::SpillPort>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: 0,
            strict_envelopes: true,
            validation: playbook_core::Options::default(),
            scenario_name: None,
            agent_name: "scripted".into(),
            stop: crate::stop::Stop::default(),
            preflight: None,
            context_files: Default::default(),
            context_absent: Vec::new(),
            keep_records: true,
            build_report: true,
            park_memory_bytes: DEFAULT_PARK_MEMORY_BYTES,
            park_above_tasks: None,
            spill: None,
        }
    }
}

/// Everything the engine talks to.
pub struct Ports<'p, A, P, R, T, C, S> {
    pub agent: &'p mut A,
    pub approver: &'p mut P,
    pub assigner: &'p mut R,
    pub tools: &'p mut T,
    pub clock: &'p C,
    pub sink: &'p mut S,
}

/// A task as the run summary shows it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct TaskSummary {
    pub task_id: String,
    pub title: String,
    pub state: TaskState,
    pub code: Option<ErrorCode>,
    pub reason: Option<String>,
    /// Role → invocations for this task.
    pub iterations: indexmap::IndexMap<String, u32>,
    /// The last reviewer verdict, if any.
    pub last_verdict: Option<String>,
}

/// The outcome of a run and everything it recorded.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    pub run_id: String,
    pub outcome: Option<Outcome>,
    pub steps: u64,
    pub virtual_ms: u64,
    pub events: u64,
    pub tasks: Vec<TaskSummary>,
    pub bounds: Vec<StageBound>,
    pub findings: Vec<playbook_core::Finding>,
    pub ledger: Ledger,
    pub worklogs: Worklogs,
    pub audit: AuditLog,
    /// One orchestrator output envelope per stage.
    pub outputs: Vec<OrchestratorOutput>,
    pub handoff: Option<HandoffBundle>,
}

struct Engine<'p, 'b, A, P, R, T, C, S> {
    playbook: &'b Playbook,
    scenario: &'b Scenario,
    options: &'b RunOptions,
    ports: Ports<'p, A, P, R, T, C, S>,
    /// What every run of this playbook and scenario shares, built once.
    prepared: &'b Prepared<'b>,
    flow: &'b Flow<'b>,
    role_gates: &'b [Option<Gate>],
    stage_gates: &'b [(Option<Gate>, Option<Gate>)],
    loop_bound: &'b [Option<u32>],
    escalate: &'b [u8],
    mutating: &'b [String],
    run_id: String,
    start_ms: u64,
    now: u64,
    seq: u64,
    steps: u64,
    max_steps: u64,
    wait_ms: u64,
    approval_timeout_ms: u64,
    max_tool_calls: u32,
    max_output_bytes: u64,
    run_tool_calls: u64,
    max_run_tool_calls: u64,
    tasks: Vec<Task>,
    /// Per role: the contract block of its prompt and SHA-256 states that
    /// have already absorbed its fixed beginnings.
    prompt_blocks: &'b [setup::PromptBlock],
    /// The buffer every prompt is rendered into.
    prompt: String,
    ledger: Ledger,
    deltas: Vec<LedgerDelta>,
    delta_seq: u64,
    worklogs: Worklogs,
    audit: AuditLog,
    outputs: Vec<OrchestratorOutput>,
    stopped: bool,
    /// Resources the last accepted subagent result reported as changed.
    touched: Vec<String>,
    /// Each virtual instant's ISO-8601 form, formatted once.
    instants: crate::clock::Instants,
    /// Parked tasks' blocks in memory and the spill store.
    parking: park::Parking,
}

fn trigger_bit(trigger: &str) -> u8 {
    ESCALATION_TRIGGERS
        .iter()
        .position(|t| *t == trigger)
        .map(|i| 1u8 << i)
        .unwrap_or(0)
}

/// Runs a playbook. Validation errors, an invalid scenario, an unknown
/// explicit role or a failed preflight refuse the run with an event; nothing
/// here panics on user input.
pub async fn run<A, P, R, T, C, S>(
    playbook: &Playbook,
    scenario: &Scenario,
    options: &RunOptions,
    ports: Ports<'_, A, P, R, T, C, S>,
) -> RunReport
where
    A: Agent,
    P: Approver,
    R: RoleAssigner,
    T: Tools,
    C: Clock,
    S: EventSink,
{
    let prepared = Prepared::new(playbook, scenario, &options.validation);
    run_prepared(&prepared, options, ports).await
}

/// Runs a [`Prepared`] playbook and scenario: the same run as [`run`] (every
/// check, event and record), without repeating the work that does not
/// depend on the run (validation, compiled gates, rendered contract
/// blocks, hashes), so many runs of one playbook (a simulation) pay for it
/// once. `options.validation` is not read: the validation was made by
/// [`Prepared::new`].
pub async fn run_prepared<A, P, R, T, C, S>(
    prepared: &Prepared<'_>,
    options: &RunOptions,
    ports: Ports<'_, A, P, R, T, C, S>,
) -> RunReport
where
    A: Agent,
    P: Approver,
    R: RoleAssigner,
    T: Tools,
    C: Clock,
    S: EventSink,
{
    let scenario = prepared.scenario;
    let mut rng = Rng::new(options.seed);
    let run_id = rng.uuid_v4();
    let start_ms = ports.clock.start_ms();
    let limits = scenario.limits.clone().unwrap_or_default();
    let engine = Engine {
        playbook: prepared.playbook,
        scenario,
        options,
        ports,
        prepared,
        flow: &prepared.flow,
        role_gates: &prepared.role_gates,
        stage_gates: &prepared.stage_gates,
        loop_bound: &prepared.loop_bound,
        escalate: &prepared.escalate,
        mutating: &prepared.mutating,
        run_id: run_id.clone(),
        start_ms,
        now: 0,
        seq: 0,
        steps: 0,
        max_steps: limits.max_steps.unwrap_or(DEFAULT_MAX_STEPS),
        wait_ms: limits.lock_wait_ms.unwrap_or(DEFAULT_WAIT_MS),
        approval_timeout_ms: limits
            .approval_timeout_ms
            .unwrap_or(DEFAULT_APPROVAL_TIMEOUT_MS),
        max_tool_calls: limits.max_tool_calls.unwrap_or(DEFAULT_MAX_TOOL_CALLS),
        max_output_bytes: limits.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT_BYTES),
        run_tool_calls: 0,
        max_run_tool_calls: limits
            .max_run_tool_calls
            .unwrap_or(DEFAULT_MAX_RUN_TOOL_CALLS),
        tasks: Vec::new(),
        prompt_blocks: &prepared.prompt_blocks,
        prompt: String::new(),
        ledger: Ledger::new(),
        deltas: Vec::new(),
        delta_seq: 0,
        worklogs: Worklogs::default(),
        audit: AuditLog::default(),
        outputs: Vec::new(),
        stopped: false,
        touched: Vec::new(),
        instants: Default::default(),
        parking: Default::default(),
    };
    let mut report = engine.run().await;
    // The findings, bounds and audit context are the prepared ones, each
    // redacted once by `Prepared::new`. A report not built holds no
    // record to redact.
    if options.build_report {
        crate::redact::report_with(&mut report, crate::redact::Prepared::Clean);
    }
    report
}

impl<A, P, R, T, C, S> Engine<'_, '_, A, P, R, T, C, S>
where
    A: Agent,
    P: Approver,
    R: RoleAssigner,
    T: Tools,
    C: Clock,
    S: EventSink,
{
    fn emit(&mut self, mut event: Event) {
        // The one way out for events: no sink ever sees an unredacted one.
        crate::redact::event(&mut event);
        self.deliver(event);
    }

    /// [`Self::emit`] of a step's output or gate event: with `known_clean`
    /// (the step's names were found clean as the task entered the stage and
    /// the gate's source when the playbook was prepared) only the texts the
    /// output made are scanned (`redact::step_event`).
    fn emit_step(&mut self, known_clean: bool, mut event: Event) {
        if known_clean {
            crate::redact::step_event(&mut event);
        } else {
            crate::redact::event(&mut event);
        }
        self.deliver(event);
    }

    /// Hands a redacted event to the sink with its sequence number and time.
    fn deliver(&mut self, event: Event) {
        let record = EventRecord {
            seq: self.seq,
            t_ms: self.now,
            event,
        };
        self.seq += 1;
        self.ports.sink.emit(&record);
    }

    fn scenario_name(&self) -> Option<String> {
        self.options
            .scenario_name
            .clone()
            .or_else(|| self.scenario.name.clone())
    }

    fn at(&self) -> String {
        iso8601(self.start_ms.saturating_add(self.now))
    }

    /// The ISO-8601 form of virtual time `now + later_ms`, formatted once
    /// per instant: the per-step records' way to [`Self::at`].
    fn instant(&mut self, later_ms: u64) -> String {
        let unix_ms = self
            .start_ms
            .saturating_add(self.now)
            .saturating_add(later_ms);
        self.instants.at(unix_ms).to_string()
    }

    fn refuse(
        &mut self,
        report: &mut RunReport,
        code: ErrorCode,
        reason: String,
        details: Vec<String>,
    ) {
        self.emit(Event::RunRefused {
            code,
            reason,
            details,
        });
        self.emit(Event::RunFinished {
            outcome: Outcome::Refused,
            tasks_done: 0,
            tasks_blocked: 0,
            tasks_failed: 0,
            tasks_canceled: 0,
            steps: 0,
            virtual_ms: 0,
        });
        report.outcome = Some(Outcome::Refused);
        report.events = self.seq;
    }

    async fn run(mut self) -> RunReport {
        let playbook = self.playbook;
        let scenario = self.scenario;
        let mut report = RunReport {
            run_id: self.run_id.clone(),
            ..Default::default()
        };

        // ---- refuse what must not run (found once, by `Prepared::new`)
        let prepared = self.prepared;
        let build = self.options.build_report;
        if build {
            report.findings = prepared.findings.clone();
        }
        if let Some(refusal) = &prepared.refusal {
            let (code, reason, details) = refusal.clone();
            self.refuse(&mut report, code, reason, details);
            return report;
        }
        if let Err(details) = self.build_tasks() {
            let reason = "the run input has invalid tasks".to_string();
            self.refuse(&mut report, ErrorCode::ScenarioInvalid, reason, details);
            return report;
        }

        // ---- start
        if build {
            report.bounds = prepared.bounds.clone();
            self.audit = self.audit_header();
        }
        self.emit(Event::RunStarted {
            run_id: self.run_id.clone(),
            playbook_id: playbook.id.clone(),
            playbook_hash: prepared.context.playbook_hash.clone(),
            scenario: self.scenario_name(),
            seed: self.options.seed,
            started_at: self.at(),
            tasks: self.tasks.len() as u32,
            bounds: prepared.bounds.clone(),
        });
        let checked = match &self.options.preflight {
            Some(results) => Some(results.clone()),
            None if !scenario.preflight.is_empty() => Some(self.preflight()),
            None => None,
        };
        if let Some(results) = checked {
            let failed: Vec<String> = results
                .iter()
                .filter(|r| !r.passed)
                .map(|r| format!("{}: {}", r.name, r.detail))
                .collect();
            self.emit(Event::PreflightChecked { results });
            if !failed.is_empty() {
                let reason = format!("{} preflight check(s) failed", failed.len());
                self.refuse(&mut report, ErrorCode::PreflightFailed, reason, failed);
                report.audit = std::mem::take(&mut self.audit);
                return report;
            }
        }
        // One task live at a time: its row is made and parked with it. A
        // flush per task applies and records the same deltas in the same
        // order as one flush of all (no event comes between them).
        for i in 0..self.tasks.len() {
            self.delta(
                i,
                LedgerStatus::Todo,
                "orchestrator",
                "created from the run input",
                true,
            );
            self.flush_deltas();
            // The row joins the task's block; the block is not read.
            if !self.park_row(i) {
                break;
            }
        }

        // ---- stages
        for s in 0..playbook.workflow.len() {
            if self.stopped {
                break;
            }
            let Some((name, stage)) = playbook.workflow.get_index(s) else {
                break;
            };
            if !stage.is_enabled() {
                self.emit(Event::StageSkipped {
                    stage: name.to_string(),
                    reason: "disabled".into(),
                });
                continue;
            }
            let active: Vec<usize> = (0..self.tasks.len())
                .filter(|&i| self.tasks[i].status == Status::Active)
                .collect();
            if active.is_empty() {
                self.emit(Event::StageSkipped {
                    stage: name.to_string(),
                    reason: "no active task".into(),
                });
                continue;
            }
            self.run_stage(s, active).await;
        }

        // ---- finish
        // Whatever a program that outlived its invocation changed since.
        for change in self.ports.tools.outside_changes() {
            self.emit(Event::Warning {
                code: ErrorCode::ScopeViolation,
                message: format!("at the run's end: {}", change.message),
            });
        }
        // A task's state is kept to the end only for the report (its
        // summaries, ledger, handoff bundle); a simulation's is dropped
        // once its last delta is applied.
        let keep_bodies = build;
        let mut counts = [0u32; 4];
        for i in 0..self.tasks.len() {
            match self.tasks[i].status {
                Status::Active => {
                    // The branch is held to the task's scopes once more
                    // before the task passes: since it left its last stage
                    // another task's programs could have moved it.
                    let refused = if self.stopped {
                        None
                    } else {
                        let task_id = self.task_id_of(i);
                        self.branch_refusal(i, &task_id)
                    };
                    // A simulation's task that passed needs only its
                    // ledger row to end: the rest stays parked, then goes.
                    let readable = if keep_bodies || self.stopped || refused.is_some() {
                        self.unpark(i)
                    } else {
                        self.unpark_row(i)
                    };
                    if !readable {
                        // Its state was lost with the spill store.
                        self.tasks[i].status = Status::Canceled;
                        self.tasks[i].code = Some(ErrorCode::RunStopped);
                        counts[3] += 1;
                        continue;
                    }
                    if self.stopped {
                        self.cancel(i);
                        counts[3] += 1;
                    } else if let Some(reason) = refused {
                        self.end_task(
                            i,
                            Status::Failed,
                            ErrorCode::ScopeViolation,
                            reason,
                            "orchestrator",
                        );
                        counts[2] += 1;
                    } else {
                        let task_id = self.task_id_of(i);
                        self.tasks[i].status = Status::Done;
                        self.delta(
                            i,
                            LedgerStatus::Done,
                            "orchestrator",
                            "every stage passed",
                            false,
                        );
                        self.emit(Event::TaskDone { task_id });
                        counts[0] += 1;
                    }
                    self.release(i);
                    // Applied per task, so the deltas of every task are
                    // not held at once; the sink receives each record
                    // after its task's event instead of after them all.
                    self.flush_deltas();
                    if !keep_bodies {
                        self.forget(i);
                    }
                }
                Status::Done => counts[0] += 1,
                Status::Blocked => counts[1] += 1,
                Status::Failed => counts[2] += 1,
                Status::Canceled => counts[3] += 1,
            }
        }
        self.flush_deltas();
        let outcome = if self.parking.failed.is_some() {
            Outcome::Failed
        } else if self.stopped {
            Outcome::Stopped
        } else if counts[2] > 0 {
            Outcome::Failed
        } else if counts[1] > 0 {
            Outcome::Blocked
        } else {
            Outcome::Passed
        };
        self.emit(Event::RunFinished {
            outcome,
            tasks_done: counts[0],
            tasks_blocked: counts[1],
            tasks_failed: counts[2],
            tasks_canceled: counts[3],
            steps: self.steps,
            virtual_ms: self.now,
        });
        report.outcome = Some(outcome);
        report.steps = self.steps;
        report.virtual_ms = self.now;
        report.events = self.seq;
        if !build {
            return report;
        }
        // The report reads every task: all live again, the ledger's rows
        // back in the order they were created.
        for i in 0..self.tasks.len() {
            self.unpark(i);
        }
        let ids = self.tasks.iter().filter_map(|t| t.body());
        self.ledger
            .order_rows(ids.map(|b| b.packet.task_id.as_str()));
        self.audit.ended_at = self.at();
        self.audit.outcome = Some(outcome);
        // The handoff bundle repeats every task's ledger row: a per-task
        // record, kept only when the report keeps records.
        if self.options.keep_records {
            report.handoff = Some(self.handoff_bundle());
        }
        report.tasks = self.summaries();
        report.ledger = std::mem::take(&mut self.ledger);
        report.worklogs = std::mem::take(&mut self.worklogs);
        report.audit = std::mem::take(&mut self.audit);
        report.outputs = std::mem::take(&mut self.outputs);
        report
    }
}
