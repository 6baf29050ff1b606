//! The static worst case: how many agent calls a stage can cost.
//!
//! Computed from the playbook alone, before anything runs, from the same
//! routing model the engine follows (`playbook_core::flow`): a task may enter
//! a stage at any of its roles (explicit role or role assignment), so the
//! bound is the costliest entry. From an entry, every role the task can reach
//! in the stage runs at most once, except the roles of a review loop, which
//! run at most the loop's retry limit each (the engine refuses the round
//! after it). Parallelism does not change the number of calls, only how many
//! run at once. The longest sequence of calls on one worktree is not a
//! share of the total: a free worktree takes the next waiting task, so while
//! the other `max_parallel − 1` each hold one slow task, one worktree can run
//! every other task back to back. All arithmetic saturates: a bound of
//! `u32::MAX` means "more than any run can make" (a run stops at its step
//! budget first).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use playbook_core::Playbook;
use playbook_core::flow::Flow;

/// The worst-case agent calls of one stage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct StageBound {
    pub stage: String,
    pub enabled: bool,
    /// Most agent calls one task can cost in this stage.
    pub per_task: u32,
    /// Tasks that enter the stage, when known before the run.
    pub tasks: Option<u32>,
    /// `per_task × tasks`, when the number of tasks is known.
    pub total: Option<u64>,
    /// Calls that can run at the same time (`max_parallel_worktrees`).
    pub max_parallel: u32,
    /// Longest chain of calls on one worktree:
    /// `per_task × (tasks − max_parallel + 1)` (one task per worktree when
    /// there are no more tasks than worktrees).
    pub sequential: Option<u64>,
}

/// Retry limit of each role's loop, if the role is in one: the smallest
/// `max_iterations` set on any role of the loop.
pub fn loop_bounds(flow: &Flow) -> Vec<Option<u32>> {
    let mut bounds = vec![None; flow.roles.len()];
    for members in flow.loops() {
        let bound = members
            .iter()
            .filter_map(|&i| flow.roles[i].role.max_iterations())
            .min();
        for &i in &members {
            bounds[i] = bound;
        }
    }
    bounds
}

/// Most calls each role can cost one task: its loop's retry limit, or 1.
/// A loop without a limit (an invalid playbook, PB302) costs "unbounded".
fn role_costs(flow: &Flow) -> Vec<u32> {
    let bounds = loop_bounds(flow);
    let mut costs = vec![1u32; flow.roles.len()];
    for members in flow.loops() {
        for i in members {
            costs[i] = bounds[i].unwrap_or(u32::MAX).max(1);
        }
    }
    costs
}

