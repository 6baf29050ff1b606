//! Where the orchestrator's records pass through the redactor
//! (`playbook-redact`) before they leave the engine.
//!
//! Two boundaries cover every record. Each event is redacted as it is
//! emitted, before any sink sees it (the JSONL log, the CLI's live report,
//! the app's timeline and the store all are sinks). The run report is
//! redacted as a whole when the run returns it: task summaries, findings,
//! the audit log (raw outputs, tool arguments and results), the
//! orchestrator outputs (ledger deltas, assignments, blockers) and the
//! handoff bundle. Worklogs and ledger rows are redacted as they are
//! appended (`worklog.rs`, `ledger.rs`), so they are clean even mid-run.

use playbook_redact::{Redact, redact_serde, redact_string};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::agent::ToolResult;
use crate::audit::AgentRunRecord;
use crate::engine::RunReport;
use crate::event::{Event, PreflightResult};

/// Redacts a typed record through its JSON form. A record whose redacted
/// form no longer fits its type (a secret in a field with a fixed set of
/// values) is replaced by `withheld`: it fails closed, never open.
pub(crate) fn record<T: Serialize + DeserializeOwned>(value: &mut T, withheld: impl FnOnce() -> T) {
    match redact_serde(value) {
        Ok(None) => {}
        Ok(Some(clean)) => *value = clean,
        Err(_) => *value = withheld(),
    }
}

/// Redacts every record of a finished run.
pub fn report(report: &mut RunReport) {
    record(&mut report.tasks, Vec::new);
    record(&mut report.findings, Vec::new);
    record(&mut report.bounds, Vec::new);
    audit(&mut report.audit);
    record(&mut report.outputs, Vec::new);
    record(&mut report.handoff, || None);
}

/// Redacts the audit log in place. It holds a record per agent call, the
/// largest part of a report, so it is walked field by field rather than
/// round-tripped through JSON (which doubled a large run's time and memory).
fn audit(log: &mut crate::audit::AuditLog) {
    log.run_id.redact();
    record(&mut log.inputs, Default::default);
    record(&mut log.context, Default::default);
    log.started_at.redact();
    log.ended_at.redact();
    for run in &mut log.runs {
        let AgentRunRecord {
            task_id,
            stage,
            role,
            iteration: _,
            agent,
            prompt_hash,
            started_at,
            ended_at,
            latency_ms: _,
            outcome,
            code: _,
            output,
            tool_calls,
        } = run;
        for text in [
            task_id,
            stage,
            role,
            agent,
            prompt_hash,
            started_at,
            ended_at,
            outcome,
        ] {
            text.redact();
        }
        output.redact();
        for call in tool_calls {
            call.tool.redact();
            call.args.redact();
            match &mut call.result {
                ToolResult::Ran { result } => {
                    result.redact();
                }
                ToolResult::Denied { code: _, message } => {
                    message.redact();
                }
            }
        }
    }
}

