//! The flow graph of a playbook: roles as nodes, handoffs as edges.
//!
//! One definition of "what runs after what" serves the validator (loops,
//! reachability, upstream inputs), the orchestrator (routing) and the UI's
//! flow view, so the three can never disagree.
//!
//! **Routing rules.** A task enters every enabled stage at the stage's first
//! role. A role's explicit `handoff_to` names the roles that may take the
//! task next (in any stage). A role without `handoff_to` hands the task to the
//! next role of its stage, or, if it is the last, the task leaves the stage;
//! an explicit empty `handoff_to: []` also ends the stage for that task.

use std::collections::VecDeque;

// Seeded per process like std's hasher, several times faster on the
// short names these maps hold.
use foldhash::{HashMap, HashMapExt, HashSet};

use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{EdgeFiltered, EdgeRef};

use crate::model::{Playbook, RoleRef};

mod route;
pub use route::{OnFail, OnPass, Route};

/// Why one role follows another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeKind {
    /// Named in `handoff_to`.
    Handoff,
    /// Implied: the next role of the stage, for a role without `handoff_to`.
    Sequence,
}

/// The roles of a playbook and the edges between them.
pub struct Flow<'a> {
    pub roles: Vec<RoleRef<'a>>,
    by_name: HashMap<&'a str, usize>,
    graph: DiGraph<usize, EdgeKind>,
    enabled: Vec<bool>,
    /// Index of each stage's first role, one past the last role at the
    /// end: `playbook.roles()` lists stages in order, each one's roles
    /// together, so a stage's roles are `starts[s]..starts[s + 1]` and no
    /// question about a stage scans every role.
    starts: Vec<usize>,
}

impl<'a> Flow<'a> {
    pub fn new(playbook: &'a Playbook) -> Flow<'a> {
        let roles: Vec<RoleRef<'a>> = playbook.roles().collect();
        let mut by_name = HashMap::with_capacity(roles.len());
        for (i, r) in roles.iter().enumerate() {
            by_name.entry(r.role.name.as_str()).or_insert(i);
        }
        let enabled: Vec<bool> = playbook.workflow.values().map(|s| s.is_enabled()).collect();
        let mut starts = vec![0; enabled.len() + 1];
        for r in &roles {
            starts[r.stage_index + 1] += 1;
        }
        for s in 1..starts.len() {
            starts[s] += starts[s - 1];
        }
        let mut graph = DiGraph::with_capacity(roles.len(), roles.len() * 2);
        for i in 0..roles.len() {
            graph.add_node(i);
        }
        for (i, r) in roles.iter().enumerate() {
            match &r.role.handoff_to {
                Some(targets) => {
                    for target in targets {
                        if let Some(&j) = by_name.get(target.as_str()) {
                            graph.update_edge(
                                NodeIndex::new(i),
                                NodeIndex::new(j),
                                EdgeKind::Handoff,
                            );
                        }
                    }
                }
                None => {
                    let next = i + 1;
                    if next < roles.len() && roles[next].stage_index == r.stage_index {
                        graph.update_edge(
                            NodeIndex::new(i),
                            NodeIndex::new(next),
                            EdgeKind::Sequence,
                        );
                    }
                }
            }
        }
        Flow {
            roles,
            by_name,
            graph,
            enabled,
            starts,
        }
    }

    /// The indexes of the roles of stage `stage_index` (empty for a stage
    /// that has none or does not exist).
    fn roles_of_stage(&self, stage_index: usize) -> std::ops::Range<usize> {
        match (
            self.starts.get(stage_index),
            self.starts.get(stage_index + 1),
        ) {
            (Some(&start), Some(&end)) => start..end,
            _ => 0..0,
        }
    }

    /// Index of the (first) role with this name.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    pub fn is_stage_enabled(&self, stage_index: usize) -> bool {
        self.enabled.get(stage_index).copied().unwrap_or(false)
    }

    /// The role a task starts at when it enters the stage and nothing
    /// chooses another: the stage's first role.
    pub fn entry_of_stage(&self, stage_index: usize) -> Option<usize> {
        self.entries_of_stage(stage_index).next()
    }

