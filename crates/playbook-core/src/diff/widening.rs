//! Which changes widen what agents may do without a person's say.
//!
//! A reviewer reading a diff must not miss a permission that grew, so every
//! change is classified against one table, [`WIDENING_RULES`], and widening
//! changes are listed first and marked. docs/architecture-store.md lists the
//! same rules in words.
//!
//! Three families widen: a role may do more (tools, agents, approval,
//! retries, write scopes); something that held the flow back no longer does
//! (a gate removed or weakened, a gated role or stage removed or taken out
//! of the flow, a policy that defined a gate changed for a weaker one); and
//! roles run that did not (a stage enabled, a role moved out of a disabled
//! stage, a new role that changes the workspace without approval).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::gates::{self, Strength};
use super::{Change, ChangeKind, scope};
use crate::model::Playbook;

/// When a change of a rule's kind (and field) widens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Every change of the kind widens.
    Always,
    /// A number went up, or was removed (no limit).
    RaisedOrRemoved,
    /// A list lost an entry, or was removed.
    ListLost,
    /// A list of who may act gained an entry, or became empty or absent
    /// (which means anyone).
    AnyoneOrMore,
    /// A new role may use a mutating tool without a user's approval.
    MutatesWithoutApproval,
    /// A gate was removed, replaced by one that always holds (`always`,
    /// `true`, a constant expression that is true), or a gate a person
    /// decided became a machine check.
    GateWeakened,
    /// A policy that defines a gate now lets more through, by the same
    /// measure; removing a policy that overrode a built-in key lets the
    /// built-in apply, which is judged weaker unless it is a manual gate or
    /// the removed definition always held; adding one over a built-in key
    /// is judged against the built-in.
    PolicyWeakened,
    /// A role's `x_scope.lock_scope` lets a write through that it refused:
    /// an entry outside every old one (`/`, `**`, a parent directory), or
    /// no confinement left.
    LockScopeWidened,
    /// A role's `x_scope.forbidden_scope` no longer refuses a path it
    /// refused: an entry removed or narrowed, or the list removed.
    ForbiddenScopeLost,
    /// A role's whole `x_scope` changed shape, and one of the two rules
    /// above holds of it.
    ScopeWidened,
    /// A role moved from a disabled stage into an enabled one (it runs
    /// again), or a role whose gate guarded the flow moved from an enabled
    /// stage into a disabled one (its gate no longer holds).
    MovedIntoFlowOrGateOut,
    /// What was removed held a gate that guarded the flow: a role with a
    /// pass condition, or a stage with an enter or exit gate, in an enabled
    /// stage.
    GateRemovedWithIt,
    /// A stage was disabled whose own gates or whose roles' pass conditions
    /// guarded the flow.
    GatedStageDisabled,
}

/// One kind of widening change.
#[derive(Debug, Clone, Copy)]
pub struct WideningRule {
    pub kind: ChangeKind,
    /// The field concerned, when the kind alone does not say it.
    pub field: Option<&'static str>,
    pub when: When,
    /// What a reviewer should know, in words.
    pub meaning: &'static str,
}

