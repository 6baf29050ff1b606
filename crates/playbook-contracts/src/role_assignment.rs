//! The runtime role assignment request and response,
//! spec/role-assignment-llm-contract.md.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::check::{Checker, NON_BLANK_PATTERN};
use crate::{Envelope, Violation};

/// The task part of a role assignment request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false, "patternProperties" = {"^x_": true}))]
pub struct AssignmentTask {
    #[schemars(length(min = 1), regex(pattern = NON_BLANK_PATTERN))]
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[schemars(length(min = 1), regex(pattern = NON_BLANK_PATTERN))]
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
    #[schemars(length(min = 1), regex(pattern = NON_BLANK_PATTERN))]
    pub role: String,
    #[schemars(length(min = 1), regex(pattern = NON_BLANK_PATTERN))]
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
