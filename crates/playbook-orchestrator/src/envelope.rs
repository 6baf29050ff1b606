//! The machine payloads of spec/contracts.md, spec/director-associate-contracts.md
//! and spec/role-assignment-llm-contract.md as Rust types.
//!
//! Each envelope has two faces that must agree: a JSON Schema generated from
//! the type (published in `schemas/`, one file per envelope, for other tools
//! and for editors), and [`Envelope::check`], the typed validation the engine
//! runs on every envelope it sends or receives. The typed check also covers
//! what a JSON Schema cannot say (`heartbeat_interval_seconds <
//! timeout_seconds`, the completion invariants of a subagent result).
//!
//! **Extension policy.** Every object keeps unknown keys in `extra`. `x_` keys
//! are always allowed; other unknown keys are reported only in strict mode.
//! The published schemas are the strict form: they allow `x_` keys and
//! nothing else beyond the documented fields.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::code::ErrorCode;

/// The contract version this build writes and reads.
pub const CONTRACT_VERSION: &str = "1.0.0";

/// Unknown keys of an envelope object, kept verbatim.
pub type Extra = IndexMap<String, Value>;

/// `schema_version`: `1.x.y`. Unknown major versions fail closed.
pub const VERSION_PATTERN: &str = r"^1\.[0-9]+\.[0-9]+$";
/// `run_id`: a UUID v4.
pub const RUN_ID_PATTERN: &str =
    r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$";
/// `task_id`: `T-n` or a 36-character UUID-like id.
pub const TASK_ID_PATTERN: &str = r"^(T-[0-9]+|[0-9a-fA-F-]{36})$";

/// One thing wrong with an envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(export)]
pub struct Violation {
    pub code: ErrorCode,
    /// JSON pointer into the envelope.
    pub path: String,
    pub message: String,
}

fn violation(code: ErrorCode, path: impl Into<String>, message: impl Into<String>) -> Violation {
    Violation {
        code,
        path: path.into(),
        message: message.into(),
    }
}

/// Whether `text` is a UUID v4 (the `run_id` rule).
pub fn is_uuid_v4(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            14 => *c == b'4',
            19 => matches!(c, b'8' | b'9' | b'a' | b'b' | b'A' | b'B'),
            _ => c.is_ascii_hexdigit(),
        })
}

/// Whether `text` matches the `task_id` rule of spec/contracts.md.
pub fn is_task_id(text: &str) -> bool {
    match text.strip_prefix("T-") {
        Some(n) => !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()),
        None => text.len() == 36 && text.bytes().all(|c| c.is_ascii_hexdigit() || c == b'-'),
    }
}

fn is_supported_version(text: &str) -> bool {
    let mut parts = text.split('.');
    parts.next() == Some("1")
        && parts.clone().count() == 2
        && parts.all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
}

/// Collects violations while walking an envelope.
struct Checker {
    strict: bool,
    out: Vec<Violation>,
}

impl Checker {
    fn new(strict: bool) -> Checker {
        Checker {
            strict,
            out: Vec::new(),
        }
    }

    fn fail(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.out
            .push(violation(ErrorCode::ResultInvalid, path, message));
    }

    fn extra(&mut self, path: &str, extra: &Extra) {
        if !self.strict {
            return;
        }
        for key in extra.keys().filter(|k| !k.starts_with("x_")) {
            self.fail(
                format!("{path}/{key}"),
                format!("unknown field `{key}`; extensions must use the `x_` prefix (strict mode)"),
            );
        }
    }

    fn version(&mut self, version: &str) {
        if !is_supported_version(version) {
            self.out.push(violation(
                ErrorCode::UnsupportedVersion,
                "/schema_version",
                format!(
                    "schema_version `{version}` is not 1.x.y; unknown major versions fail closed"
                ),
            ));
        }
    }

    fn run_id(&mut self, path: &str, run_id: &str) {
        if !is_uuid_v4(run_id) {
            self.fail(path, format!("run_id `{run_id}` is not a UUID v4"));
        }
    }