    /// Every role a task can start the stage at. A task may name its role,
    /// and the role assigner may pick any role of the stage
    /// (spec/role-assignment-llm-contract.md), so every role of the stage is
    /// a possible entry, not only the first. The worst-case bound, the lints
    /// and the engine's admission all take entries from here.
    pub fn entries_of_stage(&self, stage_index: usize) -> impl Iterator<Item = usize> + '_ {
        self.roles_of_stage(stage_index)
    }

    /// Roles of the same stage a task entering at `entry` can go on to,
    /// `entry` included: everything the engine's routing can do from there
    /// (forward along handoffs or the stage's order, back along handoffs).
    pub fn reachable_in_stage(&self, entry: usize) -> Vec<usize> {
        let stage = self.roles_of_stage(self.roles[entry].stage_index);
        // One flag per role of the stage, not of the playbook: a caller
        // asking for every entry of a stage pays for that stage only.
        let mut seen = vec![false; stage.len()];
        let mut found = Vec::new();
        let mut queue = vec![entry];
        while let Some(i) = queue.pop() {
            if !stage.contains(&i) || seen[i - stage.start] {
                continue;
            }
            seen[i - stage.start] = true;
            found.push(i);
            queue.extend(self.successors(i).map(|(j, _)| j));
        }
        found
    }

    /// Roles that may follow role `i`, with why.
    pub fn successors(&self, i: usize) -> impl Iterator<Item = (usize, EdgeKind)> + '_ {
        self.graph
            .edges(NodeIndex::new(i))
            .map(|e| (e.target().index(), *e.weight()))
    }

    /// Whether each role is reached by handoffs: from the first role of
    /// every enabled stage, following edges into enabled stages only. A role
    /// that is not is still entered when a task is assigned to it directly
    /// (see [`Flow::entries_of_stage`]); the lints say so as a hint.
    pub fn reached_by_handoff(&self) -> Vec<bool> {
        let mut seen = vec![false; self.roles.len()];
        let mut queue: VecDeque<usize> = (0..self.enabled.len())
            .filter(|&s| self.enabled[s])
            .filter_map(|s| self.entry_of_stage(s))
            .collect();
        for &i in &queue {
            seen[i] = true;
        }
        while let Some(i) = queue.pop_front() {
            for (j, _) in self.successors(i) {
                if !seen[j] && self.is_stage_enabled(self.roles[j].stage_index) {
                    seen[j] = true;
                    queue.push_back(j);
                }
            }
        }
        seen
    }

    /// Every loop of the flow: sets of roles through which a task can come
    /// back, each sorted in document order, in document order.
    ///
    /// A loop is what the engine can route around: it follows a handoff
    /// only to a role of the same stage, and never back to the role that
    /// just ran (forward goes to a role that has not run before it, back to
    /// one that ran earlier). So a loop is a strongly connected set of two
    /// or more roles over the edges within a stage: a cycle through another
    /// stage, or a role handing off to itself, never runs a role twice, and
    /// counting them made retry limits leak from one stage's roles into
    /// another stage's loop.
    pub fn loops(&self) -> Vec<Vec<usize>> {
        let mut loops: Vec<Vec<usize>> = self
            .stage_components()
            .into_iter()
            .filter(|set| set.len() > 1)
            .map(|mut roles| {
                roles.sort_unstable();
                roles
            })
            .collect();
        loops.sort();
        loops
    }

    /// The strongly connected sets of roles when only the edges within a
    /// stage count (what [`Flow::reachable_in_stage`] follows), so each set
    /// lies in one stage. A set comes after every set it leads to (reverse
    /// topological order); the roles of a set are in no particular order.
    /// Iterative, linear in roles and edges.
    pub fn stage_components(&self) -> Vec<Vec<usize>> {
        let within = EdgeFiltered::from_fn(&self.graph, |e| {
            self.roles[e.source().index()].stage_index == self.roles[e.target().index()].stage_index
        });
        kosaraju_scc(&within)
            .into_iter()
            .map(|set| set.into_iter().map(|n| n.index()).collect())
            .collect()
    }

    /// Roles with a handoff path to role `i` (not `i` itself unless it is
    /// in a loop): the roles that may have run before it within its flow.
    /// Each role once, nearest first.
    pub fn ancestors(&self, i: usize) -> Vec<usize> {
        let mut found = Vec::new();
        self.walk_ancestors(i, |j| {
            found.push(j);
            false
        });
        found
    }

    /// Visits the roles of [`Flow::ancestors`] of role `i` in the same
    /// order, until `visit` returns true: a question answered by a near
    /// role (who promises this input?) does not walk the whole flow, which
    /// for every role of a long chain would be quadratic.
    pub fn walk_ancestors(&self, i: usize, mut visit: impl FnMut(usize) -> bool) {
        // A set of the roles met, not a flag per role: a walk that stops
        // early costs what it visited, not the size of the playbook.
        let mut seen = HashSet::default();
        let mut queue = VecDeque::from([i]);
        while let Some(k) = queue.pop_front() {
            for e in self
                .graph
                .edges_directed(NodeIndex::new(k), petgraph::Direction::Incoming)
            {
                let j = e.source().index();
                if seen.insert(j) {
                    if visit(j) {
                        return;
                    }
                    queue.push_back(j);
                }
            }
        }
    }

    /// For each output field, the index of the first stage with a role that
    /// promises it. A task reaching stage `s` carries every field whose first
    /// stage is before `s`.
    pub fn first_stage_promising(&self) -> HashMap<&'a str, usize> {
        // About one field per role; sized once instead of regrown.
        let mut first = HashMap::with_capacity(self.roles.len());
        for r in &self.roles {
            for field in r.role.outputs_required() {
                first
                    .entry(field.as_str())
                    .and_modify(|s: &mut usize| *s = (*s).min(r.stage_index))
                    .or_insert(r.stage_index);
            }
        }
        first
    }
}

#[cfg(test)]
mod tests;
