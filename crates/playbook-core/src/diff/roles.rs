//! Roles and handoffs of two playbooks, compared on matched identities
//! ([`super::matching`]): a renamed role is one rename, its edits are told
//! on its new name, and an edge that only changed names is no change.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::Value;

use crate::flow::{EdgeKind, Flow};
use crate::model::{Playbook, Role};

use super::matching::RoleMatch;
use super::{Change, ChangeKind, Changes, field_change, join, json};

/// Who a role is across both versions: a role of the new playbook (matched
/// to an old one or not), or an old role that has no counterpart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Identity {
    New(usize),
    Gone(usize),
}

struct Names<'a> {
    old: Vec<&'a str>,
    new: Vec<&'a str>,
}

impl<'a> Names<'a> {
    fn new(old: &'a Playbook, new: &'a Playbook) -> Self {
        Names {
            old: old.roles().map(|r| r.role.name.as_str()).collect(),
            new: new.roles().map(|r| r.role.name.as_str()).collect(),
        }
    }

    fn of(&self, id: Identity) -> &'a str {
        match id {
            Identity::New(j) => self.new.get(j).copied().unwrap_or_default(),
            Identity::Gone(i) => self.old.get(i).copied().unwrap_or_default(),
        }
    }
}

fn old_identity(m: &RoleMatch, i: usize) -> Identity {
    m.new_of(i).map_or(Identity::Gone(i), Identity::New)
}

/// A task enters a stage at its first role, so reordering roles can change
/// who sees the work first.
pub(super) fn entry_roles(
    out: &mut Changes,
    old: &Playbook,
    new: &Playbook,
    stage_renames: &HashMap<String, String>,
    m: &RoleMatch,
) {
    let first_of = |playbook: &Playbook, stage: &str| {
        playbook
            .roles()
            .enumerate()
            .find(|(_, r)| r.stage == stage)
            .map(|(i, _)| i)
    };
    let names = Names::new(old, new);
    for (old_stage, _) in old.stages() {
        let name = stage_renames
            .get(old_stage)
            .map(String::as_str)
            .unwrap_or(old_stage);
        if !new.workflow.contains_key(name) {
            continue;
        }
        let (Some(i), Some(j)) = (first_of(old, old_stage), first_of(new, name)) else {
            continue;
        };
        // Only a reordering counts: an entry role that was added or removed
        // is reported as such.
        let (Some(before), Some(_)) = (m.new_of(i), m.old_of(j)) else {
            continue;
        };
        if before != j {
            let (before, after) = (names.of(Identity::New(before)), names.of(Identity::New(j)));
            out.push(
                ChangeKind::StageFieldChanged,
                format!("stage {name} now starts at {after} (was {before})"),
            )
            .stage(name)
            .field("roles/0")
            .values(json(&before), json(&after));
        }
    }
}

pub(super) fn roles(
    out: &mut Changes,
    old: &Playbook,
    new: &Playbook,
    stage_renames: &HashMap<String, String>,
    m: &RoleMatch,
) {
    let old_roles: Vec<_> = old.roles().collect();
    let mut seen = HashSet::new();
    for (j, r) in new.roles().enumerate() {
        let name = r.role.name.as_str();
        // A repeated name is an error the validator reports; compare the first.
        if !seen.insert(name) {
            continue;
        }
        let Some(was) = m.old_of(j).and_then(|i| old_roles.get(i)) else {
            out.push(
                ChangeKind::RoleAdded,
                format!("role {name} added to stage {}", r.stage),
            )
            .stage(r.stage)
            .role(name)
            .values(None, json(r.role));
            continue;
        };
        if was.role.name != name {
            out.push(
                ChangeKind::RoleRenamed,
                format!("role {} renamed to {name}", was.role.name),
            )
            .stage(r.stage)
            .role(name)
            .values(json(&was.role.name), json(&name));
        }
        let was_stage = stage_renames
            .get(was.stage)
            .map(String::as_str)
            .unwrap_or(was.stage);
        if was_stage != r.stage {
            out.push(
                ChangeKind::RoleMoved,
                format!(
                    "role {name} moved from stage {was_stage} to stage {}",
                    r.stage
                ),
            )
            .stage(r.stage)
            .role(name)
            .values(json(&was_stage), json(&r.stage));
        }
        role_fields(out, r.stage, name, was.role, r.role);
    }
    let mut seen = HashSet::new();
    for (i, r) in old_roles.iter().enumerate() {
        let name = r.role.name.as_str();
        if seen.insert(name) && m.new_of(i).is_none() {
            out.push(
                ChangeKind::RoleRemoved,
                format!("role {name} removed from stage {}", r.stage),
            )
            .stage(r.stage)
            .role(name)
            .values(json(r.role), None);
        }
    }
}

