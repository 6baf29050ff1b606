//! The diff's claims must explain the edit: applied to the old playbook they
//! give the new one's role contracts and handoff edges, and every change that
//! widens permissions is reported as widening. Checked on the reported
//! scenario and on random edit sequences.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use proptest::prelude::*;
use serde_json::Value;

use super::{ChangeKind, Diff, diff};
use crate::document::{self, Format};
use crate::flow::Flow;
use crate::model::{Gates, Playbook, RetryPolicy, Role, RoleMode};
use crate::templates::role_template;

fn tdd() -> Playbook {
    let text = include_str!("../../../../playbooks/tdd.yaml");
    let value = document::parse_value(text, Format::Yaml).expect("tdd parses");
    document::from_value(value).expect("tdd is a playbook")
}

fn role_mut<'a>(p: &'a mut Playbook, name: &str) -> &'a mut Role {
    p.workflow
        .values_mut()
        .flat_map(|s| s.roles.iter_mut().flatten())
        .find(|r| r.name == name)
        .expect("role exists")
}

/// Renames a role and every handoff naming it, as the editor does.
fn rename(p: &mut Playbook, from: &str, to: &str) {
    for role in p
        .workflow
        .values_mut()
        .flat_map(|s| s.roles.iter_mut().flatten())
    {
        if role.name == from {
            role.name = to.to_string();
        }
        for target in role.handoff_to.iter_mut().flatten() {
            if target == from {
                *target = to.to_string();
            }
        }
    }
}

/// Adds a role from a built-in template at the end of a stage, as the editor does.
fn add_from_template(p: &mut Playbook, stage: &str, mode: RoleMode, name: &str) {
    let mut role = role_template(mode);
    role.name = name.to_string();
    p.workflow
        .get_mut(stage)
        .expect("stage exists")
        .roles
        .get_or_insert_with(Vec::new)
        .push(role);
}

fn set_approval(p: &mut Playbook, name: &str, on: bool) {
    role_mut(p, name)
        .gates
        .get_or_insert_with(Gates::default)
        .requires_user_approval = Some(on);
}

fn sentences(d: &Diff) -> Vec<String> {
    d.changes
        .iter()
        .map(|c| format!("{}{}", if c.widening { "WIDENS: " } else { "" }, c.sentence))
        .collect()
}

/// v1: tdd; v2: worker renamed to coder and doc_writer added from the worker
/// template; v3: coder no longer requires approval.
fn reported_versions(new_role: &str) -> (Playbook, Playbook, Playbook) {
    let v1 = tdd();
    let mut v2 = v1.clone();
    rename(&mut v2, "worker", "coder");
    add_from_template(&mut v2, "build", RoleMode::Worker, new_role);
    let mut v3 = v2.clone();
    set_approval(&mut v3, "coder", false);
    (v1, v2, v3)
}

#[test]
fn rename_add_from_template_and_drop_approval_reads_as_done() {
    for new_role in ["doc_writer", "worker"] {
        let (v1, v2, v3) = reported_versions(new_role);
        let d = diff(&v1, &v3);
        let said = sentences(&d);
        assert_eq!(
            said,
            [
                "WIDENS: coder no longer requires user approval (renamed from worker)".to_string(),
                "role worker renamed to coder".into(),
                format!("role {new_role} added to stage build"),
                format!("handoff {new_role} → reviewer added"),
            ],
            "new role {new_role}"
        );
        assert_eq!(
            sentences(&diff(&v2, &v3)),
            ["WIDENS: coder no longer requires user approval"]
        );
        check_claims(&v1, &v3, &d);
    }
}

#[test]
fn a_new_role_with_a_template_identical_to_the_old_does_not_steal_its_identity() {
    // The old worker is the template itself, so the added copy is more
    // alike than the renamed role whose approval was dropped.
    let mut v1 = tdd();
    let build = v1.workflow.get_mut("build").expect("build");
    build.roles.as_mut().expect("roles")[1] = role_template(RoleMode::Worker);
    for new_role in ["doc_writer", "worker"] {
        let mut v3 = v1.clone();
        rename(&mut v3, "worker", "coder");
        add_from_template(&mut v3, "build", RoleMode::Worker, new_role);
        set_approval(&mut v3, "coder", false);
        let d = diff(&v1, &v3);
        let said = sentences(&d);
        assert_eq!(
            said[0],
            "WIDENS: coder no longer requires user approval (renamed from worker)"
        );
        assert!(
            said.contains(&"role worker renamed to coder".to_string()),
            "{said:#?}"
        );
        assert!(
            !said
                .iter()
                .any(|s| s.contains("→ coder") || s.contains("handoff coder")),
            "an edge that only changed names is no change: {said:#?}"
        );
        check_claims(&v1, &v3, &d);
    }
}

