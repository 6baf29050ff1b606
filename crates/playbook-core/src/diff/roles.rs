//! Roles and handoffs of two playbooks, compared on matched identities
//! ([`super::matching`]): a renamed role is one rename, its edits are told
//! on its new name, and an edge that only changed names is no change.
//!
//! Every role is accounted for, including a role whose name another role
//! of its version also holds (an error the validator reports, and a way to
//! hide a role from a diff that compared by name): such a role is named by
//! which holder of the name it is ([`labels`]).

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use crate::flow::{EdgeKind, Flow};
use crate::interop::claude_code::SCOPE_KEY;
use crate::model::{Playbook, Role, RoleRef};

use super::matching::RoleMatch;
use super::{Change, ChangeKind, Changes, field_change, join, json, scope};

/// Who a role is across both versions: a role of the new playbook (matched
/// to an old one or not), or an old role that has no counterpart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Identity {
    New(usize),
    Gone(usize),
}

/// How the changes name each role of a playbook, by index into
/// [`Playbook::roles`]: its name, or, when other roles of the playbook hold
/// the same name, the name and which holder it is in document order, with
/// its stage: `coder (2nd of that name, stage test)`.
pub(super) fn labels(playbook: &Playbook) -> Vec<String> {
    let mut holders: HashMap<&str, usize> = HashMap::new();
    for r in playbook.roles() {
        *holders.entry(r.role.name.as_str()).or_default() += 1;
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    playbook
        .roles()
        .map(|r| {
            let name = r.role.name.as_str();
            if holders[name] == 1 {
                return name.to_string();
            }
            let n = seen.entry(name).or_default();
            *n += 1;
            format!("{name} ({} of that name, stage {})", ordinal(*n), r.stage)
        })
        .collect()
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The labels of both sides.
pub(super) struct Labels {
    pub old: Vec<String>,
    pub new: Vec<String>,
}

impl Labels {
    pub(super) fn new(old: &Playbook, new: &Playbook) -> Self {
        Labels {
            old: labels(old),
            new: labels(new),
        }
    }

    fn of(&self, id: Identity) -> &str {
        match id {
            Identity::New(j) => self.new.get(j).map(String::as_str).unwrap_or_default(),
            Identity::Gone(i) => self.old.get(i).map(String::as_str).unwrap_or_default(),
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
    labels: &Labels,
) {
    let first_of = |playbook: &Playbook, stage: &str| {
        playbook
            .roles()
            .enumerate()
            .find(|(_, r)| r.stage == stage)
            .map(|(i, _)| i)
    };
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
            let (before, after) = (
                labels.of(Identity::New(before)),
                labels.of(Identity::New(j)),
            );
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
    labels: &Labels,
) {
    let old_roles: Vec<_> = old.roles().collect();
    let new_roles: Vec<_> = new.roles().collect();
    let disabled = |p: &Playbook, stage: &str| {
        if p.workflow.get(stage).is_some_and(|s| !s.is_enabled()) {
            " (disabled)"
        } else {
            ""
        }
    };
    for (j, r) in new_roles.iter().enumerate() {
        let name = labels.new[j].as_str();
        let Some((i, was)) = m.old_of(j).and_then(|i| Some((i, old_roles.get(i)?))) else {
            out.push(
                ChangeKind::RoleAdded,
                format!("role {name} added{}", in_stage("to", name, r)),
            )
            .stage(r.stage)
            .role(name)
            .values(None, json(r.role));
            continue;
        };
        let was_name = labels.old[i].as_str();
        if was.role.name != r.role.name {
            out.push(
                ChangeKind::RoleRenamed,
                format!("role {was_name} renamed to {name}"),
            )
            .stage(r.stage)
            .role(name)
            .values(json(&was_name), json(&name));
        }
        let was_stage = stage_renames
            .get(was.stage)
            .map(String::as_str)
            .unwrap_or(was.stage);
        if was_stage != r.stage {
            out.push(
                ChangeKind::RoleMoved,
                format!(
                    "role {name} moved from stage {was_stage}{} to stage {}{}",
                    disabled(old, was.stage),
                    r.stage,
                    disabled(new, r.stage)
                ),
            )
            .stage(r.stage)
            .role(name)
            .values(json(&was_stage), json(&r.stage));
        }
        role_fields(out, r.stage, name, was.role, r.role);
    }
    for (i, r) in old_roles.iter().enumerate() {
        if m.new_of(i).is_some() {
            continue;
        }
        let mut notes = Vec::new();
        if let Some(gate) = r.role.pass_condition() {
            notes.push(format!("its pass condition {gate:?} goes with it"));
        }
        // The name may live on in another role: say which, so no claim
        // about this role is read as one about that role.
        if let Some(j) = new_roles.iter().position(|n| n.role.name == r.role.name) {
            match m.old_of(j) {
                Some(k) if old_roles[k].role.name != r.role.name => notes.push(format!(
                    "the name now belongs to {}, renamed",
                    labels.old[k]
                )),
                None => notes.push("the name now belongs to a new role".to_string()),
                Some(_) => {}
            }
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
        };
        let label = labels.old[i].as_str();
        out.push(
            ChangeKind::RoleRemoved,
            format!("role {label} removed{}{notes}", in_stage("from", label, r)),
        )
        .stage(r.stage)
        .role(&labels.old[i])
        .values(json(r.role), None);
    }
}

/// " to stage S" / " from stage S", unless the role's label names its stage.
fn in_stage(word: &str, label: &str, r: &RoleRef<'_>) -> String {
    if label == r.role.name {
        format!(" {word} stage {}", r.stage)
    } else {
        String::new()
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

/// Handoff edges added and removed between roles of the new version. An
/// edge from or to a removed role is not told: the removal explains it,
/// and its name may now be another role's.
pub(super) fn handoffs(
    out: &mut Changes,
    old: &Playbook,
    new: &Playbook,
    m: &RoleMatch,
    labels: &Labels,
) {
    let gone = |(a, b): &(Identity, Identity)| {
        matches!(a, Identity::Gone(_)) || matches!(b, Identity::Gone(_))
    };
    let mut before = edges(old, |i| old_identity(m, i));
    before.retain(|edge, _| !gone(edge));
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
        set.iter()
            .filter(|(edge, _)| !other.contains_key(edge))
            .map(|((a, b), explicit)| (labels.of(*a), labels.of(*b), *explicit))
            .collect::<BTreeSet<_>>()
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
    // Write scopes are judged as the gate reads them, key by key.
    scope::changes(
        out,
        name,
        was.extra.get(SCOPE_KEY),
        role.extra.get(SCOPE_KEY),
        |c, field| locate(c, field),
    );
    let nested = |extra: Option<&crate::model::Extra>| extra.cloned().unwrap_or_default();
    let mut top = (was.extra.clone(), role.extra.clone());
    top.0.shift_remove(SCOPE_KEY);
    top.1.shift_remove(SCOPE_KEY);
    for (owner, before, after) in [
        (String::new(), top.0, top.1),
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
