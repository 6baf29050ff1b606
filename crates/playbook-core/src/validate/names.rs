//! Display names: a playbook's `name` is shown as one line wherever
//! playbooks are listed (the library's list, `db list`, reports). A control
//! character in it (an escape sequence, a newline) would act on a terminal
//! or forge a row, and an invisible formatting character (a bidi override,
//! a zero-width space) would show text other than what is there. Ids refuse
//! them already ([`crate::ids`]); this is the same refusal for names, one
//! rule for the validator and the library.

use super::lints::push;
use crate::finding::{Code, Finding};
use crate::model::Playbook;
use crate::printable::is_unprintable;

/// Why `name` cannot be shown as a display name, naming the first offending
/// character and its position (counted in characters from 1); `None` when
/// it can.
pub fn display_name_problem(name: &str) -> Option<String> {
    let (at, c) = name.chars().enumerate().find(|&(_, c)| is_unprintable(c))?;
    let kind = if c.is_control() {
        "a control character"
    } else {
        "an invisible formatting character (bidi control, zero-width...)"
    };
    Some(format!(
        "character {} is U+{:04X}, {kind}",
        at + 1,
        u32::from(c)
    ))
}

/// How to fix a refused name.
pub const NAME_HINT: &str = "remove it: a name is shown as one line in lists and reports, where such a character would change what is shown";

pub(super) fn check(playbook: &Playbook, out: &mut Vec<Finding>) {
    if let Some(problem) = display_name_problem(&playbook.name) {
        push(
            out,
            Code::Schema,
            "/name".into(),
            // `Finding::new` shows the name escaped (`printable`).
            format!(
                "the name `{}` cannot be shown as it is: {problem}",
                playbook.name
            ),
            NAME_HINT.into(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_control_or_bidi_characters_are_refused_at_their_position() {
        assert_eq!(display_name_problem("Team A (café) ⇄ 日本"), None);
        let problem = display_name_problem("Evil\u{1b}[31mRED").unwrap();
        assert!(
            problem.starts_with("character 5 is U+001B, a control"),
            "{problem}"
        );
        let problem = display_name_problem("x\u{202e}gnp").unwrap();
        assert!(
            problem.starts_with("character 2 is U+202E, an invisible"),
            "{problem}"
        );
        assert!(display_name_problem("a\nfake row").is_some());
        assert!(display_name_problem("tab\there").is_some());
    }
}
