//! Semantic diff of two playbooks: what changed, in the words of the domain.
//!
//! A text diff of two versions shows moved lines; a team lead wants to know
//! that "reviewer may now use merge_worktree" or that "retry limit of coder
//! 3 → 5". [`diff`] compares the typed models and returns one [`Change`] per
//! fact, each with a plain sentence, its kind, and the values before and
//! after, for the app and for `playbook diff`.
//!
//! **Identity.** Stages are matched by name, then renamed stages by their
//! roles. Roles are matched on identity evidence — the same name, handoff
//! references that followed a rename, the same place, contract similarity —
//! so renaming `coder` to `implementer` reads as one rename, two roles that
//! swapped names read as two renames, and a new role taking a freed name is
//! not mistaken for the old one ([`matching`]). Every role is accounted
//! for, a role whose name another role also holds included; such a role is
//! named by which holder of the name it is (`coder (2nd of that name, stage
//! test)`). Role fields and handoff edges are compared on matched roles, on
//! the flow graph of [`crate::flow`] (an implicit "next role of the stage"
//! edge counts like an explicit one), so an edge that only changed names is
//! no change, and an edge of a removed role is told by its removal alone.
//!
//! **Widening first.** Every change is classified against one table,
//! [`widening::WIDENING_RULES`]; the ones that widen what agents may do
//! without a person's say carry `widening: true` and come first.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::model::{Playbook, Role, Stage};
use crate::validate::DEFAULT_MUTATING_ACTIONS;

mod gates;
mod matching;
mod roles;
mod scope;
mod similarity;
pub mod widening;

/// Every change from one playbook to another, in document order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct Diff {
    pub changes: Vec<Change>,
}

impl Diff {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The sentences, one per change.
    pub fn sentences(&self) -> impl Iterator<Item = &str> {
        self.changes.iter().map(|c| c.sentence.as_str())
    }
}

/// One change, with a sentence that says it plainly.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct Change {
    pub kind: ChangeKind,
    /// The stage concerned, by its new name (old name when removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stage: Option<String>,
    /// The role concerned, by its new name (old name when removed). When
    /// other roles of that version hold the same name, the name and which
    /// holder it is: `coder (2nd of that name, stage test)`; role names in
    /// the values of renames and handoffs are given the same way.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub role: Option<String>,
    /// The field concerned, e.g. `responsibilities` or `outputs_contract.required`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub field: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub before: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub after: Option<Value>,
    /// The change in one plain sentence, e.g. `reviewer may now use merge_worktree`.
    pub sentence: String,
    /// Whether the change widens what agents may do without a person's
    /// say ([`widening::WIDENING_RULES`]); such changes come first.
    pub widening: bool,
}

/// What kind of change it is; the app groups and colours by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ChangeKind {
    PlaybookFieldChanged,
    PolicyAdded,
    PolicyRemoved,
    PolicyChanged,
    StageAdded,
    StageRemoved,
    StageRenamed,
    StageOrderChanged,
    StageEnabled,
    StageDisabled,
    StageGateChanged,
    StageFieldChanged,
    RoleAdded,
    RoleRemoved,
    RoleRenamed,
    RoleMoved,
    RoleFieldChanged,
    HandoffAdded,
    HandoffRemoved,
    ToolsWidened,
    ToolsNarrowed,
    RetryLimitChanged,
    GateChanged,
    /// A role, or a tool, no longer needs a user's approval.
    ApprovalDropped,
    /// A role, or a tool, now needs a user's approval.
    ApprovalRequired,
}

/// Compares two playbooks. `diff(a, a)` is empty.
pub fn diff(old: &Playbook, new: &Playbook) -> Diff {
    let mut out = Changes::default();
    playbook_fields(&mut out, old, new);
    policies(&mut out, old, new);
    mutating_actions(&mut out, old, new);
    let (stage_renames, role_match) = matching::match_all(old, new);
    let labels = roles::Labels::new(old, new);
    stages(&mut out, old, new, &stage_renames);
    roles::entry_roles(&mut out, old, new, &stage_renames, &role_match, &labels);
    roles::roles(&mut out, old, new, &stage_renames, &role_match, &labels);
    roles::handoffs(&mut out, old, new, &role_match, &labels);
    let mutating = effective_mutating(new);
    out.finish(&widening::Context::of_playbooks(
        old,
        new,
        &stage_renames,
        &labels.new,
        &mutating,
    ))
}