    fn task_id(&mut self, path: &str, task_id: &str) {
        if !is_task_id(task_id) {
            self.fail(
                path,
                format!("task_id `{task_id}` matches neither `T-<n>` nor a 36-character id"),
            );
        }
    }

    fn length(&mut self, path: &str, text: &str, min: usize, max: usize) {
        let n = text.chars().count();
        if n < min || n > max {
            self.fail(path, format!("length {n} is outside {min}..{max}"));
        }
    }

    fn non_empty(&mut self, path: &str, text: &str) {
        if text.trim().is_empty() {
            self.fail(path, "must not be empty");
        }
    }
}

/// Envelopes know how to check themselves and where their schema is published.
pub trait Envelope: Serialize + for<'de> Deserialize<'de> + JsonSchema {
    /// File name in `schemas/`.
    const SCHEMA_FILE: &'static str;
    /// Every violation; `strict` rejects unknown non-`x_` fields.
    fn check(&self, strict: bool) -> Vec<Violation>;
}

/// Parses and checks an envelope received as JSON. Serde errors (a missing
/// required field, a wrong type, an unknown enum value) and typed violations
/// come back together as violations.
pub fn parse<E: Envelope>(value: &Value, strict: bool) -> Result<E, Vec<Violation>> {
    if let Some(version) = value.get("schema_version").and_then(Value::as_str)
        && !is_supported_version(version)
    {
        return Err(vec![violation(
            ErrorCode::UnsupportedVersion,
            "/schema_version",
            format!("schema_version `{version}` is not 1.x.y; unknown major versions fail closed"),
        )]);
    }
    let parsed = E::deserialize(value)
        .map_err(|e| vec![violation(ErrorCode::ResultInvalid, "", e.to_string())])?;
    let violations = parsed.check(strict);
    if violations.is_empty() {
        Ok(parsed)
    } else {
        Err(violations)
    }
}

// ------------------------------------------------------------ assignment packet

/// `type` of a task in an assignment packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum TaskType {
    Parallelizable,
    Serial,
}

/// `priority` of a task.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Priority {
    Low,
    #[default]
    Normal,
    High,
    Critical,
}

fn is_normal(p: &Priority) -> bool {
    *p == Priority::Normal
}

/// The task of an assignment packet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false, "patternProperties" = {"^x_": true}))]
pub struct PacketTask {
    #[schemars(regex(pattern = TASK_ID_PATTERN))]
    pub task_id: String,
    #[schemars(length(min = 1, max = 500))]
    pub title: String,
    #[serde(rename = "type")]
    pub kind: TaskType,
    pub dependencies: Vec<TaskIdString>,
    #[schemars(length(min = 1))]
    pub lock_scope: Vec<String>,
    pub forbidden_scope: Vec<String>,
    #[schemars(length(min = 1))]
    pub acceptance_criteria: Vec<String>,
    #[schemars(length(min = 1, max = 1000))]
    pub worklog_path: String,
    #[schemars(range(min = 30))]
    pub timeout_seconds: u64,
    /// Must be less than `timeout_seconds`.
    #[schemars(range(min = 5))]
    pub heartbeat_interval_seconds: u64,
    #[serde(default, skip_serializing_if = "is_normal")]
    pub priority: Priority,
    #[serde(flatten)]
    #[schemars(skip)]
    pub extra: Extra,
}

/// A task id inside a list (same rule as `task_id`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct TaskIdString(#[schemars(regex(pattern = TASK_ID_PATTERN))] pub String);

/// A lock held on a resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[schemars(extend("additionalProperties" = false, "patternProperties" = {"^x_": true}))]
#[ts(export)]
pub struct ActiveLock {
    #[schemars(regex(pattern = TASK_ID_PATTERN))]
    pub task_id: String,
    /// Normalised path-like resource, e.g. `src/api.py` or `src/`.
    pub resource: String,
    pub active: bool,
    #[serde(flatten, default)]
    #[schemars(skip)]
    #[ts(skip)]
    pub extra: Extra,
}

