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
use std::collections::{BinaryHeap, VecDeque};

use serde_json::{Map, Value, json};

use playbook_core::flow::Flow;
use playbook_core::gate::{self, Gate, Verdict};
use playbook_core::model::{Playbook, RoleMode};
use playbook_core::validate::{BUILTIN_RUN_INPUTS, DEFAULT_MUTATING_ACTIONS, ESCALATION_TRIGGERS};

use crate::agent::{
    Agent, AgentOutcome, AgentOutput, AgentStep, ApprovalRequest, ApprovalSubject, Approver,
    Invocation, RoleAssigner, ToolResult, Tools,
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
    Event, EventRecord, EventSink, GateScope, HandoffReason, Outcome, PreflightResult, TaskState,
};
use crate::ledger::{DeltaStream, Ledger};
use crate::scenario::{Scenario, ViolationPolicy};
use crate::worklog::Worklogs;

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
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: 0,
            strict_envelopes: true,
            validation: playbook_core::Options::default(),
            scenario_name: None,
            agent_name: "scripted".into(),
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Active,
    Done,
    Blocked,
    Failed,
    Canceled,
}

struct Task {
    packet: PacketTask,
    values: Map<String, Value>,
    explicit_role: Option<String>,
    status: Status,
    code: Option<ErrorCode>,
    reason: Option<String>,
    /// Invocations per flow role.
    iterations: Vec<u32>,
    last_verdict: Option<String>,
    /// The goal task whose planner output creates the tasks of later stages.
    is_goal: bool,
}

struct Pending {
    outcome: AgentOutcome,
    duration_ms: u64,
    blocked_tool: bool,
    denied_approval: bool,
    /// A violation found before or while the agent ran (missing inputs,
    /// too many tool calls): the output is not looked at.
    precheck: Option<(ErrorCode, String)>,
    record: AgentRunRecord,
}

struct Running {
    task: usize,
    role: usize,
    /// Order in which each role of the stage first ran for the task (0 = never).
    first_run: Vec<u32>,
    runs: u32,
    pending: Option<Pending>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    Start,
    Complete,
}

/// The stage-local counters stage gates read.
#[derive(Default, Clone, Copy)]
struct Counters {
    total: u32,
    done: u32,
    failed: u32,
    blocked: u32,
}

/// How a role's step ended, for routing.
enum StepEnd {
    Passed,
    /// Gate failed or contract violated: route back if possible.
    Failed {
        code: ErrorCode,
        trigger: &'static str,
        reason: String,
    },
    /// Ends the task now (escalation or a hard failure).
    Terminal {
        code: ErrorCode,
        trigger: &'static str,
        reason: String,
    },
}

struct Engine<'p, 'b, A, P, R, T, C, S> {
    playbook: &'b Playbook,
    scenario: &'b Scenario,
    options: &'b RunOptions,
    ports: Ports<'p, A, P, R, T, C, S>,
    flow: Flow<'b>,
    role_gates: Vec<Option<Gate>>,
    stage_gates: Vec<(Option<Gate>, Option<Gate>)>,
    loop_bound: Vec<Option<u32>>,
    escalate: Vec<u8>,
    mutating: Vec<String>,
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
    tasks: Vec<Task>,
    /// Per role: the contract block of its prompt and a SHA-256 state that
    /// has already absorbed it.
    prompt_blocks: Vec<(String, sha2::Sha256)>,
    ledger: Ledger,
    deltas: Vec<LedgerDelta>,
    delta_seq: u64,
    worklogs: Worklogs,
    audit: AuditLog,
    outputs: Vec<OrchestratorOutput>,
    stopped: bool,
    /// Resources the last accepted subagent result reported as changed.
    touched: Vec<String>,
    timestamp: String,
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
    let mut rng = Rng::new(options.seed);
    let run_id = rng.uuid_v4();
    let start_ms = ports.clock.start_ms();
    let limits = scenario.limits.clone().unwrap_or_default();
    let flow = Flow::new(playbook);
    let mut escalate = vec![0u8; flow.roles.len()];
    for (i, r) in flow.roles.iter().enumerate() {
        escalate[i] = r
            .role
            .escalate_on()
            .iter()
            .fold(0, |m, t| m | trigger_bit(t));
    }
    for members in flow.loops() {
        let mask = members.iter().fold(0, |m, &i| m | escalate[i]);
        for &i in &members {
            escalate[i] |= mask;
        }
    }
    let loop_bound = loop_bounds(&flow);
    let mutating = match &playbook.mutating_actions {
        Some(list) => list.clone(),
        None => DEFAULT_MUTATING_ACTIONS
            .iter()
            .map(|s| s.to_string())
            .collect(),
    };
    let engine = Engine {
        playbook,
        scenario,
        options,
        ports,
        flow,
        role_gates: Vec::new(),
        stage_gates: Vec::new(),
        loop_bound,
        escalate,
        mutating,
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
        tasks: Vec::new(),
        prompt_blocks: Vec::new(),
        ledger: Ledger::new(),
        deltas: Vec::new(),
        delta_seq: 0,
        worklogs: Worklogs::default(),
        audit: AuditLog::default(),
        outputs: Vec::new(),
        stopped: false,
        touched: Vec::new(),
        timestamp: String::new(),
    };
    let mut report = engine.run().await;
    crate::redact::report(&mut report);
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
        iso8601(self.start_ms + self.now)
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

        // ---- refuse what must not run
        let findings = playbook_core::validate(playbook, &self.options.validation);
        let errors: Vec<String> = findings
            .iter()
            .filter(|f| f.is_error())
            .map(|f| format!("{} {}: {}", f.code, f.path, f.message))
            .collect();
        report.findings = findings;
        if !errors.is_empty() {
            let reason = format!("the playbook has {} validation error(s)", errors.len());
            self.refuse(&mut report, ErrorCode::PlaybookInvalid, reason, errors);
            return report;
        }
        if let Err(e) = scenario.check_against(playbook) {
            self.refuse(&mut report, e.code, e.message, Vec::new());
            return report;
        }
        for (i, t) in scenario.input.tasks.iter().enumerate() {
            if let Some(role) = &t.role
                && playbook.role(role).is_none()
            {
                let reason = format!(
                    "task {} names role `{role}`, which the playbook does not define; roles are never inferred",
                    t.id.clone().unwrap_or_else(|| format!("#{}", i + 1))
                );
                self.refuse(&mut report, ErrorCode::RoleUnknown, reason, Vec::new());
                return report;
            }
        }
        self.prompt_blocks = self
            .flow
            .roles
            .iter()
            .map(|r| {
                use sha2::Digest;
                let block = crate::prompt::contract_block(playbook, r);
                let mut hasher = sha2::Sha256::new();
                hasher.update(block.as_bytes());
                (block, hasher)
            })
            .collect();
        if let Err(reason) = self.compile_gates() {
            self.refuse(&mut report, ErrorCode::PlaybookInvalid, reason, Vec::new());
            return report;
        }
        if let Err(details) = self.build_tasks() {
            let reason = "the run input has invalid tasks".to_string();
            self.refuse(&mut report, ErrorCode::ScenarioInvalid, reason, details);
            return report;
        }

