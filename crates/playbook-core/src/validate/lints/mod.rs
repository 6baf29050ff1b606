//! The semantic lints. Each function checks one concern over the typed
//! playbook and pushes findings; `docs/lints.md` documents every code.

use foldhash::{HashMap, HashMapExt, HashSet};

use super::Options;

mod fields;
mod flow;
mod gates;
mod roles;
mod stages;

pub use roles::prompt_placeholders;

use fields::*;
use flow::*;
use gates::*;
use roles::*;
use stages::*;

use crate::finding::{Code, Finding, Severity, escape_pointer};
use crate::flow::Flow;
use crate::gate::{self, GateError, ROLE_STATE_VARIABLES, STAGE_STATE_VARIABLES};
use crate::model::{Extra, Playbook, RoleMode, RoleRef};

/// Inputs every run provides, whatever the playbook declares.
pub const BUILTIN_RUN_INPUTS: &[&str] = &[
    "goal",
    "task",
    "task_id",
    "title",
    "acceptance_criteria",
    "repo",
    "base_ref",
];

/// Conditions the orchestrator raises that `escalate_on` may name.
pub const ESCALATION_TRIGGERS: &[&str] = &[
    "retry_limit",
    "gate_failed",
    "contract_violation",
    "tool_blocked",
    "approval_denied",
    "needs_input",
    "agent_error",
    "timeout",
];

/// Inputs a reviewer needs to review the right change against the right spec.
const REVIEWER_INPUTS: [&str; 2] = ["spec_path", "commit_sha"];

pub(super) fn run(playbook: &Playbook, options: &Options) -> Vec<Finding> {
    let flow = Flow::new(playbook);
    let mutating = mutating_actions(playbook, options);
    let mut out = Vec::new();
    super::limits::check(playbook, &mut out);
    if let Some(problem) = crate::ids::id_problem(&playbook.id) {
        push(
            &mut out,
            Code::Schema,
            "/id".into(),
            format!(
                "the id `{}` cannot be used: {problem}",
                playbook.id.escape_debug()
            ),
            ID_HINT.into(),
        );
    }
    super::names::check(playbook, &mut out);
    unknown_fields(playbook, options, &mut out);
    policies(playbook, &mut out);
    stages(playbook, options, &mut out);
    duplicate_roles(&flow, &mut out);
    for (i, role) in flow.roles.iter().enumerate() {
        role_contract(playbook, role, &mutating, &mut out);
        handoffs(&flow, i, &mut out);
        role_gate(playbook, role, &mut out);
    }
    loops(&flow, &mut out);
    reachability(&flow, &mut out);
    // For each output field, the first stage promising it: what inputs and
    // stage gates may take from earlier stages.
    let first_stage = flow.first_stage_promising();
    inputs(playbook, &flow, &first_stage, &mut out);
    stage_gates(playbook, &first_stage, &mut out);

    // A playbook written before contracts existed gets hints, never warnings:
    // nothing in it is wrong by the standards it was written to.
    if flow.roles.iter().all(|r| r.role.is_legacy()) {
        for finding in &mut out {
            if finding.severity == Severity::Warning && finding.code != Code::UnknownField {
                finding.severity = Severity::Info;
            }
        }
    }
    out
}

/// How to fix an id the store would refuse.
pub(crate) const ID_HINT: &str = "use letters, digits, `-`, `_` or `.`: the id names the playbook in the library and its exported file";

pub(super) fn push(
    out: &mut Vec<Finding>,
    code: Code,
    path: String,
    message: String,
    hint: String,
) {
    out.push(Finding::new(code, path, message, hint));
}
