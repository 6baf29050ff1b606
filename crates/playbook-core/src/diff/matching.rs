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
//! 4. contract similarity ([`super::similarity`]).
//!
//! A same-name pair is broken only when the name visibly went to another
//! role:
//!
//! - **handed over**: every role that handed off to the old role now hands
//!   off to one unmatched role in the old role's place (same stage and
//!   position, same mode, not unrelated), while the role carrying the old
//!   name sits elsewhere: "renamed `worker` to `coder`, then added a new
//!   `worker`";
//! - **swapped**: names moved around a cycle of roles (two roles swapped
//!   names, or three rotated) while each place kept a role of the same mode
//!   that is clearly more like the place's old role than the name's old
//!   holder is, and no role outside the cycle kept handing off to the old
//!   name: "`coder` and `critic` swapped names" is two renames, not two
//!   rewritten contracts;
//! - **freed name taken**: a role renamed into a freed name (`reviewer`
//!   removed, `test_author` renamed to `reviewer`) is recognised when it has
//!   its old mode, sits in its old place or the old holder of the name had
//!   another mode, and is clearly more like its old self than like the old
//!   holder.
//!
//! A name held by several roles (an error the validator reports) is still
//! evidence: the holders on both sides are paired by place, then by
//! similarity, then in document order, and the rest go on to the rename
//! search like any other role. Every role is matched at most once, so no
//! change is explained twice.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use crate::model::{Playbook, RoleRef, Stage};

use super::similarity::{self, Profile};

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

/// Most pairs scored among the holders of one repeated name; a larger
/// group is paired in document order. Repeated names are an error, so
/// groups are small unless a document is built to make them large.
const MAX_SAME_NAME_PAIRS: usize = 64;

/// Least similarity of a role that took over an old role's references
/// and place while the old name went elsewhere; below it the edit is a
/// replacement, not a rename. The same bar as a rename with reference
/// evidence.
const HANDED_OVER_MIN_SIMILARITY: f64 = 0.3;

/// Most handoff targets of a role whose references count as evidence of
/// which role a target is.
const MAX_REFERENCE_TARGETS: usize = 64;

/// Least similarity of a role to the old role of its place for names
/// swapped around a cycle; the bar of a rename on similarity alone.
const SWAPPED_MIN_SIMILARITY: f64 = 0.6;

/// A one-to-one matching of roles, by index into [`Playbook::roles`] of
/// each side.
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

    /// The matched pairs in old-index order, so every pass over them is
    /// deterministic.
    fn pairs(&self) -> Vec<(usize, usize)> {
        let mut pairs: Vec<(usize, usize)> =
            self.old_to_new.iter().map(|(&i, &j)| (i, j)).collect();
        pairs.sort_unstable();
        pairs
    }
}

/// One side of the comparison: its roles and who hands off to whom.
struct Side<'a> {
    roles: Vec<RoleRef<'a>>,
    profiles: Vec<Profile>,
    /// For each role, the roles whose explicit `handoff_to` names it (a
    /// handoff reaches the first role of a name, as in [`crate::flow`]).
    referrers: Vec<Vec<usize>>,
    /// For each role, the roles its explicit `handoff_to` names.
    targets: Vec<Vec<usize>>,
    /// (stage, index) → role.
    by_place: HashMap<(&'a str, usize), usize>,
}

impl<'a> Side<'a> {
    fn new(playbook: &'a Playbook) -> Self {
        let roles: Vec<RoleRef<'a>> = playbook.roles().collect();
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for (i, r) in roles.iter().enumerate() {
            by_name.entry(r.role.name.as_str()).or_insert(i);
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
        // Sorted, so membership is a binary search.
        for list in &mut targets {
            list.sort_unstable();
        }
        let by_place = roles
            .iter()
            .enumerate()
            .map(|(i, r)| ((r.stage, r.index), i))
            .collect();
        Side {
            profiles: roles.iter().map(|r| Profile::new(r.role)).collect(),
            roles,
            referrers,
            targets,
            by_place,
        }
    }

    /// Role indexes by name, each list in document order.
    fn by_name(&self) -> HashMap<&'a str, Vec<usize>> {
        let mut out: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, r) in self.roles.iter().enumerate() {
            out.entry(r.role.name.as_str()).or_default().push(i);
        }
        out
    }
}