#[test]
fn json_carries_the_widening_flag() {
    let (v1, _, v3) = reported_versions("doc_writer");
    let value = serde_json::to_value(diff(&v1, &v3)).expect("json");
    assert_eq!(value["changes"][0]["widening"], Value::Bool(true));
    assert_eq!(value["changes"][0]["kind"], "approval_dropped");
    assert_eq!(value["changes"][1]["widening"], Value::Bool(false));
}

/// A role contract as the claims speak of it: no name, no handoffs (those
/// are edges), approval `false` the same as absent, empty groups dropped.
fn contract(role: &Role) -> Value {
    let mut v = serde_json::to_value(role).expect("json");
    let map = v.as_object_mut().expect("object");
    map.remove("name");
    map.remove("handoff_to");
    normalise(&mut v);
    v
}

fn normalise(v: &mut Value) {
    let Some(map) = v.as_object_mut() else {
        return;
    };
    if let Some(Value::Object(gates)) = map.get_mut("gates")
        && gates.get("requires_user_approval") == Some(&Value::Bool(false))
    {
        gates.remove("requires_user_approval");
    }
    map.retain(|_, value| !matches!(value, Value::Object(m) if m.is_empty()) && !value.is_null());
    // Tools are a set: the diff names the tools added and removed, not their order.
    if let Some(Value::Array(tools)) = map.get_mut("actions_allowed") {
        tools.sort_by_key(|t| t.to_string());
    }
}

