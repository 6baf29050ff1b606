//! Each role's contract: mode, actions, outputs, inputs, prompt placeholders, and names used twice.

use super::*;

pub(super) fn duplicate_roles(flow: &Flow, out: &mut Vec<Finding>) {
    let mut first: HashMap<&str, &RoleRef> = HashMap::with_capacity(flow.roles.len());
    for r in &flow.roles {
        match first.get(r.role.name.as_str()) {
            Some(earlier) => push(
                out,
                Code::DuplicateRole,
                format!("{}/name", r.pointer()),
                format!(
                    "role name `{}` is used twice (first in stage `{}`); handoffs to it are ambiguous",
                    r.role.name, earlier.stage
                ),
                format!("rename one of them, e.g. `{}_{}`", r.role.name, r.stage),
            ),
            None => {
                first.insert(r.role.name.as_str(), r);
            }
        }
    }
}

pub(super) fn role_contract(
    playbook: &Playbook,
    r: &RoleRef,
    mutating: &HashSet<&str>,
    out: &mut Vec<Finding>,
) {
    let role = r.role;
    // Pointers are built only for a finding: most roles have none.
    let base = || r.pointer();
    let name = &role.name;
    if role.is_legacy() {
        push(
            out,
            Code::LegacyRole,
            base(),
            format!("role `{name}` has no contract: nothing it does can be checked or enforced"),
            "add `mode`, `actions_allowed`, `outputs_contract` and `handoff_to`; `playbook template worker` shows a complete contract".into(),
        );
        return;
    }
    let Some(mode) = role.mode else {
        push(
            out,
            Code::ContractWithoutMode,
            format!("{}/mode", base()),
            format!(
                "role `{name}` has contract fields but no mode, so mode-specific checks cannot run"
            ),
            "set `mode` to planner, worker, reviewer or tester".into(),
        );
        return common_contract(playbook, r, mutating, out);
    };
    common_contract(playbook, r, mutating, out);
    let required = role.outputs_required();
    let outputs_path = || {
        if role.outputs_contract.is_some() {
            format!("{}/outputs_contract/required", base())
        } else {
            format!("{}/outputs_contract", base())
        }
    };
    match mode {
        RoleMode::Reviewer => {
            let missing: Vec<&str> = REVIEWER_INPUTS
                .into_iter()
                .filter(|input| !role.inputs_required().iter().any(|i| i == input))
                .collect();
            if !missing.is_empty() {
                push(
                    out,
                    Code::ReviewerInputs,
                    format!("{}/inputs_required", base()),
                    format!(
                        "reviewer `{name}` does not require {}: it may review the wrong change or against the wrong spec",
                        missing
                            .iter()
                            .map(|m| format!("`{m}`"))
                            .collect::<Vec<_>>()
                            .join(" and ")
                    ),
                    format!("add {} to inputs_required", missing.join(", ")),
                );
            }
            if !required.iter().any(|f| f == "verdict") {
                push(
                    out,
                    Code::ReviewerWithoutVerdict,
                    outputs_path(),
                    format!("reviewer `{name}` does not promise a `verdict`, so the review loop cannot tell pass from fail"),
                    "add `verdict` to outputs_contract.required and gate on it, e.g. `pass_condition: review_passed`".into(),
                );
            }
        }
        RoleMode::Tester => {
            if !required.iter().any(|f| f.contains("fail")) {
                push(
                    out,
                    Code::TesterWithoutFailures,
                    outputs_path(),
                    format!("tester `{name}` does not promise a failures field, so failing tests cannot stop the flow"),
                    "add `failed_cases` to outputs_contract.required and gate on it, e.g. `pass_condition: tests_green`".into(),
                );
            }
        }
        RoleMode::Planner | RoleMode::Worker => {}
    }
}