/// Kind of a context item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContextKind {
    File,
    Note,
    Command,
    Constraint,
}

/// One item of the context package. `value` is untrusted data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false, "patternProperties" = {"^x_": true}))]
pub struct ContextItem {
    pub kind: ContextKind,
    pub value: String,
    #[serde(flatten, default)]
    #[schemars(skip)]
    pub extra: Extra,
}

/// Constant `assignment`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PacketType {
    Assignment,
}

/// Constant `subagent_result_v1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum OutputSchemaName {
    #[serde(rename = "subagent_result_v1")]
    SubagentResultV1,
}

/// Packet: Assignment (orchestrator → subagent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    title = "AssignmentPacket",
    description = "Assignment packet sent by the orchestrator to the agent running one role (spec/contracts.md).",
    extend("additionalProperties" = false, "patternProperties" = {"^x_": true})
)]
pub struct AssignmentPacket {
    #[schemars(regex(pattern = VERSION_PATTERN))]
    pub schema_version: String,
    #[schemars(regex(pattern = RUN_ID_PATTERN))]
    pub run_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated_at: Option<String>,
    pub packet_type: PacketType,
    #[schemars(length(min = 1, max = 5000))]
    pub global_objective: String,
    pub task: PacketTask,
    pub active_locks: Vec<ActiveLock>,
    pub context_package: Vec<ContextItem>,
    pub required_output_schema: OutputSchemaName,
    #[serde(flatten)]
    #[schemars(skip)]
    pub extra: Extra,
}

impl Envelope for AssignmentPacket {
    const SCHEMA_FILE: &'static str = "assignment-packet.schema.json";

    fn check(&self, strict: bool) -> Vec<Violation> {
        let mut c = Checker::new(strict);
        c.version(&self.schema_version);
        c.run_id("/run_id", &self.run_id);
        c.extra("", &self.extra);
        c.length("/global_objective", &self.global_objective, 1, 5000);
        let t = &self.task;
        c.task_id("/task/task_id", &t.task_id);
        c.length("/task/title", &t.title, 1, 500);
        for (i, d) in t.dependencies.iter().enumerate() {
            c.task_id(&format!("/task/dependencies/{i}"), &d.0);
        }
        if t.lock_scope.is_empty() {
            c.fail("/task/lock_scope", "lock_scope needs at least one resource");
        }
        if t.acceptance_criteria.is_empty() {
            c.fail(
                "/task/acceptance_criteria",
                "acceptance_criteria needs at least one criterion",
            );
        }
        c.length("/task/worklog_path", &t.worklog_path, 1, 1000);
        if t.timeout_seconds < 30 {
            c.fail(
                "/task/timeout_seconds",
                "timeout_seconds must be at least 30",
            );
        }
        if t.heartbeat_interval_seconds < 5 {
            c.fail(
                "/task/heartbeat_interval_seconds",
                "heartbeat_interval_seconds must be at least 5",
            );
        }
        if t.heartbeat_interval_seconds >= t.timeout_seconds {
            c.fail(
                "/task/heartbeat_interval_seconds",
                "heartbeat_interval_seconds must be less than timeout_seconds",
            );
        }
        c.extra("/task", &t.extra);
        for (i, lock) in self.active_locks.iter().enumerate() {
            c.task_id(&format!("/active_locks/{i}/task_id"), &lock.task_id);
            c.extra(&format!("/active_locks/{i}"), &lock.extra);
        }
        for (i, item) in self.context_package.iter().enumerate() {
            c.extra(&format!("/context_package/{i}"), &item.extra);
        }
        c.out
    }
}

// ------------------------------------------------------------ subagent result

/// Status of a subagent result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ResultStatus {
    Done,
    Blocked,
    Failed,
}

/// Pass or fail of one acceptance check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum CheckStatus {
    Pass,
    Fail,
}

/// One change the agent made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false, "patternProperties" = {"^x_": true}))]
pub struct Change {
    pub resource: String,
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    #[serde(flatten, default)]
    #[schemars(skip)]
    pub extra: Extra,
}

