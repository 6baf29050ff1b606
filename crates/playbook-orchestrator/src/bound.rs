//! The static worst case: how many agent calls a stage can cost.
//!
//! Computed from the playbook alone, before anything runs: every role a task
//! can reach in the stage runs once, except the roles of a review loop, which
//! run up to the loop's retry limit. Parallelism does not change the number
//! of calls, only how many run at once, so the bound also gives the longest
//! sequence of calls on one worktree.

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

/// Worst-case calls per stage. `tasks` is the number of tasks of the run
/// input, if any (a planner's fan-out is not known in advance).
pub fn stage_bounds(playbook: &Playbook, tasks: Option<u32>) -> Vec<StageBound> {
    let flow = Flow::new(playbook);
    let bounds = loop_bounds(&flow);
    let in_loop: Vec<bool> = {
        let mut v = vec![false; flow.roles.len()];
        for members in flow.loops() {
            for i in members {
                v[i] = true;
            }
        }
        v
    };
    playbook
        .stages()
        .enumerate()
        .map(|(s, (name, stage))| {
            let mut reached = vec![false; flow.roles.len()];
            let mut queue: Vec<usize> = flow.entry_of_stage(s).into_iter().collect();
            while let Some(i) = queue.pop() {
                if reached[i] || flow.roles[i].stage_index != s {
                    continue;
                }
                reached[i] = true;
                queue.extend(flow.successors(i).map(|(j, _)| j));
            }
            let per_task: u32 = (0..flow.roles.len())
                .filter(|&i| reached[i])
                .map(|i| {
                    if in_loop[i] {
                        bounds[i].unwrap_or(1).max(1)
                    } else {
                        1
                    }
                })
                .sum();
            let enabled = stage.is_enabled();
            let per_task = if enabled { per_task } else { 0 };
            let max_parallel = stage.max_parallel_worktrees().max(1);
            StageBound {
                stage: name.to_string(),
                enabled,
                per_task,
                tasks,
                total: tasks.map(|t| u64::from(per_task) * u64::from(t)),
                max_parallel,
                sequential: tasks
                    .map(|t| u64::from(per_task) * u64::from(t.div_ceil(max_parallel))),
            }
        })
        .collect()
}
