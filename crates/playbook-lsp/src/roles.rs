//! The pointers of a playbook that name roles and policies, by shape:
//! `/workflow/<stage>/roles/<i>/...`.

use playbook_core::finding::pointer_tokens;

use crate::outline::{Outline, Scalar};

/// Tokens of a role's field: `workflow`, stage, `roles`, index, field...
fn role_field(pointer: &str) -> Option<Vec<String>> {
    let tokens = pointer_tokens(pointer);
    let is_role = tokens.len() >= 5
        && tokens[0] == "workflow"
        && tokens[2] == "roles"
        && tokens[3].parse::<usize>().is_ok();
    is_role.then_some(tokens)
}

/// `/workflow/<stage>/roles/<i>/handoff_to/<j>`, or the field itself.
pub fn is_handoff_entry(pointer: &str) -> bool {
    role_field(pointer).is_some_and(|t| t[4] == "handoff_to" && t.len() <= 6)
}

/// A gate field, whose value may be a policy key.
pub fn is_gate(pointer: &str) -> bool {
    let tokens = pointer_tokens(pointer);
    let stage_gate = tokens.len() == 4
        && tokens[0] == "workflow"
        && tokens[2] == "stage_policy"
        && matches!(tokens[3].as_str(), "enter_gate" | "exit_gate");
    let role_gate = role_field(pointer)
        .is_some_and(|t| t.len() == 6 && t[4] == "gates" && t[5] == "pass_condition");
    stage_gate || role_gate
}

/// An entry of a role's `retry_policy.escalate_on`, or the field itself.
pub fn is_escalation(pointer: &str) -> bool {
    role_field(pointer).is_some_and(|t| {
        t.len() >= 6 && t.len() <= 7 && t[4] == "retry_policy" && t[5] == "escalate_on"
    })
}

/// The `name` values of every role.
pub fn names(outline: &Outline) -> impl Iterator<Item = &Scalar> {
    outline.scalars.iter().filter(|s| {
        !s.is_key && role_field(&s.pointer).is_some_and(|t| t.len() == 5 && t[4] == "name")
    })
}

/// The keys of the playbook's own `policies`.
pub fn policy_keys(outline: &Outline) -> impl Iterator<Item = &Scalar> {
    outline.scalars.iter().filter(|s| {
        s.is_key && {
            let t = pointer_tokens(&s.pointer);
            t.len() == 2 && t[0] == "policies"
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert!(is_handoff_entry("/workflow/b/roles/0/handoff_to/2"));
        assert!(is_handoff_entry("/workflow/b/roles/0/handoff_to"));
        assert!(!is_handoff_entry("/workflow/b/roles/x/handoff_to/2"));
        assert!(is_gate("/workflow/b/stage_policy/exit_gate"));
        assert!(is_gate("/workflow/b/roles/1/gates/pass_condition"));
        assert!(!is_gate("/workflow/b/roles/1/gates"));
        assert!(is_escalation(
            "/workflow/b/roles/1/retry_policy/escalate_on/0"
        ));
    }
}