/// One acceptance criterion as the agent checked it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false, "patternProperties" = {"^x_": true}))]
pub struct AcceptanceCheck {
    pub criterion: String,
    pub status: CheckStatus,
    pub evidence: String,
    #[serde(flatten, default)]
    #[schemars(skip)]
    pub extra: Extra,
}

/// A non-empty note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Note(#[schemars(length(min = 1))] pub String);

/// Envelope: Subagent Result (agent → orchestrator).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    title = "SubagentResult",
    description = "Result returned by the agent running one role (spec/contracts.md, subagent_result_v1).",
    extend("additionalProperties" = false, "patternProperties" = {"^x_": true})
)]
pub struct SubagentResult {
    #[schemars(regex(pattern = VERSION_PATTERN))]
    pub schema_version: String,
    #[schemars(regex(pattern = RUN_ID_PATTERN))]
    pub run_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated_at: Option<String>,
    #[schemars(regex(pattern = TASK_ID_PATTERN))]
    pub task_id: String,
    pub status: ResultStatus,
    pub changes: Vec<Change>,
    pub acceptance_check: Vec<AcceptanceCheck>,
    pub worklog_path: String,
    /// Untrusted data; at most five non-empty, secret-free notes.
    #[schemars(length(max = 5))]
    pub notes_for_orchestrator: Vec<Note>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub extra: Extra,
}

impl Envelope for SubagentResult {
    const SCHEMA_FILE: &'static str = "subagent-result.schema.json";

    fn check(&self, strict: bool) -> Vec<Violation> {
        let mut c = Checker::new(strict);
        c.version(&self.schema_version);
        c.run_id("/run_id", &self.run_id);
        c.task_id("/task_id", &self.task_id);
        c.extra("", &self.extra);
        if self.notes_for_orchestrator.len() > 5 {
            c.fail(
                "/notes_for_orchestrator",
                format!(
                    "{} notes; at most 5 are allowed",
                    self.notes_for_orchestrator.len()
                ),
            );
        }
        for (i, note) in self.notes_for_orchestrator.iter().enumerate() {
            c.non_empty(&format!("/notes_for_orchestrator/{i}"), &note.0);
        }
        for (i, change) in self.changes.iter().enumerate() {
            c.extra(&format!("/changes/{i}"), &change.extra);
        }
        for (i, check) in self.acceptance_check.iter().enumerate() {
            c.extra(&format!("/acceptance_check/{i}"), &check.extra);
        }
        let mut out = c.out;
        // The completion invariants: an agent that says "done" must show it.
        if self.status == ResultStatus::Done {
            if self.acceptance_check.is_empty() {
                out.push(violation(
                    ErrorCode::ResultInconsistent,
                    "/acceptance_check",
                    "status is done but acceptance_check is empty",
                ));
            }
            for (i, check) in self.acceptance_check.iter().enumerate() {
                if check.status != CheckStatus::Pass {
                    out.push(violation(
                        ErrorCode::ResultInconsistent,
                        format!("/acceptance_check/{i}/status"),
                        format!("status is done but criterion `{}` failed", check.criterion),
                    ));
                } else if check.evidence.trim().is_empty() {
                    out.push(violation(
                        ErrorCode::ResultInconsistent,
                        format!("/acceptance_check/{i}/evidence"),
                        format!("criterion `{}` passes without evidence", check.criterion),
                    ));
                }
            }
        }
        out
    }
}

// ------------------------------------------------------------ orchestrator output

/// Ledger status of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum LedgerStatus {
    Todo,
    InProgress,
    Blocked,
    Done,
    Failed,
    Canceled,
}

