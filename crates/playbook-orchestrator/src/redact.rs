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

use std::cell::RefCell;

use playbook_redact::{REDACTED, Redact, redact_serde};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::agent::ToolResult;
use crate::audit::AgentRunRecord;
use crate::engine::RunReport;
use crate::envelope::LedgerDelta;
use crate::event::{Event, PreflightResult};

/// A text from a file or an agent made safe to show a person: every secret
/// replaced by `[REDACTED]`, then every control or invisible formatting
/// character escaped by the core's rule ([`playbook_core::printable`]), so
/// it cannot rewrite the terminal or forge a line. Redacted first: an
/// escape inserted into a credential, or splitting a secret's name from its
/// value (`\napi_key=…`), would hide it from the redactor's rules.
/// Borrowed when there is nothing to change, the usual case.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    match playbook_redact::redact_str(text) {
        Cow::Borrowed(clean) => playbook_core::printable::printable(clean),
        Cow::Owned(clean) => Cow::Owned(playbook_core::printable::printable(&clean).into_owned()),
    }
}

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

/// Redacts every record of a finished run but those redacted as they were
/// made: the audit log's runs ([`agent_run`]), worklog entries and ledger
/// deltas ([`ledger_delta`]), which a run may hand to its sink and not keep.
pub fn report(report: &mut RunReport) {
    report_with(report, Prepared::AsIs);
}

/// Whether a report's findings, bounds and audit context are still as the
/// run copied them from its [`crate::engine::Prepared`], which redacted
/// them once for every run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prepared {
    /// Copied from a prepared playbook and redacted there: not rescanned
    /// (the context's real-run files, which a run adds, still are).
    Clean,
    /// Of unknown origin: every part is scanned.
    AsIs,
}

/// [`report`], skipping what a prepared playbook already redacted.
pub(crate) fn report_with(report: &mut RunReport, prepared: Prepared) {
    // One summary at a time: a JSON copy of all of them at once was the
    // largest transient allocation of a large run.
    for task in &mut report.tasks {
        if task_summary(task) {
            continue;
        }
        let (state, code) = (task.state, task.code);
        record(task, || crate::engine::TaskSummary {
            task_id: REDACTED.to_string(),
            title: REDACTED.to_string(),
            state,
            code,
            reason: None,
            iterations: Default::default(),
            last_verdict: None,
        });
    }
    if prepared == Prepared::AsIs {
        record(&mut report.findings, Vec::new);
        record(&mut report.bounds, Vec::new);
    }
    audit(&mut report.audit, prepared);
    // The deltas, one per task change and most of an output's size, are
    // already clean: only the rest goes through JSON.
    let deltas: Vec<Vec<LedgerDelta>> = report
        .outputs
        .iter_mut()
        .map(|o| std::mem::take(&mut o.ledger_delta))
        .collect();
    record(&mut report.outputs, Vec::new);
    if report.outputs.len() == deltas.len() {
        for (output, deltas) in report.outputs.iter_mut().zip(deltas) {
            output.ledger_delta = deltas;
        }
    }
    record(&mut report.handoff, || None);
}

/// Redacts the audit log's header in place; its runs were redacted as
/// they were recorded.
fn audit(log: &mut crate::audit::AuditLog, prepared: Prepared) {
    log.run_id.scan();
    audit_inputs(&mut log.inputs);
    let context = &log.context;
    if prepared == Prepared::AsIs || !context.files.is_empty() || !context.absent.is_empty() {
        record(&mut log.context, Default::default);
    }
    log.started_at.scan();
    log.ended_at.scan();
}

/// Redacts a task summary field by field, as its JSON form would be
/// (every field name is plain, `the_typed_walks_name_only_plain_fields`),
/// when no role name it counts iterations under changes a number under it;
/// whether it did. Otherwise the caller takes the JSON way, which withholds
/// what no longer fits.
fn task_summary(task: &mut crate::engine::TaskSummary) -> bool {
    if !task
        .iterations
        .keys()
        .all(|k| playbook_redact::keeps_number_under(k))
    {
        return false;
    }
    let crate::engine::TaskSummary {
        task_id,
        title,
        state: _,
        code: _,
        reason,
        iterations: _,
        last_verdict,
    } = task;
    for text in [task_id, title] {
        text.scan();
    }
    reason.scan();
    last_verdict.scan();
    true
}

