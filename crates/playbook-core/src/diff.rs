//! Semantic diff of two playbooks: what changed, in the words of the domain.
//!
//! A text diff of two versions shows moved lines; a team lead wants to know
//! that "reviewer may now use merge_worktree" or that "retry limit of coder
//! 3 → 5". [`diff`] compares the typed models and returns one [`Change`] per
//! fact, each with a plain sentence, its kind, and the values before and
//! after, for the app and for `playbook diff`.
//!
//! **Identity.** Stages are matched by name and roles by name (names are
//! unique within a playbook). A stage or role that disappears while a new
//! one appears is reported as a rename when their contents are similar
//! enough — a renamed role keeps most of its contract — so renaming `coder`
//! to `implementer` reads as one rename, not a removal and an addition with
//! every handoff to it changed. Handoff edges are compared after mapping old
//! names through the renames, on the flow graph of [`crate::flow`], so an
//! implicit "next role of the stage" edge counts like an explicit one.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::flow::{EdgeKind, Flow};
use crate::model::{Playbook, Role, Stage};
use crate::validate::DEFAULT_MUTATING_ACTIONS;

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
    /// The role concerned, by its new name (old name when removed).
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
    let stage_renames = match_stages(old, new);
    let role_renames = match_roles(old, new);
    stages(&mut out, old, new, &stage_renames);
    entry_roles(&mut out, old, new, &stage_renames, &role_renames);
    roles(&mut out, old, new, &stage_renames, &role_renames);
    handoffs(&mut out, old, new, &role_renames);
    Diff { changes: out.0 }
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
    role_fields(&mut out, "", name, old, new);
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
    Diff { changes: out.0 }
}

#[derive(Default)]
struct Changes(Vec<Change>);