/// One row mutation of the ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[schemars(extend("additionalProperties" = false, "patternProperties" = {"^x_": true}))]
#[ts(export)]
pub struct LedgerDelta {
    #[schemars(regex(pattern = TASK_ID_PATTERN))]
    pub task_id: String,
    pub status: LedgerStatus,
    pub owner: String,
    pub reason: String,
    /// Unique within the run; the idempotency key (D2).
    #[schemars(length(min = 1))]
    pub delta_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub last_heartbeat_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub timed_out: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub retry_after_ms: Option<u64>,
    /// The delta creates its row (D4); an `x_` extension.
    #[serde(
        rename = "x_create",
        default,
        skip_serializing_if = "std::ops::Not::not"
    )]
    #[ts(skip)]
    pub create: bool,
    #[serde(flatten, default)]
    #[schemars(skip)]
    #[ts(skip)]
    pub extra: Extra,
}

/// A task that cannot proceed, with a code from `docs/error-codes.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[schemars(extend("additionalProperties" = false, "patternProperties" = {"^x_": true}))]
#[ts(export)]
pub struct Blocker {
    #[schemars(regex(pattern = TASK_ID_PATTERN))]
    pub task_id: String,
    pub code: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub details: Option<serde_json::Map<String, Value>>,
}

/// Envelope: Orchestrator Output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    title = "OrchestratorOutput",
    description = "What the orchestrator emits after a scheduling round (spec/contracts.md).",
    extend("additionalProperties" = false, "patternProperties" = {"^x_": true})
)]
pub struct OrchestratorOutput {
    #[schemars(regex(pattern = VERSION_PATTERN))]
    pub schema_version: String,
    #[schemars(regex(pattern = RUN_ID_PATTERN))]
    pub run_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated_at: Option<String>,
    pub ledger_delta: Vec<LedgerDelta>,
    pub assignments: Vec<AssignmentPacket>,
    pub active_locks: Vec<ActiveLock>,
    pub blockers: Vec<Blocker>,
    pub next_actions: Vec<String>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub extra: Extra,
}

impl Envelope for OrchestratorOutput {
    const SCHEMA_FILE: &'static str = "orchestrator-output.schema.json";

    fn check(&self, strict: bool) -> Vec<Violation> {
        let mut c = Checker::new(strict);
        c.version(&self.schema_version);
        c.run_id("/run_id", &self.run_id);
        c.extra("", &self.extra);
        let mut ids = std::collections::HashSet::new();
        for (i, d) in self.ledger_delta.iter().enumerate() {
            c.task_id(&format!("/ledger_delta/{i}/task_id"), &d.task_id);
            c.non_empty(&format!("/ledger_delta/{i}/delta_id"), &d.delta_id);
            if !ids.insert(d.delta_id.as_str()) {
                c.fail(
                    format!("/ledger_delta/{i}/delta_id"),
                    format!("delta_id `{}` repeats", d.delta_id),
                );
            }
            c.extra(&format!("/ledger_delta/{i}"), &d.extra);
        }
        for (i, b) in self.blockers.iter().enumerate() {
            c.task_id(&format!("/blockers/{i}/task_id"), &b.task_id);
        }
        let mut out = c.out;
        for (i, a) in self.assignments.iter().enumerate() {
            out.extend(a.check(strict).into_iter().map(|mut v| {
                v.path = format!("/assignments/{i}{}", v.path);
                v
            }));
        }
        out
    }
}

// ------------------------------------------------------------ worklog

/// Artifact: Worklog Entry. One JSON object per line, append-only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[schemars(
    title = "WorklogEntry",
    description = "One line of a task's append-only JSONL worklog (spec/contracts.md).",
    extend("additionalProperties" = false, "patternProperties" = {"^x_": true})
)]
#[ts(export)]
pub struct WorklogEntry {
    /// ISO-8601 UTC.
    pub timestamp: String,
    pub run_id: String,
    pub task_id: String,
    pub actor: String,
    pub action: String,
    pub files_touched: Vec<String>,
    /// Untrusted data.
    pub decision: String,
    /// Untrusted data.
    pub result: String,
    pub next_step: String,
    /// Error code of a blocked or failed step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub evidence: Option<String>,
}

impl Envelope for WorklogEntry {
    const SCHEMA_FILE: &'static str = "worklog-entry.schema.json";