/// The changes that widen permissions: the one list the diff consults.
pub const WIDENING_RULES: &[WideningRule] = &[
    WideningRule {
        kind: ChangeKind::ApprovalDropped,
        field: None,
        when: When::Always,
        meaning: "a role no longer requires user approval, or a tool left mutating_actions",
    },
    WideningRule {
        kind: ChangeKind::ToolsWidened,
        field: None,
        when: When::Always,
        meaning: "a role may use a tool it could not use before",
    },
    WideningRule {
        kind: ChangeKind::RoleFieldChanged,
        field: Some("allowed_agents"),
        when: When::AnyoneOrMore,
        meaning: "more agents may play a role (an empty or absent list allows any agent)",
    },
    WideningRule {
        kind: ChangeKind::RetryLimitChanged,
        field: None,
        when: When::RaisedOrRemoved,
        meaning: "a loop may run more rounds before escalating",
    },
    WideningRule {
        kind: ChangeKind::RoleFieldChanged,
        field: Some("retry_policy.escalate_on"),
        when: When::ListLost,
        meaning: "a condition no longer hands the task to a person",
    },
    WideningRule {
        kind: ChangeKind::RoleFieldChanged,
        field: Some("x_scope.lock_scope"),
        when: When::LockScopeWidened,
        meaning: "a role may write where its lock_scope kept it out",
    },
    WideningRule {
        kind: ChangeKind::RoleFieldChanged,
        field: Some("x_scope.forbidden_scope"),
        when: When::ForbiddenScopeLost,
        meaning: "a role may write where its forbidden_scope kept it out",
    },
    WideningRule {
        kind: ChangeKind::RoleFieldChanged,
        field: Some("x_scope"),
        when: When::ScopeWidened,
        meaning: "a role may write where its scopes kept it out",
    },
    WideningRule {
        kind: ChangeKind::GateChanged,
        field: None,
        when: When::GateWeakened,
        meaning: "a role's pass condition was removed, always holds now, or no longer waits for a person",
    },
    WideningRule {
        kind: ChangeKind::StageGateChanged,
        field: None,
        when: When::GateWeakened,
        meaning: "a stage's enter or exit gate was removed, always holds now, or no longer waits for a person",
    },
    WideningRule {
        kind: ChangeKind::PolicyChanged,
        field: None,
        when: When::PolicyWeakened,
        meaning: "a policy the gates name always holds now, or no longer waits for a person",
    },
    WideningRule {
        kind: ChangeKind::PolicyAdded,
        field: None,
        when: When::PolicyWeakened,
        meaning: "a policy overrides a built-in gate with a weaker one",
    },
    WideningRule {
        kind: ChangeKind::PolicyRemoved,
        field: None,
        when: When::PolicyWeakened,
        meaning: "a policy that overrode a built-in gate was removed: the built-in applies",
    },
    WideningRule {
        kind: ChangeKind::RoleRemoved,
        field: None,
        when: When::GateRemovedWithIt,
        meaning: "a role whose pass condition guarded the flow was removed, and its gate with it",
    },
    WideningRule {
        kind: ChangeKind::StageRemoved,
        field: None,
        when: When::GateRemovedWithIt,
        meaning: "a stage with an enter or exit gate was removed, and its gates with it",
    },
    WideningRule {
        kind: ChangeKind::StageDisabled,
        field: None,
        when: When::GatedStageDisabled,
        meaning: "a stage whose gates guarded the flow was disabled: tasks no longer pass them",
    },
    WideningRule {
        kind: ChangeKind::StageEnabled,
        field: None,
        when: When::Always,
        meaning: "a stage's roles run again",
    },
    WideningRule {
        kind: ChangeKind::RoleMoved,
        field: None,
        when: When::MovedIntoFlowOrGateOut,
        meaning: "a role moved out of a disabled stage runs again, or a gated role moved into one no longer guards the flow",
    },
    WideningRule {
        kind: ChangeKind::RoleAdded,
        field: None,
        when: When::MutatesWithoutApproval,
        meaning: "a new role may change the workspace without a user's approval",
    },
];

/// What the classification needs beyond the change: both playbooks (their
/// policies resolve gates, their stages say what runs) and the new
/// playbook's mutating tools. A role template compared on its own has no
/// playbooks.
pub(super) struct Context<'a> {
    mutating: &'a [String],
    old: Option<&'a Playbook>,
    new: Option<&'a Playbook>,
    /// Whether each old stage ran, by every name a change may give it: its
    /// own, and its new name when renamed.
    old_stage_enabled: HashMap<String, bool>,
    /// (stage, role as the changes name it) of the new roles whose pass
    /// condition guards the flow.
    gated_new_roles: HashSet<(String, String)>,
}

impl<'a> Context<'a> {
    /// The context of a diff of two playbooks: `stage_renames` maps old
    /// stage names to new ones, `new_labels` names the new roles as the
    /// changes do.
    pub(super) fn of_playbooks(
        old: &'a Playbook,
        new: &'a Playbook,
        stage_renames: &HashMap<String, String>,
        new_labels: &[String],
        mutating: &'a [String],
    ) -> Self {
        let mut old_stage_enabled = HashMap::new();
        for (name, stage) in old.stages() {
            old_stage_enabled.insert(name.to_string(), stage.is_enabled());
            if let Some(renamed) = stage_renames.get(name) {
                old_stage_enabled.insert(renamed.clone(), stage.is_enabled());
            }
        }
        let gated_new_roles = new
            .roles()
            .zip(new_labels)
            .filter(|(r, _)| gates::of_gate(r.role.pass_condition(), Some(new)).guards())
            .map(|(r, label)| (r.stage.to_string(), label.clone()))
            .collect();
        Context {
            mutating,
            old: Some(old),
            new: Some(new),
            old_stage_enabled,
            gated_new_roles,
        }
    }

    /// The context of one role compared on its own: built-in policies
    /// only, no stages.
    pub(super) fn of_role(mutating: &'a [String]) -> Self {
        Context {
            mutating,
            old: None,
            new: None,
            old_stage_enabled: HashMap::new(),
            gated_new_roles: HashSet::new(),
        }
    }
}

/// Whether the change widens permissions, by [`WIDENING_RULES`].
pub(super) fn widens(change: &Change, ctx: &Context<'_>) -> bool {
    WIDENING_RULES.iter().any(|rule| {
        rule.kind == change.kind
            && rule
                .field
                .is_none_or(|f| change.field.as_deref() == Some(f))
            && holds(rule.when, change, ctx)
    })
}