fn set_path(v: &mut Value, field: &str, value: Option<Value>) {
    let mut parts: Vec<&str> = field.split('.').collect();
    let last = parts.pop().expect("a field");
    let mut at = v;
    for part in parts {
        let map = at.as_object_mut().expect("object");
        at = map
            .entry(part.to_string())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    let map = at.as_object_mut().expect("object");
    match value {
        Some(value) => {
            map.insert(last.to_string(), value);
        }
        None => {
            map.remove(last);
        }
    }
}

/// name → (stage, contract) of the first role of each name.
fn contracts(p: &Playbook) -> BTreeMap<String, (String, Value)> {
    let mut out = BTreeMap::new();
    for r in p.roles() {
        out.entry(r.role.name.clone())
            .or_insert_with(|| (r.stage.to_string(), contract(r.role)));
    }
    out
}

fn edges(p: &Playbook) -> BTreeSet<(String, String)> {
    let flow = Flow::new(p);
    (0..flow.roles.len())
        .flat_map(|i| {
            flow.successors(i)
                .map(move |(j, _)| (i, j))
                .collect::<Vec<_>>()
        })
        .map(|(i, j)| {
            (
                flow.roles[i].role.name.clone(),
                flow.roles[j].role.name.clone(),
            )
        })
        .collect()
}

fn text(v: &Option<Value>) -> String {
    v.as_ref()
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Applies the diff's role claims to `old` and compares with `new`.
fn check_claims(old: &Playbook, new: &Playbook, d: &Diff) {
    let mut state = contracts(old);
    let of = |kind: ChangeKind| d.changes.iter().filter(move |c| c.kind == kind);
    let removed: Vec<String> = of(ChangeKind::RoleRemoved)
        .filter_map(|c| c.role.clone())
        .collect();
    for name in &removed {
        assert!(state.remove(name).is_some(), "removed role {name} existed");
    }
    let renames: HashMap<String, String> = of(ChangeKind::RoleRenamed)
        .map(|c| (text(&c.before), text(&c.after)))
        .collect();
    let mut renamed = BTreeMap::new();
    for (name, entry) in std::mem::take(&mut state) {
        let to = renames.get(&name).cloned().unwrap_or(name);
        assert!(
            renamed.insert(to.clone(), entry).is_none(),
            "{to} explained twice"
        );
    }
    state = renamed;
    for c in of(ChangeKind::RoleAdded) {
        let role: Role =
            serde_json::from_value(c.after.clone().expect("the role")).expect("a role");
        let stage = c.stage.clone().expect("a stage");
        assert!(
            state
                .insert(role.name.clone(), (stage, contract(&role)))
                .is_none()
        );
    }
    for c in &d.changes {
        let (Some(role), Some(field)) = (&c.role, &c.field) else {
            continue;
        };
        if matches!(
            c.kind,
            ChangeKind::HandoffAdded | ChangeKind::HandoffRemoved
        ) {
            continue;
        }
        let entry = state
            .get_mut(role)
            .unwrap_or_else(|| panic!("{role} is known: {}", c.sentence));
        set_path(&mut entry.1, field, c.after.clone());
        normalise(&mut entry.1);
        if let Some(Value::Object(m)) = entry.1.get_mut("gates") {
            let mut g = Value::Object(std::mem::take(m));
            normalise(&mut g);
            entry.1["gates"] = g;
        }
        normalise(&mut entry.1);
    }
    let stage_renames: HashMap<String, String> = of(ChangeKind::StageRenamed)
        .map(|c| (text(&c.before), text(&c.after)))
        .collect();
    for entry in state.values_mut() {
        if let Some(to) = stage_renames.get(&entry.0) {
            entry.0 = to.clone();
        }
    }
    for c in of(ChangeKind::RoleMoved) {
        let role = c.role.clone().expect("role");
        state.get_mut(&role).expect("moved role").0 = text(&c.after);
    }
    for entry in state.values_mut() {
        normalise_deep(&mut entry.1);
    }
    let mut want = contracts(new);
    for entry in want.values_mut() {
        normalise_deep(&mut entry.1);
    }
    for name in state.keys().chain(want.keys()) {
        assert_eq!(
            state.get(name),
            want.get(name),
            "claims applied to v1 give v3's contract of {name}\n{:#?}",
            d.sentences().collect::<Vec<_>>()
        );
    }

    // Edges, unless a removed role's name is reused (then names are ambiguous).
    if removed.iter().any(|n| new.role(n).is_some()) {
        return;
    }
    let mut got: BTreeSet<(String, String)> = edges(old)
        .into_iter()
        .map(|(a, b)| {
            let m = |n: String| renames.get(&n).cloned().unwrap_or(n);
            (m(a), m(b))
        })
        .collect();
    for c in of(ChangeKind::HandoffRemoved) {
        assert!(
            got.remove(&(c.role.clone().unwrap_or_default(), text(&c.before))),
            "{}",
            c.sentence
        );
    }
    for c in of(ChangeKind::HandoffAdded) {
        assert!(
            got.insert((c.role.clone().unwrap_or_default(), text(&c.after))),
            "{}",
            c.sentence
        );
    }
    assert_eq!(got, edges(new), "claims applied to v1 give v3's edges");
}

/// Removes empty groups at every level the claims touch.
fn normalise_deep(v: &mut Value) {
    if let Some(map) = v.as_object_mut() {
        for value in map.values_mut() {
            normalise(value);
        }
    }
    normalise(v);
}

/// One edit of the kinds a team lead makes in the editor.
#[derive(Debug, Clone)]
enum Edit {
    Rename(usize, usize),
    AddFromTemplate(usize, usize, usize),
    Remove(usize),
    ToggleApproval(usize),
    AddTool(usize, usize),
    RemoveTool(usize, usize),
    MaxIterations(usize, Option<u32>),
    Gate(usize, Option<usize>),
    Swap(usize, usize),
    RenameStage(usize, usize),
}

const NAMES: [&str; 8] = [
    "coder",
    "doc_writer",
    "worker",
    "reviewer",
    "auditor",
    "planner",
    "fixer",
    "tester",
];
const TOOLS: [&str; 6] = [
    "read_file",
    "write_file",
    "git_commit",
    "merge_worktree",
    "run_tests",
    "deploy",
];
const STAGES: [&str; 5] = ["plan", "build", "test", "implement", "verify"];
const GATES: [&str; 3] = ["review_passed", "size(commit_sha) > 0", "tests_green"];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0..20usize, 0..NAMES.len()).prop_map(|(r, n)| Edit::Rename(r, n)),
        (0..3usize, 0..4usize, 0..NAMES.len()).prop_map(|(s, m, n)| Edit::AddFromTemplate(s, m, n)),
        (0..20usize).prop_map(Edit::Remove),
        (0..20usize).prop_map(Edit::ToggleApproval),
        (0..20usize, 0..TOOLS.len()).prop_map(|(r, t)| Edit::AddTool(r, t)),
        (0..20usize, 0..8usize).prop_map(|(r, t)| Edit::RemoveTool(r, t)),
        (0..20usize, proptest::option::of(0..8u32)).prop_map(|(r, n)| Edit::MaxIterations(r, n)),
        (0..20usize, proptest::option::of(0..GATES.len())).prop_map(|(r, g)| Edit::Gate(r, g)),
        (0..20usize, 0..20usize).prop_map(|(a, b)| Edit::Swap(a, b)),
        (0..3usize, 0..STAGES.len()).prop_map(|(s, n)| Edit::RenameStage(s, n)),
    ]
}