/// Matches stages and roles of `old` to those of `new`: roles first
/// without stage renames (so a stage renamed together with its roles is
/// recognised by them), then the stages, then roles again with places read
/// through the stage renames. Returns the stage renames and the role match.
pub(super) fn match_all(old: &Playbook, new: &Playbook) -> (HashMap<String, String>, RoleMatch) {
    let (o, n) = (Side::new(old), Side::new(new));
    // Similarity is the costly part; every pass shares it.
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
        let value = similarity::similarity(&self.old.profiles[i], &self.new.profiles[j]);
        self.cache.0.borrow_mut().insert((i, j), value);
        value
    }

    fn match_once(&self, prior: Option<&RoleMatch>) -> RoleMatch {
        let mut m = RoleMatch::default();
        let new_by_name = self.new.by_name();
        let mut old_by_name: Vec<(&str, Vec<usize>)> = self.old.by_name().into_iter().collect();
        old_by_name.sort_unstable_by_key(|(_, holders)| holders[0]);
        for (name, olds) in &old_by_name {
            if let Some(news) = new_by_name.get(name) {
                self.pair_same_name(&mut m, olds, news);
            }
        }
        let referrers_of = prior.unwrap_or(&m).clone();
        self.swap_names_back(&mut m, &referrers_of);
        self.hand_over_names(&mut m, &referrers_of);
        self.take_freed_names(&mut m, &referrers_of);
        self.match_unmatched(&mut m, &referrers_of);
        m
    }

    /// Pairs the holders of one name: a name held once on each side is one
    /// pair; holders of a repeated name pair by place, then similarity,
    /// then document order.
    fn pair_same_name(&self, m: &mut RoleMatch, olds: &[usize], news: &[usize]) {
        if let ([i], [j]) = (olds, news) {
            m.insert(*i, *j);
            return;
        }
        if olds.len().saturating_mul(news.len()) > MAX_SAME_NAME_PAIRS {
            for (&i, &j) in olds.iter().zip(news) {
                m.insert(i, j);
            }
            return;
        }
        let mut scored: Vec<(bool, f64, usize, usize)> = Vec::new();
        for &i in olds {
            for &j in news {
                scored.push((self.same_place(i, j), self.similarity(i, j), i, j));
            }
        }
        scored.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(b.1.total_cmp(&a.1))
                .then(a.2.cmp(&b.2))
                .then(a.3.cmp(&b.3))
        });
        for (_, _, i, j) in scored {
            if m.new_of(i).is_none() && m.old_of(j).is_none() {
                m.insert(i, j);
            }
        }
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

    /// The new role in old role `i`'s place (its stage read through the
    /// stage renames, the same index).
    fn place_mate(&self, i: usize) -> Option<usize> {
        let a = &self.old.roles[i];
        let stage = self
            .stage_renames
            .get(a.stage)
            .map(String::as_str)
            .unwrap_or(a.stage);
        self.new.by_place.get(&(stage, a.index)).copied()
    }

    /// Re-pairs same-name pairs whose names went around a cycle (see the
    /// module comment). Each old role `i` paired by name with `j` elsewhere
    /// proposes the new role `c` that the evidence says it is, strongest
    /// first: the role its referrers now all hand off to instead of `j`,
    /// the role now in its place, the most alike of the roles whose names
    /// moved; `c` must have its mode and be more like it than `j` is, and
    /// hold another moved name. The proposals that close a cycle are taken.
    fn swap_names_back(&self, m: &mut RoleMatch, referrers_of: &RoleMatch) {
        let moved: Vec<(usize, usize)> = m
            .pairs()
            .into_iter()
            .filter(|&(i, j)| !self.same_place(i, j))
            .collect();
        // Comparing every moved name with every other is quadratic; past the
        // rename cap the similarity evidence is left out.
        let compare_all = moved.len().saturating_mul(moved.len()) <= MAX_RENAME_CANDIDATE_PAIRS;
        let mut proposal: HashMap<usize, usize> = HashMap::new();
        for &(i, j) in &moved {
            let kept = self.similarity(i, j);
            let fits = |c: usize, least: f64| {
                c != j
                    && m.old_of(c).is_some_and(|k| k != i)
                    && self.old.roles[i].role.mode == self.new.roles[c].role.mode
                    && {
                        let alike = self.similarity(i, c);
                        alike >= least && alike > kept
                    }
            };
            let by_reference = self
                .followed_references(i, Some(j), referrers_of)
                .filter(|&c| fits(c, HANDED_OVER_MIN_SIMILARITY));
            let by_place = || {
                self.place_mate(i)
                    .filter(|&c| fits(c, SWAPPED_MIN_SIMILARITY))
            };
            let by_contract = || {
                if !compare_all {
                    return None;
                }
                moved
                    .iter()
                    .map(|&(_, c)| c)
                    .filter(|&c| fits(c, SWAPPED_MIN_SIMILARITY))
                    .max_by(|&a, &b| {
                        self.similarity(i, a)
                            .total_cmp(&self.similarity(i, b))
                            .then(b.cmp(&a))
                    })
            };
            if let Some(c) = by_reference.or_else(by_place).or_else(by_contract) {
                proposal.insert(i, c);
            }
        }
        // Two roles proposing one: the evidence is split, later passes decide.
        let mut wanted: HashMap<usize, usize> = HashMap::new();
        for &c in proposal.values() {
            *wanted.entry(c).or_default() += 1;
        }
        proposal.retain(|_, c| wanted[c] == 1);
        // Old role → the old role whose name its proposal holds. Each has at
        // most one predecessor, so the proposals form disjoint chains and
        // cycles.
        let next = |i: usize| proposal.get(&i).and_then(|&c| m.old_of(c));
        let pointed: HashSet<usize> = proposal.keys().filter_map(|&i| next(i)).collect();
        let mut proposers: Vec<usize> = proposal.keys().copied().collect();
        proposers.sort_unstable();
        let heads: Vec<usize> = proposers
            .iter()
            .copied()
            .filter(|i| !pointed.contains(i))
            .collect();
        let mut taken: Vec<Vec<usize>> = Vec::new();
        let mut done: HashSet<usize> = HashSet::new();
        // Chains: a role took a moved name whose holder, at the end, is
        // left without one (a rename into a name its holder gave up).
        for head in heads {
            let mut chain = vec![head];
            let mut at = head;
            while let Some(k) = next(at) {
                if !proposal.contains_key(&k) {
                    break;
                }
                chain.push(k);
                at = k;
            }
            done.extend(chain.iter().copied());
            let Some(end) = next(at) else { continue };
            let c = proposal[&at];
            let (holder, role) = (self.old.roles[end].role, self.new.roles[c].role);
            let left = self.similarity(end, c);
            let gave_up = holder.mode != role.mode || left < SWAPPED_MIN_SIMILARITY;
            let mut members: HashSet<usize> = chain.iter().copied().collect();
            members.insert(end);
            if gave_up
                && self.similarity(at, c) > left
                && self.references_allow(&members, m, referrers_of)
            {
                taken.push(chain);
            }
        }
        // Cycles: names went round.
        for &start in &proposers {
            if done.contains(&start) {
                continue;
            }
            let mut cycle = vec![start];
            let mut at = start;
            while let Some(k) = next(at).filter(|&k| k != start) {
                cycle.push(k);
                at = k;
            }
            done.extend(cycle.iter().copied());
            let members: HashSet<usize> = cycle.iter().copied().collect();
            if self.references_allow(&members, m, referrers_of) {
                taken.push(cycle);
            }
        }
        for group in taken {
            let moves: Vec<(usize, usize)> = group.iter().map(|&i| (i, proposal[&i])).collect();
            for &(i, c) in &moves {
                m.remove(i);
                if let Some(k) = m.old_of(c) {
                    m.remove(k);
                }
            }
            for (i, c) in moves {
                m.insert(i, c);
            }
        }
    }

    /// The one new role that every settled role handing off to old role
    /// `i` now hands off to, when none of them hands off to `not` (the
    /// role holding `i`'s name, whose references would then have kept it).
    fn followed_references(
        &self,
        i: usize,
        not: Option<usize>,
        referrers_of: &RoleMatch,
    ) -> Option<usize> {
        let lists: Vec<&[usize]> = self
            .settled_referrers(i, referrers_of, &HashSet::new())
            .map(|k2| self.new.targets[k2].as_slice())
            .collect();
        if not.is_some_and(|j| lists.iter().any(|l| l.binary_search(&j).is_ok())) {
            return None;
        }
        // A role that hands off to many roles says little about any one of
        // them, and intersecting long lists for every role is quadratic.
        let shortest = lists.iter().min_by_key(|l| l.len())?;
        if shortest.len() > MAX_REFERENCE_TARGETS {
            return None;
        }
        let mut common = shortest
            .iter()
            .copied()
            .filter(|c| lists.iter().all(|l| l.binary_search(c).is_ok()));
        match (common.next(), common.next()) {
            (Some(c), None) => Some(c),
            _ => None,
        }
    }

    /// Whether no role outside `cycle` still hands off to the name a cycle
    /// member held: references that kept a name outweigh place and contract
    /// (evidence 2 before 3 and 4). Referrers inside the cycle were renamed
    /// with it and say nothing either way.
    fn references_allow(
        &self,
        cycle: &HashSet<usize>,
        m: &RoleMatch,
        referrers_of: &RoleMatch,
    ) -> bool {
        cycle.iter().all(|&i| {
            let Some(j) = m.new_of(i) else {
                return true;
            };
            self.settled_referrers(i, referrers_of, cycle)
                .all(|k2| self.new.targets[k2].binary_search(&j).is_err())
        })
    }

    /// The new roles that old role `i`'s referrers are, leaving out those
    /// in `besides` and those whose own identity is in question (matched
    /// to a role in another place, as a renamed or swapped role is): the
    /// references of a role that may be another say nothing.
    fn settled_referrers<'m>(
        &'m self,
        i: usize,
        referrers_of: &'m RoleMatch,
        besides: &'m HashSet<usize>,
    ) -> impl Iterator<Item = usize> + 'm {
        self.old.referrers[i]
            .iter()
            .filter(|k| !besides.contains(k))
            .filter_map(|&k| referrers_of.new_of(k).filter(|&k2| self.same_place(k, k2)))
    }

    /// Breaks same-name pairs whose name was visibly handed over to another
    /// role (see the module comment).
    fn hand_over_names(&self, m: &mut RoleMatch, referrers_of: &RoleMatch) {
        let mut moves = Vec::new();
        for (i, j) in m.pairs() {
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
                if self.new.targets[k2].len() > MAX_REFERENCE_TARGETS {
                    consistent = false;
                    break;
                }
                let targets: Vec<usize> = self.new.targets[k2]
                    .iter()
                    .copied()
                    .filter(|&t| t != j && m.old_of(t).is_none())
                    .collect();
                let still = self.new.targets[k2].binary_search(&j).is_ok();
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
    /// into a freed name, clearly more like it than like the old holder of
    /// the name and of its mode, and shown to be it by its place (it sits in
    /// that role's place), by its references (the roles that handed off to
    /// that role, in their places still, now hand off to it, and none to
    /// the old holder) or by a change of mode (rare in an edit: a role of
    /// another mode that took the name is evidence enough).
    fn take_freed_names(&self, m: &mut RoleMatch, referrers_of: &RoleMatch) {
        let unmatched: Vec<usize> = (0..self.old.roles.len())
            .filter(|&k| m.new_of(k).is_none())
            .collect();
        let mut followed_to: HashMap<usize, Option<usize>> = HashMap::new();
        for &k in &unmatched {
            if let Some(c) = self.followed_references(k, None, referrers_of) {
                // Two roles' references led to one: neither says anything.
                followed_to
                    .entry(c)
                    .and_modify(|e| *e = None)
                    .or_insert(Some(k));
            }
        }
        let old_at: HashMap<(&str, usize), usize> = unmatched
            .iter()
            .filter_map(|&k| self.place_mate(k).map(|c| (c, k)))
            .map(|(c, k)| ((self.new.roles[c].stage, self.new.roles[c].index), k))
            .collect();
        // Similarity against every unmatched role, for a mode change, is
        // quadratic: bounded like the rename search.
        let mut budget = MAX_RENAME_CANDIDATE_PAIRS;
        for (i, j) in m.pairs() {
            let (holder, role) = (self.old.roles[i].role, self.new.roles[j].role);
            let mode_changed = holder.mode != role.mode;
            let kept = self.similarity(i, j);
            let fits = |k: usize, least: f64| {
                m.new_of(k).is_none() && self.old.roles[k].role.mode == role.mode && {
                    let similarity = self.similarity(k, j);
                    similarity >= least && similarity > kept
                }
            };
            let by_reference = || {
                let name_kept = self
                    .settled_referrers(i, referrers_of, &HashSet::new())
                    .any(|k2| self.new.targets[k2].binary_search(&j).is_ok());
                followed_to
                    .get(&j)
                    .copied()
                    .flatten()
                    .filter(|&k| !name_kept && fits(k, HANDED_OVER_MIN_SIMILARITY))
            };
            let by_place = || {
                if !mode_changed && self.same_place(i, j) {
                    return None;
                }
                let place = (self.new.roles[j].stage, self.new.roles[j].index);
                old_at.get(&place).copied().filter(|&k| fits(k, 0.6))
            };
            let by_mode = || {
                if !mode_changed {
                    return None;
                }
                unmatched.iter().copied().find(|&k| {
                    if budget == 0 {
                        return false;
                    }
                    budget -= 1;
                    fits(k, 0.6)
                })
            };
            if let Some(k) = by_reference().or_else(by_place).or_else(by_mode) {
                m.remove(i);
                m.insert(k, j);
            }
        }
    }

    /// Pairs roles present on one side only: handoff evidence first, then
    /// the same place, then similarity.
    fn match_unmatched(&self, m: &mut RoleMatch, referrers_of: &RoleMatch) {
        let gone: Vec<usize> = (0..self.old.roles.len())
            .filter(|&i| m.new_of(i).is_none())
            .collect();
        let came: Vec<usize> = (0..self.new.roles.len())
            .filter(|&j| m.old_of(j).is_none())
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
        self.place_mate(i) == Some(j)
    }
}