        // ---- start
        let known_tasks = (!scenario.input.tasks.is_empty()).then_some(self.tasks.len() as u32);
        report.bounds = stage_bounds(playbook, known_tasks);
        let playbook_hash = sha256_hex(&serde_json::to_vec(playbook).unwrap_or_default());
        self.audit = self.audit_header(&playbook_hash);
        self.emit(Event::RunStarted {
            run_id: self.run_id.clone(),
            playbook_id: playbook.id.clone(),
            playbook_hash,
            scenario: self.scenario_name(),
            seed: self.options.seed,
            started_at: self.at(),
            tasks: self.tasks.len() as u32,
            bounds: report.bounds.clone(),
        });
        if !scenario.preflight.is_empty() {
            let results = self.preflight();
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
        let creates: Vec<usize> = (0..self.tasks.len()).collect();
        for i in creates {
            self.delta(
                i,
                LedgerStatus::Todo,
                "orchestrator",
                "created from the run input",
                true,
            );
        }
        self.flush_deltas();

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
        let mut counts = [0u32; 4];
        for i in 0..self.tasks.len() {
            let task_id = self.tasks[i].packet.task_id.clone();
            match self.tasks[i].status {
                Status::Active => {
                    if self.stopped {
                        self.cancel(i);
                        counts[3] += 1;
                    } else {
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
                }
                Status::Done => counts[0] += 1,
                Status::Blocked => counts[1] += 1,
                Status::Failed => counts[2] += 1,
                Status::Canceled => counts[3] += 1,
            }
        }
        self.flush_deltas();
        let outcome = if self.stopped {
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
        self.audit.ended_at = self.at();
        self.audit.outcome = Some(outcome);
        report.outcome = Some(outcome);
        report.steps = self.steps;
        report.virtual_ms = self.now;
        report.events = self.seq;
        report.handoff = Some(self.handoff_bundle());
        report.tasks = self.summaries();
        report.ledger = std::mem::take(&mut self.ledger);
        report.worklogs = std::mem::take(&mut self.worklogs);
        report.audit = std::mem::take(&mut self.audit);
        report.outputs = std::mem::take(&mut self.outputs);
        report
    }

    // ------------------------------------------------------------ setup

    fn compile_gates(&mut self) -> Result<(), String> {
        let playbook = self.playbook;
        let lookup = |key: &str| {
            playbook
                .policies
                .as_ref()
                .and_then(|p| p.get(key))
                .map(String::as_str)
        };
        let compile = |text: Option<&str>| -> Result<Option<Gate>, String> {
            text.map(|t| gate::compile(t, lookup).map_err(|e| e.to_string()))
                .transpose()
        };
        for r in &self.flow.roles {
            self.role_gates.push(compile(r.role.pass_condition())?);
        }
        for (_, stage) in playbook.stages() {
            self.stage_gates
                .push((compile(stage.enter_gate())?, compile(stage.exit_gate())?));
        }
        Ok(())
    }

    fn build_tasks(&mut self) -> Result<(), Vec<String>> {
        let input = &self.scenario.input;
        let mut base = Map::new();
        base.insert("goal".into(), json!(input.goal));
        for (k, v) in &input.values {
            base.insert(k.clone(), v.clone());
        }
        let mut problems = Vec::new();
        if input.tasks.is_empty() {
            let title = if input.goal.trim().is_empty() {
                "Reach the goal".to_string()
            } else {
                truncate(&input.goal, 500)
            };
            let task = self.make_task(
                "T-1".into(),
                title,
                &base,
                &crate::scenario::TaskInput::default(),
            );
            self.tasks.push(Task {
                is_goal: true,
                ..task
            });
        }
        let mut seen: std::collections::HashSet<String> = self
            .tasks
            .iter()
            .map(|t| t.packet.task_id.clone())
            .collect();
        for (i, t) in input.tasks.iter().enumerate() {
            let id = t.id.clone().unwrap_or_else(|| format!("T-{}", i + 1));
            let task = self.make_task(id, t.title.clone(), &base, t);
            let mut packet = AssignmentPacket {
                schema_version: CONTRACT_VERSION.into(),
                run_id: self.run_id.clone(),
                generated_at: None,
                packet_type: PacketType::Assignment,
                global_objective: objective(&input.goal),
                task: task.packet.clone(),
                active_locks: Vec::new(),
                context_package: Vec::new(),
                required_output_schema: OutputSchemaName::SubagentResultV1,
                extra: Default::default(),
            };
            packet.task.extra.clear();
            for v in packet.check(true) {
                problems.push(format!("task #{} {}: {}", i + 1, v.path, v.message));
            }
            if !seen.insert(task.packet.task_id.clone()) {
                problems.push(format!("task id {} is used twice", task.packet.task_id));
            }
            self.tasks.push(task);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    fn make_task(
        &self,
        id: String,
        title: String,
        base: &Map<String, Value>,
        t: &crate::scenario::TaskInput,
    ) -> Task {
        let criteria = if t.acceptance_criteria.is_empty() {
            vec![format!("{title} is complete")]
        } else {
            t.acceptance_criteria.clone()
        };
        let mut values = base.clone();
        values.insert("task".into(), json!(title));
        values.insert("task_id".into(), json!(id));
        values.insert("title".into(), json!(title));
        values.insert("acceptance_criteria".into(), json!(criteria));
        for (k, v) in &t.values {
            values.insert(k.clone(), v.clone());
        }
        let timeout_seconds = t.timeout_seconds.unwrap_or(1200);
        let packet = PacketTask {
            task_id: id.clone(),
            title,
            kind: t.kind.unwrap_or(TaskType::Parallelizable),
            dependencies: t.dependencies.iter().cloned().map(TaskIdString).collect(),
            lock_scope: if t.lock_scope.is_empty() {
                vec![format!("worktrees/{id}/")]
            } else {
                t.lock_scope.clone()
            },
            forbidden_scope: t.forbidden_scope.clone(),
            acceptance_criteria: criteria,
            worklog_path: format!("worklogs/{id}.jsonl"),
            timeout_seconds,
            heartbeat_interval_seconds: t
                .heartbeat_interval_seconds
                .unwrap_or((timeout_seconds / 10).max(5)),
            priority: t.priority.unwrap_or(Priority::Normal),
            extra: Default::default(),
        };
        Task {
            packet,
            values,
            explicit_role: t.role.clone(),
            status: Status::Active,
            code: None,
            reason: None,
            iterations: vec![0; self.flow.roles.len()],
            last_verdict: None,
            is_goal: false,
        }
    }

    fn audit_header(&self, playbook_hash: &str) -> AuditLog {
        let playbook = self.playbook;
        let input = &self.scenario.input;
        let policies = json!({
            "policies": playbook.policies,
            "mutating_actions": self.mutating,
        });
        let empty = Map::new();
        let role_prompts = self
            .flow
            .roles
            .iter()
            .map(|r| {
                let text = crate::prompt::render(playbook, r, &empty);
                (r.role.name.clone(), sha256_hex(text.as_bytes()))
            })
            .collect();
        AuditLog {
            run_id: self.run_id.clone(),
            inputs: AuditInputs {
                playbook_id: playbook.id.clone(),
                scenario: self.scenario_name(),
                seed: self.options.seed,
                goal: input.goal.clone(),
                task_ids: self
                    .tasks
                    .iter()
                    .map(|t| t.packet.task_id.clone())
                    .collect(),
                repo: input
                    .values
                    .get("repo")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                base_ref: input
                    .values
                    .get("base_ref")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            },
            context: ContextSnapshot {
                playbook_hash: playbook_hash.to_string(),
                policies_hash: sha256_hex(policies.to_string().as_bytes()),
                scenario_hash: sha256_hex(&serde_json::to_vec(self.scenario).unwrap_or_default()),
                role_prompts,
            },
            started_at: self.at(),
            ended_at: String::new(),
            outcome: None,
            runs: Vec::new(),
        }
    }

    fn preflight(&self) -> Vec<PreflightResult> {
        self.scenario
            .preflight
            .iter()
            .map(|check| {
                let (passed, detail) = match self.scenario.repo.get(&check.path) {
                    None => (false, format!("{} does not exist", check.path)),
                    Some(content) => {
                        let hash = sha256_hex(content.as_bytes());
                        match (&check.sha256, &check.contains) {
                            (Some(expected), _) if !expected.eq_ignore_ascii_case(&hash) => (
                                false,
                                format!(
                                    "{} changed: sha256 {hash}, expected {expected}",
                                    check.path
                                ),
                            ),
                            (_, Some(needle)) if !content.contains(needle.as_str()) => {
                                (false, format!("{} does not contain `{needle}`", check.path))
                            }
                            _ => (true, format!("{} present and unchanged", check.path)),
                        }
                    }
                };
                PreflightResult {
                    name: check.name.clone(),
                    passed,
                    detail,
                }
            })
            .collect()
    }

    // ------------------------------------------------------------ ledger and worklog

    fn delta(
        &mut self,
        task: usize,
        status: LedgerStatus,
        owner: &str,
        reason: &str,
        create: bool,
    ) {
        self.delta_seq += 1;
        self.deltas.push(LedgerDelta {
            task_id: self.tasks[task].packet.task_id.clone(),
            status,
            owner: owner.to_string(),
            reason: reason.to_string(),
            delta_id: format!("D-{}", self.delta_seq),
            last_heartbeat_at: None,
            timed_out: None,
            retry_after_ms: None,
            create,
            extra: Default::default(),
        });
    }

    /// Applies pending deltas and reconciles the ledger with the run state
    /// before anything else is assigned.
    fn flush_deltas(&mut self) {
        if self.deltas.is_empty() {
            return;
        }
        let base_version = self.ledger.version();
        let deltas = std::mem::take(&mut self.deltas);
        match self.ledger.apply(DeltaStream {
            base_version,
            deltas: &deltas,
        }) {
            Ok(applied) => {
                for id in applied.rejected {
                    self.emit(Event::Warning {
                        code: ErrorCode::LedgerRowMissing,
                        message: format!("ledger delta {id} updates a row that does not exist"),
                    });
                }
            }
            Err(e) => self.emit(Event::Warning {
                code: e.code,
                message: e.message,
            }),
        }
        // Reconciliation: the ledger must say what the engine believes.
        let mut last: indexmap::IndexMap<&str, LedgerStatus> = indexmap::IndexMap::new();
        for delta in &deltas {
            last.insert(&delta.task_id, delta.status);
        }
        for (task_id, status) in last {
            let expected = Some(status);
            let actual = self.ledger.row(task_id).map(|r| r.status);
            if expected != actual {
                let message =
                    format!("ledger says {actual:?} for {task_id}, the run says {expected:?}");
                self.emit(Event::Warning {
                    code: ErrorCode::LedgerDrift,
                    message,
                });
            }
        }
        if let Some(last) = self.outputs.last_mut() {
            last.ledger_delta.extend(deltas);
        } else {
            self.outputs.push(self.empty_output());
            if let Some(first) = self.outputs.last_mut() {
                first.ledger_delta.extend(deltas);
            }
        }
    }

    fn empty_output(&self) -> OrchestratorOutput {
        OrchestratorOutput {
            schema_version: CONTRACT_VERSION.into(),
            run_id: self.run_id.clone(),
            generated_at: Some(self.at()),
            ledger_delta: Vec::new(),
            assignments: Vec::new(),
            active_locks: Vec::new(),
            blockers: Vec::new(),
            next_actions: Vec::new(),
            extra: Default::default(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn worklog(
        &mut self,
        task: usize,
        actor: &str,
        action: String,
        files: Vec<String>,
        decision: String,
        result: String,
        next_step: String,
        code: Option<ErrorCode>,
    ) {
        self.timestamp.clear();
        crate::clock::write_iso8601(&mut self.timestamp, self.start_ms + self.now);
        let entry = WorklogEntry {
            timestamp: self.timestamp.clone(),
            run_id: self.run_id.clone(),
            task_id: self.tasks[task].packet.task_id.clone(),
            actor: actor.to_string(),
            action,
            files_touched: files,
            decision,
            result,
            next_step,
            code: code.map(|c| c.as_str().to_string()),
            evidence: None,
        };
        self.worklogs.append(entry);
    }

    // ------------------------------------------------------------ end states

    fn end_task(
        &mut self,
        task: usize,
        status: Status,
        code: ErrorCode,
        reason: String,
        actor: &str,
    ) {
        let task_id = self.tasks[task].packet.task_id.clone();
        let t = &mut self.tasks[task];
        t.status = status;
        t.code = Some(code);
        t.reason = Some(reason.clone());
        let (ledger, next) = match status {
            Status::Blocked => (
                LedgerStatus::Blocked,
                "a person resolves the blocker, then the task is re-run",
            ),
            Status::Canceled => (LedgerStatus::Canceled, "none: the run stopped"),
            _ => (
                LedgerStatus::Failed,
                "fix the cause named by the code and run the task again",
            ),
        };
        self.worklog(
            task,
            actor,
            format!("task {}", ledger_word(ledger)),
            Vec::new(),
            reason.clone(),
            code.as_str().to_string(),
            next.to_string(),
            Some(code),
        );
        self.delta(task, ledger, actor, &reason, false);
        if let Some(out) = self.outputs.last_mut() {
            out.blockers.push(Blocker {
                task_id: task_id.clone(),
                code: code.as_str().to_string(),
                reason: reason.clone(),
                details: None,
            });
        }
        match status {
            Status::Blocked => self.emit(Event::TaskBlocked {
                task_id,
                code,
                reason,
            }),
            Status::Canceled => self.emit(Event::TaskCanceled { task_id, code }),
            _ => self.emit(Event::TaskFailed {
                task_id,
                code,
                reason,
            }),
        }
    }

    fn cancel(&mut self, task: usize) {
        self.end_task(
            task,
            Status::Canceled,
            ErrorCode::RunStopped,
            "the run stopped before this task finished".into(),
            "orchestrator",
        );
    }

    /// Ends a task for `trigger`: escalated (blocked) when the role or its
    /// loop lists the trigger in `escalate_on`, otherwise failed (or blocked
    /// for conditions only a person can resolve).
    fn escalate_or_end(
        &mut self,
        task: usize,
        role: usize,
        trigger: &'static str,
        code: ErrorCode,
        reason: String,
    ) {
        let role_name = self.flow.roles[role].role.name.clone();
        let listed = self.escalate[role] & trigger_bit(trigger) != 0;
        if listed {
            self.emit(Event::Escalated {
                task_id: self.tasks[task].packet.task_id.clone(),
                role: role_name.clone(),
                trigger: trigger.to_string(),
                code,
                reason: reason.clone(),
            });
            self.end_task(
                task,
                Status::Blocked,
                code,
                format!("escalated: {reason}"),
                &role_name,
            );
        } else {
            let status = match code {
                ErrorCode::NeedsInput | ErrorCode::AgentBlocked => Status::Blocked,
                _ => Status::Failed,
            };
            self.end_task(task, status, code, reason, &role_name);
        }
    }

    // ------------------------------------------------------------ gates

    async fn check_gate(
        &mut self,
        gate: &Gate,
        verdict: Option<Verdict>,
        task: usize,
        stage: &str,
        role: Option<&str>,
    ) -> Result<bool, String> {
        match verdict {
            Some(Verdict::Pass) => Ok(false),
            Some(Verdict::Fail) => Err(format!("`{}` is false", gate.source)),
            Some(Verdict::Error(e)) => {
                Err(format!("`{}` could not be evaluated: {e}", gate.source))
            }
            None => {
                let task_id = self.tasks[task].packet.task_id.clone();
                let subject = format!("gate: {}", gate.source);
                self.emit(Event::ApprovalRequested {
                    task_id: task_id.clone(),
                    role: role.map(str::to_string),
                    subject: subject.clone(),
                });
                let request = ApprovalRequest {
                    task_id: &task_id,
                    stage,
                    role,
                    subject: ApprovalSubject::Gate {
                        gate: gate.source.clone(),
                    },
                };
                let decision = self.ports.approver.decide(&request).await;
                if decision.approved && decision.waited_ms <= self.approval_timeout_ms {
                    self.emit(Event::ApprovalGranted {
                        task_id,
                        subject,
                        by: decision.by,
                    });
                    Ok(true)
                } else {
                    let code = if decision.approved {
                        ErrorCode::ApprovalTimeout
                    } else {
                        ErrorCode::ApprovalDenied
                    };
                    self.emit(Event::ApprovalDenied {
                        task_id,
                        subject,
                        by: decision.by,
                        code,
                    });
                    Err(format!(
                        "the manual gate `{}` was not approved",
                        gate.source
                    ))
                }
            }
        }
    }

    async fn stage_gate(&mut self, s: usize, task: usize, exit: bool, counters: Counters) -> bool {
        let gate = {
            let (enter, exit_gate) = &self.stage_gates[s];
            if exit {
                exit_gate.clone()
            } else {
                enter.clone()
            }
        };
        let Some(gate) = gate else { return true };
        let stage = self
            .playbook
            .workflow
            .get_index(s)
            .map(|(n, _)| n.clone())
            .unwrap_or_default();
        let t = &self.tasks[task];
        let state = [
            ("task_id", json!(t.packet.task_id)),
            ("stage", json!(stage)),
            ("tasks_total", json!(counters.total)),
            ("tasks_done", json!(counters.done)),
            ("tasks_failed", json!(counters.failed)),
            ("tasks_blocked", json!(counters.blocked)),
        ];
        let verdict = evaluate(&gate, &state, &t.values);
        let scope = if exit {
            GateScope::StageExit
        } else {
            GateScope::StageEnter
        };
        let task_id = self.tasks[task].packet.task_id.clone();
        match self.check_gate(&gate, verdict, task, &stage, None).await {
            Ok(manual) => {
                self.emit(Event::GatePassed {
                    task_id,
                    scope,
                    owner: stage,
                    gate: gate.source.clone(),
                    manual,
                });
                true
            }
            Err(reason) => {
                self.emit(Event::GateFailed {
                    task_id: task_id.clone(),
                    scope,
                    owner: stage.clone(),
                    gate: gate.source.clone(),
                    reason: reason.clone(),
                });
                let code = if exit {
                    ErrorCode::StageExitBlocked
                } else {
                    ErrorCode::StageEnterBlocked
                };
                self.emit(Event::StageBlocked {
                    stage,
                    task_id,
                    code,
                    reason: reason.clone(),
                });
                self.end_task(task, Status::Blocked, code, reason, "orchestrator");
                false
            }
        }
    }

    // ------------------------------------------------------------ the stage loop

    async fn run_stage(&mut self, s: usize, active: Vec<usize>) {
        let (stage_name, stage) = self
            .playbook
            .workflow
            .get_index(s)
            .map(|(n, st)| (n.clone(), st))
            .expect("stage index is in range");
        let cap = stage.max_parallel_worktrees().max(1);
        self.outputs.push(self.empty_output());
        self.emit(Event::StageEntered {
            stage: stage_name.clone(),
            tasks: active.len() as u32,
            max_parallel: cap,
        });
        let stage_roles: Vec<usize> = (0..self.flow.roles.len())
            .filter(|&i| self.flow.roles[i].stage_index == s)
            .collect();
        let mut counters = Counters {
            total: active.len() as u32,
            ..Default::default()
        };
        let mut waiting: VecDeque<(usize, Option<u64>)> =
            active.iter().map(|&t| (t, None)).collect();
        let mut slots: Vec<Option<Running>> = (0..cap).map(|_| None).collect();
        let mut heap: BinaryHeap<Reverse<(u64, u64, usize, Phase)>> = BinaryHeap::new();
        let mut order = 0u64;
        let mut in_stage_done: Vec<usize> = Vec::new();
        let mut reported_waits: Vec<(usize, String)> = Vec::new();

        loop {
            if self.stopped {
                break;
            }
            // Admit waiting tasks while worktrees are free.
            let mut i = 0;
            while i < waiting.len() && slots.iter().any(Option::is_none) {
                let (task, since) = waiting[i];
                match self
                    .admit(
                        s,
                        &stage_name,
                        &stage_roles,
                        task,
                        &slots,
                        &waiting,
                        counters,
                        &mut reported_waits,
                    )
                    .await
                {
                    Admit::Start(role) => {
                        let free = slots.iter().position(Option::is_none).unwrap_or(0);
                        let worktree = free as u32 + 1;
                        self.emit(Event::TaskAssigned {
                            task_id: self.tasks[task].packet.task_id.clone(),
                            stage: stage_name.clone(),
                            worktree,
                        });
                        let role_name = self.flow.roles[role].role.name.clone();
                        self.delta(
                            task,
                            LedgerStatus::InProgress,
                            &role_name,
                            "assigned",
                            false,
                        );
                        self.flush_deltas();
                        slots[free] = Some(Running {
                            task,
                            role,
                            first_run: vec![0; self.flow.roles.len()],
                            runs: 0,
                            pending: None,
                        });
                        order += 1;
                        heap.push(Reverse((self.now, order, free, Phase::Start)));
                        waiting.remove(i);
                    }
                    Admit::Ended => {
                        self.count_end(task, &mut counters);
                        waiting.remove(i);
                    }
                    Admit::Wait => {
                        let since = since.unwrap_or(self.now);
                        waiting[i].1 = Some(since);
                        if self.now.saturating_sub(since) > self.wait_ms {
                            let reason = format!("waited longer than {} ms to start", self.wait_ms);
                            self.end_task(
                                task,
                                Status::Blocked,
                                ErrorCode::WaitTimeout,
                                reason,
                                "orchestrator",
                            );
                            self.count_end(task, &mut counters);
                            waiting.remove(i);
                        } else {
                            i += 1;
                        }
                    }
                }
            }
            let Some(Reverse((time, _, slot, phase))) = heap.pop() else {
                if waiting.is_empty() {
                    break;
                }
                // Nothing runs and nothing can start: jump to the earliest
                // wait deadline, where the waiting task gives up.
                let deadline = waiting
                    .iter()
                    .map(|(_, since)| since.unwrap_or(self.now) + self.wait_ms + 1)
                    .min()
                    .unwrap_or(self.now);
                self.now = self.now.max(deadline);
                continue;
            };
            self.now = self.now.max(time);
            let Some(mut running) = slots[slot].take() else {
                continue;
            };
            let next = match phase {
                Phase::Start => self.start_step(&stage_name, &mut running).await,
                Phase::Complete => self.complete_step(s, &stage_name, &mut running).await,
            };
            match next {
                Next::At(t, phase) => {
                    order += 1;
                    heap.push(Reverse((t, order, slot, phase)));
                    slots[slot] = Some(running);
                }
                Next::LeftStage => {
                    counters.done += 1;
                    in_stage_done.push(running.task);
                }
                Next::Ended => self.count_end(running.task, &mut counters),
            }
            if self.steps > self.max_steps && !self.stopped {
                self.emit(Event::Warning {
                    code: ErrorCode::StepLimit,
                    message: format!(
                        "the run exceeded {} agent invocations and stops",
                        self.max_steps
                    ),
                });
                self.stopped = true;
            }
            if self.stopped {
                for running in slots.iter_mut().filter_map(Option::take) {
                    self.cancel(running.task);
                }
                for (task, _) in waiting.drain(..) {
                    self.cancel(task);
                }
                break;
            }
        }

        // Exit gates see the stage's final counters.
        if !self.stopped {
            for &task in &in_stage_done {
                if self.tasks[task].status == Status::Active
                    && !self.stage_gate(s, task, true, counters).await
                {
                    counters.done -= 1;
                    counters.blocked += 1;
                }
            }
        }
        self.flush_deltas();
        if !self.stopped {
            self.fan_out(s, &in_stage_done);
        }
        self.emit(Event::StageExited {
            stage: stage_name,
            done: counters.done,
            blocked: counters.blocked,
            failed: counters.failed,
        });
        self.finish_output();
    }

    fn count_end(&self, task: usize, counters: &mut Counters) {
        match self.tasks[task].status {
            Status::Failed => counters.failed += 1,
            Status::Blocked | Status::Canceled => counters.blocked += 1,
            _ => {}
        }
    }

    fn finish_output(&mut self) {
        let run_id = self.run_id.clone();
        let Some(out) = self.outputs.last_mut() else {
            return;
        };
        out.next_actions = if self.stopped {
            vec!["stop: the run was stopped".into()]
        } else {
            vec!["continue with the next stage".into()]
        };
        out.run_id = run_id;
        let violations = out.check(true);
        if !violations.is_empty() {
            let message = violations
                .iter()
                .map(|v| format!("{}: {}", v.path, v.message))
                .collect::<Vec<_>>()
                .join("; ");
            self.emit(Event::Warning {
                code: ErrorCode::ResultInvalid,
                message: format!("orchestrator output envelope is invalid: {message}"),
            });
        }
    }

    /// A planner's `tasks` output on the goal task creates the run's tasks.
    fn fan_out(&mut self, s: usize, finished: &[usize]) {
        if !self.scenario.input.tasks.is_empty() {
            return;
        }
        let has_planner = self
            .flow
            .roles
            .iter()
            .any(|r| r.stage_index == s && r.role.mode == Some(RoleMode::Planner));
        for &g in finished {
            if !self.tasks[g].is_goal || self.tasks[g].status != Status::Active || !has_planner {
                continue;
            }
            let Some(Value::Array(items)) = self.tasks[g].values.get("tasks").cloned() else {
                continue;
            };
            let base = self.tasks[g].values.clone();
            let mut ids = Vec::new();
            for item in items.iter().take(MAX_CREATED_TASKS) {
                let n = self.tasks.len() + 1;
                let mut input = crate::scenario::TaskInput::default();
                match item {
                    Value::String(title) => input.title = truncate(title, 500),
                    Value::Object(map) => {
                        input.title = map
                            .get("title")
                            .and_then(Value::as_str)
                            .map(|t| truncate(t, 500))
                            .unwrap_or_else(|| format!("Task {n}"));
                        input.lock_scope = strings(map.get("lock_scope"));
                        input.forbidden_scope = strings(map.get("forbidden_scope"));
                        input.acceptance_criteria = strings(map.get("acceptance_criteria"));
                    }
                    other => input.title = truncate(&other.to_string(), 500),
                }
                if input.title.trim().is_empty() {
                    input.title = format!("Task {n}");
                }
                let id = format!("T-{n}");
                let mut task = self.make_task(id.clone(), input.title.clone(), &base, &input);
                task.values.insert("plan_task".into(), item.clone());
                self.tasks.push(task);
                let i = self.tasks.len() - 1;
                self.delta(
                    i,
                    LedgerStatus::Todo,
                    "planner",
                    "created by the plan",
                    true,
                );
                ids.push(id);
            }
            if items.len() > MAX_CREATED_TASKS {
                self.emit(Event::Warning {
                    code: ErrorCode::OutputTooLarge,
                    message: format!(
                        "the plan lists {} tasks; only the first {MAX_CREATED_TASKS} run",
                        items.len()
                    ),
                });
            }
            if ids.is_empty() {
                continue;
            }
            self.emit(Event::TasksCreated {
                by: self.tasks[g].packet.task_id.clone(),
                task_ids: ids,
            });
            self.tasks[g].status = Status::Done;
            self.delta(g, LedgerStatus::Done, "planner", "planned", false);
            let task_id = self.tasks[g].packet.task_id.clone();
            self.emit(Event::TaskDone { task_id });
            self.flush_deltas();
        }
    }

    // ------------------------------------------------------------ admission

    #[allow(clippy::too_many_arguments)]
    async fn admit(
        &mut self,
        s: usize,
        stage: &str,
        stage_roles: &[usize],
        task: usize,
        slots: &[Option<Running>],
        waiting: &VecDeque<(usize, Option<u64>)>,
        counters: Counters,
        reported: &mut Vec<(usize, String)>,
    ) -> Admit {
        let task_id = self.tasks[task].packet.task_id.clone();
        // Dependencies.
        for dep in self.tasks[task].packet.dependencies.clone() {
            let Some(d) = self.tasks.iter().position(|t| t.packet.task_id == dep.0) else {
                continue;
            };
            match self.tasks[d].status {
                Status::Blocked | Status::Failed | Status::Canceled => {
                    let reason = format!("depends on {}, which did not finish", dep.0);
                    self.end_task(
                        task,
                        Status::Blocked,
                        ErrorCode::DependencyBlocked,
                        reason,
                        "orchestrator",
                    );
                    return Admit::Ended;
                }
                _ => {
                    let pending = waiting.iter().any(|(w, _)| *w == d)
                        || slots.iter().flatten().any(|r| r.task == d);
                    if pending {
                        self.report_wait(task, stage, "dependency", &dep.0, reported);
                        return Admit::Wait;
                    }
                }
            }
        }
        // Locks: never run beside a task or lock it overlaps.
        let me = &self.tasks[task].packet;
        for r in slots.iter().flatten() {
            let other = &self.tasks[r.task].packet;
            if overlaps(&me.lock_scope, &other.lock_scope)
                || overlaps(&me.lock_scope, &other.forbidden_scope)
                || overlaps(&me.forbidden_scope, &other.lock_scope)
            {
                let on = other.task_id.clone();
                self.report_wait(task, stage, "lock", &on, reported);
                return Admit::Wait;
            }
        }
        for lock in &self.scenario.input.active_locks {
            if lock.active
                && lock.task_id != me.task_id
                && overlaps(&me.lock_scope, std::slice::from_ref(&lock.resource))
            {
                let on = format!("{} ({})", lock.resource, lock.task_id);
                self.report_wait(task, stage, "lock", &on, reported);
                return Admit::Wait;
            }
        }
        // Role: explicit, or chosen by the assigner within caps.
        let explicit = self.tasks[task].explicit_role.clone().and_then(|name| {
            stage_roles
                .iter()
                .copied()
                .find(|&i| self.flow.roles[i].role.name == name)
        });
        let (role, source, rationale, warning) = match explicit {
            Some(role) => (
                role,
                "explicit",
                "the task names this role; roles are never inferred from task text".to_string(),
                None,
            ),
            None => {
                let caps = self.caps(s, stage_roles, slots);
                // Offer the roles the task can feed (it carries their
                // required inputs; any other role would only produce a
                // contract violation) that are under their cap. When the
                // task can feed no role at all, offer every role under its
                // cap, so the violation surfaces instead of a silent wait.
                let values = &self.tasks[task].values;
                let under_cap = |r: &playbook_core::Role| {
                    caps.in_flight.get(&r.name).copied().unwrap_or(0) < caps.cap_of(&r.name)
                };
                let roles: Vec<&playbook_core::Role> = stage_roles
                    .iter()
                    .map(|&i| self.flow.roles[i].role)
                    .collect();
                let fed: Vec<&playbook_core::Role> = roles
                    .iter()
                    .copied()
                    .filter(|r| {
                        r.inputs_required()
                            .iter()
                            .all(|i| values.get(i).is_some_and(|v| !v.is_null()))
                    })
                    .collect();
                let candidates = if fed.is_empty() { roles } else { fed };
                let available: Vec<String> = candidates
                    .iter()
                    .filter(|r| under_cap(r))
                    .map(|r| r.name.clone())
                    .collect();
                if available.is_empty() {
                    self.report_wait(
                        task,
                        stage,
                        "role caps",
                        "no role the task can enter is under its cap",
                        reported,
                    );
                    return Admit::Wait;
                }
                let request = RoleAssignmentRequest {
                    task: AssignmentTask {
                        id: task_id.clone(),
                        title: Some(self.tasks[task].packet.title.clone()),
                        path: format!("tasks/{task_id}.md"),
                        content: task_content(&self.tasks[task].packet),
                    },
                    stage: assignment_stage(
                        stage,
                        stage_roles.iter().map(|&i| self.flow.roles[i].role.mode),
                    ),
                    available_roles: available,
                    caps,
                };
                self.check_sent(&request);
                let answer = self.ports.assigner.assign(stage, &request).await;
                match parse_assignment(&answer, &request.available_roles) {
                    Ok(response) => {
                        let role = stage_roles
                            .iter()
                            .copied()
                            .find(|&i| self.flow.roles[i].role.name == response.role)
                            .unwrap_or(stage_roles[0]);
                        (role, "assigner", response.rationale, None)
                    }
                    Err(problem) => {
                        let first = request.available_roles[0].clone();
                        let role = stage_roles
                            .iter()
                            .copied()
                            .find(|&i| self.flow.roles[i].role.name == first)
                            .unwrap_or(stage_roles[0]);
                        (
                            role,
                            "fallback",
                            format!("fallback to the first available role `{first}`"),
                            Some(format!("{}: {problem}", ErrorCode::RoleAssignmentInvalid)),
                        )
                    }
                }
            }
        };
        // Enter gate.
        if !self.stage_gate(s, task, false, counters).await {
            return Admit::Ended;
        }
        self.emit(Event::RoleSelected {
            task_id,
            stage: stage.to_string(),
            role: self.flow.roles[role].role.name.clone(),
            source: source.to_string(),
            rationale,
            warning,
        });
        Admit::Start(role)
    }

    fn report_wait(
        &mut self,
        task: usize,
        stage: &str,
        reason: &str,
        on: &str,
        reported: &mut Vec<(usize, String)>,
    ) {
        let key = format!("{reason}:{on}");
        if reported.iter().any(|(t, k)| *t == task && *k == key) {
            return;
        }
        reported.push((task, key));
        self.emit(Event::TaskWaiting {
            task_id: self.tasks[task].packet.task_id.clone(),
            stage: stage.to_string(),
            reason: reason.to_string(),
            on: on.to_string(),
        });
    }

    fn caps(&self, s: usize, stage_roles: &[usize], slots: &[Option<Running>]) -> Caps {
        let global = self
            .playbook
            .workflow
            .get_index(s)
            .map(|(_, st)| st.max_parallel_worktrees())
            .unwrap_or(1);
        let config = self.scenario.caps.clone().unwrap_or_default();
        let mut in_flight = indexmap::IndexMap::new();
        for &i in stage_roles {
            let name = self.flow.roles[i].role.name.clone();
            let n = slots.iter().flatten().filter(|r| r.role == i).count() as u32;
            in_flight.insert(name, n);
        }
        Caps {
            global,
            default_role: config.default_role.unwrap_or(global),
            roles: config.roles,
            in_flight,
        }
    }

    // ------------------------------------------------------------ one step

    async fn start_step(&mut self, stage: &str, run: &mut Running) -> Next {
        let task = run.task;
        let role_index = run.role;
        let role_ref = self.flow.roles[role_index];
        let role = role_ref.role;
        self.tasks[task].iterations[role_index] += 1;
        let iteration = self.tasks[task].iterations[role_index];
        run.runs += 1;
        if run.first_run[role_index] == 0 {
            run.first_run[role_index] = run.runs;
        }
        let task_id = self.tasks[task].packet.task_id.clone();
        let bound = self.loop_bound[role_index];
        if self.flow.roles.len() > 1 && self.in_loop(role_index) {
            self.emit(Event::Iteration {
                task_id: task_id.clone(),
                role: role.name.clone(),
                k: iteration,
                n: bound,
            });
        }
        if let Some(n) = bound
            && iteration > n
        {
            let reason = format!(
                "`{}` would start round {iteration} of at most {n}",
                role.name
            );
            self.escalate_or_end(
                task,
                role_index,
                "retry_limit",
                ErrorCode::RetryLimit,
                reason,
            );
            return Next::Ended;
        }
        // Pre-execution: required inputs.
        let missing: Vec<&str> = role
            .inputs_required()
            .iter()
            .map(String::as_str)
            .filter(|i| self.tasks[task].values.get(*i).is_none_or(Value::is_null))
            .collect();
        if !missing.is_empty() {
            let detail = format!("missing required input(s): {}", missing.join(", "));
            self.emit(Event::ContractViolation {
                task_id: task_id.clone(),
                role: role.name.clone(),
                code: ErrorCode::InputMissing,
                detail: detail.clone(),
            });
            run.pending = Some(Pending {
                outcome: AgentOutcome::Error {
                    message: String::new(),
                },
                duration_ms: 0,
                blocked_tool: false,
                denied_approval: false,
                precheck: Some((ErrorCode::InputMissing, detail)),
                record: AgentRunRecord {
                    task_id,
                    stage: stage.to_string(),
                    role: role.name.clone(),
                    iteration,
                    agent: self.options.agent_name.clone(),
                    prompt_hash: String::new(),
                    started_at: self.at(),
                    ended_at: self.at(),
                    latency_ms: 0,
                    outcome: "not_invoked".into(),
                    code: Some(ErrorCode::InputMissing),
                    output: Value::Null,
                    tool_calls: Vec::new(),
                },
            });
            return Next::At(self.now, Phase::Complete);
        }
        self.steps += 1;
        let packet = self.packet(task);
        self.check_sent(&packet);
        let (block, hasher) = &self.prompt_blocks[role_index];
        let task_part = crate::prompt::task_part(&role_ref, &self.tasks[task].values);
        let mut prompt = String::with_capacity(block.len() + task_part.len());
        prompt.push_str(block);
        prompt.push_str(&task_part);
        let prompt_hash = {
            use sha2::Digest;
            let mut hasher = hasher.clone();
            hasher.update(task_part.as_bytes());
            crate::audit::hex(&hasher.finalize())
        };
        self.emit(Event::AgentInvoked {
            task_id: task_id.clone(),
            stage: stage.to_string(),
            role: role.name.clone(),
            iteration,
            prompt_hash: prompt_hash.clone(),
        });
        let invocation = Invocation {
            run_id: &self.run_id.clone(),
            task_id: &task_id,
            stage,
            role: &role.name,
            iteration,
            prompt: &prompt,
            packet: &packet,
        };
        let mut last: Option<ToolResult> = None;
        let mut calls = 0u32;
        let mut tool_calls = Vec::new();
        let mut blocked_tool = false;
        let mut denied_approval = false;
        let mut precheck = None;
        let (outcome, duration_ms) = loop {
            let step = self.ports.agent.step(&invocation, last.as_ref()).await;
            match step {
                AgentStep::Finish {
                    outcome,
                    duration_ms,
                } => break (outcome, duration_ms),
                AgentStep::Call(call) => {
                    calls += 1;
                    if calls > self.max_tool_calls {
                        let detail = format!(
                            "more than {} tool calls in one invocation",
                            self.max_tool_calls
                        );
                        self.emit(Event::ContractViolation {
                            task_id: task_id.clone(),
                            role: role.name.clone(),
                            code: ErrorCode::ToolCallLimit,
                            detail: detail.clone(),
                        });
                        precheck = Some((ErrorCode::ToolCallLimit, detail));
                        break (
                            AgentOutcome::Error {
                                message: "tool call limit reached".into(),
                            },
                            0,
                        );
                    }
                    let result = self
                        .tool_call(
                            task,
                            stage,
                            role_index,
                            &call,
                            &mut blocked_tool,
                            &mut denied_approval,
                        )
                        .await;
                    tool_calls.push(ToolCallRecord {
                        tool: call.tool,
                        args: call.args,
                        result: result.clone(),
                    });
                    last = Some(result);
                }
            }
        };
        let started_at = self.at();
        let record = AgentRunRecord {
            task_id,
            stage: stage.to_string(),
            role: role.name.clone(),
            iteration,
            agent: self.options.agent_name.clone(),
            prompt_hash,
            started_at,
            ended_at: iso8601(self.start_ms + self.now + duration_ms),
            latency_ms: duration_ms,
            outcome: String::new(),
            code: None,
            output: Value::Null,
            tool_calls,
        };
        run.pending = Some(Pending {
            outcome,
            duration_ms,
            blocked_tool,
            denied_approval,
            precheck,
            record,
        });
        Next::At(self.now + duration_ms, Phase::Complete)
    }

    /// Every envelope the orchestrator sends is checked against its
    /// contract first; a violation is a defect of the run input that task
    /// creation did not catch, reported as a warning.
    fn check_sent<E: Envelope>(&mut self, envelope: &E) {
        let violations = envelope.check(true);
        if let Some(v) = violations.first() {
            self.emit(Event::Warning {
                code: v.code,
                message: format!("{} sent with {} {}", E::SCHEMA_FILE, v.path, v.message),
            });
        }
    }

    fn in_loop(&self, role: usize) -> bool {
        self.loop_bound[role].is_some() || self.hands_off_to_itself(role)
    }

    fn hands_off_to_itself(&self, role: usize) -> bool {
        self.flow.successors(role).any(|(j, _)| j == role)
    }

    async fn tool_call(
        &mut self,
        task: usize,
        stage: &str,
        role_index: usize,
        call: &crate::agent::ToolCall,
        blocked_tool: &mut bool,
        denied_approval: &mut bool,
    ) -> ToolResult {
        let role = self.flow.roles[role_index].role;
        let task_id = self.tasks[task].packet.task_id.clone();
        if !role.actions_allowed().contains(&call.tool) {
            *blocked_tool = true;
            let reason = format!(
                "`{}` is not in actions_allowed of role `{}` (allowed: {}); the call was not run",
                call.tool,
                role.name,
                if role.actions_allowed().is_empty() {
                    "none".to_string()
                } else {
                    role.actions_allowed().join(", ")
                }
            );
            self.emit(Event::ToolCallBlocked {
                task_id,
                role: role.name.clone(),
                tool: call.tool.clone(),
                code: ErrorCode::ToolNotAllowed,
                reason: reason.clone(),
            });
            return ToolResult::Denied {
                code: ErrorCode::ToolNotAllowed,
                message: reason,
            };
        }
        if role.requires_user_approval() && self.mutating.contains(&call.tool) {
            let subject = format!("tool: {}", call.tool);
            self.emit(Event::ApprovalRequested {
                task_id: task_id.clone(),
                role: Some(role.name.clone()),
                subject: subject.clone(),
            });
            let request = ApprovalRequest {
                task_id: &task_id,
                stage,
                role: Some(&role.name),
                subject: ApprovalSubject::Tool {
                    tool: call.tool.clone(),
                },
            };
            let decision = self.ports.approver.decide(&request).await;
            let timed_out = decision.waited_ms > self.approval_timeout_ms;
            if !decision.approved || timed_out {
                *denied_approval = true;
                let code = if timed_out {
                    ErrorCode::ApprovalTimeout
                } else {
                    ErrorCode::ApprovalDenied
                };
                self.emit(Event::ApprovalDenied {
                    task_id: task_id.clone(),
                    subject,
                    by: decision.by,
                    code,
                });
                let message = format!(
                    "`{}` mutates the workspace and role `{}` requires user approval, which was not given; the call was not run",
                    call.tool, role.name
                );
                self.emit(Event::ToolCallBlocked {
                    task_id,
                    role: role.name.clone(),
                    tool: call.tool.clone(),
                    code,
                    reason: message.clone(),
                });
                return ToolResult::Denied { code, message };
            }
            self.emit(Event::ApprovalGranted {
                task_id: task_id.clone(),
                subject,
                by: decision.by,
            });
        }
        self.emit(Event::ToolCallAllowed {
            task_id,
            role: role.name.clone(),
            tool: call.tool.clone(),
        });
        let result = self.ports.tools.run(call).await;
        ToolResult::Ran { result }
    }

    fn packet(&self, task: usize) -> AssignmentPacket {
        let t = &self.tasks[task];
        let mut context_package = vec![ContextItem {
            kind: ContextKind::File,
            value: t.packet.worklog_path.clone(),
            extra: Default::default(),
        }];
        for input in BUILTIN_RUN_INPUTS
            .iter()
            .copied()
            .filter(|i| *i == "repo" || *i == "base_ref")
        {
            if let Some(Value::String(v)) = t.values.get(input) {
                context_package.push(ContextItem {
                    kind: ContextKind::Note,
                    value: format!("{input}: {v}"),
                    extra: Default::default(),
                });
            }
        }
        for f in &t.packet.forbidden_scope {
            context_package.push(ContextItem {
                kind: ContextKind::Constraint,
                value: format!("Do not edit {f}"),
                extra: Default::default(),
            });
        }
        AssignmentPacket {
            schema_version: CONTRACT_VERSION.into(),
            run_id: self.run_id.clone(),
            generated_at: None,
            packet_type: PacketType::Assignment,
            global_objective: objective(&self.scenario.input.goal),
            task: t.packet.clone(),
            active_locks: self.scenario.input.active_locks.clone(),
            context_package,
            required_output_schema: OutputSchemaName::SubagentResultV1,
            extra: Default::default(),
        }
    }

    async fn complete_step(&mut self, s: usize, stage: &str, run: &mut Running) -> Next {
        let task = run.task;
        let role_index = run.role;
        let role = self.flow.roles[role_index].role;
        let Some(pending) = run.pending.take() else {
            return Next::Ended;
        };
        let task_id = self.tasks[task].packet.task_id.clone();
        let iteration = self.tasks[task].iterations[role_index];
        let mut record = pending.record;
        self.touched.clear();
        let end = self
            .evaluate(
                task,
                role_index,
                stage,
                iteration,
                pending.outcome,
                pending.duration_ms,
                pending.blocked_tool,
                pending.denied_approval,
                pending.precheck,
                &mut record,
            )
            .await;
        record.outcome = match &end {
            StepEnd::Passed => "ok".into(),
            StepEnd::Failed { .. } => "failed".into(),
            StepEnd::Terminal { trigger, .. } => (*trigger).into(),
        };
        record.code = match &end {
            StepEnd::Passed => None,
            StepEnd::Failed { code, .. } | StepEnd::Terminal { code, .. } => Some(*code),
        };
        let files = std::mem::take(&mut self.touched);
        self.audit.runs.push(record);
        let _ = s;
        match end {
            StepEnd::Terminal {
                code,
                trigger,
                reason,
            } => {
                self.escalate_or_end(task, role_index, trigger, code, reason);
                Next::Ended
            }
            StepEnd::Passed => {
                let (next, why) = self.forward(role_index, run);
                let next_step = match next {
                    Some(j) => format!("hand off to {}", self.flow.roles[j].role.name),
                    None => format!("leave stage {stage}"),
                };
                self.worklog(
                    task,
                    &role.name,
                    format!("{} round {iteration}", role.name),
                    files,
                    "the gate passed".to_string(),
                    summarize(&self.tasks[task].values, role.outputs_required()),
                    next_step,
                    None,
                );
                match next {
                    Some(j) => {
                        let to = self.flow.roles[j].role.name.clone();
                        self.emit(Event::Handoff {
                            task_id,
                            from: role.name.clone(),
                            to,
                            reason: why,
                        });
                        run.role = j;
                        Next::At(self.now, Phase::Start)
                    }
                    None => {
                        self.emit(Event::StageLeft {
                            task_id,
                            stage: stage.to_string(),
                            role: role.name.clone(),
                        });
                        Next::LeftStage
                    }
                }
            }
            StepEnd::Failed {
                code,
                trigger,
                reason,
            } => {
                let back = role
                    .handoff_to()
                    .iter()
                    .filter_map(|t| self.flow.index_of(t))
                    .find(|&j| {
                        self.flow.roles[j].stage_index == self.flow.roles[role_index].stage_index
                            && run.first_run[j] != 0
                            && run.first_run[j] < run.first_run[role_index]
                    });
                match back {
                    Some(j) => {
                        if let Some(n) = self.loop_bound[role_index]
                            && iteration >= n
                        {
                            let reason = format!(
                                "`{}` failed round {iteration} of {n}: {reason}",
                                role.name
                            );
                            self.escalate_or_end(
                                task,
                                role_index,
                                "retry_limit",
                                ErrorCode::RetryLimit,
                                reason,
                            );
                            return Next::Ended;
                        }
                        let to = self.flow.roles[j].role.name.clone();
                        self.worklog(
                            task,
                            &role.name,
                            format!("{} round {iteration}", role.name),
                            files,
                            format!("sent back: {reason}"),
                            summarize(&self.tasks[task].values, role.outputs_required()),
                            format!("{to} addresses the issues"),
                            None,
                        );
                        self.emit(Event::Handoff {
                            task_id,
                            from: role.name.clone(),
                            to,
                            reason: HandoffReason::SentBack,
                        });
                        run.role = j;
                        Next::At(self.now, Phase::Start)
                    }
                    None => {
                        self.escalate_or_end(
                            task,
                            role_index,
                            if trigger == "contract_violation" {
                                "contract_violation"
                            } else {
                                "gate_failed"
                            },
                            code,
                            reason,
                        );
                        Next::Ended
                    }
                }
            }
        }
    }

    /// Post-execution checks of one invocation.
    #[allow(clippy::too_many_arguments)]
    async fn evaluate(
        &mut self,
        task: usize,
        role_index: usize,
        stage: &str,
        iteration: u32,
        outcome: AgentOutcome,
        duration_ms: u64,
        blocked_tool: bool,
        denied_approval: bool,
        precheck: Option<(ErrorCode, String)>,
        record: &mut AgentRunRecord,
    ) -> StepEnd {
        let role = self.flow.roles[role_index].role;
        let task_id = self.tasks[task].packet.task_id.clone();
        if let Some((code, detail)) = precheck {
            return self.violation_end(role_index, code, detail);
        }
        let timeout_ms = self.tasks[task].packet.timeout_seconds.saturating_mul(1000);
        if duration_ms > timeout_ms {
            return StepEnd::Terminal {
                code: ErrorCode::AgentTimeout,
                trigger: "timeout",
                reason: format!(
                    "`{}` took {duration_ms} ms; the task timeout is {timeout_ms} ms",
                    role.name
                ),
            };
        }
        let (output, result) = match outcome {
            AgentOutcome::Error { message } => {
                return StepEnd::Terminal {
                    code: ErrorCode::AgentFailed,
                    trigger: "agent_error",
                    reason: format!("`{}` failed: {}", role.name, truncate(&message, 500)),
                };
            }
            AgentOutcome::NeedsInput { questions } => {
                record.output = json!({ "questions": questions });
                return StepEnd::Terminal {
                    code: ErrorCode::NeedsInput,
                    trigger: "needs_input",
                    reason: format!(
                        "`{}` needs input: {}",
                        role.name,
                        truncate(&questions.join(" | "), 500)
                    ),
                };
            }
            AgentOutcome::Output { output, result } => (output, result),
        };
        // The output must be a JSON object with every required field.
        let parsed: Result<Map<String, Value>, (ErrorCode, String)> = match output {
            AgentOutput::Json(Value::Object(map)) => Ok(map),
            AgentOutput::Json(other) => Err((
                ErrorCode::OutputNotJson,
                format!("the output is {}, not a JSON object", kind_of(&other)),
            )),
            AgentOutput::Text(text) => {
                if text.len() as u64 > self.max_output_bytes {
                    Err((
                        ErrorCode::OutputTooLarge,
                        format!(
                            "the output is {} bytes; the limit is {}",
                            text.len(),
                            self.max_output_bytes
                        ),
                    ))
                } else {
                    record.output = Value::String(truncate(&text, 4096));
                    match serde_json::from_str::<Value>(&text) {
                        Ok(Value::Object(map)) => Ok(map),
                        Ok(other) => Err((
                            ErrorCode::OutputNotJson,
                            format!("the output is {}, not a JSON object", kind_of(&other)),
                        )),
                        Err(e) => Err((
                            ErrorCode::OutputNotJson,
                            format!("the output is not JSON: {e}"),
                        )),
                    }
                }
            }
        };
        let output = match parsed {
            Ok(map) => map,
            Err((code, detail)) => {
                self.emit(Event::ContractViolation {
                    task_id,
                    role: role.name.clone(),
                    code,
                    detail: detail.clone(),
                });
                return self.violation_end(role_index, code, detail);
            }
        };
        self.emit(Event::OutputReceived {
            task_id: task_id.clone(),
            role: role.name.clone(),
            iteration,
            fields: output.keys().cloned().collect(),
            duration_ms,
        });
        if record.output.is_null() {
            record.output = Value::Object(output.clone());
        }
        let missing: Vec<&str> = role
            .outputs_required()
            .iter()
            .map(String::as_str)
            .filter(|f| output.get(*f).is_none_or(Value::is_null))
            .collect();
        if !missing.is_empty() {
            let detail = format!(
                "output type `{}` lacks required field(s): {}",
                role.output_type().unwrap_or("output"),
                missing.join(", ")
            );
            self.emit(Event::ContractViolation {
                task_id,
                role: role.name.clone(),
                code: ErrorCode::OutputMissingField,
                detail: detail.clone(),
            });
            return self.violation_end(role_index, ErrorCode::OutputMissingField, detail);
        }
        // The subagent result envelope.
        let status = match result {
            None => {
                let detail = "no subagent result envelope was returned".to_string();
                self.emit(Event::ContractViolation {
                    task_id,
                    role: role.name.clone(),
                    code: ErrorCode::ResultInvalid,
                    detail: detail.clone(),
                });
                return self.violation_end(role_index, ErrorCode::ResultInvalid, detail);
            }
            Some(value) => {
                match envelope::parse::<SubagentResult>(&value, self.options.strict_envelopes) {
                    Ok(result) if result.task_id != task_id || result.run_id != self.run_id => {
                        let detail = format!(
                            "the result is for task {} of run {}, not task {task_id} of this run",
                            result.task_id, result.run_id
                        );
                        self.emit(Event::ContractViolation {
                            task_id,
                            role: role.name.clone(),
                            code: ErrorCode::ResultInvalid,
                            detail: detail.clone(),
                        });
                        return self.violation_end(role_index, ErrorCode::ResultInvalid, detail);
                    }
                    Ok(result) => {
                        self.touched = result.changes.into_iter().map(|c| c.resource).collect();
                        result.status
                    }
                    Err(violations) => {
                        let code = violations[0].code;
                        let detail = violations
                            .iter()
                            .take(5)
                            .map(|v| {
                                format!(
                                    "{} {}",
                                    if v.path.is_empty() { "/" } else { &v.path },
                                    v.message
                                )
                            })
                            .collect::<Vec<_>>()
                            .join("; ");
                        self.emit(Event::ContractViolation {
                            task_id,
                            role: role.name.clone(),
                            code,
                            detail: detail.clone(),
                        });
                        return self.violation_end(role_index, code, detail);
                    }
                }
            }
        };
        match status {
            ResultStatus::Blocked => {
                return StepEnd::Terminal {
                    code: ErrorCode::AgentBlocked,
                    trigger: "agent_blocked",
                    reason: format!("`{}` reported status blocked", role.name),
                };
            }
            ResultStatus::Failed => {
                return StepEnd::Terminal {
                    code: ErrorCode::AgentFailed,
                    trigger: "agent_error",
                    reason: format!("`{}` reported status failed", role.name),
                };
            }
            ResultStatus::Done => {}
        }
        if blocked_tool && self.escalate[role_index] & trigger_bit("tool_blocked") != 0 {
            return StepEnd::Terminal {
                code: ErrorCode::ToolNotAllowed,
                trigger: "tool_blocked",
                reason: format!("`{}` attempted a tool outside its contract", role.name),
            };
        }
        if denied_approval && self.escalate[role_index] & trigger_bit("approval_denied") != 0 {
            return StepEnd::Terminal {
                code: ErrorCode::ApprovalDenied,
                trigger: "approval_denied",
                reason: format!("an approval `{}` asked for was denied", role.name),
            };
        }
        // Accept the output: it becomes input of later roles.
        if let Some(Value::String(v)) = output.get("verdict") {
            self.tasks[task].last_verdict = Some(truncate(v, 100));
        }
        for (k, v) in output {
            self.tasks[task].values.insert(k, v);
        }
        if !role.completion_criteria().is_empty() {
            self.emit(Event::CompletionRecorded {
                task_id: task_id.clone(),
                role: role.name.clone(),
                criteria: role.completion_criteria().to_vec(),
            });
        }
        let Some(gate) = self.role_gates[role_index].clone() else {
            return StepEnd::Passed;
        };
        // The gate reads the role's output (now merged into the task's
        // values, where it wins over earlier roles) and the run state.
        let state = [
            ("iteration", json!(iteration)),
            ("max_iterations", json!(self.loop_bound[role_index])),
            ("task_id", json!(task_id)),
            ("stage", json!(stage)),
        ];
        let verdict = evaluate(&gate, &state, &self.tasks[task].values);
        match self
            .check_gate(&gate, verdict, task, stage, Some(&role.name.clone()))
            .await
        {
            Ok(manual) => {
                self.emit(Event::GatePassed {
                    task_id,
                    scope: GateScope::Role,
                    owner: role.name.clone(),
                    gate: gate.source.clone(),
                    manual,
                });
                StepEnd::Passed
            }
            Err(reason) => {
                self.emit(Event::GateFailed {
                    task_id,
                    scope: GateScope::Role,
                    owner: role.name.clone(),
                    gate: gate.source.clone(),
                    reason: reason.clone(),
                });
                StepEnd::Failed {
                    code: ErrorCode::GateFailed,
                    trigger: "gate_failed",
                    reason,
                }
            }
        }
    }

    fn violation_end(&mut self, role: usize, code: ErrorCode, detail: String) -> StepEnd {
        let stop = self.scenario.on_violation.unwrap_or_default() == ViolationPolicy::Stop;
        if stop {
            // The task ends here; the stage loop then cancels the rest.
            self.stopped = true;
        }
        if stop || self.escalate[role] & trigger_bit("contract_violation") != 0 {
            return StepEnd::Terminal {
                code,
                trigger: "contract_violation",
                reason: detail,
            };
        }
        StepEnd::Failed {
            code,
            trigger: "contract_violation",
            reason: detail,
        }
    }

    /// The forward route after a passed gate.
    fn forward(&self, role_index: usize, run: &Running) -> (Option<usize>, HandoffReason) {
        let r = &self.flow.roles[role_index];
        match &r.role.handoff_to {
            None => {
                let next = role_index + 1;
                if next < self.flow.roles.len()
                    && self.flow.roles[next].stage_index == r.stage_index
                {
                    (Some(next), HandoffReason::Sequence)
                } else {
                    (None, HandoffReason::Sequence)
                }
            }
            Some(targets) => {
                let next = targets
                    .iter()
                    .filter_map(|t| self.flow.index_of(t))
                    .find(|&j| {
                        self.flow.roles[j].stage_index == r.stage_index
                            && (run.first_run[j] == 0
                                || run.first_run[j] > run.first_run[role_index])
                    });
                (next, HandoffReason::Passed)
            }
        }
    }

    // ------------------------------------------------------------ summaries

    fn summaries(&self) -> Vec<TaskSummary> {
        self.tasks
            .iter()
            .map(|t| TaskSummary {
                task_id: t.packet.task_id.clone(),
                title: t.packet.title.clone(),
                state: match t.status {
                    Status::Done | Status::Active => TaskState::Done,
                    Status::Blocked => TaskState::Blocked,
                    Status::Failed => TaskState::Failed,
                    Status::Canceled => TaskState::Canceled,
                },
                code: t.code,
                reason: t.reason.clone(),
                iterations: self
                    .flow
                    .roles
                    .iter()
                    .zip(&t.iterations)
                    .filter(|(_, n)| **n > 0)
                    .map(|(r, n)| (r.role.name.clone(), *n))
                    .collect(),
                last_verdict: t.last_verdict.clone(),
            })
            .collect()
    }

    fn handoff_bundle(&self) -> HandoffBundle {
        let ledger = self
            .tasks
            .iter()
            .map(|t| {
                let row = self.ledger.row(&t.packet.task_id);
                LedgerRow {
                    task_id: t.packet.task_id.clone(),
                    title: t.packet.title.clone(),
                    status: row.map(|r| r.status).unwrap_or(LedgerStatus::Todo),
                    owner: row.map(|r| r.owner.clone()).unwrap_or_default(),
                    lock_scope: t.packet.lock_scope.clone(),
                    timeout_seconds: t.packet.timeout_seconds,
                    heartbeat_interval_seconds: t.packet.heartbeat_interval_seconds,
                    priority: t.packet.priority,
                    last_heartbeat_at: None,
                }
            })
            .collect();
        HandoffBundle {
            schema_version: CONTRACT_VERSION.into(),
            run_id: self.run_id.clone(),
            objective: objective(&self.scenario.input.goal),
            constraints: self
                .tasks
                .iter()
                .flat_map(|t| {
                    t.packet
                        .forbidden_scope
                        .iter()
                        .map(|f| format!("Do not edit {f}"))
                })
                .collect(),
            ledger,
            active_locks: self
                .scenario
                .input
                .active_locks
                .iter()
                .cloned()
                .chain(
                    self.tasks
                        .iter()
                        .filter(|t| t.status == Status::Active)
                        .flat_map(|t| {
                            t.packet.lock_scope.iter().map(|r| ActiveLock {
                                task_id: t.packet.task_id.clone(),
                                resource: r.clone(),
                                active: false,
                                extra: Default::default(),
                            })
                        }),
                )
                .collect(),
            dependencies: self
                .tasks
                .iter()
                .map(|t| {
                    (
                        t.packet.task_id.clone(),
                        t.packet.dependencies.iter().map(|d| d.0.clone()).collect(),
                    )
                })
                .collect(),
            open_blockers: self
                .tasks
                .iter()
                .filter(|t| t.status == Status::Blocked)
                .map(|t| Blocker {
                    task_id: t.packet.task_id.clone(),
                    code: t.code.map(|c| c.as_str().to_string()).unwrap_or_default(),
                    reason: t.reason.clone().unwrap_or_default(),
                    details: None,
                })
                .collect(),
            acceptance_targets: self
                .tasks
                .iter()
                .flat_map(|t| t.packet.acceptance_criteria.iter().cloned())
                .collect(),
        }
    }
}

enum Admit {
    Start(usize),
    Wait,
    Ended,
}

enum Next {
    At(u64, Phase),
    LeftStage,
    Ended,
}

fn ledger_word(status: LedgerStatus) -> &'static str {
    match status {
        LedgerStatus::Todo => "todo",
        LedgerStatus::InProgress => "in progress",
        LedgerStatus::Blocked => "blocked",
        LedgerStatus::Done => "done",
        LedgerStatus::Failed => "failed",
        LedgerStatus::Canceled => "canceled",
    }
}

fn objective(goal: &str) -> String {
    if goal.trim().is_empty() {
        "Preview the playbook".into()
    } else {
        truncate(goal, 5000)
    }
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => text[..cut].to_string(),
        None => text.to_string(),
    }
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn summarize(values: &Map<String, Value>, fields: &[String]) -> String {
    let mut out = String::new();
    for f in fields.iter().take(6) {
        if let Some(v) = values.get(f) {
            if !out.is_empty() {
                out.push_str(", ");
            }
            let text = match v {
                Value::String(s) => truncate(s, 80),
                other => truncate(&other.to_string(), 80),
            };
            out.push_str(f);
            out.push('=');
            out.push_str(&text);
        }
    }
    out
}

fn task_content(packet: &PacketTask) -> String {
    let mut out = format!("# {}\n", packet.title);
    for c in &packet.acceptance_criteria {
        out.push_str("- ");
        out.push_str(c);
        out.push('\n');
    }
    out
}

/// Maps a playbook stage to a stage kind of the role assignment contract.
fn assignment_stage(name: &str, modes: impl Iterator<Item = Option<RoleMode>>) -> AssignmentStage {
    let modes: Vec<Option<RoleMode>> = modes.collect();
    match name {
        "test" => AssignmentStage::Test,
        "review" => AssignmentStage::Review,
        "resolve" => AssignmentStage::Resolve,
        _ if modes.iter().all(|m| *m == Some(RoleMode::Tester)) && !modes.is_empty() => {
            AssignmentStage::Test
        }
        _ if modes.iter().all(|m| *m == Some(RoleMode::Reviewer)) && !modes.is_empty() => {
            AssignmentStage::Review
        }
        _ => AssignmentStage::Work,
    }
}

/// Parses an assigner's answer; `Err` says why the fallback applies.
pub fn parse_assignment(
    text: &str,
    available: &[String],
) -> Result<RoleAssignmentResponse, String> {
    let value: Value =
        serde_json::from_str(text.trim()).map_err(|e| format!("invalid JSON ({e})"))?;
    let Value::Object(map) = value else {
        return Err("the response is not a JSON object".into());
    };
    let role = map
        .get("role")
        .and_then(Value::as_str)
        .ok_or("missing field `role`")?;
    let rationale = map
        .get("rationale")
        .and_then(Value::as_str)
        .filter(|r| !r.trim().is_empty())
        .ok_or("missing field `rationale`")?;
    if !available.iter().any(|a| a == role) {
        return Err(format!("role `{role}` is not in available_roles"));
    }
    Ok(RoleAssignmentResponse {
        role: role.to_string(),
        rationale: truncate(rationale, 500),
    })
}

/// Whether two lists of path-like resources overlap: equal, or one is a
/// directory prefix of the other.
pub fn overlaps(a: &[String], b: &[String]) -> bool {
    a.iter().any(|x| b.iter().any(|y| resource_overlap(x, y)))
}

fn resource_overlap(a: &str, b: &str) -> bool {
    let a = a.trim_start_matches("./");
    let b = b.trim_start_matches("./");
    if a == b {
        return true;
    }
    let prefix = |dir: &str, path: &str| {
        let dir = dir.trim_end_matches('/');
        !dir.is_empty()
            && path.len() > dir.len()
            && path.starts_with(dir)
            && path.as_bytes()[dir.len()] == b'/'
    };
    prefix(a, b) || prefix(b, a)
}

/// Evaluates a compiled gate over the run state first, then the task's
/// values. `None` for manual gates.
fn evaluate(gate: &Gate, state: &[(&str, Value)], values: &Map<String, Value>) -> Option<Verdict> {
    gate.evaluate_with(|name| {
        state
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
            .or_else(|| values.get(name))
    })
}
