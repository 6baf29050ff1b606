//! Placeholders in an agent's command line: `{name}` is replaced by a
//! value, `{{` and `}}` stand for literal braces. Each argv element stays
//! one element whatever it is replaced with: nothing goes through a shell.

use std::fmt::Write as _;

/// Every placeholder an agent definition may use.
pub const PLACEHOLDERS: &[&str] = &[
    "prompt",
    "prompt_file",
    "packet_file",
    "mcp_config",
    "result_file",
    "worktree",
    "role",
    "task_id",
    "mcp_command_toml",
    "mcp_args_toml",
];

/// A piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece<'t> {
    Text(std::borrow::Cow<'t, str>),
    Slot(&'t str),
}

/// Splits a template into text and placeholders, or says what is wrong:
/// an unknown name, or an unclosed `{`.
pub(crate) fn parse(template: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        text.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix("{{") {
            text.push('{');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("}}") {
            text.push('}');
            rest = after;
        } else if let Some(after) = tail.strip_prefix('}') {
            // A lone closing brace is plain text.
            text.push('}');
            rest = after;
        } else {
            let body = &tail[1..];
            let Some(end) = body.find('}') else {
                return Err(format!(
                    "`{{` without a closing `}}` in `{template}`; write a literal brace as `{{{{`"
                ));
            };
            let name = &body[..end];
            if !PLACEHOLDERS.contains(&name) {
                let mut known = String::new();
                for p in PLACEHOLDERS {
                    let _ = write!(known, "{{{p}}} ");
                }
                return Err(format!(
                    "unknown placeholder `{{{name}}}`; the placeholders are {}(a literal brace is written `{{{{`)",
                    known
                ));
            }
            if !text.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut text).into()));
            }
            pieces.push(Piece::Slot(name));
            rest = &body[end + 1..];
        }
    }
    text.push_str(rest);
    if !text.is_empty() {
        pieces.push(Piece::Text(text.into()));
    }
    Ok(pieces)
}

/// Renders a template; `value` gives each placeholder's text. A template
/// that does not parse is returned as it is (definitions are checked when
/// loaded, so this only happens for one built by hand).
pub(crate) fn render(template: &str, value: &dyn Fn(&str) -> String) -> String {
    match parse(template) {
        Ok(pieces) => pieces
            .into_iter()
            .map(|p| match p {
                Piece::Text(t) => t.into_owned(),
                Piece::Slot(name) => value(name),
            })
            .collect(),
        Err(_) => template.to_string(),
    }
}

/// Whether a template uses any placeholder.
pub(crate) fn has_slots(template: &str) -> bool {
    parse(template).is_ok_and(|p| p.iter().any(|p| matches!(p, Piece::Slot(_))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(t: &str) -> String {
        render(t, &|name| format!("<{name}>"))
    }

    #[test]
    fn placeholders_braces_and_text_render() {
        assert_eq!(show("--x={worktree}/a"), "--x=<worktree>/a");
        assert_eq!(show("{{role}}"), "{role}");
        assert_eq!(show("a}b"), "a}b");
        assert_eq!(show(""), "");
        assert_eq!(show("{prompt}{role}"), "<prompt><role>");
    }

    #[test]
    fn unknown_or_unclosed_placeholders_are_refused_by_name() {
        assert!(parse("{nope}").unwrap_err().contains("`{nope}`"));
        assert!(parse("{worktree").unwrap_err().contains("closing"));
        assert!(parse("{}").unwrap_err().contains("`{}`"));
        assert!(parse("{ROLE}").is_err());
    }
}