/// Most agent calls one task can cost in each stage: the costliest entry,
/// by stage index. `costs` is [`role_costs`] of the same flow.
///
/// Every role is an entry, and the roles reachable from an entry include
/// everything reachable from a role it leads to; costs are at least 1, so
/// the costliest entry is a role of a set (strongly connected, within the
/// stage) that no other set of the stage leads to. Only those are walked,
/// the costliest-looking first, and a walk is skipped once no cost it can
/// find beats the best so far. The result is that of taking every entry
/// (`Flow::reachable_in_stage` of each), without its cost: that was
/// quadratic in the roles of a stage (23 s for a chain of 20 000 in a debug
/// build; now linear on chains and trees). Many such roles that share what
/// they reach along several paths (diamonds) would still cost a walk each:
/// thousands of entries into one long chain took minutes. So the walks
/// share a budget of a few times the flow's size; once it is spent, every
/// remaining entry counts its ceiling, which is at least its exact cost:
/// the bound stays a bound (it may then be above the exact worst case) and
/// its cost stays linear.
fn per_task_bounds(flow: &Flow, costs: &[u32]) -> Vec<u32> {
    let stages = flow
        .roles
        .iter()
        .map(|r| r.stage_index + 1)
        .max()
        .unwrap_or(0);
    let sets = flow.stage_components();
    let mut set_of = vec![0usize; flow.roles.len()];
    for (k, members) in sets.iter().enumerate() {
        for &i in members {
            set_of[i] = k;
        }
    }
    // `ceiling[k]`: set k's own cost plus its successor sets' ceilings. A
    // role reached along two paths counts twice, so this is at least the
    // exact cost and equal to it where the sets form a tree. Sets come
    // after the sets they lead to, so successors are done first.
    let mut ceiling = vec![0u32; sets.len()];
    let mut entered = vec![false; sets.len()];
    // Which set last counted successor `k` (a set's edges may reach the
    // same successor set several times; it counts once).
    let mut counted_by = vec![usize::MAX; sets.len()];
    for (k, members) in sets.iter().enumerate() {
        let mut sum = members
            .iter()
            .fold(0u32, |sum, &i| sum.saturating_add(costs[i]));
        for &i in members {
            for (j, _) in flow.successors(i) {
                let next = set_of[j];
                if next == k || flow.roles[j].stage_index != flow.roles[i].stage_index {
                    continue;
                }
                entered[next] = true;
                if counted_by[next] != k {
                    counted_by[next] = k;
                    sum = sum.saturating_add(ceiling[next]);
                }
            }
        }
        ceiling[k] = sum;
    }
    let mut heads: Vec<usize> = (0..sets.len()).filter(|&k| !entered[k]).collect();
    heads.sort_by_key(|&k| std::cmp::Reverse(ceiling[k]));
    let mut best = vec![0u32; stages];
    let edges: usize = (0..flow.roles.len())
        .map(|i| flow.successors(i).count())
        .sum();
    let mut budget = WALK_BUDGET_PER_ITEM
        .saturating_mul(flow.roles.len() + edges)
        .max(MIN_WALK_BUDGET);
    // One visit mark per role, reused by every walk: walk `w` marks `w + 1`.
    let mut visited = vec![0usize; flow.roles.len()];
    let mut stack = Vec::new();
    for (walk, &k) in heads.iter().enumerate() {
        let start = sets[k][0];
        let stage = flow.roles[start].stage_index;
        if ceiling[k] <= best[stage] {
            continue;
        }
        if budget == 0 {
            best[stage] = best[stage].max(ceiling[k]);
            continue;
        }
        let mark = walk + 1;
        let mut sum = 0u32;
        visited[start] = mark;
        stack.push(start);
        while let Some(i) = stack.pop() {
            sum = sum.saturating_add(costs[i]);
            budget = budget.saturating_sub(1);
            for (j, _) in flow.successors(i) {
                budget = budget.saturating_sub(1);
                if visited[j] != mark && flow.roles[j].stage_index == stage {
                    visited[j] = mark;
                    stack.push(j);
                }
            }
        }
        best[stage] = best[stage].max(sum);
    }
    best
}

/// Most tasks one worktree can run one after another: the others each hold
/// one task for as long as it takes, and this one takes every task that
/// waits (the engine gives a freed worktree the next waiting task).
fn longest_queue(tasks: u32, max_parallel: u32) -> u64 {
    match tasks {
        0 => 0,
        t => u64::from(t.saturating_sub(max_parallel.max(1))) + 1,
    }
}

/// Steps of exact walks allowed per role and handoff of the flow, and at
/// least in all: far more than any playbook a person writes needs, so
/// their bounds stay exact.
const WALK_BUDGET_PER_ITEM: usize = 32;
const MIN_WALK_BUDGET: usize = 1 << 16;

