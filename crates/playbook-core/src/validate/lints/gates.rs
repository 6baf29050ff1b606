//! Gates: their expressions, the fields they read, approval policies.

use super::*;

pub(super) fn policies(playbook: &Playbook, out: &mut Vec<Finding>) {
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
pub(super) fn is_declared(playbook: &Playbook, gate: &gate::Gate) -> bool {
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
pub(super) fn did_you_mean<'k>(word: &str, known: &[&'k str]) -> Option<&'k str> {
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
pub(super) fn check_gate(
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

pub(super) fn role_gate(playbook: &Playbook, r: &RoleRef, out: &mut Vec<Finding>) {
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

pub(super) fn stage_gates(
    playbook: &Playbook,
    first_stage: &HashMap<&str, usize>,
    out: &mut Vec<Finding>,
) {
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