impl Changes {
    fn push(&mut self, kind: ChangeKind, sentence: String) -> &mut Change {
        self.0.push(Change {
            kind,
            stage: None,
            role: None,
            field: None,
            before: None,
            after: None,
            sentence,
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
    if text.chars().count() > 80 {
        let short: String = text.chars().take(77).collect();
        format!("{short}...")
    } else {
        text
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
                out.push(
                    ChangeKind::PolicyAdded,
                    format!("policy {key} added: {expression:?}"),
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
            out.push(
                ChangeKind::PolicyRemoved,
                format!("policy {key} removed (was {expression:?})"),
            )
            .field(key)
            .values(json(&expression), None);
        }
    }
}

fn effective_mutating(playbook: &Playbook) -> Vec<String> {
    match &playbook.mutating_actions {
        Some(list) => list.clone(),
        None => DEFAULT_MUTATING_ACTIONS
            .iter()
            .map(|s| s.to_string())
            .collect(),
    }
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

fn jaccard<T: Eq + std::hash::Hash>(a: &HashSet<T>, b: &HashSet<T>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// Most (removed, added) pairs whose similarity is computed to find renames.
const MAX_RENAME_CANDIDATE_PAIRS: usize = 40_000;

/// Pairs of (old name, new name) with the highest scores first, each name
/// used once, keeping pairs scoring at least `threshold`.
fn best_pairs(
    old: &[&str],
    new: &[&str],
    threshold: f64,
    score: impl Fn(&str, &str) -> f64,
) -> HashMap<String, String> {
    // Scoring is quadratic; past a few hundred candidates on each side the
    // edit is a rewrite, not a set of renames, and reporting removals and
    // additions keeps a huge diff fast.
    if old.len().saturating_mul(new.len()) > MAX_RENAME_CANDIDATE_PAIRS {
        return HashMap::new();
    }
    let mut scored: Vec<(f64, usize, usize)> = Vec::new();
    for (i, o) in old.iter().enumerate() {
        for (j, n) in new.iter().enumerate() {
            let s = score(o, n);
            if s >= threshold {
                scored.push((s, i, j));
            }
        }
    }
    // Highest score first; ties in document order, so the result is stable.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut used_old = HashSet::new();
    let mut used_new = HashSet::new();
    let mut pairs = HashMap::new();
    for (_, i, j) in scored {
        if used_old.contains(&i) || used_new.contains(&j) {
            continue;
        }
        used_old.insert(i);
        used_new.insert(j);
        pairs.insert(old[i].to_string(), new[j].to_string());
    }
    pairs
}

/// Stage renames: old name → new name, for stages present on one side only
/// whose roles mostly coincide.
fn match_stages(old: &Playbook, new: &Playbook) -> HashMap<String, String> {
    let gone: Vec<&str> = old
        .workflow
        .keys()
        .filter(|k| !new.workflow.contains_key(*k))
        .map(String::as_str)
        .collect();
    let came: Vec<&str> = new
        .workflow
        .keys()
        .filter(|k| !old.workflow.contains_key(*k))
        .map(String::as_str)
        .collect();
    let names = |stage: &Stage| -> HashSet<String> {
        stage.roles().iter().map(|r| r.name.clone()).collect()
    };
    best_pairs(&gone, &came, 0.5, |o, n| {
        let (a, b) = (&old.workflow[o], &new.workflow[n]);
        let (ra, rb) = (names(a), names(b));
        if ra.is_empty() && rb.is_empty() {
            // Two empty stages: a rename only if nothing else differs.
            let strip = |s: &Stage| serde_json::to_value(s).ok();
            return if strip(a) == strip(b) { 1.0 } else { 0.0 };
        }
        jaccard(&ra, &rb)
    })
}

/// How alike two roles are, ignoring their names: the share of contract
/// fields with equal values, text fields counting by similarity.
fn role_similarity(a: &Role, b: &Role) -> f64 {
    let text = |x: &Option<String>, y: &Option<String>| match (x, y) {
        (None, None) => None,
        (Some(x), Some(y)) => Some(strsim::normalized_levenshtein(x, y)),
        _ => Some(0.0),
    };
    let list = |x: &Option<Vec<String>>, y: &Option<Vec<String>>| match (x, y) {
        (None, None) => None,
        (Some(x), Some(y)) => {
            let (x, y): (HashSet<&String>, HashSet<&String>) =
                (x.iter().collect(), y.iter().collect());
            Some(if x.is_empty() && y.is_empty() {
                1.0
            } else {
                jaccard(&x, &y)
            })
        }
        _ => Some(0.0),
    };
    let same = |x: Option<Value>, y: Option<Value>| match (x, y) {
        (None, None) => None,
        (x, y) => Some(if x == y { 1.0 } else { 0.0 }),
    };
    let scores = [
        text(&a.responsibilities, &b.responsibilities),
        text(&a.suggested_prompt, &b.suggested_prompt),
        list(&a.allowed_agents, &b.allowed_agents),
        same(json(&a.mode), json(&b.mode)),
        list(&a.inputs_required, &b.inputs_required),
        same(json(&a.outputs_contract), json(&b.outputs_contract)),
        list(&a.actions_allowed, &b.actions_allowed),
        same(json(&a.gates), json(&b.gates)),
        same(json(&a.retry_policy), json(&b.retry_policy)),
        list(&a.completion_criteria, &b.completion_criteria),
    ];
    let present: Vec<f64> = scores.into_iter().flatten().collect();
    if present.is_empty() {
        return 0.0;
    }
    let mut score = present.iter().sum::<f64>() / present.len() as f64;
    if a.mode != b.mode {
        // A worker renamed into a reviewer is a different role.
        score *= 0.5;
    }
    score
}

/// Role renames: old name → new name, for roles present on one side only.
fn match_roles(old: &Playbook, new: &Playbook) -> HashMap<String, String> {
    let gone: Vec<&str> = old
        .roles()
        .map(|r| r.role.name.as_str())
        .filter(|n| new.role(n).is_none())
        .collect();
    let came: Vec<&str> = new
        .roles()
        .map(|r| r.role.name.as_str())
        .filter(|n| old.role(n).is_none())
        .collect();
    best_pairs(&gone, &came, 0.6, |o, n| match (old.role(o), new.role(n)) {
        (Some(a), Some(b)) => role_similarity(a.role, b.role),
        _ => 0.0,
    })
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
            out.push(kind, format!("stage {name} {word}"))
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
            out.push(ChangeKind::StageRemoved, format!("stage {name} removed"))
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

/// A task enters a stage at its first role, so reordering roles can change
/// who sees the work first.
fn entry_roles(
    out: &mut Changes,
    old: &Playbook,
    new: &Playbook,
    stage_renames: &HashMap<String, String>,
    role_renames: &HashMap<String, String>,
) {
    for (old_stage, was) in old.stages() {
        let name = stage_renames
            .get(old_stage)
            .map(String::as_str)
            .unwrap_or(old_stage);
        let Some(stage) = new.workflow.get(name) else {
            continue;
        };
        let before = was.roles().first().map(|r| {
            role_renames
                .get(&r.name)
                .cloned()
                .unwrap_or_else(|| r.name.clone())
        });
        let after = stage.roles().first().map(|r| r.name.clone());
        // Only a reordering counts: an entry role that was added or removed
        // is reported as such.
        let existed =
            |name: &str| old.role(name).is_some() || role_renames.values().any(|n| n == name);
        if let (Some(before), Some(after)) = (&before, &after)
            && before != after
            && new.role(before).is_some()
            && existed(after)
        {
            out.push(
                ChangeKind::StageFieldChanged,
                format!("stage {name} now starts at {after} (was {before})"),
            )
            .stage(name)
            .field("roles/0")
            .values(json(before), json(after));
        }
    }
}

fn roles(
    out: &mut Changes,
    old: &Playbook,
    new: &Playbook,
    stage_renames: &HashMap<String, String>,
    renames: &HashMap<String, String>,
) {
    let old_name_of = |new_name: &str| -> Option<String> {
        renames
            .iter()
            .find(|(_, n)| n.as_str() == new_name)
            .map(|(o, _)| o.clone())
            .or_else(|| old.role(new_name).is_some().then(|| new_name.to_string()))
    };
    let mut seen = HashSet::new();
    for r in new.roles() {
        let name = r.role.name.as_str();
        // A repeated name is an error the validator reports; compare the first.
        if !seen.insert(name) {
            continue;
        }
        let Some(was) = old_name_of(name).and_then(|o| old.role(&o)) else {
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
    for r in old.roles() {
        let name = r.role.name.as_str();
        if seen.insert(name) && new.role(name).is_none() && !renames.contains_key(name) {
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

fn role_fields(out: &mut Changes, stage: &str, name: &str, was: &Role, role: &Role) {
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

/// Edges of the flow graph as (from, to, explicit), old names mapped to new.
fn edges(
    playbook: &Playbook,
    rename: &HashMap<String, String>,
) -> BTreeSet<(String, String, bool)> {
    let flow = Flow::new(playbook);
    let name = |i: usize| {
        let n = flow.roles[i].role.name.as_str();
        rename.get(n).cloned().unwrap_or_else(|| n.to_string())
    };
    (0..flow.roles.len())
        .flat_map(|i| {
            flow.successors(i)
                .map(move |(j, kind)| (i, j, kind == EdgeKind::Handoff))
                .collect::<Vec<_>>()
        })
        .map(|(i, j, explicit)| (name(i), name(j), explicit))
        .collect()
}

fn handoffs(out: &mut Changes, old: &Playbook, new: &Playbook, renames: &HashMap<String, String>) {
    let before = edges(old, renames);
    let after = edges(new, &HashMap::new());
    let plain = |set: &BTreeSet<(String, String, bool)>| -> BTreeSet<(String, String)> {
        set.iter().map(|(a, b, _)| (a.clone(), b.clone())).collect()
    };
    let (b, a) = (plain(&before), plain(&after));
    let describe = |explicit: bool| {
        if explicit {
            ""
        } else {
            " (next role of the stage)"
        }
    };
    for (from, to, explicit) in &after {
        if !b.contains(&(from.clone(), to.clone())) {
            out.push(
                ChangeKind::HandoffAdded,
                format!("handoff {from} → {to} added{}", describe(*explicit)),
            )
            .role(from)
            .field("handoff_to")
            .values(None, json(&to));
        }
    }
    for (from, to, explicit) in &before {
        if !a.contains(&(from.clone(), to.clone())) {
            out.push(
                ChangeKind::HandoffRemoved,
                format!("handoff {from} → {to} removed{}", describe(*explicit)),
            )
            .role(from)
            .field("handoff_to")
            .values(json(&to), None);
        }
    }
}

#[cfg(test)]
mod tests;
