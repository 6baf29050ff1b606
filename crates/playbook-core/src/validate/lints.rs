//! The semantic lints. Each function checks one concern over the typed
//! playbook and pushes findings; `docs/lints.md` documents every code.

use foldhash::{HashMap, HashMapExt, HashSet};

use super::Options;
use crate::finding::{Code, Finding, Severity, escape_pointer};
use crate::flow::Flow;
use crate::gate::{self, GateError, ROLE_STATE_VARIABLES, STAGE_STATE_VARIABLES};
use crate::model::{Extra, Playbook, RoleMode, RoleRef};

/// Inputs every run provides, whatever the playbook declares.
pub const BUILTIN_RUN_INPUTS: &[&str] = &[
    "goal",
    "task",
    "task_id",
    "title",
    "acceptance_criteria",
    "repo",
    "base_ref",
];

/// Conditions the orchestrator raises that `escalate_on` may name.
pub const ESCALATION_TRIGGERS: &[&str] = &[
    "retry_limit",
    "gate_failed",
    "contract_violation",
    "tool_blocked",
    "approval_denied",
    "needs_input",
    "agent_error",
    "timeout",
];

/// Inputs a reviewer needs to review the right change against the right spec.
const REVIEWER_INPUTS: [&str; 2] = ["spec_path", "commit_sha"];

pub(super) fn run(playbook: &Playbook, options: &Options) -> Vec<Finding> {
    let flow = Flow::new(playbook);
    let mutating = mutating_actions(playbook, options);
    let mut out = Vec::new();
    super::limits::check(playbook, &mut out);
    if let Some(problem) = crate::ids::id_problem(&playbook.id) {
        push(
            &mut out,
            Code::Schema,
            "/id".into(),
            format!(
                "the id `{}` cannot be used: {problem}",
                playbook.id.escape_debug()
            ),
            ID_HINT.into(),
        );
    }
    super::names::check(playbook, &mut out);
    unknown_fields(playbook, options, &mut out);
    policies(playbook, &mut out);
    stages(playbook, options, &mut out);
    duplicate_roles(&flow, &mut out);
    for (i, role) in flow.roles.iter().enumerate() {
        role_contract(playbook, role, &mutating, &mut out);
        handoffs(&flow, i, &mut out);
        role_gate(playbook, role, &mut out);
    }
    loops(&flow, &mut out);
    reachability(&flow, &mut out);
    // For each output field, the first stage promising it: what inputs and
    // stage gates may take from earlier stages.
    let first_stage = flow.first_stage_promising();
    inputs(playbook, &flow, &first_stage, &mut out);
    stage_gates(playbook, &first_stage, &mut out);

    // A playbook written before contracts existed gets hints, never warnings:
    // nothing in it is wrong by the standards it was written to.
    if flow.roles.iter().all(|r| r.role.is_legacy()) {
        for finding in &mut out {
            if finding.severity == Severity::Warning && finding.code != Code::UnknownField {
                finding.severity = Severity::Info;
            }
        }
    }
    out
}

/// How to fix an id the store would refuse.
pub(crate) const ID_HINT: &str = "use letters, digits, `-`, `_` or `.`: the id names the playbook in the library and its exported file";

pub(super) fn push(
    out: &mut Vec<Finding>,
    code: Code,
    path: String,
    message: String,
    hint: String,
) {
    out.push(Finding::new(code, path, message, hint));
}

// ---------------------------------------------------------------- fields

const PLAYBOOK_FIELDS: &[&str] = &[
    "$schema",
    "schema_version",
    "id",
    "name",
    "description",
    "phases",
    "policies",
    "run_inputs",
    "mutating_actions",
    "workflow",
];
const STAGE_FIELDS: &[&str] = &["enabled", "roles", "stage_policy"];
const STAGE_POLICY_FIELDS: &[&str] = &["enter_gate", "exit_gate", "max_parallel_worktrees"];
const ROLE_FIELDS: &[&str] = &[
    "name",
    "responsibilities",
    "allowed_agents",
    "suggested_prompt",
    "mode",
    "inputs_required",
    "outputs_contract",
    "actions_allowed",
    "gates",
    "handoff_to",
    "retry_policy",
    "completion_criteria",
];
const OUTPUTS_FIELDS: &[&str] = &["type", "required"];
const GATES_FIELDS: &[&str] = &["requires_user_approval", "pass_condition"];
const RETRY_FIELDS: &[&str] = &["max_iterations", "escalate_on"];

