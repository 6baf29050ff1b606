//! JSON indented with tabs. The span editor measures and writes
//! indentation in spaces; a JSON text whose every indented line is
//! indented by tabs alone is edited with [`SPACES_PER_TAB`] spaces in
//! place of each leading tab, and the new lines it writes get tabs back,
//! so one file never mixes both.
//!
//! Value-preserving both ways: JSON strings hold no raw line break or tab,
//! so a line's leading whitespace is always between tokens. YAML is never
//! touched (tabs may not indent it, and inside a block scalar they are
//! text).

/// Spaces standing for one tab while the text is edited: the step of
/// one level, so the editor's own unit (the least indentation) is one tab.
const SPACES_PER_TAB: usize = 2;

/// The text with each leading tab as spaces, when it is indented by tabs
/// only (at least one line starts with a tab, none with a space).
pub(super) fn spaces_for_tabs(text: &str) -> Option<String> {
    let mut tabbed = false;
    for line in text.split('\n') {
        let indent = leading(line);
        if indent.contains(' ') {
            return None;
        }
        tabbed |= !indent.is_empty();
    }
    tabbed.then(|| map_lines(text, |indent| " ".repeat(indent.len() * SPACES_PER_TAB)))
}

/// The edited text with leading spaces as tabs again (an odd space left
/// over stays a space).
pub(super) fn tabs_for_spaces(text: &str) -> String {
    map_lines(text, |indent| {
        let spaces = indent.chars().filter(|&c| c == ' ').count();
        let tabs = indent.chars().filter(|&c| c == '\t').count() + spaces / SPACES_PER_TAB;
        format!(
            "{}{}",
            "\t".repeat(tabs),
            " ".repeat(spaces % SPACES_PER_TAB)
        )
    })
}

/// The leading spaces and tabs of a line.
fn leading(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn map_lines(text: &str, indent: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let lead = leading(line);
        out.push_str(&indent(lead));
        out.push_str(&line[lead.len()..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_texts_indented_by_tabs_alone_are_converted_and_back() {
        let text = "{\r\n\t\"a\": [\r\n\t\t1\r\n\t]\r\n}\r\n";
        let spaced = spaces_for_tabs(text).expect("indented by tabs");
        assert_eq!(spaced, "{\r\n  \"a\": [\r\n    1\r\n  ]\r\n}\r\n");
        assert_eq!(tabs_for_spaces(&spaced), text);
        assert_eq!(spaces_for_tabs("{\n  \"a\": 1\n}"), None);
        assert_eq!(spaces_for_tabs("{\n\t \"a\": 1\n}"), None);
        assert_eq!(spaces_for_tabs("{\"a\": 1}"), None);
    }
}