fn holds(when: When, change: &Change, ctx: &Context<'_>) -> bool {
    let (before, after) = (change.before.as_ref(), change.after.as_ref());
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    fn text(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str)
    }
    match when {
        When::Always => true,
        When::RaisedOrRemoved => match (before.and_then(Value::as_u64), after) {
            (Some(_), None) => true,
            (Some(b), Some(a)) => a.as_u64().is_none_or(|a| a > b),
            (None, _) => false,
        },
        When::ListLost => {
            let after = strings(after);
            strings(before).iter().any(|b| !after.contains(b))
        }
        When::AnyoneOrMore => {
            let (before, after) = (strings(before), strings(after));
            !before.is_empty() && (after.is_empty() || after.iter().any(|a| !before.contains(a)))
        }
        When::MutatesWithoutApproval => {
            let Some(role) = after else {
                return false;
            };
            let approval = role
                .pointer("/gates/requires_user_approval")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            !approval
                && strings(role.get("actions_allowed"))
                    .iter()
                    .any(|t| ctx.mutating.contains(t))
        }
        When::GateWeakened => gates::weakened(
            gates::of_gate(text(before), ctx.old),
            gates::of_gate(text(after), ctx.new),
        ),
        When::PolicyWeakened => policy_weakened(change),
        When::LockScopeWidened => scope::lock_key_widened(before, after),
        When::ForbiddenScopeLost => scope::forbidden_key_lost(before, after),
        When::ScopeWidened => scope::whole_widened(before, after),
        When::MovedIntoFlowOrGateOut => {
            let was = text(before).and_then(|s| ctx.old_stage_enabled.get(s).copied());
            let now = text(after).and_then(|s| new_stage_enabled(ctx, s));
            let gated = match (&change.stage, &change.role) {
                (Some(stage), Some(role)) => {
                    ctx.gated_new_roles.contains(&(stage.clone(), role.clone()))
                }
                _ => false,
            };
            match (was, now) {
                (Some(false), Some(true)) => true,
                (Some(true), Some(false)) => gated,
                _ => false,
            }
        }
        When::GateRemovedWithIt => {
            let Some(value) = before else {
                return false;
            };
            match change.kind {
                ChangeKind::RoleRemoved => {
                    let enabled = change
                        .stage
                        .as_ref()
                        .and_then(|s| ctx.old_stage_enabled.get(s).copied())
                        .unwrap_or(true);
                    let gate = value
                        .pointer("/gates/pass_condition")
                        .and_then(Value::as_str);
                    enabled && gate.is_some() && gates::of_gate(gate, ctx.old).guards()
                }
                _ => {
                    let enabled = value
                        .get("enabled")
                        .and_then(Value::as_bool)
                        .unwrap_or(true);
                    let guards = ["enter_gate", "exit_gate"].iter().any(|g| {
                        let gate = value
                            .get("stage_policy")
                            .and_then(|p| p.get(g))
                            .and_then(Value::as_str);
                        gate.is_some() && gates::of_gate(gate, ctx.old).guards()
                    });
                    enabled && guards
                }
            }
        }
        When::GatedStageDisabled => {
            let (Some(new), Some(name)) = (ctx.new, change.stage.as_deref()) else {
                return false;
            };
            let Some(stage) = new.workflow.get(name) else {
                return false;
            };
            let guarded = |gate: Option<&str>| gates::of_gate(gate, Some(new)).guards();
            guarded(stage.enter_gate())
                || guarded(stage.exit_gate())
                || stage.roles().iter().any(|r| guarded(r.pass_condition()))
        }
    }
}

fn new_stage_enabled(ctx: &Context<'_>, stage: &str) -> Option<bool> {
    ctx.new?.workflow.get(stage).map(|s| s.is_enabled())
}

/// [`When::PolicyWeakened`]: a policy's definition compared with what
/// applied before, a built-in key's own definition standing in for an
/// absent override.
fn policy_weakened(change: &Change) -> bool {
    let Some(key) = change.field.as_deref() else {
        return false;
    };
    fn definition(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str)
    }
    let (before, after) = (
        definition(change.before.as_ref()),
        definition(change.after.as_ref()),
    );
    match (before, after, gates::of_builtin(key)) {
        (Some(was), Some(now), _) => {
            gates::weakened(gates::of_policy(key, was), gates::of_policy(key, now))
        }
        (None, Some(now), Some(builtin)) => gates::weakened(builtin, gates::of_policy(key, now)),
        // The built-in applies again. Whether it is weaker than the removed
        // definition cannot be told from two expressions, so it counts as
        // weaker unless it is a person's decision or the removed definition
        // always held.
        (Some(was), None, Some(builtin)) => {
            !gates::same_as_builtin(key, was)
                && gates::of_policy(key, was) != Strength::Always
                && builtin != Strength::Manual
        }
        _ => false,
    }
}