    fn check(&self, strict: bool) -> Vec<Violation> {
        let mut c = Checker::new(strict);
        c.run_id("/run_id", &self.run_id);
        c.task_id("/task_id", &self.task_id);
        c.out
    }
}

// ------------------------------------------------------------ handoff bundle

/// One row of the ledger as carried in a handoff bundle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[schemars(extend("additionalProperties" = false, "patternProperties" = {"^x_": true}))]
#[ts(export)]
pub struct LedgerRow {
    pub task_id: String,
    pub title: String,
    pub status: LedgerStatus,
    pub owner: String,
    pub lock_scope: Vec<String>,
    pub timeout_seconds: u64,
    pub heartbeat_interval_seconds: u64,
    pub priority: Priority,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub last_heartbeat_at: Option<String>,
}

/// Artifact: Fresh-Context Handoff Bundle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    title = "HandoffBundle",
    description = "Everything a fresh orchestrator context needs to continue a run (spec/contracts.md).",
    extend("additionalProperties" = false, "patternProperties" = {"^x_": true})
)]
pub struct HandoffBundle {
    #[schemars(regex(pattern = VERSION_PATTERN))]
    pub schema_version: String,
    #[schemars(regex(pattern = RUN_ID_PATTERN))]
    pub run_id: String,
    pub objective: String,
    pub constraints: Vec<String>,
    pub ledger: Vec<LedgerRow>,
    pub active_locks: Vec<ActiveLock>,
    /// Task id → the task ids it depends on.
    pub dependencies: IndexMap<String, Vec<String>>,
    pub open_blockers: Vec<Blocker>,
    pub acceptance_targets: Vec<String>,
}

impl Envelope for HandoffBundle {
    const SCHEMA_FILE: &'static str = "handoff-bundle.schema.json";

    fn check(&self, strict: bool) -> Vec<Violation> {
        let mut c = Checker::new(strict);
        c.version(&self.schema_version);
        c.run_id("/run_id", &self.run_id);
        for (i, row) in self.ledger.iter().enumerate() {
            c.task_id(&format!("/ledger/{i}/task_id"), &row.task_id);
            if row.heartbeat_interval_seconds >= row.timeout_seconds {
                c.fail(
                    format!("/ledger/{i}/heartbeat_interval_seconds"),
                    "heartbeat_interval_seconds must be less than timeout_seconds",
                );
            }
        }
        c.out
    }
}

// ------------------------------------------------------------ validator output

/// Validator Output Contract: what every check returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[schemars(
    title = "ValidatorOutput",
    description = "allow/code/reason/details of the Validator Output Contract (spec/contracts.md).",
    extend("additionalProperties" = false, "patternProperties" = {"^x_": true})
)]
#[ts(export)]
pub struct ValidatorOutput {
    pub allow: bool,
    pub code: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub details: Option<serde_json::Map<String, Value>>,
}

impl Envelope for ValidatorOutput {
    const SCHEMA_FILE: &'static str = "validator-output.schema.json";

    fn check(&self, _strict: bool) -> Vec<Violation> {
        Vec::new()
    }
}

// ------------------------------------------------------------ role assignment

/// The task part of a role assignment request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false, "patternProperties" = {"^x_": true}))]
pub struct AssignmentTask {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub path: String,
    pub content: String,
}

/// Stage kinds of the role assignment contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum AssignmentStage {
    Work,
    Test,
    Review,
    Resolve,
}

/// In-flight caps of the role assignment contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[schemars(extend("additionalProperties" = false, "patternProperties" = {"^x_": true}))]
#[ts(export)]
pub struct Caps {
    pub global: u32,
    pub default_role: u32,
    pub roles: IndexMap<String, u32>,
    pub in_flight: IndexMap<String, u32>,
}

impl Caps {
    pub fn cap_of(&self, role: &str) -> u32 {
        self.roles.get(role).copied().unwrap_or(self.default_role)
    }
}

