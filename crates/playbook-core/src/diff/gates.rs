//! How much a gate holds back, as far as its text tells, so the diff can say
//! when a gate was weakened: removed, replaced by one that always holds, or
//! taken from a person and given to a machine check. Whether one expression
//! is weaker than another is not decidable from the text, so a changed
//! expression is not judged.

use serde_json::Map;

use crate::gate::{self, Gate, GateKind, Verdict};
use crate::model::Playbook;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Strength {
    /// No gate.
    Absent,
    /// Holds whatever happens: `always`, `true`, or an expression that reads
    /// nothing and is true.
    Always,
    /// An expression the engine checks on the outputs.
    Checked,
    /// A person decides.
    Manual,
    /// Does not compile: it cannot be judged.
    Unknown,
}

impl Strength {
    /// Whether a gate of this strength still guards the flow.
    pub(super) fn guards(self) -> bool {
        !matches!(self, Strength::Absent | Strength::Always)
    }
}

/// The strength of gate `text` in `playbook` (its policies, its format), or
/// with the built-in policies only when there is no playbook (a role
/// template compared on its own).
pub(super) fn of_gate(text: Option<&str>, playbook: Option<&Playbook>) -> Strength {
    let Some(text) = text else {
        return Strength::Absent;
    };
    let compiled = match playbook {
        Some(p) => gate::compile_in(p, text),
        None => gate::compile(text, |_| None),
    };
    compiled.map_or(Strength::Unknown, |g| of_compiled(&g))
}

/// The strength of policy `key` defined as `definition`.
pub(super) fn of_policy(key: &str, definition: &str) -> Strength {
    gate::compile(key, |k| (k == key).then_some(definition))
        .map_or(Strength::Unknown, |g| of_compiled(&g))
}

/// The strength of built-in policy `key`, if it is one.
pub(super) fn of_builtin(key: &str) -> Option<Strength> {
    gate::BUILTIN_POLICIES
        .iter()
        .any(|p| p.key == key)
        .then(|| of_gate(Some(key), None))
}

/// Whether `definition` of policy `key` says what the built-in of that key
/// says (its expression, or the key itself), so removing it changes nothing.
pub(super) fn same_as_builtin(key: &str, definition: &str) -> bool {
    let definition = definition.trim();
    gate::BUILTIN_POLICIES
        .iter()
        .find(|p| p.key == key)
        .is_some_and(|p| definition == key || p.expression == Some(definition))
}

/// Whether going from a gate of strength `before` to one of `after` lets
/// through what was held back.
pub(super) fn weakened(before: Strength, after: Strength) -> bool {
    use Strength::*;
    match (before, after) {
        (Absent | Always, _) => false,
        (_, Absent | Always) => true,
        (Manual, Checked) => true,
        _ => false,
    }
}

fn of_compiled(gate: &Gate) -> Strength {
    let GateKind::Expression { expression, .. } = &gate.kind else {
        return Strength::Manual;
    };
    if always_true(gate, expression) {
        Strength::Always
    } else {
        Strength::Checked
    }
}

/// Whether the expression reads no variable and evaluates to true. An
/// expression with comprehension macros is not evaluated: over constant
/// lists nested in one another their cost is exponential in the text.
fn always_true(gate: &Gate, expression: &str) -> bool {
    if gate.reads().next().is_some() {
        return false;
    }
    let compact: String = expression.chars().filter(|c| !c.is_whitespace()).collect();
    let macros = [".all(", ".exists(", ".exists_one(", ".map(", ".filter("];
    if macros.iter().any(|m| compact.contains(m)) {
        return false;
    }
    gate.evaluate(&Map::new()) == Some(Verdict::Pass)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_that_always_hold_are_told_apart_from_checks_and_people() {
        for (text, strength) in [
            ("always", Strength::Always),
            ("true", Strength::Always),
            (" (true) ", Strength::Always),
            ("1 == 1", Strength::Always),
            ("false", Strength::Checked),
            ("review_passed", Strength::Checked),
            ("verdict == \"pass\" || true", Strength::Checked),
            ("user_approved", Strength::Manual),
            ("the spec is signed off", Strength::Manual),
            ("[1, 2].all(x, x > 0)", Strength::Checked),
            ("unknown_policy_key", Strength::Unknown),
        ] {
            assert_eq!(of_gate(Some(text), None), strength, "{text}");
        }
        assert_eq!(of_policy("review_passed", "true"), Strength::Always);
        assert_eq!(of_policy("signed", "user_approved"), Strength::Manual);
        assert_eq!(of_builtin("review_passed"), Some(Strength::Checked));
        assert_eq!(of_builtin("mine"), None);
    }
}
