//! Largest values the count and limit fields accept, checked where the
//! value enters: the published schema carries them as `maximum` (so any
//! validator refuses them at the field's pointer), and [`check`] repeats
//! them on typed playbooks built in code, which skip the schema.
//!
//! The engine multiplies these (tasks × roles × iterations); with them
//! bounded, its worst-case arithmetic cannot overflow.

use crate::finding::{Code, Finding};
use crate::model::Playbook;

/// Most rounds of one review loop. Three is a common budget; a hundred
/// rounds of agent review is already far past any useful loop.
pub const MAX_ITERATIONS: u32 = 100;

/// Most tasks of one stage running at once, each in its own worktree.
pub const MAX_PARALLEL_WORKTREES: u32 = 256;

/// PB002 at each limit field above its maximum.
pub(super) fn check(playbook: &Playbook, out: &mut Vec<Finding>) {
    for (stage_name, stage) in &playbook.workflow {
        let base = format!("/workflow/{}", crate::finding::escape_pointer(stage_name));
        if let Some(parallel) = stage
            .stage_policy
            .as_ref()
            .and_then(|p| p.max_parallel_worktrees)
            && parallel > MAX_PARALLEL_WORKTREES
        {
            out.push(above(
                format!("{base}/stage_policy/max_parallel_worktrees"),
                "max_parallel_worktrees",
                parallel,
                MAX_PARALLEL_WORKTREES,
            ));
        }
        for (index, role) in stage.roles.iter().flatten().enumerate() {
            if let Some(iterations) = role.retry_policy.as_ref().and_then(|p| p.max_iterations)
                && iterations > MAX_ITERATIONS
            {
                out.push(above(
                    format!("{base}/roles/{index}/retry_policy/max_iterations"),
                    "max_iterations",
                    iterations,
                    MAX_ITERATIONS,
                ));
            }
        }
    }
}

fn above(path: String, field: &str, value: u32, max: u32) -> Finding {
    Finding::new(
        Code::Schema,
        path,
        format!("{field} is {value}; the largest value accepted is {max}"),
        format!("use a value of at most {max}"),
    )
}
