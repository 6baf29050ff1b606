//! The typed event stream of a run, and the sinks it flows into.
//!
//! Events are the product's record of a run: the CLI prints them, the app
//! shows them live, the store persists them, and replay compares them. Their
//! JSON form (one object per line) is stable and bit-identical for the same
//! playbook, scenario and seed: no wall-clock time, no hash-map order.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::bound::StageBound;
use crate::code::ErrorCode;

/// One event with its position in the run and its virtual time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct EventRecord {
    /// 0-based position in the run.
    pub seq: u64,
    /// Virtual milliseconds since the run started.
    pub t_ms: u64,
    #[serde(flatten)]
    pub event: Event,
}

/// Where a gate sits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum GateScope {
    /// A role's `pass_condition`.
    Role,
    /// A stage's `enter_gate`.
    StageEnter,
    /// A stage's `exit_gate`.
    StageExit,
}

/// Why the task moves from one role to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum HandoffReason {
    /// The gate passed; forward along `handoff_to`.
    Passed,
    /// The gate passed; no `handoff_to`, so the next role of the stage.
    Sequence,
    /// The gate failed; back to the role that did the work (the review loop).
    SentBack,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Outcome {
    /// Every task is done.
    Passed,
    /// At least one task is blocked or escalated, none failed.
    Blocked,
    /// At least one task failed.
    Failed,
    /// The run did not start: invalid playbook, scenario, role or preflight.
    Refused,
    /// Stopped by policy or budget; remaining tasks canceled.
    Stopped,
}

/// Final state of one task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum TaskState {
    Done,
    Blocked,
    Failed,
    Canceled,
}

/// A result of a preflight check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct PreflightResult {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

/// Everything that happens in a run, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
#[ts(export)]
pub enum Event {
    RunStarted {
        run_id: String,
        playbook_id: String,
        /// SHA-256 of the playbook's canonical JSON.
        playbook_hash: String,
        scenario: Option<String>,
        seed: u64,
        /// ISO-8601 UTC instant of virtual time 0.
        started_at: String,
        tasks: u32,
        bounds: Vec<StageBound>,
    },
    /// The run did not start (or stopped before its first stage).
    RunRefused {
        code: ErrorCode,
        reason: String,
        details: Vec<String>,
    },
    PreflightChecked {
        results: Vec<PreflightResult>,
    },
    StageEntered {
        stage: String,
        tasks: u32,
        max_parallel: u32,
    },
    StageSkipped {
        stage: String,
        reason: String,
    },
    /// A task may not enter or leave the stage.
    StageBlocked {
        stage: String,
        task_id: String,
        code: ErrorCode,
        reason: String,
    },
    StageExited {
        stage: String,
        done: u32,
        blocked: u32,
        failed: u32,
    },
    /// A planner's output created tasks.
    TasksCreated {
        by: String,
        task_ids: Vec<String>,
    },
    /// The task got a worktree in the stage.
    TaskAssigned {
        task_id: String,
        stage: String,
        worktree: u32,
    },
    /// The role that takes the task, and why.
    RoleSelected {
        task_id: String,
        stage: String,
        role: String,
        /// `explicit`, `assigner` or `fallback`.
        source: String,
        rationale: String,
        /// Set when the assigner's answer was invalid.
        warning: Option<String>,
    },
    /// The task waits: a lock, a dependency or a cap. Said once per
    /// dependency, once for role caps, and once for locks whoever holds
    /// the lock (`on` names the first holder).
    TaskWaiting {
        task_id: String,
        stage: String,
        reason: String,
        /// The task or lock holder waited on.
        on: String,
    },
    /// Loop state: this role's k-th round of at most n.
    Iteration {
        task_id: String,
        role: String,
        k: u32,
        n: Option<u32>,
    },
    AgentInvoked {
        task_id: String,
        stage: String,
        role: String,
        iteration: u32,
        /// SHA-256 of the rendered prompt.
        prompt_hash: String,
    },
    ToolCallAllowed {
        task_id: String,
        role: String,
        tool: String,
    },
    ToolCallBlocked {
        task_id: String,
        role: String,
        tool: String,
        code: ErrorCode,
        reason: String,
    },
    ApprovalRequested {
        task_id: String,
        role: Option<String>,
        subject: String,
    },
    ApprovalGranted {
        task_id: String,
        subject: String,
        by: String,
    },
    ApprovalDenied {
        task_id: String,
        subject: String,
        by: String,
        code: ErrorCode,
    },
    OutputReceived {
        task_id: String,
        role: String,
        iteration: u32,
        /// Output fields, in the order the agent gave them.
        fields: Vec<String>,
        duration_ms: u64,
    },
    ContractViolation {
        task_id: String,
        role: String,
        code: ErrorCode,
        detail: String,
    },
    GatePassed {
        task_id: String,
        scope: GateScope,
        owner: String,
        gate: String,
        manual: bool,
        /// In words: what the output said and what happens next, e.g.
        /// "reviewer: fail — 'No test'; back to worker, round 2 of 3".
        #[serde(default)]
        summary: String,
    },
    GateFailed {
        task_id: String,
        scope: GateScope,
        owner: String,
        gate: String,
        reason: String,
        /// In words: what the output said and what happens next, e.g.
        /// "reviewer: fail — 'No test'; back to worker, round 2 of 3".
        #[serde(default)]
        summary: String,
    },
    /// Completion criteria of the role as reported by the agent.
    CompletionRecorded {
        task_id: String,
        role: String,
        criteria: Vec<String>,
    },
    Handoff {
        task_id: String,
        from: String,
        to: String,
        reason: HandoffReason,
    },
    /// The task leaves the stage after `role`.
    StageLeft {
        task_id: String,
        stage: String,
        role: String,
    },
    Escalated {
        task_id: String,
        role: String,
        trigger: String,
        code: ErrorCode,
        reason: String,
        /// In words: who escalated, why, and that a person decides now.
        #[serde(default)]
        summary: String,
    },
    /// A warning that changes nothing in the routing (ledger drift, ...).
    Warning {
        code: ErrorCode,
        message: String,
    },
    TaskDone {
        task_id: String,
    },
    TaskBlocked {
        task_id: String,
        code: ErrorCode,
        reason: String,
    },
    TaskFailed {
        task_id: String,
        code: ErrorCode,
        reason: String,
    },
    TaskCanceled {
        task_id: String,
        code: ErrorCode,
    },
    RunFinished {
        outcome: Outcome,
        tasks_done: u32,
        tasks_blocked: u32,
        tasks_failed: u32,
        tasks_canceled: u32,
        steps: u64,
        virtual_ms: u64,
    },
}