/// Edges of the flow graph as (from, to) → explicit, on identities.
fn edges(
    playbook: &Playbook,
    id: impl Fn(usize) -> Identity,
) -> HashMap<(Identity, Identity), bool> {
    let flow = Flow::new(playbook);
    let mut out = HashMap::new();
    for i in 0..flow.roles.len() {
        for (j, kind) in flow.successors(i) {
            out.insert((id(i), id(j)), kind == EdgeKind::Handoff);
        }
    }
    out
}

pub(super) fn handoffs(out: &mut Changes, old: &Playbook, new: &Playbook, m: &RoleMatch) {
    let names = Names::new(old, new);
    let before = edges(old, |i| old_identity(m, i));
    let after = edges(new, Identity::New);
    let describe = |explicit: bool| {
        if explicit {
            ""
        } else {
            " (next role of the stage)"
        }
    };
    // Sentences in name order, so the output is stable.
    let sorted = |set: &HashMap<(Identity, Identity), bool>,
                  other: &HashMap<(Identity, Identity), bool>| {
        let mut list: Vec<(&str, &str, bool)> = set
            .iter()
            .filter(|(edge, _)| !other.contains_key(edge))
            .map(|((a, b), explicit)| (names.of(*a), names.of(*b), *explicit))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        list.dedup();
        list
    };
    for (from, to, explicit) in sorted(&after, &before) {
        out.push(
            ChangeKind::HandoffAdded,
            format!("handoff {from} → {to} added{}", describe(explicit)),
        )
        .role(from)
        .field("handoff_to")
        .values(None, json(&to));
    }
    for (from, to, explicit) in sorted(&before, &after) {
        out.push(
            ChangeKind::HandoffRemoved,
            format!("handoff {from} → {to} removed{}", describe(explicit)),
        )
        .role(from)
        .field("handoff_to")
        .values(json(&to), None);
    }
}