pub(super) fn common_contract(
    playbook: &Playbook,
    r: &RoleRef,
    mutating: &HashSet<&str>,
    out: &mut Vec<Finding>,
) {
    let role = r.role;
    // Pointers are built only for a finding: most roles have none.
    let base = || r.pointer();
    let name = &role.name;
    if role.actions_allowed().is_empty() {
        push(
            out,
            Code::NoActions,
            format!("{}/actions_allowed", base()),
            format!("role `{name}` may use no tools, so every tool call it makes is denied"),
            "list the tools it needs in actions_allowed, e.g. read_file".into(),
        );
    }
    if role.outputs_required().is_empty() {
        let (path, what) = if role.outputs_contract.is_some() {
            (
                format!("{}/outputs_contract/required", base()),
                "names no required fields",
            )
        } else {
            (format!("{}/outputs_contract", base()), "is missing")
        };
        push(
            out,
            Code::NoRequiredOutputs,
            path,
            format!("the outputs contract of `{name}` {what}, so any output passes as valid"),
            "list the fields the output must contain in outputs_contract.required".into(),
        );
    }
    if role.allowed_agents().is_empty() {
        push(
            out,
            Code::NoAgents,
            format!("{}/allowed_agents", base()),
            format!("no agent may play role `{name}`"),
            "list at least one agent in allowed_agents, e.g. claude or codex".into(),
        );
    }
    let risky: Vec<&str> = role
        .actions_allowed()
        .iter()
        .map(String::as_str)
        .filter(|a| mutating.contains(a))
        .collect();
    if !risky.is_empty() && !role.requires_user_approval() {
        push(
            out,
            Code::MutatingWithoutApproval,
            format!("{}/gates/requires_user_approval", base()),
            format!(
                "role `{name}` may use mutating tools ({}) without a user's approval",
                risky.join(", ")
            ),
            "set gates.requires_user_approval: true, or remove the mutating tools".into(),
        );
    }
    if let Some(policy) = &role.retry_policy {
        let path = || format!("{}/retry_policy", base());
        match policy.max_iterations {
            Some(0) => push(
                out,
                Code::ZeroIterations,
                format!("{}/max_iterations", path()),
                format!("role `{name}` allows 0 iterations, so it can never run"),
                "use 1 or more; 3 is a common review budget".into(),
            ),
            Some(_) if role.escalate_on().is_empty() => push(
                out,
                Code::NoEscalation,
                format!("{}/escalate_on", path()),
                format!("role `{name}` has a retry limit but nothing escalates when it is reached"),
                "add `escalate_on: [retry_limit]` so a person is called when the limit is hit"
                    .into(),
            ),
            _ => {}
        }
        for (k, trigger) in role.escalate_on().iter().enumerate() {
            if !ESCALATION_TRIGGERS.contains(&trigger.as_str()) {
                push(
                    out,
                    Code::UnknownEscalation,
                    format!("{}/escalate_on/{k}", path()),
                    format!(
                        "`{trigger}` is not a condition the orchestrator raises, so it never escalates"
                    ),
                    format!("use one of {}", ESCALATION_TRIGGERS.join(", ")),
                );
            }
        }
    }
    placeholders(playbook, r, out);
}

pub(super) fn mutating_actions<'a>(
    playbook: &'a Playbook,
    options: &'a Options,
) -> HashSet<&'a str> {
    match &playbook.mutating_actions {
        Some(list) => list.iter().map(String::as_str).collect(),
        None => options
            .mutating_actions
            .iter()
            .map(String::as_str)
            .collect(),
    }
}

/// Whether every task of a run has `name` from the start: the built-in run
/// inputs, the playbook's `run_inputs`, and in a legacy file what agenterm's
/// orchestrator gave every task.
pub(super) fn is_run_input(playbook: &Playbook, name: &str) -> bool {
    BUILTIN_RUN_INPUTS.contains(&name)
        || playbook.run_inputs().iter().any(|i| i == name)
        || (playbook.is_legacy() && crate::legacy::AGENTERM_RUN_INPUTS.contains(&name))
}

pub(super) fn placeholders(playbook: &Playbook, r: &RoleRef, out: &mut Vec<Finding>) {
    let Some(prompt) = &r.role.suggested_prompt else {
        return;
    };
    for name in prompt_placeholders(prompt) {
        let known = r.role.inputs_required().iter().any(|i| i == name)
            || is_run_input(playbook, name)
            || ["role", "stage"].contains(&name);
        if !known {
            push(
                out,
                Code::UnknownPlaceholder,
                format!("{}/suggested_prompt", r.pointer()),
                format!(
                    "`{{{name}}}` in the prompt of `{}` is not an input of the role, so it stays unfilled",
                    r.role.name
                ),
                format!("add `{name}` to inputs_required, or remove the placeholder"),
            );
        }
    }
}

/// The `{identifier}` placeholders of a prompt, in order, without repeats.
pub fn prompt_placeholders(prompt: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = prompt;
    while let Some(start) = rest.find('{') {
        rest = &rest[start + 1..];
        let Some(end) = rest.find('}') else { break };
        let name = &rest[..end];
        if !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !found.contains(&name)
        {
            found.push(name);
        }
    }
    found
}
