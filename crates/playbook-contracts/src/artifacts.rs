//! The artifacts of spec/contracts.md that are records rather than
//! messages: the worklog entry, the fresh-context handoff bundle (with its
//! ledger rows) and the Validator Output Contract.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ts_rs::TS;

use crate::assignment::{ActiveLock, Priority, check_locks};
use crate::check::{Checker, RUN_ID_PATTERN, TASK_ID_PATTERN, TIMESTAMP_PATTERN, VERSION_PATTERN};
use crate::code::{ErrorCode, ValidatorCode};
use crate::output::{Blocker, LedgerStatus, check_blockers};
use crate::{Envelope, Violation};

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
    #[schemars(regex(pattern = TIMESTAMP_PATTERN), extend("format" = "date-time"))]
    pub timestamp: String,
    #[schemars(regex(pattern = RUN_ID_PATTERN))]
    pub run_id: String,
    #[schemars(regex(pattern = TASK_ID_PATTERN))]
    pub task_id: String,
    pub actor: String,
    pub action: String,
    pub files_touched: Vec<String>,
    /// Untrusted data.
    pub decision: String,
    /// Untrusted data.
    pub result: String,
    pub next_step: String,
    /// Error code of a blocked or failed step, from docs/error-codes.md (Orchestrator).
    // Text on the wire type for the reason given at `Blocker::code`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<ErrorCode>")]
    #[ts(optional, as = "Option<ErrorCode>")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub evidence: Option<String>,
}

impl Envelope for WorklogEntry {
    const SCHEMA_FILE: &'static str = "worklog-entry.schema.json";

    fn check(&self, strict: bool) -> Vec<Violation> {
        let mut c = Checker::new(strict);
        c.timestamp("/timestamp", &self.timestamp);
        c.run_id("/run_id", &self.run_id);
        c.task_id("/task_id", &self.task_id);
        if let Some(code) = &self.code {
            c.code("/code", code);
        }
        c.out
    }
}

// ------------------------------------------------------------ handoff bundle

/// One row of the ledger as carried in a handoff bundle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[schemars(extend("additionalProperties" = false, "patternProperties" = {"^x_": true}))]
#[ts(export)]
pub struct LedgerRow {
    #[schemars(regex(pattern = TASK_ID_PATTERN))]
    pub task_id: String,
    pub title: String,
    pub status: LedgerStatus,
    pub owner: String,
    pub lock_scope: Vec<String>,
    pub timeout_seconds: u64,
    pub heartbeat_interval_seconds: u64,
    pub priority: Priority,
    /// ISO-8601 UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = TIMESTAMP_PATTERN), extend("format" = "date-time"))]
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
            c.timestamp_opt(
                &format!("/ledger/{i}/last_heartbeat_at"),
                row.last_heartbeat_at.as_ref(),
            );
        }
        check_locks(&mut c, "/active_locks", &self.active_locks);
        check_blockers(&mut c, "/open_blockers", &self.open_blockers);
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
    /// From docs/error-codes.md (Validator); `OK` exactly when `allow` is true.
    // Text on the wire type for the reason given at `Blocker::code`.
    #[schemars(with = "ValidatorCode")]
    pub code: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub details: Option<serde_json::Map<String, Value>>,
}

impl Envelope for ValidatorOutput {
    const SCHEMA_FILE: &'static str = "validator-output.schema.json";

    fn check(&self, strict: bool) -> Vec<Violation> {
        let mut c = Checker::new(strict);
        match self.code.parse::<ValidatorCode>() {
            Err(unknown) => c.fail("/code", unknown.to_string()),
            // Exit 0 only when allowed, and `OK` is the code of exactly that.
            Ok(code) if (code == ValidatorCode::Ok) != self.allow => c.fail(
                "/allow",
                format!(
                    "allow is {} but code is `{code}`; `OK` goes with allow true and only with it",
                    self.allow
                ),
            ),
            Ok(_) => {}
        }
        c.out
    }

    fn schema_invariants() -> Vec<Value> {
        vec![json!({
            "if": { "properties": { "allow": { "const": true } }, "required": ["allow"] },
            "then": { "properties": { "code": { "const": "OK" } } },
            "else": { "properties": { "code": { "not": { "const": "OK" } } } }
        })]
    }
}
