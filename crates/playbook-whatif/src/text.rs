//! Text from a model or a playbook, made safe to show: every text the
//! what-if reports and errors quote goes through [`printable`] here.
//!
//! Safe means two things. No secret: a stage named `sk-ant-api03-…` or a
//! role named `ghp_…` is a credential pasted in the wrong place, and the
//! product's rule is that no record or output shows one, so the text goes
//! through the redactor (`playbook-redact`), as `playbook preview` does.
//! And nothing a terminal acts on: control and invisible formatting
//! characters are escaped by the core's rule
//! ([`playbook_core::printable`]). Redacted first, then escaped: an escape
//! inserted into a credential would hide it from the redactor's rules.

pub use playbook_core::printable::is_unprintable;

/// `text` with every secret replaced by `[REDACTED]` and every control or
/// invisible formatting character escaped (`\u{1b}`, `\n`, `\u{202e}`):
/// the orchestrator's rule for what a person is shown.
pub use playbook_orchestrator::redact::printable;

/// Redacts a name or a sentence of a report in place: what the JSON form
/// of a report or a diff holds (JSON escapes control characters itself).
pub fn redact(text: &mut String) {
    playbook_redact::redact_string(text);
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    #[test]
    fn secrets_are_redacted_and_controls_escaped() {
        assert!(matches!(printable("worker ⇄ reviewer"), Cow::Borrowed(_)));
        let token = "ghp_1234567890abcdefghijABCDEFGHIJ123456";
        assert_eq!(
            printable(&format!("role `{token}`\u{1b}[2J")),
            "role `[REDACTED]`\\u{1b}[2J"
        );
        let mut name = format!(
            "sk-ant-api03-{}",
            "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghij"
        );
        redact(&mut name);
        assert_eq!(name, "[REDACTED]");
    }
}