/// Compares two versions of one role on its own, as a team's role template
/// is versioned: its name, every contract field and its handoff targets.
/// The changes name no stage. `diff_roles(a, a)` is empty.
pub fn diff_roles(old: &Role, new: &Role) -> Diff {
    let mut out = Changes::default();
    let name = new.name.as_str();
    if old.name != new.name {
        out.push(
            ChangeKind::RoleRenamed,
            format!("role {} renamed to {name}", old.name),
        )
        .role(name)
        .values(json(&old.name), json(&new.name));
    }
    roles::role_fields(&mut out, "", name, old, new);
    let (before, after) = (
        old.handoff_to.clone().unwrap_or_default(),
        new.handoff_to.clone().unwrap_or_default(),
    );
    for to in after.iter().filter(|t| !before.contains(t)) {
        out.push(
            ChangeKind::HandoffAdded,
            format!("handoff {name} → {to} added"),
        )
        .role(name)
        .field("handoff_to")
        .values(None, json(to));
    }
    for to in before.iter().filter(|t| !after.contains(t)) {
        out.push(
            ChangeKind::HandoffRemoved,
            format!("handoff {name} → {to} removed"),
        )
        .role(name)
        .field("handoff_to")
        .values(json(to), None);
    }
    for change in &mut out.0 {
        change.stage = None;
    }
    out.finish(&widening::Context::of_role(&effective_mutating_default()))
}

#[derive(Default)]
struct Changes(Vec<Change>);

impl Changes {
    /// Marks the widening changes and lists them first, each group in the
    /// order found.
    fn finish(mut self, ctx: &widening::Context<'_>) -> Diff {
        // Widening changes are read first, before the rename that explains
        // a new name, so each says which role it was.
        let renamed: HashMap<String, String> = self
            .0
            .iter()
            .filter(|c| c.kind == ChangeKind::RoleRenamed)
            .filter_map(|c| {
                let old = c.before.as_ref()?.as_str()?;
                Some((c.role.clone()?, old.to_string()))
            })
            .collect();
        for change in &mut self.0 {
            change.widening = widening::widens(change, ctx);
            // A removal names the old role, which may have held the name a
            // renamed role took: it is not that role.
            if change.widening
                && change.kind != ChangeKind::RoleRemoved
                && let Some(old) = change.role.as_ref().and_then(|r| renamed.get(r))
            {
                change.sentence.push_str(&format!(" (renamed from {old})"));
            }
        }
        self.0.sort_by_key(|c| !c.widening);
        Diff { changes: self.0 }
    }

    fn push(&mut self, kind: ChangeKind, sentence: String) -> &mut Change {
        self.0.push(Change {
            kind,
            stage: None,
            role: None,
            field: None,
            before: None,
            after: None,
            sentence,
            widening: false,
        });
        self.0.last_mut().expect("just pushed")
    }
}

impl Change {
    fn stage(&mut self, stage: &str) -> &mut Self {
        self.stage = Some(stage.to_string());
        self
    }

    fn role(&mut self, role: &str) -> &mut Self {
        self.role = Some(role.to_string());
        self
    }

    fn field(&mut self, field: &str) -> &mut Self {
        self.field = Some(field.to_string());
        self
    }

    fn values(&mut self, before: Option<Value>, after: Option<Value>) -> &mut Self {
        self.before = before;
        self.after = after;
        self
    }
}

fn json<T: Serialize>(value: &T) -> Option<Value> {
    serde_json::to_value(value).ok().filter(|v| !v.is_null())
}

/// A value as a sentence shows it: strings quoted, lists bracketed,
/// anything long summarised.
fn show(value: &Value) -> String {
    let text = match value {
        Value::String(s) => format!("{s:?}"),
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => format!(
            "[{}]",
            items
                .iter()
                .map(|i| i
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| i.to_string()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    };
    // Up to 80 characters as they are; a longer value cut to 77 and "...",
    // never inside a word: the sentences are redacted where they are
    // printed (`playbook diff`, `db diff`), and a key cut short escapes it.
    if text.chars().count() <= 80 {
        return text;
    }
    match crate::printable::head_of_whole_words(&text, 77) {
        Some(head) => format!("{head}..."),
        None => text,
    }
}

/// Reports one field whose values differ: "`label` a → b", "`label` set to
/// b" or "`label` removed (was a)".
fn field_change<'a>(
    out: &'a mut Changes,
    kind: ChangeKind,
    label: &str,
    before: Option<Value>,
    after: Option<Value>,
) -> Option<&'a mut Change> {
    if before == after {
        return None;
    }
    let sentence = match (&before, &after) {
        (Some(b), Some(a)) => format!("{label} {} → {}", show(b), show(a)),
        (None, Some(a)) => format!("{label} set to {}", show(a)),
        (Some(b), None) => format!("{label} removed (was {})", show(b)),
        (None, None) => return None,
    };
    Some(out.push(kind, sentence).values(before, after))
}

