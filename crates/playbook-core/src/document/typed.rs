//! The typed model read straight from a parsed value, by reference.
//!
//! serde's derive reads a struct with a `#[serde(flatten)]` field (every
//! struct of the model keeps its unknown keys that way) by first buffering
//! the mapping's entries, keys included, as serde's private `Content`; from
//! an owned value it also frees each node as it goes. On a 500-role
//! playbook that was most of the model's cost (docs/benchmarks.md,
//! "Validation"). This reader walks the value once, copies only the text the
//! model keeps, and leaves the value to its owner.
//!
//! It understands exactly the shapes the derive accepts, and nothing more:
//! on anything else (a null, a fraction where a count goes, a missing required
//! field, a list where a mapping goes) it gives up and the caller lets the
//! derive decide, so a document reads the same either way and the derive's
//! error messages stay the only ones. A test reads every example, lint
//! fixture and thousands of generated documents both ways and compares.

use serde_json::Value;

use crate::model::{
    Extra, Gates, OutputsContract, Playbook, RetryPolicy, Role, RoleMode, Stage, StagePolicy,
};

/// The playbook of `value`, or `None` when the derive has to decide.
pub(crate) fn playbook(value: &Value) -> Option<Playbook> {
    let mut id = None;
    let mut name = None;
    let mut workflow = None;
    let mut playbook = Playbook {
        schema: None,
        schema_version: None,
        id: String::new(),
        name: String::new(),
        description: None,
        phases: None,
        policies: None,
        run_inputs: None,
        mutating_actions: None,
        workflow: Default::default(),
        extra: Extra::new(),
    };
    for (key, value) in value.as_object()? {
        match key.as_str() {
            "$schema" => playbook.schema = Some(text(value)?),
            "schema_version" => playbook.schema_version = Some(text(value)?),
            "id" => id = Some(text(value)?),
            "name" => name = Some(text(value)?),
            "description" => playbook.description = Some(text(value)?),
            "phases" => playbook.phases = Some(value.as_array()?.clone()),
            "policies" => {
                let policies = value.as_object()?;
                let mut read = indexmap::IndexMap::with_capacity(policies.len());
                for (key, value) in policies {
                    read.insert(key.clone(), text(value)?);
                }
                playbook.policies = Some(read);
            }
            "run_inputs" => playbook.run_inputs = Some(texts(value)?),
            "mutating_actions" => playbook.mutating_actions = Some(texts(value)?),
            "workflow" => {
                let stages = value.as_object()?;
                let mut read = indexmap::IndexMap::with_capacity(stages.len());
                for (key, value) in stages {
                    read.insert(key.clone(), stage(value)?);
                }
                workflow = Some(read);
            }
            _ => keep(&mut playbook.extra, key, value),
        }
    }
    playbook.id = id?;
    playbook.name = name?;
    playbook.workflow = workflow?;
    Some(playbook)
}

fn stage(value: &Value) -> Option<Stage> {
    let mut stage = Stage::default();
    for (key, value) in value.as_object()? {
        match key.as_str() {
            "enabled" => stage.enabled = Some(value.as_bool()?),
            "roles" => {
                let roles = value.as_array()?;
                let mut read = Vec::with_capacity(roles.len());
                for value in roles {
                    read.push(role(value)?);
                }
                stage.roles = Some(read);
            }
            "stage_policy" => stage.stage_policy = Some(stage_policy(value)?),
            _ => keep(&mut stage.extra, key, value),
        }
    }
    Some(stage)
}

fn stage_policy(value: &Value) -> Option<StagePolicy> {
    let mut policy = StagePolicy::default();
    for (key, value) in value.as_object()? {
        match key.as_str() {
            "enter_gate" => policy.enter_gate = Some(text(value)?),
            "exit_gate" => policy.exit_gate = Some(text(value)?),
            "max_parallel_worktrees" => policy.max_parallel_worktrees = Some(count(value)?),
            _ => keep(&mut policy.extra, key, value),
        }
    }
    Some(policy)
}

fn role(value: &Value) -> Option<Role> {
    let mut name = None;
    let mut role = Role::default();
    for (key, value) in value.as_object()? {
        match key.as_str() {
            "name" => name = Some(text(value)?),
            "responsibilities" => role.responsibilities = Some(text(value)?),
            "allowed_agents" => role.allowed_agents = Some(texts(value)?),
            "suggested_prompt" => role.suggested_prompt = Some(text(value)?),
            "mode" => role.mode = Some(mode(value)?),
            "inputs_required" => role.inputs_required = Some(texts(value)?),
            "outputs_contract" => role.outputs_contract = Some(outputs_contract(value)?),
            "actions_allowed" => role.actions_allowed = Some(texts(value)?),
            "gates" => role.gates = Some(gates(value)?),
            "handoff_to" => role.handoff_to = Some(texts(value)?),
            "retry_policy" => role.retry_policy = Some(retry_policy(value)?),
            "completion_criteria" => role.completion_criteria = Some(texts(value)?),
            _ => keep(&mut role.extra, key, value),
        }
    }
    role.name = name?;
    Some(role)
}

fn outputs_contract(value: &Value) -> Option<OutputsContract> {
    let mut contract = OutputsContract::default();
    for (key, value) in value.as_object()? {
        match key.as_str() {
            "type" => contract.kind = Some(text(value)?),
            "required" => contract.required = Some(texts(value)?),
            _ => keep(&mut contract.extra, key, value),
        }
    }
    Some(contract)
}

fn gates(value: &Value) -> Option<Gates> {
    let mut gates = Gates::default();
    for (key, value) in value.as_object()? {
        match key.as_str() {
            "requires_user_approval" => gates.requires_user_approval = Some(value.as_bool()?),
            "pass_condition" => gates.pass_condition = Some(text(value)?),
            _ => keep(&mut gates.extra, key, value),
        }
    }
    Some(gates)
}

fn retry_policy(value: &Value) -> Option<RetryPolicy> {
    let mut policy = RetryPolicy::default();
    for (key, value) in value.as_object()? {
        match key.as_str() {
            "max_iterations" => policy.max_iterations = Some(count(value)?),
            "escalate_on" => policy.escalate_on = Some(texts(value)?),
            _ => keep(&mut policy.extra, key, value),
        }
    }
    Some(policy)
}

/// A role's mode, spelled as the derive's `rename_all = "lowercase"` reads it.
fn mode(value: &Value) -> Option<RoleMode> {
    RoleMode::ALL
        .into_iter()
        .find(|mode| value.as_str() == Some(mode.as_str()))
}

fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

fn texts(value: &Value) -> Option<Vec<String>> {
    let items = value.as_array()?;
    let mut read = Vec::with_capacity(items.len());
    for item in items {
        read.push(text(item)?);
    }
    Some(read)
}

/// A count as the derive reads one (`model/count.rs`): a whole number in
/// range, `3.0` included.
fn count(value: &Value) -> Option<u32> {
    crate::model::count::whole(value)
}

/// An unknown key, kept verbatim and in order as the flattened map keeps it.
fn keep(extra: &mut Extra, key: &str, value: &Value) {
    extra.insert(key.to_owned(), value.clone());
}

#[cfg(test)]
mod tests;