/// The playbook as a list of (true identity, role) per stage, so the test
/// knows which role is which whatever the names say.
struct World {
    playbook: Playbook,
    ids: Vec<Vec<usize>>,
    next_id: usize,
}

impl World {
    fn new() -> Self {
        let playbook = tdd();
        let mut next_id = 0;
        let ids = playbook
            .workflow
            .values()
            .map(|s| {
                s.roles()
                    .iter()
                    .map(|_| {
                        next_id += 1;
                        next_id
                    })
                    .collect()
            })
            .collect();
        World {
            playbook,
            ids,
            next_id,
        }
    }

    /// (stage index, index) of the n-th role, wrapping.
    fn at(&self, n: usize) -> Option<(usize, usize)> {
        let all: Vec<(usize, usize)> = self
            .ids
            .iter()
            .enumerate()
            .flat_map(|(s, roles)| (0..roles.len()).map(move |i| (s, i)))
            .collect();
        (!all.is_empty()).then(|| all[n % all.len()])
    }

    fn role(&mut self, (s, i): (usize, usize)) -> &mut Role {
        &mut self.playbook.workflow[s].roles.as_mut().expect("roles")[i]
    }

    fn apply(&mut self, edit: &Edit) {
        match *edit {
            Edit::Rename(r, n) => {
                let Some(at) = self.at(r) else { return };
                if self.playbook.role(NAMES[n]).is_some() {
                    return;
                }
                let from = self.role(at).name.clone();
                rename(&mut self.playbook, &from, NAMES[n]);
            }
            Edit::AddFromTemplate(s, m, n) => {
                if self.playbook.role(NAMES[n]).is_some() {
                    return;
                }
                let stage = self
                    .playbook
                    .workflow
                    .keys()
                    .nth(s)
                    .cloned()
                    .expect("stage");
                add_from_template(&mut self.playbook, &stage, RoleMode::ALL[m], NAMES[n]);
                self.next_id += 1;
                self.ids[s].push(self.next_id);
            }
            Edit::Remove(r) => {
                let Some((s, i)) = self.at(r) else { return };
                self.playbook.workflow[s]
                    .roles
                    .as_mut()
                    .expect("roles")
                    .remove(i);
                self.ids[s].remove(i);
            }
            Edit::ToggleApproval(r) => {
                let Some(at) = self.at(r) else { return };
                let on = self.role(at).requires_user_approval();
                self.role(at)
                    .gates
                    .get_or_insert_with(Gates::default)
                    .requires_user_approval = Some(!on);
            }
            Edit::AddTool(r, t) => {
                let Some(at) = self.at(r) else { return };
                let tools = self.role(at).actions_allowed.get_or_insert_with(Vec::new);
                if !tools.iter().any(|x| x == TOOLS[t]) {
                    tools.push(TOOLS[t].to_string());
                }
            }
            Edit::RemoveTool(r, t) => {
                let Some(at) = self.at(r) else { return };
                let tools = self.role(at).actions_allowed.get_or_insert_with(Vec::new);
                if !tools.is_empty() {
                    let k = t % tools.len();
                    tools.remove(k);
                }
            }
            Edit::MaxIterations(r, n) => {
                let Some(at) = self.at(r) else { return };
                self.role(at)
                    .retry_policy
                    .get_or_insert_with(RetryPolicy::default)
                    .max_iterations = n;
            }
            Edit::Gate(r, g) => {
                let Some(at) = self.at(r) else { return };
                self.role(at)
                    .gates
                    .get_or_insert_with(Gates::default)
                    .pass_condition = g.map(|g| GATES[g].to_string());
            }
            Edit::RenameStage(s, n) => {
                if self.playbook.workflow.contains_key(STAGES[n]) {
                    return;
                }
                // Keeps the stage's position, as the editor does.
                let stages = std::mem::take(&mut self.playbook.workflow);
                self.playbook.workflow = stages
                    .into_iter()
                    .enumerate()
                    .map(|(k, (name, stage))| {
                        (if k == s { STAGES[n].to_string() } else { name }, stage)
                    })
                    .collect();
            }
            Edit::Swap(a, b) => {
                let (Some((s, i)), Some((t, j))) = (self.at(a), self.at(b)) else {
                    return;
                };
                if s == t {
                    self.playbook.workflow[s]
                        .roles
                        .as_mut()
                        .expect("roles")
                        .swap(i, j);
                    self.ids[s].swap(i, j);
                }
            }
        }
    }

