//! The playbook document model: playbook → stages → roles.
//!
//! Every field a user may leave out is an `Option`, so that loading and saving a
//! file changes nothing but formatting: a key that was absent stays absent, an
//! explicit empty list stays an explicit empty list. Accessor methods give the
//! effective value (with the documented default) to the validator and engine.
//!
//! Unknown keys are kept in `extra` on every object. `x_`-prefixed keys are the
//! sanctioned extension point (spec/contracts.md, Extension Policy); any other
//! unknown key survives a round trip too but is reported by the validator.

pub(crate) mod count;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// Keys that are not part of the model, kept verbatim.
pub type Extra = IndexMap<String, Value>;

/// The playbook schema version this build writes and understands.
pub const SCHEMA_VERSION: &str = "1.0.0";

/// A playbook: how a team of agents works, stage by stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[schemars(
    title = "Playbook",
    description = "A Playbook Studio playbook: stages of role contracts."
)]
#[ts(export)]
pub struct Playbook {
    /// The JSON Schema this file conforms to; lets editors validate it.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, rename = "$schema")]
    pub schema: Option<String>,
    /// Version of the playbook format, `MAJOR.MINOR.PATCH`. Absent means a 1.0.0 legacy file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9]+\.[0-9]+\.[0-9]+$"))]
    #[ts(optional)]
    pub schema_version: Option<String>,
    /// Stable identifier of the playbook, e.g. `tdd`. No `/`, `\\`, control or
    /// invisible formatting characters, no whitespace at either end, not only dots.
    #[schemars(length(min = 1, max = 200), regex(pattern = crate::ids::ID_PATTERN))]
    pub id: String,
    /// Human-readable name.
    #[schemars(length(min = 1, max = 200))]
    pub name: String,
    /// What the playbook is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    /// Legacy list of phases from before `workflow` existed; kept verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub phases: Option<Vec<Value>>,
    /// Named gate expressions (CEL) that gates may refer to by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub policies: Option<IndexMap<String, String>>,
    /// Inputs the caller supplies to every run, beyond the built-in ones
    /// (`goal`, `task`, ...). Roles may require them without an earlier producer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub run_inputs: Option<Vec<String>>,
    /// Tools that change the workspace and therefore need user approval.
    /// Replaces the built-in list when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mutating_actions: Option<Vec<String>>,
    /// Stages in execution order: stage name → stage.
    pub workflow: IndexMap<String, Stage>,
    /// Unknown keys, kept verbatim.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: Extra,
}

/// One stage of the workflow, e.g. `plan`, `build` or `test`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(export)]
pub struct Stage {
    /// Whether the stage runs. Default `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub enabled: Option<bool>,
    /// Roles of the stage. A task enters the stage at the first role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub roles: Option<Vec<Role>>,
    /// Gates and parallelism of the stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stage_policy: Option<StagePolicy>,
    /// Unknown keys, kept verbatim.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: Extra,
}

/// Gates and parallelism of a stage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(export)]
pub struct StagePolicy {
    /// Condition a task must meet to enter the stage: policy key, CEL expression or free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub enter_gate: Option<String>,
    /// Condition a task must meet to leave the stage: policy key, CEL expression or free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub exit_gate: Option<String>,
    /// How many tasks of this stage may run at once, each in its own worktree. Default 1.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "count::option"
    )]
    #[schemars(range(max = crate::validate::limits::MAX_PARALLEL_WORKTREES))]
    #[ts(optional)]
    pub max_parallel_worktrees: Option<u32>,
    /// Unknown keys, kept verbatim.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: Extra,
}

/// What kind of work a role does; decides which contract checks apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum RoleMode {
    Planner,
    Worker,
    Reviewer,
    Tester,
}

impl RoleMode {
    pub const ALL: [RoleMode; 4] = [Self::Planner, Self::Worker, Self::Reviewer, Self::Tester];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Planner => "planner",
            Self::Worker => "worker",
            Self::Reviewer => "reviewer",
            Self::Tester => "tester",
        }
    }
}

impl std::fmt::Display for RoleMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A role: the legacy descriptive fields plus its enforceable contract.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(export)]
pub struct Role {
    /// Unique name of the role within the playbook; handoffs refer to it.
    #[schemars(length(min = 1, max = 200))]
    pub name: String,
    /// What the role is responsible for, in prose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub responsibilities: Option<String>,
    /// Agents that may play the role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub allowed_agents: Option<Vec<String>>,
    /// Prompt text with `{placeholders}` filled from the role's inputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub suggested_prompt: Option<String>,
    /// Kind of work: planner, worker, reviewer or tester.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mode: Option<RoleMode>,
    /// Inputs that must be present before the role may act.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub inputs_required: Option<Vec<String>>,
    /// The structured output the role must return.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub outputs_contract: Option<OutputsContract>,
    /// Tools the role may call; anything else is denied before invocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub actions_allowed: Option<Vec<String>>,
    /// Approval requirement and pass condition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub gates: Option<Gates>,
    /// Roles that may receive the task next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub handoff_to: Option<Vec<String>>,
    /// Bound of the review loop and what escalates to a human.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub retry_policy: Option<RetryPolicy>,
    /// Statements that describe when the role's work is complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub completion_criteria: Option<Vec<String>>,
    /// Unknown keys, kept verbatim.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: Extra,
}

/// The structured output a role must return.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(export)]
pub struct OutputsContract {
    /// Name of the output type, e.g. `review_result`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, rename = "type")]
    pub kind: Option<String>,
    /// Fields the output must contain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub required: Option<Vec<String>>,
    /// Unknown keys, kept verbatim.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: Extra,
}

