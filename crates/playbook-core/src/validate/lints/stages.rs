//! Stages: empty, disabled, their policies.

use super::*;

pub(super) fn stages(playbook: &Playbook, options: &Options, out: &mut Vec<Finding>) {
    if !playbook.workflow.values().any(|s| s.is_enabled()) {
        push(
            out,
            Code::NoEnabledStage,
            "/workflow".into(),
            "no stage is enabled, so a run does nothing".into(),
            "enable at least one stage (set `enabled: true`) or add a stage such as `build`".into(),
        );
    }
    for (name, stage) in playbook.stages() {
        let base = format!("/workflow/{}", escape_pointer(name));
        if stage.is_enabled() && stage.roles().is_empty() {
            push(
                out,
                Code::StageWithoutRoles,
                format!("{base}/roles"),
                format!("stage `{name}` is enabled but has no roles, so its tasks cannot progress"),
                format!("add a role to `{name}` (e.g. from a template) or set `enabled: false`"),
            );
        }
        let Some(parallel) = stage
            .stage_policy
            .as_ref()
            .and_then(|p| p.max_parallel_worktrees)
        else {
            continue;
        };
        let path = format!("{base}/stage_policy/max_parallel_worktrees");
        if parallel == 0 {
            push(
                out,
                Code::ParallelismZero,
                path,
                format!(
                    "stage `{name}` allows 0 parallel worktrees, so no task of it can ever run"
                ),
                "use 1 for one task at a time, or more to run tasks side by side".into(),
            );
        } else if parallel > options.max_parallel_worktrees {
            push(
                out,
                Code::ParallelismHigh,
                path,
                format!(
                    "stage `{name}` allows {parallel} parallel worktrees; more than {} rarely fits one machine or one review budget",
                    options.max_parallel_worktrees
                ),
                format!("lower it to {} or less", options.max_parallel_worktrees),
            );
        }
    }
}