/// The role assignment request (spec/role-assignment-llm-contract.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    title = "RoleAssignmentRequest",
    description = "Runtime role selection request (spec/role-assignment-llm-contract.md).",
    extend("additionalProperties" = false, "patternProperties" = {"^x_": true})
)]
pub struct RoleAssignmentRequest {
    pub task: AssignmentTask,
    pub stage: AssignmentStage,
    /// Deterministic, caller-provided order.
    pub available_roles: Vec<String>,
    pub caps: Caps,
}

impl Envelope for RoleAssignmentRequest {
    const SCHEMA_FILE: &'static str = "role-assignment-request.schema.json";

    fn check(&self, _strict: bool) -> Vec<Violation> {
        let mut c = Checker::new(false);
        c.non_empty("/task/id", &self.task.id);
        c.non_empty("/task/path", &self.task.path);
        c.out
    }
}

/// The role assignment response. Extra keys are ignored, as the contract says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    title = "RoleAssignmentResponse",
    description = "Runtime role selection response (spec/role-assignment-llm-contract.md). No additional keys are allowed; callers ignore extra keys.",
    extend("additionalProperties" = false)
)]
pub struct RoleAssignmentResponse {
    #[schemars(length(min = 1))]
    pub role: String,
    #[schemars(length(min = 1))]
    pub rationale: String,
}

impl Envelope for RoleAssignmentResponse {
    const SCHEMA_FILE: &'static str = "role-assignment-response.schema.json";

    fn check(&self, _strict: bool) -> Vec<Violation> {
        let mut c = Checker::new(false);
        c.non_empty("/role", &self.role);
        c.non_empty("/rationale", &self.rationale);
        c.out
    }
}

// ------------------------------------------------------------ director / associate

/// DirectorTask kinds (v0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DirectorTaskKind {
    EditRepo,
    Run,
    Git,
    Inspect,
}

/// Git verbs a `git` task may request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GitAction {
    GitCheckpoint,
    GitReset,
    GitCheckout,
    GitStatus,
}

/// Network policy of a DirectorTask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EgressProfile {
    /// Default `git+pkg`.
    #[serde(default = "default_egress")]
    pub mode: String,
    #[serde(default)]
    pub allowlist: Vec<String>,
}

fn default_egress() -> String {
    "git+pkg".into()
}

/// Verification policy of a DirectorTask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerifyProfile {
    /// Default `smoke`.
    #[serde(default = "default_verify")]
    pub mode: String,
    #[serde(default)]
    pub commands: Vec<String>,
}

fn default_verify() -> String {
    "smoke".into()
}

fn default_budget() -> u64 {
    300
}

/// Requested outputs of a DirectorTask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReturnSpec {
    #[serde(default)]
    pub diff: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_format: Option<String>,
    #[serde(default)]
    pub logs: bool,
    #[serde(default)]
    pub files_changed: bool,
    #[serde(default)]
    pub artifacts: Vec<Value>,
}

/// DirectorTask (Director → Associate), spec/director-associate-contracts.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    title = "DirectorTask",
    description = "Task envelope from the Director to an Associate (spec/director-associate-contracts.md, v0)."
)]
pub struct DirectorTask {
    #[schemars(length(min = 1))]
    pub task_id: String,
    pub kind: DirectorTaskKind,
    #[schemars(length(min = 1))]
    pub instruction: String,
    pub acceptance_criteria: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_ref: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_action: Option<GitAction>,
    pub allowed_tools: Vec<String>,
    pub egress_profile: EgressProfile,
    pub verify_profile: VerifyProfile,
    #[serde(default)]
    pub commands: Vec<String>,
    #[serde(default = "default_budget")]
    #[schemars(range(min = 1))]
    pub time_budget_s: u64,
    #[serde(rename = "return")]
    pub returns: ReturnSpec,
}

impl Envelope for DirectorTask {
    const SCHEMA_FILE: &'static str = "director-task.schema.json";