fn unknown_fields(playbook: &Playbook, options: &Options, out: &mut Vec<Finding>) {
    // The pointer of an object is built only when it has an unknown key:
    // nearly every object has none, and a large playbook has thousands.
    let mut check = |extra: &Extra, base: &dyn Fn() -> String, known: &[&str]| {
        let mut unknown = extra.keys().filter(|k| !k.starts_with("x_")).peekable();
        if unknown.peek().is_none() {
            return;
        }
        let base = base();
        for key in unknown {
            let closest = known
                .iter()
                .map(|k| (strsim::levenshtein(k, key), *k))
                .filter(|(d, _)| *d <= 3)
                .min();
            let hint = match closest {
                Some((_, name)) => format!(
                    "did you mean `{name}`? Otherwise rename it to `x_{key}` to mark it as an extension"
                ),
                None => format!("rename it to `x_{key}` to mark it as an extension, or remove it"),
            };
            let mut finding = Finding::new(
                Code::UnknownField,
                format!("{base}/{}", escape_pointer(key)),
                format!("unknown field `{key}`"),
                hint,
            );
            if options.strict {
                finding.severity = Severity::Error;
            }
            out.push(finding);
        }
    };
    check(&playbook.extra, &String::new, PLAYBOOK_FIELDS);
    for (name, stage) in playbook.stages() {
        let base = || format!("/workflow/{}", escape_pointer(name));
        check(&stage.extra, &base, STAGE_FIELDS);
        if let Some(policy) = &stage.stage_policy {
            check(
                &policy.extra,
                &|| format!("{}/stage_policy", base()),
                STAGE_POLICY_FIELDS,
            );
        }
    }
    for r in playbook.roles() {
        let base = || r.pointer();
        check(&r.role.extra, &base, ROLE_FIELDS);
        if let Some(c) = &r.role.outputs_contract {
            check(
                &c.extra,
                &|| format!("{}/outputs_contract", base()),
                OUTPUTS_FIELDS,
            );
        }
        if let Some(g) = &r.role.gates {
            check(&g.extra, &|| format!("{}/gates", base()), GATES_FIELDS);
        }
        if let Some(p) = &r.role.retry_policy {
            check(
                &p.extra,
                &|| format!("{}/retry_policy", base()),
                RETRY_FIELDS,
            );
        }
    }
}

// ---------------------------------------------------------------- stages

