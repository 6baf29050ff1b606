//! The diff's claims must explain the edit: applied to the old playbook they
//! give the new one's role contracts and handoff edges, and every change that
//! widens permissions is reported as widening. Checked on the reported
//! scenario and on random edit sequences.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use proptest::prelude::*;
use serde_json::Value;

use super::roles::labels;
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

pub(super) fn role_mut<'a>(p: &'a mut Playbook, name: &str) -> &'a mut Role {
    p.workflow
        .values_mut()
        .flat_map(|s| s.roles.iter_mut().flatten())
        .find(|r| r.name == name)
        .expect("role exists")
}

/// Renames a role and every handoff naming it, as the editor does.
pub(super) fn rename(p: &mut Playbook, from: &str, to: &str) {
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

pub(super) fn sentences(d: &Diff) -> Vec<String> {
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
    normalise_deep(&mut v);
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

/// Removes empty groups at every level the claims touch.
fn normalise_deep(v: &mut Value) {
    if let Some(map) = v.as_object_mut() {
        for value in map.values_mut() {
            normalise(value);
        }
    }
    normalise(v);
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

/// A role as the claims name it: its label (the name, or which holder of
/// a repeated name it is), its name, stage and contract.
struct Entry {
    label: String,
    name: String,
    stage: String,
    contract: Value,
}

fn entries(p: &Playbook) -> Vec<Entry> {
    p.roles()
        .zip(labels(p))
        .map(|(r, label)| Entry {
            label,
            name: r.role.name.clone(),
            stage: r.stage.to_string(),
            contract: contract(r.role),
        })
        .collect()
}

/// Edges of the flow graph by role index.
fn edges(p: &Playbook) -> BTreeSet<(usize, usize)> {
    let flow = Flow::new(p);
    (0..flow.roles.len())
        .flat_map(|i| {
            flow.successors(i)
                .map(move |(j, _)| (i, j))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn text(v: &Option<Value>) -> String {
    v.as_ref()
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Applies the diff's role claims to `old` and compares with `new`: every
/// role is removed, added, renamed or kept by name, at most one of these;
/// the field claims on it turn its old contract into its new one and the
/// move claims its old stage into the new; the handoff claims turn the old
/// edges (those of removed roles dropped) into the new ones. Returns, for
/// each new role, the old role the claims say it is.
///
/// Claims name a kept role by its new label only, and two holders of one
/// repeated name may trade labels, so which old holder is which new one is
/// searched for among the holders of the name.
pub(super) fn check_claims(old: &Playbook, new: &Playbook, d: &Diff) -> Vec<Option<usize>> {
    let (was, now) = (entries(old), entries(new));
    let said = || d.sentences().collect::<Vec<_>>();
    let of = |kind: ChangeKind| d.changes.iter().filter(move |c| c.kind == kind);
    let find = |side: &[Entry], label: &str| {
        side.iter()
            .position(|e| e.label == label)
            .unwrap_or_else(|| panic!("a claim names {label}, no such role: {:#?}", said()))
    };
    let mut removed = BTreeSet::new();
    for c in of(ChangeKind::RoleRemoved) {
        let i = find(&was, c.role.as_deref().expect("role"));
        assert!(removed.insert(i), "{} removed twice", was[i].label);
    }
    let mut pairs: BTreeMap<usize, usize> = BTreeMap::new();
    for c in of(ChangeKind::RoleRenamed) {
        let (i, j) = (find(&was, &text(&c.before)), find(&now, &text(&c.after)));
        assert_eq!(c.role.as_deref(), Some(now[j].label.as_str()));
        assert!(
            !removed.contains(&i),
            "{} removed and renamed",
            was[i].label
        );
        assert!(
            !pairs.values().any(|&k| k == i) && pairs.insert(j, i).is_none(),
            "{} explained twice: {:#?}",
            now[j].label,
            said()
        );
    }
    let mut added = BTreeSet::new();
    for c in of(ChangeKind::RoleAdded) {
        let j = find(&now, c.role.as_deref().expect("role"));
        let role: Role =
            serde_json::from_value(c.after.clone().expect("the role")).expect("a role");
        assert_eq!(contract(&role), now[j].contract, "{}", c.sentence);
        assert_eq!(c.stage.as_deref(), Some(now[j].stage.as_str()));
        assert!(
            !pairs.contains_key(&j) && added.insert(j),
            "{} explained twice: {:#?}",
            now[j].label,
            said()
        );
    }
    let stage_renames: HashMap<String, String> = of(ChangeKind::StageRenamed)
        .map(|c| (text(&c.before), text(&c.after)))
        .collect();
    // Old role `i` with the claims on new role `j` applied: is it `j`?
    let becomes = |i: usize, j: usize| -> bool {
        let label = now[j].label.as_str();
        let mut contract = was[i].contract.clone();
        let mut stage = stage_renames
            .get(&was[i].stage)
            .cloned()
            .unwrap_or_else(|| was[i].stage.clone());
        for c in &d.changes {
            if c.role.as_deref() != Some(label) {
                continue;
            }
            match (c.kind, &c.field) {
                (ChangeKind::HandoffAdded | ChangeKind::HandoffRemoved, _) => {}
                (ChangeKind::RoleMoved, _) => {
                    if text(&c.before) != stage {
                        return false;
                    }
                    stage = text(&c.after);
                }
                (_, Some(field)) => {
                    set_path(&mut contract, field, c.after.clone());
                    normalise_deep(&mut contract);
                }
                _ => {}
            }
        }
        normalise_deep(&mut contract);
        contract == now[j].contract && stage == now[j].stage
    };
    for (&j, &i) in &pairs {
        assert!(
            becomes(i, j),
            "claims applied to {} of v1 give v3's {}: {:#?}",
            was[i].label,
            now[j].label,
            said()
        );
    }
    // Roles kept by name: each new one is an old holder of its name.
    let free_old: Vec<usize> = (0..was.len())
        .filter(|i| !removed.contains(i) && !pairs.values().any(|k| k == i))
        .collect();
    let free_new: Vec<usize> = (0..now.len())
        .filter(|j| !added.contains(j) && !pairs.contains_key(j))
        .collect();
    assert_eq!(
        free_old
            .iter()
            .map(|&i| &was[i].name)
            .collect::<BTreeSet<_>>()
            .len(),
        free_new
            .iter()
            .map(|&j| &now[j].name)
            .collect::<BTreeSet<_>>()
            .len(),
        "every role is accounted for: {:#?}",
        said()
    );
    assert_eq!(
        free_old.len(),
        free_new.len(),
        "every role is accounted for: {:#?}",
        said()
    );
    let candidates: Vec<Vec<usize>> = free_new
        .iter()
        .map(|&j| {
            free_old
                .iter()
                .copied()
                .filter(|&i| was[i].name == now[j].name && becomes(i, j))
                .collect()
        })
        .collect();
    for (k, list) in candidates.iter().enumerate() {
        assert!(
            !list.is_empty(),
            "claims applied to v1 give v3's contract of {}: {:#?}",
            now[free_new[k]].label,
            said()
        );
    }
    // Edges: the old ones, with those of removed roles dropped, through
    // the identities, with the handoff claims applied.
    let (old_edges, new_edges) = (edges(old), edges(new));
    let want: BTreeSet<(String, String)> = new_edges
        .iter()
        .map(|&(a, b)| (now[a].label.clone(), now[b].label.clone()))
        .collect();
    let edges_fit = |identity: &HashMap<usize, usize>| -> Result<(), String> {
        let mut got: BTreeSet<(String, String)> = old_edges
            .iter()
            .filter_map(|(a, b)| {
                let (a, b) = (identity.get(a)?, identity.get(b)?);
                Some((now[*a].label.clone(), now[*b].label.clone()))
            })
            .collect();
        for c in of(ChangeKind::HandoffRemoved) {
            if !got.remove(&(c.role.clone().unwrap_or_default(), text(&c.before))) {
                return Err(format!("{}: no such edge", c.sentence));
            }
        }
        for c in of(ChangeKind::HandoffAdded) {
            if !got.insert((c.role.clone().unwrap_or_default(), text(&c.after))) {
                return Err(format!("{}: already there", c.sentence));
            }
        }
        if got == want {
            Ok(())
        } else {
            Err(format!("edges {got:?}, want {want:?}"))
        }
    };
    // Search the pairings of kept roles (one candidate for a unique name,
    // a few for a repeated one) for one whose edges fit too.
    let mut identity: HashMap<usize, usize> = pairs.iter().map(|(&j, &i)| (i, j)).collect();
    let mut last_error = String::new();
    let found = search(
        &free_new,
        &candidates,
        0,
        &mut identity,
        &mut |identity| match edges_fit(identity) {
            Ok(()) => true,
            Err(e) => {
                last_error = e;
                false
            }
        },
    );
    assert!(
        found,
        "claims applied to v1 give v3's edges: {last_error}\n{:#?}",
        said()
    );
    let mut out = vec![None; now.len()];
    for (&i, &j) in &identity {
        out[j] = Some(i);
    }
    out
}

/// Backtracking over the candidates of each free new role; `identity` is
/// old → new. Calls `fits` on every complete pairing until one fits.
fn search(
    free_new: &[usize],
    candidates: &[Vec<usize>],
    k: usize,
    identity: &mut HashMap<usize, usize>,
    fits: &mut dyn FnMut(&HashMap<usize, usize>) -> bool,
) -> bool {
    let Some(&j) = free_new.get(k) else {
        return fits(identity);
    };
    for &i in &candidates[k] {
        if identity.contains_key(&i) {
            continue;
        }
        identity.insert(i, j);
        if search(free_new, candidates, k + 1, identity, fits) {
            return true;
        }
        identity.remove(&i);
    }
    false
}

/// One edit of the kinds a team lead makes in the editor, and of the kinds
/// a hostile author makes to hide a change.
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
    /// Swaps two roles' places in their stage.
    Swap(usize, usize),
    RenameStage(usize, usize),
    /// Swaps two roles' names, handoffs rewritten.
    SwapNames(usize, usize),
    /// Adds a role under the name of an existing one (mode, stage, and
    /// whether it may deploy without approval).
    Duplicate(usize, usize, usize, bool),
    /// Removes a role and renames another into its freed name.
    TakeName(usize, usize),
    /// Sets or removes (`None`) a role's lock scope (0) or forbidden scope
    /// (1), as a subset of [`SCOPES`].
    Scope(usize, usize, Option<u8>),
    /// Moves a role to the end of another stage.
    Move(usize, usize),
    ToggleStage(usize),
    /// Sets or removes a policy.
    Policy(usize, Option<usize>),
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
const GATES: [&str; 4] = [
    "review_passed",
    "size(commit_sha) > 0",
    "tests_green",
    "always",
];
const SCOPES: [&str; 6] = ["src", "src/a", "docs/", "/", "**", "secrets/"];
const POLICY_KEYS: [&str; 3] = ["review_passed", "tests_green", "my_gate"];
const POLICY_DEFINITIONS: [&str; 4] = [
    "true",
    "verdict == \"pass\"",
    "user_approved",
    "failed_cases == 0",
];

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
        (0..20usize, 0..20usize).prop_map(|(a, b)| Edit::SwapNames(a, b)),
        (0..20usize, 0..3usize, 0..4usize, any::<bool>())
            .prop_map(|(r, s, m, risky)| Edit::Duplicate(r, s, m, risky)),
        (0..20usize, 0..20usize).prop_map(|(a, b)| Edit::TakeName(a, b)),
        (0..20usize, 0..2usize, proptest::option::of(0..64u8))
            .prop_map(|(r, k, set)| Edit::Scope(r, k, set)),
        (0..20usize, 0..3usize).prop_map(|(r, s)| Edit::Move(r, s)),
        (0..3usize).prop_map(Edit::ToggleStage),
        (
            0..POLICY_KEYS.len(),
            proptest::option::of(0..POLICY_DEFINITIONS.len())
        )
            .prop_map(|(k, d)| Edit::Policy(k, d)),
    ]
}

/// The playbook as a list of (true identity, role) per stage, so the test
/// knows which role is which whatever the names say.
struct World {
    playbook: Playbook,
    ids: Vec<Vec<usize>>,
    next_id: usize,
    /// Whether an edit gave a role a name another role held in the
    /// original (a freed name taken, a duplicate), which makes name
    /// evidence point at that other role.
    names_reused: bool,
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
            names_reused: false,
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

    fn holders(&self, name: &str) -> usize {
        self.playbook
            .roles()
            .filter(|r| r.role.name == name)
            .count()
    }

    /// Renames the role at `at`, and the handoffs naming it when it is the
    /// first role of its name (a handoff reaches the first holder only), as
    /// the editor does.
    fn rename_at(&mut self, at: (usize, usize), to: &str) {
        let from = self.role(at).name.clone();
        let first = self
            .playbook
            .roles()
            .find(|r| r.role.name == from)
            .map(|r| (r.stage_index, r.index));
        self.role(at).name = to.to_string();
        if first != Some(at) {
            return;
        }
        for role in self
            .playbook
            .workflow
            .values_mut()
            .flat_map(|s| s.roles.iter_mut().flatten())
        {
            for target in role.handoff_to.iter_mut().flatten() {
                if *target == from {
                    *target = to.to_string();
                }
            }
        }
    }

    fn push(&mut self, s: usize, role: Role) {
        self.playbook.workflow[s]
            .roles
            .get_or_insert_with(Vec::new)
            .push(role);
        self.next_id += 1;
        self.ids[s].push(self.next_id);
    }

    fn take(&mut self, (s, i): (usize, usize)) -> (Role, usize) {
        let role = self.playbook.workflow[s]
            .roles
            .as_mut()
            .expect("roles")
            .remove(i);
        (role, self.ids[s].remove(i))
    }

    fn apply(&mut self, edit: &Edit) {
        match *edit {
            Edit::Rename(r, n) => {
                let Some(at) = self.at(r) else { return };
                if self.playbook.role(NAMES[n]).is_some() {
                    return;
                }
                self.names_reused |= tdd().role(NAMES[n]).is_some();
                self.rename_at(at, NAMES[n]);
            }
            Edit::AddFromTemplate(s, m, n) => {
                if self.playbook.role(NAMES[n]).is_some() {
                    return;
                }
                self.names_reused |= tdd().role(NAMES[n]).is_some();
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
                let Some(at) = self.at(r) else { return };
                self.take(at);
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
            Edit::SwapNames(a, b) => {
                let (Some(x), Some(y)) = (self.at(a), self.at(b)) else {
                    return;
                };
                let (p, q) = (self.role(x).name.clone(), self.role(y).name.clone());
                if p == q || self.holders(&p) > 1 || self.holders(&q) > 1 {
                    return;
                }
                rename(&mut self.playbook, &p, "\u{0}swap");
                rename(&mut self.playbook, &q, &p);
                rename(&mut self.playbook, "\u{0}swap", &q);
            }
            Edit::Duplicate(r, s, m, risky) => {
                let Some(at) = self.at(r) else { return };
                let mut role = role_template(RoleMode::ALL[m]);
                role.name = self.role(at).name.clone();
                if risky {
                    role.gates = None;
                    role.actions_allowed
                        .get_or_insert_with(Vec::new)
                        .push("deploy".into());
                }
                self.push(s, role);
            }
            Edit::TakeName(a, b) => {
                let (Some(x), Some(y)) = (self.at(a), self.at(b)) else {
                    return;
                };
                let freed = self.role(x).name.clone();
                if x == y || self.holders(&freed) > 1 || self.role(y).name == freed {
                    return;
                }
                self.take(x);
                // `y` may have moved up by one when `x` sat before it.
                let y = if x.0 == y.0 && x.1 < y.1 {
                    (y.0, y.1 - 1)
                } else {
                    y
                };
                self.rename_at(y, &freed);
            }
            Edit::Scope(r, which, set) => {
                let Some(at) = self.at(r) else { return };
                let key = ["lock_scope", "forbidden_scope"][which];
                let role = self.role(at);
                let scope = role
                    .extra
                    .entry("x_scope".to_string())
                    .or_insert_with(|| Value::Object(Default::default()));
                let map = scope.as_object_mut().expect("an object");
                match set {
                    Some(bits) => {
                        let paths: Vec<Value> = SCOPES
                            .iter()
                            .enumerate()
                            .filter(|(k, _)| bits & (1 << k) != 0)
                            .map(|(_, p)| Value::from(*p))
                            .collect();
                        map.insert(key.to_string(), Value::Array(paths));
                    }
                    None => {
                        map.remove(key);
                    }
                }
                if map.is_empty() {
                    role.extra.shift_remove("x_scope");
                }
            }
            Edit::Move(r, s) => {
                let Some(at) = self.at(r) else { return };
                if at.0 == s {
                    return;
                }
                let (role, id) = self.take(at);
                self.playbook.workflow[s]
                    .roles
                    .get_or_insert_with(Vec::new)
                    .push(role);
                self.ids[s].push(id);
            }
            Edit::ToggleStage(s) => {
                let stage = &mut self.playbook.workflow[s];
                stage.enabled = Some(!stage.is_enabled());
            }
            Edit::Policy(k, d) => {
                let policies = self.playbook.policies.get_or_insert_with(Default::default);
                match d {
                    Some(d) => {
                        policies.insert(POLICY_KEYS[k].into(), POLICY_DEFINITIONS[d].into());
                    }
                    None => {
                        policies.shift_remove(POLICY_KEYS[k]);
                    }
                }
            }
        }
    }

    /// The stage index of each role, in [`Playbook::roles`] order.
    fn stage_of_each(&self) -> Vec<usize> {
        self.ids
            .iter()
            .enumerate()
            .flat_map(|(s, ids)| ids.iter().map(move |_| s))
            .collect()
    }
}

/// A scope entry as a path prefix; `None` is everything.
fn scope_prefix(entry: &str) -> Option<String> {
    let e = entry.trim_end_matches("**").trim_end_matches('/');
    (!e.is_empty() && e != ".").then(|| e.to_string())
}

/// Whether entry `inner` lies inside entry `outer` (the test's own reading
/// of the gate's rule, on the entries the generator uses).
fn inside(inner: &str, outer: &str) -> bool {
    match (scope_prefix(inner), scope_prefix(outer)) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(i), Some(o)) => i == o || i.starts_with(&format!("{o}/")),
    }
}

fn scope_list(role: &Role, key: &str) -> Vec<String> {
    role.extra
        .get("x_scope")
        .and_then(|s| s.get(key))
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The widenings a role went through between two versions, as (kind,
/// field); `moved_in` when it left a disabled stage for an enabled one.
fn true_widenings(
    old: &Role,
    new: &Role,
    moved_in: bool,
) -> Vec<(ChangeKind, Option<&'static str>)> {
    let mut out = Vec::new();
    if old.requires_user_approval() && !new.requires_user_approval() {
        out.push((ChangeKind::ApprovalDropped, None));
    }
    if new
        .actions_allowed()
        .iter()
        .any(|t| !old.actions_allowed().contains(t))
    {
        out.push((ChangeKind::ToolsWidened, None));
    }
    match (old.max_iterations(), new.max_iterations()) {
        (Some(a), Some(b)) if b > a => out.push((ChangeKind::RetryLimitChanged, None)),
        (Some(_), None) => out.push((ChangeKind::RetryLimitChanged, None)),
        _ => {}
    }
    let guards = |g: Option<&str>| g.is_some_and(|g| g != "always");
    if guards(old.pass_condition()) && !guards(new.pass_condition()) {
        out.push((ChangeKind::GateChanged, None));
    }
    let (lock_was, lock_now) = (scope_list(old, "lock_scope"), scope_list(new, "lock_scope"));
    if !lock_was.is_empty()
        && (lock_now.is_empty()
            || lock_now
                .iter()
                .any(|a| !lock_was.iter().any(|b| inside(a, b))))
    {
        out.push((ChangeKind::RoleFieldChanged, Some("x_scope.lock_scope")));
    }
    let (forbidden_was, forbidden_now) = (
        scope_list(old, "forbidden_scope"),
        scope_list(new, "forbidden_scope"),
    );
    if forbidden_was
        .iter()
        .any(|b| !forbidden_now.iter().any(|a| inside(b, a)))
    {
        out.push((
            ChangeKind::RoleFieldChanged,
            Some("x_scope.forbidden_scope"),
        ));
    }
    if moved_in {
        out.push((ChangeKind::RoleMoved, None));
    }
    out
}

/// Whether some widening change of `kind` (and `field`) is told of `role`.
fn told(d: &Diff, kind: ChangeKind, field: Option<&str>, role: &str) -> bool {
    d.changes.iter().any(|c| {
        c.kind == kind
            && c.widening
            && field.is_none_or(|f| c.field.as_deref() == Some(f))
            && c.role.as_deref() == Some(role)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn claims_applied_to_v1_give_v3_and_widenings_are_marked(edits in proptest::collection::vec(edit(), 1..8)) {
        let v1 = World::new();
        let mut v3 = World::new();
        for e in &edits {
            v3.apply(e);
        }
        let d = diff(&v1.playbook, &v3.playbook);
        let identity = check_claims(&v1.playbook, &v3.playbook, &d);

        // Widening changes come first.
        let first_plain = d.changes.iter().position(|c| !c.widening).unwrap_or(d.changes.len());
        prop_assert!(d.changes[first_plain..].iter().all(|c| !c.widening));

        // Every widening of a role, judged on the role the claims say it
        // is, is reported as widening on that role.
        let (old_roles, new_roles): (Vec<_>, Vec<_>) =
            (v1.playbook.roles().collect(), v3.playbook.roles().collect());
        let (old_labels, new_labels) = (labels(&v1.playbook), labels(&v3.playbook));
        let (old_stage, new_stage) = (v1.stage_of_each(), v3.stage_of_each());
        let enabled = |w: &World, s: usize| w.playbook.workflow[s].is_enabled();
        for (j, r) in new_roles.iter().enumerate() {
            let Some(i) = identity[j] else { continue };
            let moved_in = old_stage[i] != new_stage[j]
                && !enabled(&v1, old_stage[i])
                && enabled(&v3, new_stage[j]);
            for (kind, field) in true_widenings(old_roles[i].role, r.role, moved_in) {
                prop_assert!(
                    told(&d, kind, field, &new_labels[j]),
                    "{kind:?} {field:?} of {} not reported as widening: {:#?}", new_labels[j], sentences(&d)
                );
            }
        }
        // A removed role whose gate guarded an enabled stage takes the
        // gate with it.
        for (i, r) in old_roles.iter().enumerate() {
            if identity.contains(&Some(i)) || !enabled(&v1, old_stage[i]) {
                continue;
            }
            let policy = |g: &str| v1.playbook.policies.as_ref().and_then(|p| p.get(g)).cloned();
            if r.role.pass_condition().is_some_and(|g| g != "always" && policy(g).is_none_or(|d| d != "true")) {
                prop_assert!(
                    told(&d, ChangeKind::RoleRemoved, None, &old_labels[i]),
                    "{} removed with its gate, not widening: {:#?}", old_labels[i], sentences(&d)
                );
            }
        }
        // A stage disabled whose gates guarded the flow (told as disabled,
        // or, when renamed past recognition, as the old stage removed).
        // Stages are matched by name first, so when one stage took
        // another's name the diff's account of stages is another one, in
        // which the roles' moves carry the widening.
        for (s, (name, stage)) in v3.playbook.workflow.iter().enumerate() {
            let old_name = v1.playbook.workflow.keys().nth(s).expect("stages stay");
            let reused = |w: &World, n: &str| w.playbook.workflow.get_index_of(n).is_some_and(|k| k != s);
            if reused(&v1, name) || reused(&v3, old_name) {
                continue;
            }
            // A gate that a policy now defines as `true` holds back nothing:
            // that policy's change is the widening.
            let guards = |gate: Option<&str>| gate.is_some_and(|g| {
                let policy = v3.playbook.policies.as_ref().and_then(|p| p.get(g));
                g != "always" && policy.is_none_or(|d| d != "true")
            });
            let gated = guards(stage.exit_gate()) || stage.roles().iter().any(|r| guards(r.pass_condition()));
            if enabled(&v1, s) && !stage.is_enabled() && gated {
                prop_assert!(
                    d.changes.iter().any(|c| c.widening && match c.kind {
                        ChangeKind::StageDisabled => c.stage.as_deref() == Some(name),
                        ChangeKind::StageRemoved => c.stage.as_deref() == Some(old_name),
                        _ => false,
                    }),
                    "stage {name} disabled with its gates, not widening: {:#?}", sentences(&d)
                );
            }
        }
        // A policy that now always holds, or no longer waits for a person
        // (a built-in key without a policy has its built-in definition).
        for key in POLICY_KEYS {
            let builtin = match key {
                "review_passed" => Some("verdict == \"pass\""),
                "tests_green" => Some("failed_cases == 0"),
                _ => None,
            };
            fn defined<'w>(w: &'w World, key: &str, builtin: Option<&'w str>) -> Option<&'w str> {
                w.playbook.policies.as_ref().and_then(|p| p.get(key)).map(String::as_str).or(builtin)
            }
            let definition = |w| defined(w, key, builtin);
            let weaker = match (definition(&v1), definition(&v3)) {
                (Some(w), Some(n)) => (n == "true" && w != "true") || (w == "user_approved" && n != "user_approved"),
                _ => false,
            };
            if weaker {
                prop_assert!(
                    d.changes.iter().any(|c| c.field.as_deref() == Some(key) && c.widening),
                    "policy {key} {:?} → {:?} not widening: {:#?}", definition(&v1), definition(&v3), sentences(&d)
                );
            }
        }

        // Identity: a role that kept its identity by the test's own
        // account is that role by the claims too, unless they tell it as
        // a new role. Not when the evidence itself points elsewhere: after
        // an edit that gives a role a name another role held, and often
        // its place or the handoffs left naming it (a duplicate, a freed
        // name taken), or names swapped and then places changed too, name, place and references can say it is
        // another role, they rank above the contract, and the claims tell
        // it as that role changed, which the checks above hold to the
        // truth of the contracts and widenings.
        let swapped = edits.iter().any(|e| matches!(e, Edit::SwapNames(..)));
        let evident = !v3.names_reused && edits.iter().all(|e| match e {
            Edit::Duplicate(..) | Edit::TakeName(..) => false,
            Edit::Remove(_) | Edit::Swap(..) | Edit::Move(..) | Edit::Rename(..) | Edit::AddFromTemplate(..) => !swapped,
            _ => true,
        });
        let old_ids: Vec<usize> = v1.ids.iter().flatten().copied().collect();
        let new_ids: Vec<usize> = v3.ids.iter().flatten().copied().collect();
        for (j, id) in new_ids.iter().enumerate() {
            let Some(truth) = old_ids.iter().position(|x| x == id) else { continue };
            let Some(i) = identity[j].filter(|_| evident) else { continue };
            prop_assert_eq!(
                i, truth,
                "v3's {} is v1's {}, not {}: {:#?}", new_labels[j], old_labels[truth], old_labels[i], sentences(&d)
            );
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