/// Redacts the audit log's inputs field by field (every field name is
/// plain): the same result as through JSON, without building it.
fn audit_inputs(inputs: &mut crate::audit::AuditInputs) {
    let crate::audit::AuditInputs {
        playbook_id,
        scenario,
        seed: _,
        goal,
        task_ids,
        repo,
        base_ref,
    } = inputs;
    for text in [playbook_id, goal] {
        text.scan();
    }
    for text in [scenario, repo, base_ref] {
        text.scan();
    }
    task_ids.scan();
}

/// Redacts a ledger delta field by field. Its extension fields, which the
/// engine never sets, go through JSON so their keys count as names.
/// Redacts the texts of an engine-made delta (no `extra` fields) that a
/// ledger row copies — `owner`, `reason`, `last_heartbeat_at` — before the
/// ledger applies it; [`ledger_delta_rest`] then does the rest. Together
/// they change what [`ledger_delta`] changes, scanning each text once.
pub(crate) fn ledger_delta_texts(delta: &mut LedgerDelta) {
    debug_assert!(delta.extra.is_empty());
    delta.owner.scan();
    delta.reason.scan();
    delta.last_heartbeat_at.scan();
}

/// What [`ledger_delta`] scans besides the texts [`ledger_delta_texts`]
/// redacted: the task id (`delta_id` is the engine's `D-<n>`).
pub(crate) fn ledger_delta_rest(delta: &mut LedgerDelta) {
    debug_assert!(delta.extra.is_empty());
    delta.task_id.scan();
}

pub(crate) fn ledger_delta(delta: &mut LedgerDelta) {
    if !delta.extra.is_empty() {
        let whole = delta.clone();
        record(delta, || LedgerDelta {
            owner: String::new(),
            reason: REDACTED.to_string(),
            extra: Default::default(),
            ..whole
        });
        // Fall through: the typed fields are walked below in every case.
    }
    let LedgerDelta {
        task_id,
        status: _,
        owner,
        reason,
        delta_id,
        last_heartbeat_at,
        timed_out: _,
        retry_after_ms: _,
        create: _,
        extra: _,
    } = delta;
    // `delta_id` is the engine's `D-<n>`: not scanned.
    let _ = delta_id;
    for text in [task_id, owner, reason] {
        text.scan();
    }
    last_heartbeat_at.scan();
}

/// Redacts a worklog entry the engine wrote, field by field. Its
/// timestamp, run id and code are the engine's own (an ISO-8601 instant, a
/// UUID, a code of docs/error-codes.md) and are not scanned; an entry from
/// anywhere else goes through `Worklogs::append`, which scans every field.
///
/// With `ids_clean` the task id and the actor (a role name) were found clean
/// as the task entered the stage and are not scanned again.
pub(crate) fn engine_worklog_entry(entry: &mut crate::envelope::WorklogEntry, ids_clean: bool) {
    let crate::envelope::WorklogEntry {
        timestamp,
        run_id,
        task_id,
        actor,
        action,
        files_touched,
        decision,
        result,
        next_step,
        code,
        evidence,
    } = entry;
    let _ = (timestamp, run_id, code);
    if ids_clean {
        debug_assert!(playbook_redact::is_clean(task_id) && playbook_redact::is_clean(actor));
    } else {
        task_id.scan();
        actor.scan();
    }
    for text in [action, decision, result, next_step] {
        text.scan();
    }
    files_touched.scan();
    evidence.scan();
}

/// Redacts one agent call's record in place, field by field: the audit log
/// holds one per call, the largest part of a report, and a JSON round trip
/// doubled a large run's time and memory. With `ids_clean` the task id,
/// stage and role were found clean as the task entered the stage and are
/// not scanned again.
pub(crate) fn agent_run(run: &mut AgentRunRecord, ids_clean: bool) {
    {
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
        // Not scanned, as the engine alone writes them: the prompt's hex
        // SHA-256, the two ISO-8601 instants and the outcome word.
        let _ = (prompt_hash, started_at, ended_at, outcome);
        if ids_clean {
            debug_assert!(
                [&*task_id, &*stage, &*role]
                    .iter()
                    .all(|t| playbook_redact::is_clean(t))
            );
        } else {
            for text in [task_id, stage, role] {
                text.scan();
            }
        }
        agent.scan();
        output.scan();
        for call in tool_calls {
            call.tool.scan();
            call.args.scan();
            match &mut call.result {
                ToolResult::Ran { result } => {
                    result.scan();
                }
                ToolResult::Denied { code: _, message } => {
                    message.scan();
                }
            }
        }
    }
}