/// Approval requirement and pass condition of a role.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(export)]
pub struct Gates {
    /// Mutating tools need a user's approval before they run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub requires_user_approval: Option<bool>,
    /// Condition on the role's output for the task to move on: policy key, CEL expression or free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub pass_condition: Option<String>,
    /// Unknown keys, kept verbatim.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: Extra,
}

/// Bound of a review loop.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(export)]
pub struct RetryPolicy {
    /// Most rounds of the loop this role takes part in before escalation.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "count::option"
    )]
    #[schemars(range(max = crate::validate::limits::MAX_ITERATIONS))]
    #[ts(optional)]
    pub max_iterations: Option<u32>,
    /// Conditions that hand the task to a human, e.g. `retry_limit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub escalate_on: Option<Vec<String>>,
    /// Unknown keys, kept verbatim.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: Extra,
}

fn slice(list: &Option<Vec<String>>) -> &[String] {
    list.as_deref().unwrap_or(&[])
}

impl Playbook {
    /// Stages in order, with their names.
    pub fn stages(&self) -> impl Iterator<Item = (&str, &Stage)> {
        self.workflow
            .iter()
            .map(|(name, stage)| (name.as_str(), stage))
    }

    /// Every role with its stage name, stage index and index within the stage.
    pub fn roles(&self) -> impl Iterator<Item = RoleRef<'_>> {
        self.workflow
            .iter()
            .enumerate()
            .flat_map(|(stage_index, (stage_name, stage))| {
                stage
                    .roles()
                    .iter()
                    .enumerate()
                    .map(move |(index, role)| RoleRef {
                        stage: stage_name,
                        stage_index,
                        index,
                        role,
                    })
            })
    }

    /// The role with this name, if any (the first one when names repeat).
    pub fn role(&self, name: &str) -> Option<RoleRef<'_>> {
        self.roles().find(|r| r.role.name == name)
    }

    pub fn policies(&self) -> impl Iterator<Item = (&str, &str)> {
        self.policies
            .iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn run_inputs(&self) -> &[String] {
        slice(&self.run_inputs)
    }

    /// A legacy (agenterm) file: it declares no `schema_version`, and its
    /// gates and numbers are read as agenterm read them (`legacy.rs`).
    pub fn is_legacy(&self) -> bool {
        self.schema_version.is_none()
    }

    /// Whether the document declares a version; files without one are legacy 1.0.0 files.
    pub fn effective_schema_version(&self) -> &str {
        self.schema_version.as_deref().unwrap_or(SCHEMA_VERSION)
    }
}

/// A role together with where it sits in the workflow.
#[derive(Debug, Clone, Copy)]
pub struct RoleRef<'a> {
    pub stage: &'a str,
    pub stage_index: usize,
    pub index: usize,
    pub role: &'a Role,
}

impl RoleRef<'_> {
    /// JSON pointer of the role, e.g. `/workflow/build/roles/1`.
    pub fn pointer(&self) -> String {
        format!(
            "/workflow/{}/roles/{}",
            crate::finding::escape_pointer(self.stage),
            self.index
        )
    }
}

impl Stage {
    pub fn is_enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }

    pub fn roles(&self) -> &[Role] {
        self.roles.as_deref().unwrap_or(&[])
    }

    pub fn max_parallel_worktrees(&self) -> u32 {
        self.stage_policy
            .as_ref()
            .and_then(|p| p.max_parallel_worktrees)
            .unwrap_or(1)
    }

    pub fn enter_gate(&self) -> Option<&str> {
        self.stage_policy.as_ref()?.enter_gate.as_deref()
    }

    pub fn exit_gate(&self) -> Option<&str> {
        self.stage_policy.as_ref()?.exit_gate.as_deref()
    }
}

impl Role {
    /// A role with none of the contract fields: a pre-contract (legacy) role.
    pub fn is_legacy(&self) -> bool {
        self.mode.is_none()
            && self.inputs_required.is_none()
            && self.outputs_contract.is_none()
            && self.actions_allowed.is_none()
            && self.gates.is_none()
            && self.handoff_to.is_none()
            && self.retry_policy.is_none()
            && self.completion_criteria.is_none()
    }

    pub fn allowed_agents(&self) -> &[String] {
        slice(&self.allowed_agents)
    }

    pub fn inputs_required(&self) -> &[String] {
        slice(&self.inputs_required)
    }

    pub fn actions_allowed(&self) -> &[String] {
        slice(&self.actions_allowed)
    }

    pub fn handoff_to(&self) -> &[String] {
        slice(&self.handoff_to)
    }

    pub fn completion_criteria(&self) -> &[String] {
        slice(&self.completion_criteria)
    }

    /// Fields the role's output must contain.
    pub fn outputs_required(&self) -> &[String] {
        self.outputs_contract
            .as_ref()
            .map(|c| slice(&c.required))
            .unwrap_or(&[])
    }

    pub fn output_type(&self) -> Option<&str> {
        self.outputs_contract.as_ref()?.kind.as_deref()
    }

    pub fn requires_user_approval(&self) -> bool {
        self.gates
            .as_ref()
            .and_then(|g| g.requires_user_approval)
            .unwrap_or(false)
    }

    pub fn pass_condition(&self) -> Option<&str> {
        self.gates.as_ref()?.pass_condition.as_deref()
    }

    pub fn max_iterations(&self) -> Option<u32> {
        self.retry_policy.as_ref()?.max_iterations
    }

    pub fn escalate_on(&self) -> &[String] {
        self.retry_policy
            .as_ref()
            .map(|p| slice(&p.escalate_on))
            .unwrap_or(&[])
    }
}
