//! Which stage and which role of the new playbook is which of the old one.
//!
//! Names identify stages and roles, but a rename, or a rename followed by a
//! new role taking the freed name, breaks that. Roles are therefore matched
//! on identity evidence, strongest first:
//!
//! 1. the same name, unless that name was visibly handed over (below);
//! 2. handoff references: the roles that handed off to the old role now hand
//!    off to the new one (a rename in the editor rewrites them);
//! 3. the same stage and position;
//! 4. contract similarity.
//!
//! A same-name pair is broken only when every role that handed off to the
//! old role now hands off to one unmatched role in the old role's place
//! (same stage and position, same mode, not unrelated), while the role
//! carrying the old name sits elsewhere: that is "renamed `worker` to
//! `coder`, then added a new `worker`". Conversely, a role renamed into a
//! freed name (`reviewer` removed, `test_author` renamed to `reviewer`) is
//! recognised when it has its old mode, sits in its old place or the old
//! holder of the name had another mode, and is clearly more like its old
//! self than like the old holder. Every role
//! is matched at most once.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::model::{Playbook, Role, RoleRef, Stage};

use super::json;

/// Old stage name → new stage name, for stages present on one side only
/// whose roles mostly coincide. `role_names` maps old role names to new
/// ones, so a stage renamed together with its roles is still recognised.
fn match_stages(
    old: &Playbook,
    new: &Playbook,
    role_names: &HashMap<String, String>,
) -> HashMap<String, String> {
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
    if gone.len().saturating_mul(came.len()) > MAX_RENAME_CANDIDATE_PAIRS {
        return HashMap::new();
    }
    let names = |stage: &Stage, map: Option<&HashMap<String, String>>| -> HashSet<String> {
        stage
            .roles()
            .iter()
            .map(|r| map.and_then(|m| m.get(&r.name)).unwrap_or(&r.name).clone())
            .collect()
    };
    let mut scored = Vec::new();
    for (i, o) in gone.iter().enumerate() {
        for (j, n) in came.iter().enumerate() {
            let (a, b) = (&old.workflow[*o], &new.workflow[*n]);
            let (ra, rb) = (names(a, Some(role_names)), names(b, None));
            let score = if ra.is_empty() && rb.is_empty() {
                // Two empty stages: a rename only if nothing else differs.
                let strip = |s: &Stage| serde_json::to_value(s).ok();
                if strip(a) == strip(b) { 1.0 } else { 0.0 }
            } else {
                jaccard(&ra, &rb)
            };
            if score >= 0.5 {
                scored.push((score, i, j));
            }
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let (mut used_old, mut used_new) = (HashSet::new(), HashSet::new());
    let mut pairs = HashMap::new();
    for (_, i, j) in scored {
        if used_old.contains(&i) || used_new.contains(&j) {
            continue;
        }
        used_old.insert(i);
        used_new.insert(j);
        pairs.insert(gone[i].to_string(), came[j].to_string());
    }
    pairs
}

pub(super) fn jaccard<T: Eq + std::hash::Hash>(a: &HashSet<T>, b: &HashSet<T>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// Most (removed, added) pairs scored to find renames. Scoring is
/// quadratic; past a few hundred candidates on each side the edit is a
/// rewrite, not a set of renames, and removals and additions keep a huge
/// diff fast.
const MAX_RENAME_CANDIDATE_PAIRS: usize = 40_000;

/// Least similarity of a role that took over an old role's references
/// and place while the old name went elsewhere; below it the edit is a
/// replacement, not a rename. The same bar as a rename with reference
/// evidence.
const HANDED_OVER_MIN_SIMILARITY: f64 = 0.3;

/// A one-to-one matching of roles, by index into [`Playbook::roles`] of
/// each side. A role whose name repeats an earlier one (an error the
/// validator reports) is never matched.
#[derive(Debug, Default, Clone)]
pub(super) struct RoleMatch {
    old_to_new: HashMap<usize, usize>,
    new_to_old: HashMap<usize, usize>,
}

impl RoleMatch {
    /// Old role name → new role name, for every matched role.
    pub(super) fn names(&self, old: &Playbook, new: &Playbook) -> HashMap<String, String> {
        let (o, n): (Vec<RoleRef<'_>>, Vec<RoleRef<'_>>) =
            (old.roles().collect(), new.roles().collect());
        self.old_to_new
            .iter()
            .filter_map(|(&i, &j)| Some((o.get(i)?.role.name.clone(), n.get(j)?.role.name.clone())))
            .collect()
    }

    fn insert(&mut self, old: usize, new: usize) {
        self.old_to_new.insert(old, new);
        self.new_to_old.insert(new, old);
    }

    fn remove(&mut self, old: usize) {
        if let Some(new) = self.old_to_new.remove(&old) {
            self.new_to_old.remove(&new);
        }
    }

    pub(super) fn new_of(&self, old: usize) -> Option<usize> {
        self.old_to_new.get(&old).copied()
    }

    pub(super) fn old_of(&self, new: usize) -> Option<usize> {
        self.new_to_old.get(&new).copied()
    }
}

/// One side of the comparison: its roles and who hands off to whom.
struct Side<'a> {
    roles: Vec<RoleRef<'a>>,
    /// Whether the role is the first with its name (the one handoffs reach).
    first: Vec<bool>,
    /// For each role, the roles whose explicit `handoff_to` names it.
    referrers: Vec<Vec<usize>>,
    /// For each role, the roles its explicit `handoff_to` names.
    targets: Vec<Vec<usize>>,
}

impl<'a> Side<'a> {
    fn new(playbook: &'a Playbook) -> Self {
        let roles: Vec<RoleRef<'a>> = playbook.roles().collect();
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        let mut first = vec![false; roles.len()];
        for (i, r) in roles.iter().enumerate() {
            if !by_name.contains_key(r.role.name.as_str()) {
                by_name.insert(r.role.name.as_str(), i);
                first[i] = true;
            }
        }
        let mut referrers = vec![Vec::new(); roles.len()];
        let mut targets = vec![Vec::new(); roles.len()];
        for (k, r) in roles.iter().enumerate() {
            let names: HashSet<&str> = r.role.handoff_to().iter().map(String::as_str).collect();
            for name in names {
                if let Some(&i) = by_name.get(name)
                    && i != k
                {
                    referrers[i].push(k);
                    targets[k].push(i);
                }
            }
        }
        Side {
            roles,
            first,
            referrers,
            targets,
        }
    }
}

/// Matches stages and roles of `old` to those of `new`: roles first
/// without stage renames (so a stage renamed together with its roles is
/// recognised by them), then the stages, then roles again with places read
/// through the stage renames. Returns the stage renames and the role match.
pub(super) fn match_all(old: &Playbook, new: &Playbook) -> (HashMap<String, String>, RoleMatch) {
    let (o, n) = (Side::new(old), Side::new(new));
    // Similarity is the costly part (text distance); every pass shares it.
    let cache = Similarities::default();
    let no_renames = HashMap::new();
    let by_stage_name = Context {
        old: &o,
        new: &n,
        stage_renames: &no_renames,
        cache: &cache,
    }
    .match_roles();
    let stage_renames = match_stages(old, new, &by_stage_name.names(old, new));
    let roles = Context {
        old: &o,
        new: &n,
        stage_renames: &stage_renames,
        cache: &cache,
    }
    .match_roles();
    (stage_renames, roles)
}

/// Role similarities by (old index, new index), computed once.
#[derive(Default)]
struct Similarities(RefCell<HashMap<(usize, usize), f64>>);

struct Context<'s, 'a> {
    old: &'s Side<'a>,
    new: &'s Side<'a>,
    stage_renames: &'s HashMap<String, String>,
    cache: &'s Similarities,
}

impl Context<'_, '_> {
    fn match_roles(&self) -> RoleMatch {
        // Referrers may be renamed too: the second pass reads their identity
        // from the first pass's matching.
        let first = self.match_once(None);
        self.match_once(Some(&first))
    }

    fn similarity(&self, i: usize, j: usize) -> f64 {
        if let Some(&known) = self.cache.0.borrow().get(&(i, j)) {
            return known;
        }
        let value = role_similarity(self.old.roles[i].role, self.new.roles[j].role);
        self.cache.0.borrow_mut().insert((i, j), value);
        value
    }

    fn match_once(&self, prior: Option<&RoleMatch>) -> RoleMatch {
        let mut m = RoleMatch::default();
        let new_by_name: HashMap<&str, usize> = (0..self.new.roles.len())
            .filter(|&j| self.new.first[j])
            .map(|j| (self.new.roles[j].role.name.as_str(), j))
            .collect();
        for i in (0..self.old.roles.len()).filter(|&i| self.old.first[i]) {
            if let Some(&j) = new_by_name.get(self.old.roles[i].role.name.as_str()) {
                m.insert(i, j);
            }
        }
        let referrers_of = prior.unwrap_or(&m).clone();
        self.hand_over_names(&mut m, &referrers_of);
        self.take_freed_names(&mut m);
        self.match_unmatched(&mut m, &referrers_of);
        m
    }

    /// The new roles that the old role's referrers now hand off to, each
    /// with how many of them do.
    fn referenced_now(&self, i: usize, referrers_of: &RoleMatch) -> (usize, HashMap<usize, usize>) {
        let referrers = &self.old.referrers[i];
        let mut now: HashMap<usize, usize> = HashMap::new();
        for &k in referrers {
            let Some(k2) = referrers_of.new_of(k) else {
                continue;
            };
            for &j in &self.new.targets[k2] {
                *now.entry(j).or_default() += 1;
            }
        }
        (referrers.len(), now)
    }

    /// Breaks same-name pairs whose name was visibly handed over to another
    /// role (see the module comment).
    fn hand_over_names(&self, m: &mut RoleMatch, referrers_of: &RoleMatch) {
        let pairs: Vec<(usize, usize)> = m.old_to_new.iter().map(|(&i, &j)| (i, j)).collect();
        let mut moves = Vec::new();
        for (i, j) in pairs {
            let referrers: Vec<usize> = self.old.referrers[i]
                .iter()
                .filter_map(|&k| referrers_of.new_of(k))
                .collect();
            if referrers.is_empty() {
                continue;
            }
            // Every referrer left the name and points at one same candidate.
            let mut candidate = None;
            let mut consistent = true;
            for &k2 in &referrers {
                let targets: Vec<usize> = self.new.targets[k2]
                    .iter()
                    .copied()
                    .filter(|&t| t != j && m.old_of(t).is_none())
                    .collect();
                let still = self.new.targets[k2].contains(&j);
                match (still, targets.as_slice(), candidate) {
                    (false, [t], None) => candidate = Some(*t),
                    (false, [t], Some(c)) if *t == c => {}
                    _ => consistent = false,
                }
            }
            let Some(c) = candidate.filter(|_| consistent) else {
                continue;
            };
            let (a, by_ref) = (self.old.roles[i].role, self.new.roles[c].role);
            if self.same_place(i, c)
                && !self.same_place(i, j)
                && a.mode == by_ref.mode
                && self.similarity(i, c) >= HANDED_OVER_MIN_SIMILARITY
            {
                moves.push((i, c));
            }
        }
        for (i, c) in moves {
            if m.old_of(c).is_none() {
                m.remove(i);
                m.insert(i, c);
            }
        }
    }

    /// Breaks same-name pairs where the new role is another old role renamed
    /// into a freed name: it sits in that role's place, has its mode and is
    /// clearly more like it than like the old holder of the name.
    fn take_freed_names(&self, m: &mut RoleMatch) {
        let pairs: Vec<(usize, usize)> = m.old_to_new.iter().map(|(&i, &j)| (i, j)).collect();
        for (i, j) in pairs {
            let (holder, role) = (self.old.roles[i].role, self.new.roles[j].role);
            // A mode change is rare in an edit: a role of another mode that
            // took the name is evidence enough without the place.
            let mode_changed = holder.mode != role.mode;
            if !mode_changed && self.same_place(i, j) {
                continue;
            }
            let kept = self.similarity(i, j);
            let better = (0..self.old.roles.len())
                .filter(|&k| self.old.first[k] && m.new_of(k).is_none())
                .filter(|&k| mode_changed || self.same_place(k, j))
                .find(|&k| {
                    let other = self.old.roles[k].role;
                    let similarity = self.similarity(k, j);
                    other.mode == role.mode && similarity >= 0.6 && similarity > kept
                });
            if let Some(k) = better {
                m.remove(i);
                m.insert(k, j);
            }
        }
    }

    /// Pairs roles present on one side only: handoff evidence first, then
    /// the same place, then similarity.
    fn match_unmatched(&self, m: &mut RoleMatch, referrers_of: &RoleMatch) {
        let gone: Vec<usize> = (0..self.old.roles.len())
            .filter(|&i| self.old.first[i] && m.new_of(i).is_none())
            .collect();
        let came: Vec<usize> = (0..self.new.roles.len())
            .filter(|&j| self.new.first[j] && m.old_of(j).is_none())
            .collect();
        if gone.is_empty()
            || came.is_empty()
            || gone.len().saturating_mul(came.len()) > MAX_RENAME_CANDIDATE_PAIRS
        {
            return;
        }
        let mut scored: Vec<(f64, bool, f64, usize, usize)> = Vec::new();
        for &i in &gone {
            let (total, now) = self.referenced_now(i, referrers_of);
            for &j in &came {
                let evidence = match now.get(&j) {
                    Some(&count) if total > 0 => count as f64 / total as f64,
                    _ => 0.0,
                };
                let place = self.same_place(i, j);
                let similarity = self.similarity(i, j);
                let accepted = similarity >= 0.6
                    || (evidence > 0.0 && similarity >= HANDED_OVER_MIN_SIMILARITY)
                    || (place && similarity >= 0.45);
                if accepted {
                    scored.push((evidence, place, similarity, i, j));
                }
            }
        }
        scored.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(b.1.cmp(&a.1))
                .then(b.2.total_cmp(&a.2))
                .then(a.3.cmp(&b.3))
                .then(a.4.cmp(&b.4))
        });
        for (_, _, _, i, j) in scored {
            if m.new_of(i).is_none() && m.old_of(j).is_none() {
                m.insert(i, j);
            }
        }
    }

    /// Whether old role `i` and new role `j` sit in the same stage (after
    /// stage renames) at the same position.
    fn same_place(&self, i: usize, j: usize) -> bool {
        let (a, b) = (&self.old.roles[i], &self.new.roles[j]);
        let stage = self
            .stage_renames
            .get(a.stage)
            .map(String::as_str)
            .unwrap_or(a.stage);
        stage == b.stage && a.index == b.index
    }
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