/// Worst-case calls per stage. `tasks` is the number of tasks of the run
/// input, if any (a planner's fan-out is not known in advance).
pub fn stage_bounds(playbook: &Playbook, tasks: Option<u32>) -> Vec<StageBound> {
    let flow = Flow::new(playbook);
    let costs = role_costs(&flow);
    let costliest = per_task_bounds(&flow, &costs);
    playbook
        .stages()
        .enumerate()
        .map(|(s, (name, stage))| {
            let enabled = stage.is_enabled();
            let per_task = if enabled {
                costliest.get(s).copied().unwrap_or(0)
            } else {
                0
            };
            let max_parallel = stage.max_parallel_worktrees().max(1);
            StageBound {
                stage: name.to_string(),
                enabled,
                per_task,
                tasks,
                total: tasks.map(|t| u64::from(per_task).saturating_mul(u64::from(t))),
                max_parallel,
                sequential: tasks
                    .map(|t| u64::from(per_task).saturating_mul(longest_queue(t, max_parallel))),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;

    /// The definition: every role of the stage is an entry, each costs what
    /// the roles it can reach in the stage cost (what the bound computed
    /// before it walked only the entries that matter).
    fn by_every_entry(flow: &Flow, costs: &[u32], s: usize) -> u32 {
        flow.entries_of_stage(s)
            .map(|entry| {
                flow.reachable_in_stage(entry)
                    .into_iter()
                    .fold(0u32, |sum, i| sum.saturating_add(costs[i]))
            })
            .max()
            .unwrap_or(0)
    }

    /// Stages of roles with random handoffs (dangling ones included) and
    /// retry limits, some loops left without one (cost "unbounded").
    fn playbooks() -> impl Strategy<Value = Playbook> {
        let role = (
            prop::option::weighted(0.8, prop::collection::vec(0usize..16, 0..4)),
            prop::option::weighted(0.7, 1u32..6),
        );
        prop::collection::vec(prop::collection::vec(role, 0..7), 1..4).prop_map(|stages| {
            let count: usize = stages.iter().map(Vec::len).sum();
            let mut workflow = serde_json::Map::new();
            let mut index = 0;
            for (s, roles) in stages.iter().enumerate() {
                let roles: Vec<Value> = roles
                    .iter()
                    .map(|(handoff, max_iterations)| {
                        let mut role = json!({ "name": format!("r{index}") });
                        if let Some(targets) = handoff {
                            let names: Vec<String> = targets
                                .iter()
                                .map(|t| format!("r{}", t % (count + 1)))
                                .collect();
                            role["handoff_to"] = json!(names);
                        }
                        if let Some(n) = max_iterations {
                            role["retry_policy"] = json!({ "max_iterations": n });
                        }
                        index += 1;
                        role
                    })
                    .collect();
                workflow.insert(format!("s{s}"), json!({ "roles": roles }));
            }
            serde_json::from_value(json!({ "id": "p", "name": "p", "workflow": workflow }))
                .expect("a playbook")
        })
    }

    /// Many entries into two shared roles that both lead into one long
    /// chain: an exact walk from every entry is quadratic, so the budget
    /// runs out and the remaining entries count their ceilings, which are
    /// never below the exact cost.
    #[test]
    fn many_entries_into_one_long_chain_keep_a_bound_at_linear_cost() {
        let (entries, chain) = (3_000usize, 3_000usize);
        let mut roles = Vec::new();
        for e in 0..entries {
            roles.push(json!({ "name": format!("e{e}"), "handoff_to": ["a", "b"] }));
        }
        roles.push(json!({ "name": "a", "handoff_to": ["c0"] }));
        roles.push(json!({ "name": "b", "handoff_to": ["c0"] }));
        for c in 0..chain {
            let next: Vec<String> = (c + 1 < chain)
                .then(|| format!("c{}", c + 1))
                .into_iter()
                .collect();
            roles.push(json!({ "name": format!("c{c}"), "handoff_to": next }));
        }
        let p: Playbook = serde_json::from_value(
            json!({ "id": "p", "name": "p", "workflow": { "s": { "roles": roles } } }),
        )
        .unwrap();
        let flow = Flow::new(&p);
        let costs = role_costs(&flow);
        let walks = entries * (chain + 2);
        assert!(
            walks > WALK_BUDGET_PER_ITEM * 2 * flow.roles.len(),
            "the budget runs out"
        );
        let found = per_task_bounds(&flow, &costs)[0];
        // Exact: an entry, `a`, `b` and the chain.
        let exact = u32::try_from(1 + 2 + chain).unwrap();
        assert!(found >= exact, "{found} < {exact}");
        assert!(
            found <= exact + u32::try_from(chain).unwrap() + 1,
            "{found}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

        #[test]
        fn the_costliest_entry_is_found_without_walking_every_entry(p in playbooks()) {
            let flow = Flow::new(&p);
            let costs = role_costs(&flow);
            let found = per_task_bounds(&flow, &costs);
            for s in 0..p.workflow.len() {
                prop_assert_eq!(
                    found.get(s).copied().unwrap_or(0),
                    by_every_entry(&flow, &costs, s),
                    "stage {}", s
                );
            }
        }
    }
}