    fn check(&self, _strict: bool) -> Vec<Violation> {
        let mut c = Checker::new(false);
        c.non_empty("/task_id", &self.task_id);
        c.non_empty("/instruction", &self.instruction);
        if self.git_action.is_some() && self.kind != DirectorTaskKind::Git {
            c.fail("/git_action", "git_action is only valid for kind = git");
        }
        if self.kind == DirectorTaskKind::Git && self.git_action.is_none() {
            c.fail("/git_action", "a git task must name its git_action");
        }
        if self.time_budget_s == 0 {
            c.fail("/time_budget_s", "time_budget_s must be positive");
        }
        c.out
    }
}

/// AssociateResult status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AssociateStatus {
    Ok,
    NeedsInput,
    Failed,
}

/// The diff of an AssociateResult.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Diff {
    pub format: String,
    pub content: String,
}

/// One command the associate ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommandRun {
    pub command: String,
    pub exit_code: i32,
    #[serde(default)]
    pub stdout_path: Option<String>,
    #[serde(default)]
    pub stderr_path: Option<String>,
}

/// Verification outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerifyStatus {
    Pass,
    Fail,
    Unknown,
}

/// Verification results of an AssociateResult.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerifyResult {
    pub mode: String,
    pub status: VerifyStatus,
    #[serde(default)]
    pub commands: Vec<String>,
    #[serde(default)]
    pub logs_path: Option<String>,
}

/// AssociateResult (Associate → Director), spec/director-associate-contracts.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    title = "AssociateResult",
    description = "Result envelope from an Associate to the Director (spec/director-associate-contracts.md, v0)."
)]
pub struct AssociateResult {
    #[schemars(length(min = 1))]
    pub task_id: String,
    pub status: AssociateStatus,
    pub summary: String,
    /// Unified diff, or null.
    pub diff: Option<Diff>,
    pub files_changed: Vec<String>,
    pub commands_run: Vec<CommandRun>,
    pub verify: VerifyResult,
    pub questions: Vec<String>,
    #[serde(default)]
    pub suggested_next: Option<String>,
}

impl Envelope for AssociateResult {
    const SCHEMA_FILE: &'static str = "associate-result.schema.json";

    fn check(&self, _strict: bool) -> Vec<Violation> {
        let mut c = Checker::new(false);
        c.non_empty("/task_id", &self.task_id);
        if self.verify.status == VerifyStatus::Fail && self.status != AssociateStatus::Failed {
            c.fail("/status", "verification failed, so status must be `failed`");
        }
        if self.status == AssociateStatus::NeedsInput && self.questions.is_empty() {
            c.fail(
                "/questions",
                "status needs_input requires at least one question",
            );
        }
        c.out
    }
}

/// The JSON Schema of an envelope, `$id` set to its published location.
///
/// Unlike the playbook schema, `Option` fields keep accepting `null`: the
/// contracts allow it (`diff: unified diff or null`), and senders write it.
pub fn schema_of<T: JsonSchema>(file: &str) -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    if let Some(object) = schema.as_object_mut() {
        object.insert(
            "$id".into(),
            Value::String(format!("{}/{file}", playbook_core::schema::SCHEMA_BASE)),
        );
    }
    schema
}

/// Every envelope schema this crate publishes into `schemas/`, with the
/// scenario schema.
pub fn published() -> Vec<playbook_core::schema::Published> {
    fn one<E: Envelope>() -> playbook_core::schema::Published {
        playbook_core::schema::Published {
            file: E::SCHEMA_FILE,
            schema: schema_of::<E>(E::SCHEMA_FILE),
        }
    }
    vec![
        one::<AssignmentPacket>(),
        one::<SubagentResult>(),
        one::<OrchestratorOutput>(),
        one::<WorklogEntry>(),
        one::<HandoffBundle>(),
        one::<ValidatorOutput>(),
        one::<RoleAssignmentRequest>(),
        one::<RoleAssignmentResponse>(),
        one::<DirectorTask>(),
        one::<AssociateResult>(),
        playbook_core::schema::Published {
            file: "scenario.schema.json",
            schema: schema_of::<crate::scenario::Scenario>("scenario.schema.json"),
        },
    ]
}