fn playbook_fields(out: &mut Changes, old: &Playbook, new: &Playbook) {
    let fields: [(&str, Option<Value>, Option<Value>); 7] = [
        ("id", json(&old.id), json(&new.id)),
        ("name", json(&old.name), json(&new.name)),
        (
            "description",
            json(&old.description),
            json(&new.description),
        ),
        (
            "schema_version",
            json(&old.schema_version),
            json(&new.schema_version),
        ),
        ("$schema", json(&old.schema), json(&new.schema)),
        ("run_inputs", json(&old.run_inputs), json(&new.run_inputs)),
        ("phases", json(&old.phases), json(&new.phases)),
    ];
    for (field, before, after) in fields {
        let label = format!("playbook {field}");
        if let Some(change) =
            field_change(out, ChangeKind::PlaybookFieldChanged, &label, before, after)
        {
            change.field(field);
        }
    }
    extra_fields(
        out,
        ChangeKind::PlaybookFieldChanged,
        "playbook",
        &old.extra,
        &new.extra,
        |_| {},
    );
}

fn extra_fields(
    out: &mut Changes,
    kind: ChangeKind,
    owner: &str,
    old: &crate::model::Extra,
    new: &crate::model::Extra,
    locate: impl Fn(&mut Change),
) {
    let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for key in keys {
        let label = format!("{key} of {owner}");
        if let Some(change) = field_change(
            out,
            kind,
            &label,
            old.get(key).cloned(),
            new.get(key).cloned(),
        ) {
            change.field(key);
            locate(change);
        }
    }
}

fn policies(out: &mut Changes, old: &Playbook, new: &Playbook) {
    let before: HashMap<&str, &str> = old.policies().collect();
    let after: HashMap<&str, &str> = new.policies().collect();
    for (key, expression) in new.policies() {
        match before.get(key) {
            None => {
                let overrides = if builtin(key) {
                    " (overrides the built-in)"
                } else {
                    ""
                };
                out.push(
                    ChangeKind::PolicyAdded,
                    format!("policy {key} added: {expression:?}{overrides}"),
                )
                .field(key)
                .values(None, json(&expression));
            }
            Some(was) if was != &expression => {
                out.push(
                    ChangeKind::PolicyChanged,
                    format!("policy {key} {was:?} → {expression:?}"),
                )
                .field(key)
                .values(json(was), json(&expression));
            }
            Some(_) => {}
        }
    }
    for (key, expression) in old.policies() {
        if !after.contains_key(key) {
            let applies = if builtin(key) {
                format!("; the built-in {key} applies")
            } else {
                String::new()
            };
            out.push(
                ChangeKind::PolicyRemoved,
                format!("policy {key} removed (was {expression:?}{applies})"),
            )
            .field(key)
            .values(json(&expression), None);
        }
    }
}

/// Whether `key` names a built-in policy, which applies when no policy of
/// the playbook overrides it.
fn builtin(key: &str) -> bool {
    crate::gate::BUILTIN_POLICIES.iter().any(|p| p.key == key)
}

fn effective_mutating(playbook: &Playbook) -> Vec<String> {
    match &playbook.mutating_actions {
        Some(list) => list.clone(),
        None => effective_mutating_default(),
    }
}

fn effective_mutating_default() -> Vec<String> {
    DEFAULT_MUTATING_ACTIONS
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// A tool leaving the mutating list runs without approval from then on.
fn mutating_actions(out: &mut Changes, old: &Playbook, new: &Playbook) {
    let before = effective_mutating(old);
    let after = effective_mutating(new);
    let dropped: Vec<&String> = before.iter().filter(|t| !after.contains(t)).collect();
    let added: Vec<&String> = after.iter().filter(|t| !before.contains(t)).collect();
    if !dropped.is_empty() {
        let tools = join(&dropped);
        out.push(
            ChangeKind::ApprovalDropped,
            format!(
                "{tools} no longer {} user approval",
                if dropped.len() == 1 { "needs" } else { "need" }
            ),
        )
        .field("mutating_actions")
        .values(json(&before), json(&after));
    }
    if !added.is_empty() {
        let tools = join(&added);
        out.push(
            ChangeKind::ApprovalRequired,
            format!(
                "{tools} now {} user approval",
                if added.len() == 1 { "needs" } else { "need" }
            ),
        )
        .field("mutating_actions")
        .values(json(&before), json(&after));
    }
}

fn join<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [init @ .., last] => format!(
            "{} and {}",
            init.iter()
                .map(|s| s.as_ref())
                .collect::<Vec<_>>()
                .join(", "),
            last.as_ref()
        ),
    }
}