/// Redacts every text of an event in place; whether anything changed.
///
/// Each variant is taken apart field by field, without `..`, so a field
/// added to an event does not compile until it is listed here.
pub fn event(event: &mut Event) -> bool {
    match event {
        Event::RunStarted {
            run_id,
            playbook_id,
            playbook_hash,
            scenario,
            seed: _,
            started_at,
            tasks: _,
            bounds,
        } => {
            let mut changed = run_id.redact() | playbook_id.redact() | playbook_hash.redact();
            changed |= scenario.redact() | started_at.redact();
            for b in bounds {
                changed |= b.stage.redact();
            }
            changed
        }
        Event::RunRefused {
            code: _,
            reason,
            details,
        } => reason.redact() | details.redact(),
        Event::PreflightChecked { results } => results.iter_mut().fold(
            false,
            |changed,
             PreflightResult {
                 name,
                 passed: _,
                 detail,
             }| changed | name.redact() | detail.redact(),
        ),
        Event::StageEntered {
            stage,
            tasks: _,
            max_parallel: _,
        } => stage.redact(),
        Event::StageSkipped { stage, reason } => stage.redact() | reason.redact(),
        Event::StageBlocked {
            stage,
            task_id,
            code: _,
            reason,
        } => stage.redact() | task_id.redact() | reason.redact(),
        Event::StageExited {
            stage,
            done: _,
            blocked: _,
            failed: _,
        } => stage.redact(),
        Event::TasksCreated { by, task_ids } => by.redact() | task_ids.redact(),
        Event::TaskAssigned {
            task_id,
            stage,
            worktree: _,
        } => task_id.redact() | stage.redact(),
        Event::RoleSelected {
            task_id,
            stage,
            role,
            source,
            rationale,
            warning,
        } => {
            task_id.redact()
                | stage.redact()
                | role.redact()
                | source.redact()
                | rationale.redact()
                | warning.redact()
        }
        Event::TaskWaiting {
            task_id,
            stage,
            reason,
            on,
        } => task_id.redact() | stage.redact() | reason.redact() | on.redact(),
        Event::Iteration {
            task_id,
            role,
            k: _,
            n: _,
        } => task_id.redact() | role.redact(),
        Event::AgentInvoked {
            task_id,
            stage,
            role,
            iteration: _,
            prompt_hash,
        } => task_id.redact() | stage.redact() | role.redact() | prompt_hash.redact(),
        Event::ToolCallAllowed {
            task_id,
            role,
            tool,
        } => task_id.redact() | role.redact() | tool.redact(),
        Event::ToolCallBlocked {
            task_id,
            role,
            tool,
            code: _,
            reason,
        } => task_id.redact() | role.redact() | tool.redact() | reason.redact(),
        Event::ApprovalRequested {
            task_id,
            role,
            subject,
        } => task_id.redact() | role.redact() | subject.redact(),
        Event::ApprovalGranted {
            task_id,
            subject,
            by,
        } => task_id.redact() | subject.redact() | by.redact(),
        Event::ApprovalDenied {
            task_id,
            subject,
            by,
            code: _,
        } => task_id.redact() | subject.redact() | by.redact(),
        Event::OutputReceived {
            task_id,
            role,
            iteration: _,
            fields,
            duration_ms: _,
        } => task_id.redact() | role.redact() | fields.redact(),
        Event::ContractViolation {
            task_id,
            role,
            code: _,
            detail,
        } => task_id.redact() | role.redact() | detail.redact(),
        Event::GatePassed {
            task_id,
            scope: _,
            owner,
            gate,
            manual: _,
            summary,
        } => task_id.redact() | owner.redact() | gate.redact() | summary.redact(),
        Event::GateFailed {
            task_id,
            scope: _,
            owner,
            gate,
            reason,
            summary,
        } => task_id.redact() | owner.redact() | gate.redact() | reason.redact() | summary.redact(),
        Event::CompletionRecorded {
            task_id,
            role,
            criteria,
        } => task_id.redact() | role.redact() | criteria.redact(),
        Event::Handoff {
            task_id,
            from,
            to,
            reason: _,
        } => task_id.redact() | from.redact() | to.redact(),
        Event::StageLeft {
            task_id,
            stage,
            role,
        } => task_id.redact() | stage.redact() | role.redact(),
        Event::Escalated {
            task_id,
            role,
            trigger,
            code: _,
            reason,
            summary,
        } => {
            task_id.redact() | role.redact() | trigger.redact() | reason.redact() | summary.redact()
        }
        Event::Warning { code: _, message } => redact_string(message),
        Event::TaskDone { task_id } => task_id.redact(),
        Event::TaskBlocked {
            task_id,
            code: _,
            reason,
        } => task_id.redact() | reason.redact(),
        Event::TaskFailed {
            task_id,
            code: _,
            reason,
        } => task_id.redact() | reason.redact(),
        Event::TaskCanceled { task_id, code: _ } => task_id.redact(),
        Event::RunFinished {
            outcome: _,
            tasks_done: _,
            tasks_blocked: _,
            tasks_failed: _,
            tasks_canceled: _,
            steps: _,
            virtual_ms: _,
        } => false,
    }
}
