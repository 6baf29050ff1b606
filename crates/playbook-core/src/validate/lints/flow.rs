//! The flow between roles: handoffs, loops, reachability, and where each input comes from.

use super::*;

pub(super) fn handoffs(flow: &Flow, i: usize, out: &mut Vec<Finding>) {
    let r = &flow.roles[i];
    for (k, target) in r.role.handoff_to().iter().enumerate() {
        let path = || format!("{}/handoff_to/{k}", r.pointer());
        match flow.index_of(target) {
            None => {
                // Not the role itself: a role never hands a task to itself
                // (PB306), so its own name is no correction.
                let closest = flow
                    .roles
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, o)| {
                        (
                            strsim::levenshtein(&o.role.name, target),
                            o.role.name.as_str(),
                        )
                    })
                    .min();
                let hint = match closest {
                    Some((d, name)) if d <= 3 => format!("did you mean `{name}`?"),
                    _ => format!(
                        "hand off to one of: {}",
                        flow.roles
                            .iter()
                            .enumerate()
                            .filter(|&(j, _)| j != i)
                            .map(|(_, o)| o.role.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                push(
                    out,
                    Code::UnknownHandoff,
                    path(),
                    format!(
                        "`{}` hands off to `{target}`, which is not a role of this playbook",
                        r.role.name
                    ),
                    hint,
                );
            }
            // The engine routes forward to a role that has not run before
            // this one and back to one that ran earlier: never to the role
            // that just ran, so this handoff neither retries nor loops.
            Some(j) if j == i => push(
                out,
                Code::HandoffToItself,
                path(),
                format!(
                    "`{}` hands off to itself, which the orchestrator never does: a task goes forward to a role that has not run yet, or back to one that ran before",
                    r.role.name
                ),
                "remove the handoff; for another round, let a reviewer hand the task back"
                    .to_string(),
            ),
            Some(j) if !flow.is_stage_enabled(flow.roles[j].stage_index) => push(
                out,
                Code::HandoffToDisabled,
                path(),
                format!(
                    "`{}` hands off to `{target}`, whose stage `{}` is disabled",
                    r.role.name, flow.roles[j].stage
                ),
                format!(
                    "enable stage `{}` or hand off to another role",
                    flow.roles[j].stage
                ),
            ),
            Some(_) => {}
        }
    }
}

pub(super) fn loops(flow: &Flow, out: &mut Vec<Finding>) {
    for members in flow.loops() {
        if members
            .iter()
            .any(|&i| flow.roles[i].role.max_iterations().is_some())
        {
            continue;
        }
        let names: Vec<&str> = members
            .iter()
            .map(|&i| flow.roles[i].role.name.as_str())
            .collect();
        // Point at the role that judges the work when there is one: that is
        // where a retry limit belongs.
        let at = members
            .iter()
            .copied()
            .find(|&i| {
                matches!(
                    flow.roles[i].role.mode,
                    Some(RoleMode::Reviewer | RoleMode::Tester)
                )
            })
            .unwrap_or(members[0]);
        let cycle = names
            .iter()
            .chain(names.first())
            .copied()
            .collect::<Vec<_>>()
            .join(" → ");
        push(
            out,
            Code::UnboundedLoop,
            format!("{}/retry_policy/max_iterations", flow.roles[at].pointer()),
            format!(
                "the loop {cycle} has no retry limit: a task that keeps failing cycles forever"
            ),
            format!(
                "set retry_policy.max_iterations on `{}` (e.g. 3) and escalate_on: [retry_limit]",
                flow.roles[at].role.name
            ),
        );
    }
}

pub(super) fn reachability(flow: &Flow, out: &mut Vec<Finding>) {
    // Every role of an enabled stage can run: a task may name it or the role
    // assigner may pick it (`Flow::entries_of_stage`). What is worth a hint
    // is a role that only such a direct assignment reaches: no handoff and
    // no stage order leads to it, which is usually a forgotten `handoff_to`.
    let by_handoff = flow.reached_by_handoff();
    for (i, r) in flow.roles.iter().enumerate() {
        if by_handoff[i] || !flow.is_stage_enabled(r.stage_index) {
            continue;
        }
        push(
            out,
            Code::UnreachableRole,
            r.pointer(),
            format!(
                "role `{}` runs only when a task is assigned to it directly: no handoff leads here from the first role of stage `{}`",
                r.role.name, r.stage
            ),
            format!(
                "add `{}` to the handoff_to of a role that runs before it, or remove it if no task should start there",
                r.role.name
            ),
        );
    }
}

pub(super) fn inputs(
    playbook: &Playbook,
    flow: &Flow,
    first_stage: &HashMap<&str, usize>,
    out: &mut Vec<Finding>,
) {
    for (i, r) in flow.roles.iter().enumerate() {
        let from_outside = |input: &str| {
            is_run_input(playbook, input)
                || first_stage.get(input).is_some_and(|&s| s < r.stage_index)
        };
        let pending: Vec<(usize, &String)> = r
            .role
            .inputs_required()
            .iter()
            .enumerate()
            .filter(|(_, input)| !from_outside(input))
            .collect();
        if pending.is_empty() {
            continue;
        }
        // Only inputs not covered by earlier stages need the graph walk,
        // and only those some role promises (`first_stage` holds every
        // promised field): another is not produced, whatever the graph.
        // The walk stops at the nearest roles that promise them all, so a
        // chain of roles each taking its predecessor's output is linear,
        // not a walk back to its start from every role.
        let mut produced = vec![false; pending.len()];
        let mut open: Vec<bool> = pending
            .iter()
            .map(|(_, input)| first_stage.contains_key(input.as_str()))
            .collect();
        let mut left = open.iter().filter(|o| **o).count();
        if left > 0 {
            flow.walk_ancestors(i, |j| {
                let promised = flow.roles[j].role.outputs_required();
                for (k, (_, input)) in pending.iter().enumerate() {
                    if open[k] && promised.contains(input) {
                        open[k] = false;
                        produced[k] = true;
                        left -= 1;
                    }
                }
                left == 0
            });
        }
        for ((k, input), produced) in pending.into_iter().zip(produced) {
            if !produced {
                push(
                    out,
                    Code::InputNotProduced,
                    format!("{}/inputs_required/{k}", r.pointer()),
                    format!(
                        "`{}` requires `{input}`, but no earlier role promises it and it is not a run input",
                        r.role.name
                    ),
                    format!(
                        "add `{input}` to outputs_contract.required of a role before `{}`, or to run_inputs",
                        r.role.name
                    ),
                );
            }
        }
    }
}
