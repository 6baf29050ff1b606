//! Which changes widen what agents may do without a person's say.
//!
//! A reviewer reading a diff must not miss a permission that grew, so every
//! change is classified against one table, [`WIDENING_RULES`], and widening
//! changes are listed first and marked. docs/architecture-store.md lists the
//! same rules in words.

use serde_json::Value;

use super::{Change, ChangeKind};

/// When a change of a rule's kind (and field) widens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Every change of the kind widens.
    Always,
    /// The value was removed.
    Removed,
    /// A number went up, or was removed (no limit).
    RaisedOrRemoved,
    /// A list lost an entry, or was removed.
    ListLost,
    /// A list of who may act gained an entry, or became empty or absent
    /// (which means anyone).
    AnyoneOrMore,
    /// A new role may use a mutating tool without a user's approval.
    MutatesWithoutApproval,
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
        kind: ChangeKind::GateChanged,
        field: None,
        when: When::Removed,
        meaning: "a role's pass condition was removed",
    },
    WideningRule {
        kind: ChangeKind::StageGateChanged,
        field: None,
        when: When::Removed,
        meaning: "a stage's enter or exit gate was removed",
    },
    WideningRule {
        kind: ChangeKind::StageEnabled,
        field: None,
        when: When::Always,
        meaning: "a stage's roles run again",
    },
    WideningRule {
        kind: ChangeKind::RoleAdded,
        field: None,
        when: When::MutatesWithoutApproval,
        meaning: "a new role may change the workspace without a user's approval",
    },
];

/// What the classification needs beyond the change: the new playbook's
/// mutating tools.
pub(super) struct Context<'a> {
    pub mutating: &'a [String],
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
    match when {
        When::Always => true,
        When::Removed => before.is_some() && after.is_none(),
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
    }
}
