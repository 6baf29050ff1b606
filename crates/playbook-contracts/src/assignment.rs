//! Packet: Assignment (orchestrator → the agent running one role),
//! spec/contracts.md, with the lock and context items it carries.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::check::{Checker, RUN_ID_PATTERN, TASK_ID_PATTERN, TIMESTAMP_PATTERN, VERSION_PATTERN};
use crate::{Envelope, Extra, Violation};

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
    /// ISO-8601 UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = TIMESTAMP_PATTERN), extend("format" = "date-time"))]
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

/// The checks of the locks a packet, an output or a bundle carries.
pub(crate) fn check_locks(c: &mut Checker, path: &str, locks: &[ActiveLock]) {
    for (i, lock) in locks.iter().enumerate() {
        c.task_id(&format!("{path}/{i}/task_id"), &lock.task_id);
        c.extra(&format!("{path}/{i}"), &lock.extra);
    }
}

impl Envelope for AssignmentPacket {
    const SCHEMA_FILE: &'static str = "assignment-packet.schema.json";

    fn check(&self, strict: bool) -> Vec<Violation> {
        let mut c = Checker::new(strict);
        c.version(&self.schema_version);
        c.run_id("/run_id", &self.run_id);
        c.timestamp_opt("/generated_at", self.generated_at.as_ref());
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
        check_locks(&mut c, "/active_locks", &self.active_locks);
        for (i, item) in self.context_package.iter().enumerate() {
            c.extra(&format!("/context_package/{i}"), &item.extra);
        }
        c.out
    }
}