    /// true identity → role.
    fn by_id(&self) -> HashMap<usize, &Role> {
        self.ids
            .iter()
            .zip(self.playbook.workflow.values())
            .flat_map(|(ids, stage)| ids.iter().copied().zip(stage.roles()))
            .collect()
    }
}

/// The widenings a role went through between two versions, as (kind, field).
fn true_widenings(old: &Role, new: &Role) -> Vec<ChangeKind> {
    let mut out = Vec::new();
    if old.requires_user_approval() && !new.requires_user_approval() {
        out.push(ChangeKind::ApprovalDropped);
    }
    if new
        .actions_allowed()
        .iter()
        .any(|t| !old.actions_allowed().contains(t))
    {
        out.push(ChangeKind::ToolsWidened);
    }
    match (old.max_iterations(), new.max_iterations()) {
        (Some(a), Some(b)) if b > a => out.push(ChangeKind::RetryLimitChanged),
        (Some(_), None) => out.push(ChangeKind::RetryLimitChanged),
        _ => {}
    }
    if old.pass_condition().is_some() && new.pass_condition().is_none() {
        out.push(ChangeKind::GateChanged);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn claims_applied_to_v1_give_v3_and_widenings_are_marked(edits in proptest::collection::vec(edit(), 1..8)) {
        let v1 = World::new();
        let mut v3 = World::new();
        for e in &edits {
            v3.apply(e);
        }
        let d = diff(&v1.playbook, &v3.playbook);
        check_claims(&v1.playbook, &v3.playbook, &d);

        // Widening changes come first.
        let first_plain = d.changes.iter().position(|c| !c.widening).unwrap_or(d.changes.len());
        prop_assert!(d.changes[first_plain..].iter().all(|c| !c.widening));

        // Every widening of a role, judged on the role the diff matched it
        // to, is reported as widening on that role's new name.
        let renamed_from: HashMap<String, String> = d.changes.iter()
            .filter(|c| c.kind == ChangeKind::RoleRenamed)
            .map(|c| (text(&c.after), text(&c.before)))
            .collect();
        let added: Vec<&str> = d.changes.iter()
            .filter(|c| c.kind == ChangeKind::RoleAdded)
            .filter_map(|c| c.role.as_deref())
            .collect();
        for r in v3.playbook.roles() {
            let name = r.role.name.as_str();
            if added.contains(&name) {
                continue;
            }
            let old_name = renamed_from.get(name).map(String::as_str).unwrap_or(name);
            let Some(old_role) = v1.playbook.role(old_name) else { continue };
            for kind in true_widenings(old_role.role, r.role) {
                prop_assert!(
                    d.changes.iter().any(|c| c.kind == kind && c.widening && c.role.as_deref() == Some(name)),
                    "{kind:?} of {name} not reported as widening: {:#?}", sentences(&d)
                );
            }
        }

        // Identity: a role that kept its identity is reported on it, so its
        // widenings are too.
        let before = v1.by_id();
        for (id, new_role) in v3.by_id() {
            let Some(old_role) = before.get(&id) else { continue };
            if d.changes.iter().any(|c| c.kind == ChangeKind::RoleAdded && c.role.as_deref() == Some(new_role.name.as_str())) {
                // Not recognised as the same role: its additions are then
                // told as a new role; the contract check above still holds.
                continue;
            }
            for kind in true_widenings(old_role, new_role) {
                prop_assert!(
                    d.changes.iter().any(|c| c.kind == kind && c.widening && c.role.as_deref() == Some(new_role.name.as_str())),
                    "{kind:?} of {} not reported as widening: {:#?}", new_role.name, sentences(&d)
                );
            }
        }
    }
}

#[test]
fn a_stage_renamed_with_its_roles_is_two_renames_and_nothing_else() {
    let v1 = tdd();
    let mut v3 = v1.clone();
    rename(&mut v3, "worker", "coder");
    rename(&mut v3, "test_author", "red");
    let stages = std::mem::take(&mut v3.workflow);
    v3.workflow = stages
        .into_iter()
        .map(|(name, stage)| {
            (
                if name == "build" {
                    "implement".into()
                } else {
                    name
                },
                stage,
            )
        })
        .collect();
    let d = diff(&v1, &v3);
    assert_eq!(
        sentences(&d),
        [
            "stage build renamed to implement",
            "role test_author renamed to red",
            "role worker renamed to coder",
        ]
    );
    check_claims(&v1, &v3, &d);
}

/// Each rule of the widening table, one edit each, and a narrowing edit
/// of the same field that must not be marked.
#[test]
fn every_widening_rule_marks_its_edit_and_only_it() {
    type EditFn = fn(&mut Playbook);
    let cases: [(&str, EditFn, bool); 16] = [
        (
            "approval dropped",
            |p| set_approval(p, "worker", false),
            true,
        ),
        (
            "approval required",
            |p| set_approval(p, "reviewer", true),
            false,
        ),
        (
            "tool added",
            |p| {
                role_mut(p, "reviewer")
                    .actions_allowed
                    .get_or_insert_with(Vec::new)
                    .push("git_commit".into())
            },
            true,
        ),
        (
            "tool removed",
            |p| role_mut(p, "worker").actions_allowed = Some(vec!["read_file".into()]),
            false,
        ),
        (
            "tool left mutating_actions",
            |p| p.mutating_actions = Some(vec!["write_file".into()]),
            true,
        ),
        (
            "agent added",
            |p| {
                role_mut(p, "reviewer").allowed_agents = Some(vec!["claude".into(), "codex".into()])
            },
            true,
        ),
        (
            "agents emptied: anyone",
            |p| role_mut(p, "reviewer").allowed_agents = Some(vec![]),
            true,
        ),
        (
            "agent removed",
            |p| role_mut(p, "worker").allowed_agents = Some(vec!["claude".into()]),
            false,
        ),
        (
            "retry limit raised",
            |p| {
                role_mut(p, "reviewer")
                    .retry_policy
                    .get_or_insert_with(RetryPolicy::default)
                    .max_iterations = Some(9)
            },
            true,
        ),
        (
            "retry limit lowered",
            |p| {
                role_mut(p, "reviewer")
                    .retry_policy
                    .get_or_insert_with(RetryPolicy::default)
                    .max_iterations = Some(1)
            },
            false,
        ),
        (
            "escalation trigger removed",
            |p| {
                role_mut(p, "reviewer")
                    .retry_policy
                    .get_or_insert_with(RetryPolicy::default)
                    .escalate_on = Some(vec![])
            },
            true,
        ),
        (
            "pass condition removed",
            |p| {
                role_mut(p, "worker")
                    .gates
                    .get_or_insert_with(Gates::default)
                    .pass_condition = None
            },
            true,
        ),
        (
            "exit gate removed",
            |p| {
                p.workflow
                    .get_mut("test")
                    .expect("test")
                    .stage_policy
                    .get_or_insert_with(Default::default)
                    .exit_gate = None
            },
            true,
        ),
        (
            "stage enabled",
            |p| p.workflow.get_mut("test").expect("test").enabled = Some(true),
            false,
        ),
        (
            "role added that writes without approval",
            |p| {
                let mut role = role_template(RoleMode::Worker);
                role.name = "hotfix".into();
                role.gates = None;
                p.workflow
                    .get_mut("build")
                    .expect("build")
                    .roles
                    .get_or_insert_with(Vec::new)
                    .push(role);
            },
            true,
        ),
        (
            "role added from a template (asks approval)",
            |p| add_from_template(p, "build", RoleMode::Worker, "doc_writer"),
            false,
        ),
    ];
    for (what, edit, widens) in cases {
        let v1 = tdd();
        let mut v3 = v1.clone();
        edit(&mut v3);
        let d = diff(&v1, &v3);
        assert!(
            !d.is_empty() || what == "stage enabled",
            "{what}: something changed"
        );
        assert_eq!(
            d.changes.iter().any(|c| c.widening),
            widens,
            "{what}: {:#?}",
            sentences(&d)
        );
    }
    // A disabled stage turned back on widens.
    let mut v1 = tdd();
    v1.workflow.get_mut("test").expect("test").enabled = Some(false);
    let d = diff(&v1, &tdd());
    assert_eq!(sentences(&d), ["WIDENS: stage test enabled"]);
}