fn stages(playbook: &Playbook, options: &Options, out: &mut Vec<Finding>) {
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

// ---------------------------------------------------------------- roles

fn duplicate_roles(flow: &Flow, out: &mut Vec<Finding>) {
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

fn role_contract(
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

fn common_contract(
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

fn mutating_actions<'a>(playbook: &'a Playbook, options: &'a Options) -> HashSet<&'a str> {
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
fn is_run_input(playbook: &Playbook, name: &str) -> bool {
    BUILTIN_RUN_INPUTS.contains(&name)
        || playbook.run_inputs().iter().any(|i| i == name)
        || (playbook.is_legacy() && crate::legacy::AGENTERM_RUN_INPUTS.contains(&name))
}

fn placeholders(playbook: &Playbook, r: &RoleRef, out: &mut Vec<Finding>) {
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

// ---------------------------------------------------------------- flow

fn handoffs(flow: &Flow, i: usize, out: &mut Vec<Finding>) {
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

fn loops(flow: &Flow, out: &mut Vec<Finding>) {
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

fn reachability(flow: &Flow, out: &mut Vec<Finding>) {
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

fn inputs(
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

// ---------------------------------------------------------------- gates

fn policies(playbook: &Playbook, out: &mut Vec<Finding>) {
    for (key, expression) in playbook.policies() {
        if let Err(message) = gate::compile_expression(expression) {
            push(
                out,
                Code::PolicySyntax,
                format!("/policies/{}", escape_pointer(key)),
                format!("policy `{key}` does not compile: {message}"),
                "write a CEL expression such as `verdict == \"pass\"`".into(),
            );
        }
    }
}

/// Whether a gate's policy is one the playbook defines or a built-in.
fn is_declared(playbook: &Playbook, gate: &gate::Gate) -> bool {
    gate.policy.as_deref().is_some_and(|key| {
        playbook
            .policies
            .as_ref()
            .is_some_and(|p| p.contains_key(key))
            || gate::BUILTIN_POLICIES.iter().any(|b| b.key == key)
    })
}

/// The known name closest to `word`, when it is close enough to be a typo
/// (`issue` for `issues`), for a "did you mean" hint.
fn did_you_mean<'k>(word: &str, known: &[&'k str]) -> Option<&'k str> {
    let limit = (word.chars().count() / 3).clamp(1, 3);
    known
        .iter()
        .filter(|k| **k != word)
        .map(|k| (strsim::levenshtein(k, word), *k))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, k)| k)
}

/// What a gate may read: a test per name, and the names themselves for
/// "did you mean" hints. The names are listed only when a gate reads
/// something unavailable: listing (and sorting) every field promised so far
/// for each stage gate was most of the lints' time on a large playbook.
type Readable<'r, 'n> = (&'r dyn Fn(&str) -> bool, &'r dyn Fn() -> Vec<&'n str>);

/// Compiles one gate and checks what it reads against `available`; `known`
/// are the names it may read, for "did you mean" hints. The gate's pointer
/// and the words naming its owner are built only for a finding.
fn check_gate(
    playbook: &Playbook,
    text: &str,
    (path, owner): (&dyn Fn() -> String, &dyn Fn() -> String),
    (available, known): Readable<'_, '_>,
    out: &mut Vec<Finding>,
) {
    match gate::compile_in(playbook, text) {
        Ok(g) if g.is_manual() && playbook.is_legacy() && !is_declared(playbook, &g) => push(
            out,
            Code::ManualGate,
            path(),
            format!(
                "the gate of {} is a named condition (`{}`) of a legacy (agenterm) file: a person confirms it in every run",
                owner(),
                g.source.trim()
            ),
            "run `playbook migrate` to make it a policy: an expression over output fields where they allow one, else an explicit manual gate".into(),
        ),
        Ok(g) if g.is_manual() => push(
            out,
            Code::ManualGate,
            path(),
            format!("the gate of {} is not machine-checkable, so a person approves it in every run", owner()),
            "write a CEL expression over output fields, e.g. `failed_cases == 0`, to automate it".into(),
        ),
        Ok(g) => {
            let mut names = None;
            for field in g.reads().filter(|f| !available(f)) {
                let via = g
                    .policy
                    .as_ref()
                    .map(|p| format!(" (through policy `{p}`)"))
                    .unwrap_or_default();
                // A near miss is far likelier a typo than a missing field.
                let hint = match did_you_mean(field, names.get_or_insert_with(known)) {
                    Some(close) => format!(
                        "did you mean `{close}`? Otherwise add `{field}` to outputs_contract.required, or gate on a promised field"
                    ),
                    None => format!(
                        "add `{field}` to outputs_contract.required, or gate on a promised field"
                    ),
                };
                push(
                    out,
                    Code::GateUnpromisedField,
                    path(),
                    format!("the gate of {} reads `{field}`{via}, which its outputs contract does not promise", owner()),
                    hint,
                );
            }
        }
        Err(GateError::UnknownPolicy { key }) => {
            let known: Vec<&str> = playbook
                .policies()
                .map(|(k, _)| k)
                .chain(gate::BUILTIN_POLICIES.iter().map(|p| p.key))
                .collect();
            push(
                out,
                Code::UnknownPolicy,
                path(),
                format!("the gate of {} names policy `{key}`, which is neither built in nor defined in policies", owner()),
                format!(
                    "define it under `policies:` or use one of {}; to test a boolean output write `{key} == true`",
                    known.join(", ")
                ),
            );
        }
        Err(GateError::Syntax { message, .. }) => push(
            out,
            Code::GateSyntax,
            path(),
            format!("the gate of {} does not compile: {message}", owner()),
            "write a CEL expression such as `verdict == \"pass\"`, a policy key, or plain words for a manual gate".into(),
        ),
        // The broken policy itself is reported once, at `/policies/<key>`.
        Err(GateError::PolicySyntax { .. }) => {}
    }
}

fn role_gate(playbook: &Playbook, r: &RoleRef, out: &mut Vec<Finding>) {
    let Some(text) = r.role.pass_condition() else {
        return;
    };
    let available = |field: &str| {
        r.role.outputs_required().iter().any(|f| f == field)
            || ROLE_STATE_VARIABLES.contains(&field)
    };
    let known = || -> Vec<&str> {
        r.role
            .outputs_required()
            .iter()
            .map(String::as_str)
            .chain(ROLE_STATE_VARIABLES.iter().copied())
            .collect()
    };
    check_gate(
        playbook,
        text,
        (&|| format!("{}/gates/pass_condition", r.pointer()), &|| {
            format!("role `{}`", r.role.name)
        }),
        (&available, &known),
        out,
    );
}

fn stage_gates(playbook: &Playbook, first_stage: &HashMap<&str, usize>, out: &mut Vec<Finding>) {
    for (s, (name, stage)) in playbook.stages().enumerate() {
        // An enter gate sees what earlier stages promise; an exit gate also
        // what this stage's roles promise.
        let readable = |through: usize| {
            move |field: &str| {
                first_stage.get(field).is_some_and(|&first| first < through)
                    || STAGE_STATE_VARIABLES.contains(&field)
                    || is_run_input(playbook, field)
            }
        };
        let known = |through: usize| {
            move || -> Vec<&str> {
                let mut names: Vec<&str> = first_stage
                    .iter()
                    .filter(|(_, first)| **first < through)
                    .map(|(field, _)| *field)
                    .chain(STAGE_STATE_VARIABLES.iter().copied())
                    .collect();
                // Sorted, so a tie between two near misses is decided alike in every run.
                names.sort_unstable();
                names
            }
        };
        let base = || format!("/workflow/{}/stage_policy", escape_pointer(name));
        if let Some(text) = stage.enter_gate() {
            check_gate(
                playbook,
                text,
                (&|| format!("{}/enter_gate", base()), &|| {
                    format!("stage `{name}` (enter)")
                }),
                (&readable(s), &known(s)),
                out,
            );
        }
        if let Some(text) = stage.exit_gate() {
            check_gate(
                playbook,
                text,
                (&|| format!("{}/exit_gate", base()), &|| {
                    format!("stage `{name}` (exit)")
                }),
                (&readable(s + 1), &known(s + 1)),
                out,
            );
        }
    }
}