fn stages(out: &mut Changes, old: &Playbook, new: &Playbook, renames: &HashMap<String, String>) {
    let old_name_of = |new_name: &str| -> Option<String> {
        renames
            .iter()
            .find(|(_, n)| n.as_str() == new_name)
            .map(|(o, _)| o.clone())
            .or_else(|| {
                old.workflow
                    .contains_key(new_name)
                    .then(|| new_name.to_string())
            })
    };
    for (name, stage) in new.stages() {
        let Some(old_name) = old_name_of(name) else {
            out.push(ChangeKind::StageAdded, format!("stage {name} added"))
                .stage(name)
                .values(None, json(stage));
            continue;
        };
        let was = &old.workflow[&old_name];
        if old_name != name {
            out.push(
                ChangeKind::StageRenamed,
                format!("stage {old_name} renamed to {name}"),
            )
            .stage(name)
            .values(json(&old_name), json(&name));
        }
        if was.is_enabled() != stage.is_enabled() {
            let (kind, word) = if stage.is_enabled() {
                (ChangeKind::StageEnabled, "enabled")
            } else {
                (ChangeKind::StageDisabled, "disabled")
            };
            // Disabling a stage takes its gates out of the flow with its roles.
            let gated = !stage.is_enabled()
                && (stage.enter_gate().is_some()
                    || stage.exit_gate().is_some()
                    || stage.roles().iter().any(|r| r.pass_condition().is_some()));
            let note = if gated {
                " (its roles no longer run, and its gates and theirs no longer hold)"
            } else {
                ""
            };
            out.push(kind, format!("stage {name} {word}{note}"))
                .stage(name)
                .field("enabled")
                .values(json(&was.is_enabled()), json(&stage.is_enabled()));
        }
        for (field, label, before, after) in [
            (
                "stage_policy.enter_gate",
                "enter gate",
                was.enter_gate(),
                stage.enter_gate(),
            ),
            (
                "stage_policy.exit_gate",
                "exit gate",
                was.exit_gate(),
                stage.exit_gate(),
            ),
        ] {
            let label = format!("{label} of stage {name}");
            if let Some(c) = field_change(
                out,
                ChangeKind::StageGateChanged,
                &label,
                json(&before),
                json(&after),
            ) {
                c.stage(name).field(field);
            }
        }
        let label = format!("max parallel worktrees of stage {name}");
        let (before, after) = (was.max_parallel_worktrees(), stage.max_parallel_worktrees());
        if let Some(c) = field_change(
            out,
            ChangeKind::StageFieldChanged,
            &label,
            json(&before),
            json(&after),
        ) {
            c.stage(name).field("stage_policy.max_parallel_worktrees");
        }
        let owner = format!("stage {name}");
        extra_fields(
            out,
            ChangeKind::StageFieldChanged,
            &owner,
            &was.extra,
            &stage.extra,
            |c| {
                c.stage(name);
            },
        );
        let policy_extra = |s: &Stage| {
            s.stage_policy
                .as_ref()
                .map(|p| p.extra.clone())
                .unwrap_or_default()
        };
        extra_fields(
            out,
            ChangeKind::StageFieldChanged,
            &format!("stage_policy of stage {name}"),
            &policy_extra(was),
            &policy_extra(stage),
            |c| {
                c.stage(name);
            },
        );
    }
    for (name, stage) in old.stages() {
        if !new.workflow.contains_key(name) && !renames.contains_key(name) {
            let gates: Vec<String> = [("enter", stage.enter_gate()), ("exit", stage.exit_gate())]
                .into_iter()
                .filter_map(|(which, gate)| Some(format!("{which} gate {:?}", gate?)))
                .collect();
            let notes = if gates.is_empty() {
                String::new()
            } else {
                format!(
                    " (its {} {} with it)",
                    join(&gates),
                    if gates.len() == 1 { "goes" } else { "go" }
                )
            };
            out.push(
                ChangeKind::StageRemoved,
                format!("stage {name} removed{notes}"),
            )
            .stage(name)
            .values(json(stage), None);
        }
    }
    // Stages run in document order, so reordering changes the flow.
    let old_order: Vec<String> = old
        .workflow
        .keys()
        .filter_map(|k| {
            renames
                .get(k)
                .cloned()
                .or_else(|| new.workflow.contains_key(k).then(|| k.clone()))
        })
        .collect();
    let new_order: Vec<String> = new
        .workflow
        .keys()
        .filter(|k| old_name_of(k).is_some())
        .cloned()
        .collect();
    if old_order != new_order {
        out.push(
            ChangeKind::StageOrderChanged,
            format!(
                "stages now run in the order {} (was {})",
                new_order.join(", "),
                old_order.join(", ")
            ),
        )
        .values(json(&old_order), json(&new_order));
    }
}

#[cfg(test)]
mod claims_tests;
#[cfg(test)]
mod regression_tests;
#[cfg(test)]
mod tests;