/// [`event`] for an event of a step whose task id and role names were found
/// clean as the task entered the stage (`ids_clean`) and, for a gate event,
/// whose gate source was found clean once per prepared playbook: only the
/// texts made from the agent's output (field names, summaries, reasons)
/// are scanned. Any other event takes [`event`]'s way.
pub(crate) fn step_event(event: &mut Event) -> bool {
    let clean = |texts: &[&String]| texts.iter().all(|t| playbook_redact::is_clean(t));
    match event {
        Event::OutputReceived {
            task_id,
            role,
            iteration: _,
            fields,
            duration_ms: _,
        } => {
            debug_assert!(clean(&[task_id, role]));
            fields.scan()
        }
        Event::GatePassed {
            task_id,
            scope: _,
            owner,
            gate,
            manual: _,
            summary,
        } => {
            debug_assert!(clean(&[task_id, owner, gate]));
            summary.scan()
        }
        Event::GateFailed {
            task_id,
            scope: _,
            owner,
            gate,
            reason,
            summary,
        } => {
            debug_assert!(clean(&[task_id, owner, gate]));
            reason.scan() | summary.scan()
        }
        other => self::event(other),
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
            let mut changed = run_id.scan() | playbook_id.scan() | playbook_hash.scan();
            changed |= scenario.scan() | started_at.scan();
            for b in bounds {
                changed |= b.stage.scan();
            }
            changed
        }
        Event::RunRefused {
            code: _,
            reason,
            details,
        } => reason.scan() | details.scan(),
        Event::PreflightChecked { results } => results.iter_mut().fold(
            false,
            |changed,
             PreflightResult {
                 name,
                 passed: _,
                 detail,
             }| changed | name.scan() | detail.scan(),
        ),
        Event::StageEntered {
            stage,
            tasks: _,
            max_parallel: _,
        } => stage.scan(),
        Event::StageSkipped { stage, reason } => stage.scan() | reason.scan(),
        Event::StageBlocked {
            stage,
            task_id,
            code: _,
            reason,
        } => stage.scan() | task_id.scan() | reason.scan(),
        Event::StageExited {
            stage,
            done: _,
            blocked: _,
            failed: _,
        } => stage.scan(),
        Event::TasksCreated { by, task_ids } => by.scan() | task_ids.scan(),
        Event::TaskAssigned {
            task_id,
            stage,
            worktree: _,
        } => task_id.scan() | stage.scan(),
        Event::RoleSelected {
            task_id,
            stage,
            role,
            source,
            rationale,
            warning,
        } => {
            task_id.scan()
                | stage.scan()
                | role.scan()
                | source.scan()
                | rationale.scan()
                | warning.scan()
        }
        Event::TaskWaiting {
            task_id,
            stage,
            reason,
            on,
        } => task_id.scan() | stage.scan() | reason.scan() | on.scan(),
        Event::Iteration {
            task_id,
            role,
            k: _,
            n: _,
        } => task_id.scan() | role.scan(),
        Event::AgentInvoked {
            task_id,
            stage,
            role,
            iteration: _,
            prompt_hash,
        } => {
            // The prompt hash is the engine's hex SHA-256: not scanned.
            let _ = prompt_hash;
            task_id.scan() | stage.scan() | role.scan()
        }
        Event::ToolCallAllowed {
            task_id,
            role,
            tool,
        } => task_id.scan() | role.scan() | tool.scan(),
        Event::ToolCallBlocked {
            task_id,
            role,
            tool,
            code: _,
            reason,
        } => task_id.scan() | role.scan() | tool.scan() | reason.scan(),
        Event::ApprovalRequested {
            task_id,
            role,
            subject,
        } => task_id.scan() | role.scan() | subject.scan(),
        Event::ApprovalGranted {
            task_id,
            subject,
            by,
        } => task_id.scan() | subject.scan() | by.scan(),
        Event::ApprovalDenied {
            task_id,
            subject,
            by,
            code: _,
        } => task_id.scan() | subject.scan() | by.scan(),
        Event::OutputReceived {
            task_id,
            role,
            iteration: _,
            fields,
            duration_ms: _,
        } => task_id.scan() | role.scan() | fields.scan(),
        Event::ContractViolation {
            task_id,
            role,
            code: _,
            detail,
        } => task_id.scan() | role.scan() | detail.scan(),
        Event::GatePassed {
            task_id,
            scope: _,
            owner,
            gate,
            manual: _,
            summary,
        } => task_id.scan() | owner.scan() | gate.scan() | summary.scan(),
        Event::GateFailed {
            task_id,
            scope: _,
            owner,
            gate,
            reason,
            summary,
        } => task_id.scan() | owner.scan() | gate.scan() | reason.scan() | summary.scan(),
        Event::CompletionRecorded {
            task_id,
            role,
            criteria,
        } => task_id.scan() | role.scan() | criteria.scan(),
        Event::Handoff {
            task_id,
            from,
            to,
            reason: _,
        } => task_id.scan() | from.scan() | to.scan(),
        Event::StageLeft {
            task_id,
            stage,
            role,
        } => task_id.scan() | stage.scan() | role.scan(),
        Event::Escalated {
            task_id,
            role,
            trigger,
            code: _,
            reason,
            summary,
        } => task_id.scan() | role.scan() | trigger.scan() | reason.scan() | summary.scan(),
        Event::Warning { code: _, message } => message.scan(),
        Event::TaskDone { task_id } => task_id.scan(),
        Event::TaskBlocked {
            task_id,
            code: _,
            reason,
        } => task_id.scan() | reason.scan(),
        Event::TaskFailed {
            task_id,
            code: _,
            reason,
        } => task_id.scan() | reason.scan(),
        Event::TaskCanceled { task_id, code: _ } => task_id.scan(),
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

/// In-place redaction that remembers the last few short texts it found
/// clean. A run repeats the same task ids, role and stage names in almost
/// every event and record; a text equal to one already found clean is clean
/// (redaction depends on the text alone), so it is compared, not rescanned.
trait Scan {
    fn scan(&mut self) -> bool;
}

/// Texts up to this long are remembered.
const MEMO_TEXT: usize = 64;
/// How many are remembered.
const MEMO_SLOTS: usize = 8;

thread_local! {
    static CLEAN: RefCell<(usize, [String; MEMO_SLOTS])> = RefCell::new(Default::default());
}

impl Scan for String {
    fn scan(&mut self) -> bool {
        if self.len() > MEMO_TEXT {
            return self.redact();
        }
        let known = CLEAN.with(|memo| memo.borrow().1.iter().any(|c| c == self));
        if known {
            return false;
        }
        let changed = self.redact();
        if !changed {
            CLEAN.with(|memo| {
                let mut memo = memo.borrow_mut();
                let (next, slots) = &mut *memo;
                let slot = &mut slots[*next % MEMO_SLOTS];
                slot.clear();
                slot.push_str(self);
                *next = next.wrapping_add(1);
            });
        }
        changed
    }
}

impl Scan for Option<String> {
    fn scan(&mut self) -> bool {
        self.as_mut().is_some_and(Scan::scan)
    }
}

impl Scan for Vec<String> {
    fn scan(&mut self) -> bool {
        self.iter_mut()
            .fold(false, |changed, text| changed | text.scan())
    }
}

impl Scan for serde_json::Value {
    fn scan(&mut self) -> bool {
        self.redact()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The step events whose ids and gate source are known clean hide
    /// every secret the output put in them, exactly as the full walk does.
    #[test]
    fn a_step_event_with_clean_ids_hides_what_the_output_put_in_it() {
        use crate::event::GateScope;
        let leak = "token=sv9x8y7z6w5";
        let events = [
            Event::OutputReceived {
                task_id: "T-1".into(),
                role: "reviewer".into(),
                iteration: 1,
                fields: vec!["verdict".into(), leak.into()],
                duration_ms: 0,
            },
            Event::GatePassed {
                task_id: "T-1".into(),
                scope: GateScope::Role,
                owner: "reviewer".into(),
                gate: "review_passed".into(),
                manual: false,
                summary: format!("reviewer: said {leak}; hand off to tester"),
            },
            Event::GateFailed {
                task_id: "T-1".into(),
                scope: GateScope::Role,
                owner: "reviewer".into(),
                gate: "review_passed".into(),
                reason: format!("gate read {leak}"),
                summary: format!("reviewer: said {leak}; sent back"),
            },
        ];
        for original in events {
            let (mut full, mut step) = (original.clone(), original);
            assert!(event(&mut full));
            assert!(step_event(&mut step));
            assert_eq!(step, full);
            let text = serde_json::to_string(&step).unwrap_or_default();
            assert!(!text.contains("sv9x8y7z6w5"), "{text}");
        }
    }

    #[test]
    fn a_remembered_clean_text_does_not_hide_a_secret_of_the_same_length() {
        let mut clean = "worker-1234567890".to_string();
        assert!(!clean.scan());
        assert!(!clean.scan(), "remembered");
        // Same length, different text: scanned, and redacted.
        let mut secret = "token=sv9x8y7z6w5".to_string();
        assert_eq!(secret.len(), clean.len());
        assert!(secret.scan());
        assert!(!secret.contains("sv9x8y7z6w5"));
        // A secret is never remembered as clean.
        let mut again = "token=sv9x8y7z6w5".to_string();
        assert!(again.scan());
    }

    #[test]
    fn the_typed_walks_name_only_plain_fields() {
        // The in-place walks of task summaries and audit inputs give what
        // the JSON way gives only while every field name is plain.
        let summary = serde_json::to_value(crate::engine::TaskSummary {
            task_id: String::new(),
            title: String::new(),
            state: crate::event::TaskState::Done,
            code: Some(crate::code::ErrorCode::GateFailed),
            reason: Some(String::new()),
            iterations: Default::default(),
            last_verdict: Some(String::new()),
        })
        .unwrap();
        let inputs = serde_json::to_value(crate::audit::AuditInputs {
            scenario: Some(String::new()),
            repo: Some(String::new()),
            base_ref: Some(String::new()),
            ..Default::default()
        })
        .unwrap();
        for value in [summary, inputs] {
            assert!(value.as_object().unwrap().len() >= 7, "{value}");
            for key in value.as_object().unwrap().keys() {
                assert!(playbook_redact::is_plain_name(key), "{key}");
            }
        }
    }

    #[test]
    fn typed_walks_redact_what_the_json_way_redacts() {
        let leak = "see api_key=sv-walk-1x9q";
        let mut iterations = indexmap::IndexMap::new();
        iterations.insert("test_author".to_string(), 2);
        let mut task = crate::engine::TaskSummary {
            task_id: "T-1".into(),
            title: leak.into(),
            state: crate::event::TaskState::Done,
            code: None,
            reason: Some(leak.into()),
            iterations,
            last_verdict: Some(leak.into()),
        };
        let by_json = playbook_redact::redact_serde(&task).unwrap().unwrap();
        assert!(task_summary(&mut task));
        assert_eq!(task, by_json);
        assert!(!format!("{task:?}").contains("sv-walk-1x9q"));
        // A role named like a secret takes the JSON way (which withholds).
        let mut named = crate::engine::TaskSummary {
            iterations: [("password".to_string(), 3)].into_iter().collect(),
            ..task.clone()
        };
        assert!(!task_summary(&mut named));
        let mut inputs = crate::audit::AuditInputs {
            playbook_id: "p".into(),
            scenario: Some(leak.into()),
            seed: 1,
            goal: leak.into(),
            task_ids: vec![leak.into()],
            repo: Some(leak.into()),
            base_ref: None,
        };
        let by_json = playbook_redact::redact_serde(&inputs).unwrap().unwrap();
        audit_inputs(&mut inputs);
        assert_eq!(inputs, by_json);
    }

    #[test]
    fn more_clean_texts_than_slots_are_still_scanned_correctly() {
        for i in 0..(3 * MEMO_SLOTS) {
            let mut text = format!("role-{i}");
            assert!(!text.scan());
        }
        let mut secret = "api_key=sv-memo-1x9q".to_string();
        assert!(secret.scan());
    }
}