/// Receives events as they happen.
pub trait EventSink {
    fn emit(&mut self, record: &EventRecord);

    /// Receives each per-call record (an audit entry, a worklog entry, a
    /// ledger delta) as soon as it is complete and redacted. A run with
    /// [`crate::RunOptions::keep_records`] off keeps none of them in its
    /// report, so this is where they can be stored or counted; by default
    /// a sink ignores them (the report keeps them).
    fn record(&mut self, _record: RunRecord<'_>) {}
}

/// A per-call record of a run, redacted, as a sink receives it.
#[derive(Debug, Clone, Copy)]
pub enum RunRecord<'a> {
    /// One agent invocation of the audit log.
    AgentRun(&'a crate::audit::AgentRunRecord),
    /// One worklog entry.
    Worklog(&'a crate::envelope::WorklogEntry),
    /// One ledger delta, once the ledger has applied it.
    LedgerDelta(&'a crate::envelope::LedgerDelta),
}

/// Counts events and records without storing them: a simulation's sink,
/// whose memory does not grow with the run.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CountingSink {
    pub events: u64,
    pub agent_runs: u64,
    pub worklog_entries: u64,
    pub ledger_deltas: u64,
}

impl EventSink for CountingSink {
    fn emit(&mut self, _record: &EventRecord) {
        self.events += 1;
    }

    fn record(&mut self, record: RunRecord<'_>) {
        match record {
            RunRecord::AgentRun(_) => self.agent_runs += 1,
            RunRecord::Worklog(_) => self.worklog_entries += 1,
            RunRecord::LedgerDelta(_) => self.ledger_deltas += 1,
        }
    }
}

/// Keeps every event in memory.
#[derive(Debug, Default, Clone)]
pub struct VecSink(pub Vec<EventRecord>);

impl EventSink for VecSink {
    fn emit(&mut self, record: &EventRecord) {
        self.0.push(record.clone());
    }
}

/// Writes one JSON object per line to any writer. A write error stops
/// writing (the first one is kept) but never the run.
pub struct JsonlSink<W: std::io::Write> {
    out: W,
    line: Vec<u8>,
    pub error: Option<std::io::Error>,
}

impl<W: std::io::Write> JsonlSink<W> {
    pub fn new(out: W) -> Self {
        JsonlSink {
            out,
            line: Vec::with_capacity(256),
            error: None,
        }
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    /// Flushes the writer, so a log read while the run goes on (or after a
    /// crash) holds every event so far.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

impl<W: std::io::Write> EventSink for JsonlSink<W> {
    fn emit(&mut self, record: &EventRecord) {
        if self.error.is_some() {
            return;
        }
        self.line.clear();
        if serde_json::to_writer(&mut self.line, record).is_ok() {
            self.line.push(b'\n');
            if let Err(e) = self.out.write_all(&self.line) {
                self.error = Some(e);
            }
        }
    }
}

/// Calls a closure for every event (live progress in the CLI and the app).
pub struct FnSink<F: FnMut(&EventRecord)>(pub F);

impl<F: FnMut(&EventRecord)> EventSink for FnSink<F> {
    fn emit(&mut self, record: &EventRecord) {
        (self.0)(record)
    }
}

/// Sends every event to two sinks.
pub struct Tee<'a, A: EventSink, B: EventSink>(pub &'a mut A, pub &'a mut B);

impl<A: EventSink, B: EventSink> EventSink for Tee<'_, A, B> {
    fn emit(&mut self, record: &EventRecord) {
        self.0.emit(record);
        self.1.emit(record);
    }

    fn record(&mut self, record: RunRecord<'_>) {
        self.0.record(record);
        self.1.record(record);
    }
}

/// Serialises events as JSONL text.
pub fn to_jsonl(events: &[EventRecord]) -> String {
    let mut sink = JsonlSink::new(Vec::new());
    for e in events {
        sink.emit(e);
    }
    String::from_utf8(sink.into_inner()).unwrap_or_default()
}

/// Parses a JSONL event log; the line number of the first bad line on error.
pub fn from_jsonl(text: &str) -> Result<Vec<EventRecord>, (usize, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| (i + 1, e.to_string())))
        .collect()
}

/// One line of the live progress report for an event, or `None` for events
/// a person does not need to see as they happen. Names, ids and reasons in
/// it come from files and agents: every control or invisible character is
/// escaped ([`crate::redact::printable`]), so an agent's text cannot rewrite the terminal
/// or forge a line of the report.
pub fn describe(event: &Event) -> Option<String> {
    let line = describe_unescaped(event)?;
    Some(match event {
        // Already escaped part by part; its line breaks are the report's.
        Event::RunRefused { .. } => line,
        _ => shown(&line),
    })
}

/// `text` redacted, then escaped ([`crate::redact::printable`]).
fn shown(text: &str) -> String {
    crate::redact::printable(text).into_owned()
}

fn describe_unescaped(event: &Event) -> Option<String> {
    Some(match event {
        Event::RunStarted {
            playbook_id,
            run_id,
            seed,
            tasks,
            ..
        } => {
            format!("run {run_id} of `{playbook_id}` (seed {seed}, {tasks} task(s))")
        }
        Event::RunRefused {
            code,
            reason,
            details,
        } => {
            let mut text = format!("refused {code}: {}", shown(reason));
            for d in details {
                text.push_str("\n    ");
                text.push_str(&shown(d));
            }
            text
        }
        Event::PreflightChecked { results } => {
            let failed = results.iter().filter(|r| !r.passed).count();
            format!("preflight: {} check(s), {failed} failed", results.len())
        }
        Event::StageEntered {
            stage,
            tasks,
            max_parallel,
        } => {
            format!("stage {stage}: {tasks} task(s), up to {max_parallel} at once")
        }
        Event::StageSkipped { stage, reason } => format!("stage {stage} skipped: {reason}"),
        Event::StageBlocked {
            stage,
            task_id,
            code,
            reason,
        } => {
            format!("{task_id} blocked at stage {stage} ({code}): {reason}")
        }
        Event::StageExited {
            stage,
            done,
            blocked,
            failed,
        } => {
            format!("stage {stage} done: {done} passed, {blocked} blocked, {failed} failed")
        }
        Event::TasksCreated { by, task_ids } => format!("{by} planned {}", task_ids.join(", ")),
        Event::TaskAssigned { .. } => return None,
        Event::RoleSelected {
            task_id,
            role,
            source,
            warning,
            ..
        } => match warning {
            Some(w) => format!("{task_id} → {role} ({source}) WARNING {w}"),
            None => format!("{task_id} → {role} ({source})"),
        },
        Event::TaskWaiting {
            task_id,
            reason,
            on,
            ..
        } => format!("{task_id} waits ({reason}) on {on}"),
        Event::Iteration {
            task_id,
            role,
            k,
            n,
        } => match n {
            Some(n) => format!("{task_id} {role}: iteration {k} of {n}"),
            None => format!("{task_id} {role}: iteration {k}"),
        },
        Event::AgentInvoked { .. } => return None,
        Event::ToolCallAllowed { .. } => return None,
        Event::ToolCallBlocked {
            task_id,
            role,
            tool,
            code,
            ..
        } => {
            format!("{task_id} {role}: tool `{tool}` BLOCKED ({code})")
        }
        Event::ApprovalRequested { .. } => return None,
        Event::ApprovalGranted {
            task_id,
            subject,
            by,
        } => format!("{task_id} approved {subject} ({by})"),
        Event::ApprovalDenied {
            task_id,
            subject,
            by,
            code,
        } => {
            format!("{task_id} DENIED {subject} ({by}, {code})")
        }
        Event::OutputReceived { .. } => return None,
        Event::ContractViolation {
            task_id,
            role,
            code,
            detail,
        } => {
            format!("{task_id} {role}: CONTRACT VIOLATION {code}: {detail}")
        }
        Event::GatePassed {
            task_id, summary, ..
        } if !summary.is_empty() => format!("{task_id} {summary}"),
        Event::GateFailed {
            task_id, summary, ..
        } if !summary.is_empty() => format!("{task_id} {summary}"),
        Event::Escalated {
            task_id, summary, ..
        } if !summary.is_empty() => format!("{task_id} ESCALATED {summary}"),
        Event::GatePassed {
            task_id,
            owner,
            gate,
            manual,
            ..
        } => {
            format!(
                "{task_id} {owner}: gate `{gate}` passed{}",
                if *manual { " (approved)" } else { "" }
            )
        }
        Event::GateFailed {
            task_id,
            owner,
            gate,
            reason,
            ..
        } => {
            format!("{task_id} {owner}: gate `{gate}` FAILED: {reason}")
        }
        Event::CompletionRecorded { .. } => return None,
        Event::Handoff {
            task_id,
            from,
            to,
            reason,
        } => match reason {
            HandoffReason::SentBack => format!("{task_id} {from} → {to} (sent back)"),
            _ => format!("{task_id} {from} → {to}"),
        },
        Event::StageLeft { .. } => return None,
        Event::Escalated {
            task_id,
            role,
            trigger,
            code,
            reason,
            ..
        } => {
            format!("{task_id} {role}: ESCALATED on {trigger} ({code}): {reason}")
        }
        Event::Warning { code, message } => format!("warning {code}: {message}"),
        Event::TaskDone { task_id } => format!("{task_id} done"),
        Event::TaskBlocked {
            task_id,
            code,
            reason,
        } => format!("{task_id} BLOCKED {code}: {reason}"),
        Event::TaskFailed {
            task_id,
            code,
            reason,
        } => format!("{task_id} FAILED {code}: {reason}"),
        Event::TaskCanceled { task_id, code } => format!("{task_id} canceled ({code})"),
        Event::RunFinished {
            outcome,
            steps,
            virtual_ms,
            ..
        } => {
            format!(
                "run finished: {outcome:?} after {steps} agent call(s), {:.1} s virtual",
                *virtual_ms as f64 / 1000.0
            )
        }
    })
}
