//! Text from a file or an agent, made safe to show on a terminal or in an
//! editor.
//!
//! Findings, reports and progress lines quote what authors and agents
//! wrote: role and stage names, task ids and titles, an agent's reasons,
//! keys of a model. Shown raw, an escape sequence in one of them would
//! recolour or rewrite the terminal, a carriage return or newline would
//! forge lines, and a bidi override would show text other than what is
//! there. Such text goes through [`printable`] where it enters a message:
//! a finding's message and hint ([`crate::finding::Finding::new`]), a
//! progress line, a what-if report. JSON output keeps values as they are
//! (JSON escapes them itself).

use std::borrow::Cow;

/// Characters that change how the text around them is shown without being
/// seen themselves: a `tdd` with a right-to-left override can display as
/// another name. Ids may not hold them ([`crate::ids`]).
pub fn is_invisible_format(c: char) -> bool {
    matches!(c,
        '\u{061c}'
        | '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{2069}'
        | '\u{feff}')
}

/// True for a character [`printable`] escapes: control characters (C0,
/// DEL, C1, including newline, carriage return and tab) and invisible
/// formatting characters.
pub fn is_unprintable(c: char) -> bool {
    c.is_control() || is_invisible_format(c)
}

/// The first `max_chars` characters of `text` without a word the limit
/// would split, or `None` when `text` is no longer than that. Messages
/// quoting a long value are redacted where they are printed, and a
/// credential cut short is no longer recognised as one (`sk-ant-api03-A1`
/// keeps its prefix and the first characters of the key), so a word the
/// limit would split is left out whole.
pub fn head_of_whole_words(text: &str, max_chars: usize) -> Option<&str> {
    /// A character of a word as a credential is written: a token, a key, a
    /// URL with its user and password.
    fn in_word(c: char) -> bool {
        c.is_alphanumeric() || "_-./+=:@~%".contains(c)
    }
    let (end, first_out) = text.char_indices().nth(max_chars)?;
    let head = &text[..end];
    if !in_word(first_out) {
        return Some(head);
    }
    let cut = head
        .char_indices()
        .rev()
        .find(|&(_, c)| !in_word(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    Some(&head[..cut])
}

/// `text` with every control or invisible formatting character written as
/// a Rust escape (`\u{1b}`, `\n`, `\u{202e}`), so what is printed is one
/// line that shows exactly what the text holds. Borrowed when nothing needs
/// escaping, which is the usual case.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unprintable) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else if is_invisible_format(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_a_terminal_would_act_on() {
        assert!(matches!(printable("worker ⇄ reviewer"), Cow::Borrowed(_)));
        assert_eq!(
            printable("\u{1b}[31mRED\r\nFAKE"),
            "\\u{1b}[31mRED\\r\\nFAKE"
        );
        assert_eq!(printable("a\u{202e}b\u{9b}c"), "a\\u{202e}b\\u{9b}c");
    }
}
