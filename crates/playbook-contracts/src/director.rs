//! The Director → Associate task and the Associate → Director result,
//! spec/director-associate-contracts.md (v0).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::check::{Checker, NON_BLANK_PATTERN};
use crate::{Envelope, Violation};

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
    #[schemars(length(min = 1), regex(pattern = NON_BLANK_PATTERN))]
    pub task_id: String,
    pub kind: DirectorTaskKind,
    #[schemars(length(min = 1), regex(pattern = NON_BLANK_PATTERN))]
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

    /// `git_action` goes with `kind: git`, both ways.
    fn schema_invariants() -> Vec<Value> {
        vec![
            json!({
                "if": { "properties": { "kind": { "const": "git" } }, "required": ["kind"] },
                "then": {
                    "properties": { "git_action": { "type": "string" } },
                    "required": ["git_action"]
                }
            }),
            json!({
                "if": {
                    "properties": { "git_action": { "type": "string" } },
                    "required": ["git_action"]
                },
                "then": { "properties": { "kind": { "const": "git" } } }
            }),
        ]
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
    #[schemars(length(min = 1), regex(pattern = NON_BLANK_PATTERN))]
    pub task_id: String,
    pub status: AssociateStatus,
    pub summary: String,
    /// Unified diff, or null. Required: the contract lists it, and `null`
    /// says "no diff" explicitly.
    #[serde(deserialize_with = "Option::deserialize")]
    // Present even when null: the schema's `allOf` requires it.
    #[schemars(with = "Option<Diff>")]
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

    /// `diff` is present (null or a diff); a failed verification means a
    /// failed result; a question-less `needs_input` is refused.
    fn schema_invariants() -> Vec<Value> {
        vec![
            json!({ "required": ["diff"] }),
            json!({
                "if": {
                    "properties": {
                        "verify": {
                            "properties": { "status": { "const": "fail" } },
                            "required": ["status"]
                        }
                    },
                    "required": ["verify"]
                },
                "then": { "properties": { "status": { "const": "failed" } } }
            }),
            json!({
                "if": { "properties": { "status": { "const": "needs_input" } }, "required": ["status"] },
                "then": { "properties": { "questions": { "minItems": 1 } } }
            }),
        ]
    }
}
