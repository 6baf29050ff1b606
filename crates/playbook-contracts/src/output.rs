//! Envelope: Orchestrator Output (what the orchestrator emits after a
//! scheduling round), spec/contracts.md: ledger deltas, assignments, locks
//! and blockers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::assignment::{ActiveLock, AssignmentPacket, check_locks};
use crate::check::{
    Checker, NON_BLANK_PATTERN, RUN_ID_PATTERN, TASK_ID_PATTERN, TIMESTAMP_PATTERN, VERSION_PATTERN,
};
use crate::code::ErrorCode;
use crate::{Envelope, Extra, Violation};

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
    #[schemars(length(min = 1), regex(pattern = NON_BLANK_PATTERN))]
    pub delta_id: String,
    /// ISO-8601 UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = TIMESTAMP_PATTERN), extend("format" = "date-time"))]
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
    // Text on the wire type, so that a payload with an unknown code still
    // parses and its check names the field and the doc; the check and the
    // schema (the `ErrorCode` enum) both refuse a code that is not documented.
    #[schemars(with = "ErrorCode")]
    #[ts(as = "ErrorCode")]
    pub code: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub details: Option<serde_json::Map<String, Value>>,
}

/// The checks of the blockers an output or a bundle carries.
pub(crate) fn check_blockers(c: &mut Checker, path: &str, blockers: &[Blocker]) {
    for (i, b) in blockers.iter().enumerate() {
        c.task_id(&format!("{path}/{i}/task_id"), &b.task_id);
        c.code(&format!("{path}/{i}/code"), &b.code);
    }
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
    /// ISO-8601 UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = TIMESTAMP_PATTERN), extend("format" = "date-time"))]
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
        c.timestamp_opt("/generated_at", self.generated_at.as_ref());
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
            c.timestamp_opt(
                &format!("/ledger_delta/{i}/last_heartbeat_at"),
                d.last_heartbeat_at.as_ref(),
            );
            c.extra(&format!("/ledger_delta/{i}"), &d.extra);
        }
        check_locks(&mut c, "/active_locks", &self.active_locks);
        check_blockers(&mut c, "/blockers", &self.blockers);
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