pub(super) fn role_fields(out: &mut Changes, stage: &str, name: &str, was: &Role, role: &Role) {
    let locate = |c: &mut Change, field: &str| {
        c.stage(stage).role(name).field(field);
    };

    // Tools: each direction is one change listing the tools.
    let (before, after) = (was.actions_allowed(), role.actions_allowed());
    let widened: Vec<&String> = after.iter().filter(|t| !before.contains(t)).collect();
    let narrowed: Vec<&String> = before.iter().filter(|t| !after.contains(t)).collect();
    if !widened.is_empty() {
        let c = out
            .push(
                ChangeKind::ToolsWidened,
                format!("{name} may now use {}", join(&widened)),
            )
            .values(json(&was.actions_allowed), json(&role.actions_allowed));
        locate(c, "actions_allowed");
    }
    if !narrowed.is_empty() {
        let c = out
            .push(
                ChangeKind::ToolsNarrowed,
                format!("{name} may no longer use {}", join(&narrowed)),
            )
            .values(json(&was.actions_allowed), json(&role.actions_allowed));
        locate(c, "actions_allowed");
    }

    // Approval: absent means no approval.
    match (was.requires_user_approval(), role.requires_user_approval()) {
        (true, false) => {
            let c = out
                .push(
                    ChangeKind::ApprovalDropped,
                    format!("{name} no longer requires user approval"),
                )
                .values(json(&true), json(&false));
            locate(c, "gates.requires_user_approval");
        }
        (false, true) => {
            let c = out
                .push(
                    ChangeKind::ApprovalRequired,
                    format!("{name} now requires user approval"),
                )
                .values(json(&false), json(&true));
            locate(c, "gates.requires_user_approval");
        }
        _ => {}
    }

    let label = format!("pass condition of {name}");
    if let Some(c) = field_change(
        out,
        ChangeKind::GateChanged,
        &label,
        json(&was.pass_condition()),
        json(&role.pass_condition()),
    ) {
        locate(c, "gates.pass_condition");
    }
    let label = format!("retry limit of {name}");
    if let Some(c) = field_change(
        out,
        ChangeKind::RetryLimitChanged,
        &label,
        json(&was.max_iterations()),
        json(&role.max_iterations()),
    ) {
        locate(c, "retry_policy.max_iterations");
    }

    let fields: [(&str, Option<Value>, Option<Value>); 9] = [
        (
            "responsibilities",
            json(&was.responsibilities),
            json(&role.responsibilities),
        ),
        (
            "allowed_agents",
            json(&was.allowed_agents),
            json(&role.allowed_agents),
        ),
        (
            "suggested_prompt",
            json(&was.suggested_prompt),
            json(&role.suggested_prompt),
        ),
        ("mode", json(&was.mode), json(&role.mode)),
        (
            "inputs_required",
            json(&was.inputs_required),
            json(&role.inputs_required),
        ),
        (
            "outputs_contract.type",
            json(&was.output_type()),
            json(&role.output_type()),
        ),
        (
            "outputs_contract.required",
            json(
                &was.outputs_contract
                    .as_ref()
                    .and_then(|o| o.required.clone()),
            ),
            json(
                &role
                    .outputs_contract
                    .as_ref()
                    .and_then(|o| o.required.clone()),
            ),
        ),
        (
            "retry_policy.escalate_on",
            json(
                &was.retry_policy
                    .as_ref()
                    .and_then(|p| p.escalate_on.clone()),
            ),
            json(
                &role
                    .retry_policy
                    .as_ref()
                    .and_then(|p| p.escalate_on.clone()),
            ),
        ),
        (
            "completion_criteria",
            json(&was.completion_criteria),
            json(&role.completion_criteria),
        ),
    ];
    for (field, before, after) in fields {
        // Prose is reported as changed, not quoted: the values are in before/after.
        let long = matches!(
            field,
            "responsibilities" | "suggested_prompt" | "completion_criteria"
        );
        if long && before.is_some() && after.is_some() && before != after {
            let c = out
                .push(
                    ChangeKind::RoleFieldChanged,
                    format!("{field} of {name} changed"),
                )
                .values(before, after);
            locate(c, field);
            continue;
        }
        let label = format!("{field} of {name}");
        if let Some(c) = field_change(out, ChangeKind::RoleFieldChanged, &label, before, after) {
            locate(c, field);
        }
    }
    let nested = |extra: Option<&crate::model::Extra>| extra.cloned().unwrap_or_default();
    for (owner, before, after) in [
        (String::new(), was.extra.clone(), role.extra.clone()),
        (
            "outputs_contract.".to_string(),
            nested(was.outputs_contract.as_ref().map(|o| &o.extra)),
            nested(role.outputs_contract.as_ref().map(|o| &o.extra)),
        ),
        (
            "gates.".to_string(),
            nested(was.gates.as_ref().map(|g| &g.extra)),
            nested(role.gates.as_ref().map(|g| &g.extra)),
        ),
        (
            "retry_policy.".to_string(),
            nested(was.retry_policy.as_ref().map(|p| &p.extra)),
            nested(role.retry_policy.as_ref().map(|p| &p.extra)),
        ),
    ] {
        let keys: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
        for key in keys {
            let field = format!("{owner}{key}");
            let label = format!("{field} of {name}");
            if let Some(c) = field_change(
                out,
                ChangeKind::RoleFieldChanged,
                &label,
                before.get(key).cloned(),
                after.get(key).cloned(),
            ) {
                locate(c, &field);
            }
        }
    }
}
