//! Keys the model does not know (PB004), with the nearest known key.

use super::*;

pub(super) const PLAYBOOK_FIELDS: &[&str] = &[
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
pub(super) const STAGE_FIELDS: &[&str] = &["enabled", "roles", "stage_policy"];
pub(super) const STAGE_POLICY_FIELDS: &[&str] =
    &["enter_gate", "exit_gate", "max_parallel_worktrees"];
pub(super) const ROLE_FIELDS: &[&str] = &[
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
pub(super) const OUTPUTS_FIELDS: &[&str] = &["type", "required"];
pub(super) const GATES_FIELDS: &[&str] = &["requires_user_approval", "pass_condition"];
pub(super) const RETRY_FIELDS: &[&str] = &["max_iterations", "escalate_on"];

pub(super) fn unknown_fields(playbook: &Playbook, options: &Options, out: &mut Vec<Finding>) {
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
