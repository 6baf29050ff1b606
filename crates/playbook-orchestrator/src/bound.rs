//! The static worst case: how many agent calls a stage can cost.
//!
//! Computed from the playbook alone, before anything runs, from the same
//! routing model the engine follows (`playbook_core::flow`): a task may enter
//! a stage at any of its roles (explicit role or role assignment), so the
//! bound is the costliest entry. From an entry, every role the task can reach
//! in the stage runs at most once, except the roles of a review loop, which
//! run at most the loop's retry limit each (the engine refuses the round
//! after it). Parallelism does not change the number of calls, only how many
//! run at once, so the bound also gives the longest sequence of calls on one
//! worktree. All arithmetic saturates: a bound of `u32::MAX` means "more than
//! any run can make" (a run stops at its step budget first).

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
    /// Longest chain of calls: `per_task × ⌈tasks / max_parallel⌉`.
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

/// Most agent calls one task can cost in stage `s`: the costliest entry.
/// `costs` is [`role_costs`] of the same flow, computed once per playbook.
fn per_task_bound(flow: &Flow, costs: &[u32], s: usize) -> u32 {
    flow.entries_of_stage(s)
        .map(|entry| {
            flow.reachable_in_stage(entry)
                .into_iter()
                .fold(0u32, |sum, i| sum.saturating_add(costs[i]))
        })
        .max()
        .unwrap_or(0)
}

/// Worst-case calls per stage. `tasks` is the number of tasks of the run
/// input, if any (a planner's fan-out is not known in advance).
pub fn stage_bounds(playbook: &Playbook, tasks: Option<u32>) -> Vec<StageBound> {
    let flow = Flow::new(playbook);
    let costs = role_costs(&flow);
    playbook
        .stages()
        .enumerate()
        .map(|(s, (name, stage))| {
            let enabled = stage.is_enabled();
            let per_task = if enabled {
                per_task_bound(&flow, &costs, s)
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
                sequential: tasks.map(|t| {
                    u64::from(per_task).saturating_mul(u64::from(t.div_ceil(max_parallel)))
                }),
            }
        })
        .collect()
}
