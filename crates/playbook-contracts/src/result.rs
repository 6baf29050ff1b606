//! Envelope: Subagent Result (the agent running one role → orchestrator),
//! spec/contracts.md `subagent_result_v1`, with its completion invariants.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ts_rs::TS;

use crate::check::{
    Checker, NON_BLANK_PATTERN, RUN_ID_PATTERN, TASK_ID_PATTERN, TIMESTAMP_PATTERN,
    VERSION_PATTERN, is_non_blank, violation,
};
use crate::code::ErrorCode;
use crate::{Envelope, Extra, Violation};

/// Most notes a result may carry.
pub const MAX_NOTES: usize = 5;

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

impl AcceptanceCheck {
    /// Every criterion checked and passed, each with the same evidence: the
    /// answer of the scripted and simulated agents.
    pub fn all_passed(criteria: &[String], evidence: &str) -> Vec<AcceptanceCheck> {
        criteria
            .iter()
            .map(|criterion| AcceptanceCheck {
                criterion: criterion.clone(),
                status: CheckStatus::Pass,
                evidence: evidence.to_string(),
                extra: Default::default(),
            })
            .collect()
    }
}

/// A non-blank note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Note(#[schemars(length(min = 1), regex(pattern = NON_BLANK_PATTERN))] pub String);

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
    /// ISO-8601 UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = TIMESTAMP_PATTERN), extend("format" = "date-time"))]
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
        c.timestamp_opt("/generated_at", self.generated_at.as_ref());
        c.task_id("/task_id", &self.task_id);
        c.extra("", &self.extra);
        if self.notes_for_orchestrator.len() > MAX_NOTES {
            c.fail(
                "/notes_for_orchestrator",
                format!(
                    "{} notes; at most {MAX_NOTES} are allowed",
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
        out.extend(self.completion_violations());
        out
    }

    /// The completion invariants, said in JSON Schema so that any validator
    /// refuses what [`SubagentResult::completion_violations`] refuses.
    fn schema_invariants() -> Vec<Value> {
        vec![json!({
            "if": {
                "properties": { "status": { "const": "done" } },
                "required": ["status"]
            },
            "then": {
                "properties": {
                    "acceptance_check": {
                        "minItems": 1,
                        "items": {
                            "properties": {
                                "status": { "const": "pass" },
                                "evidence": { "type": "string", "pattern": NON_BLANK_PATTERN }
                            },
                            "required": ["status", "evidence"]
                        }
                    }
                }
            }
        })]
    }
}

impl SubagentResult {
    /// The completion invariants of spec/contracts.md: an agent that says
    /// `done` must show it — at least one acceptance check, every one
    /// passing, each with non-blank evidence.
    pub fn completion_violations(&self) -> Vec<Violation> {
        let mut out = Vec::new();
        if self.status != ResultStatus::Done {
            return out;
        }
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
            } else if !is_non_blank(&check.evidence) {
                out.push(violation(
                    ErrorCode::ResultInconsistent,
                    format!("/acceptance_check/{i}/evidence"),
                    format!("criterion `{}` passes without evidence", check.criterion),
                ));
            }
        }
        out
    }
}
