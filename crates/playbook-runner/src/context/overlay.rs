//! A role overlay, `agents/<ROLE>.md`: Markdown for the agent to read,
//! with optional YAML front matter the run enforces.
//!
//! ```markdown
//! ---
//! forbidden_actions: [git_commit, run_command]
//! allowed_actions: [read_file, list_files, search_code]
//! ---
//! # Reviewer
//! ...
//! ```
//!
//! Both lists can only narrow the role's tools (see
//! [`super::permissions::narrow`]). The front matter is parsed by the core's
//! document reader (duplicate keys, depth, aliases and size are refused
//! there); an unknown key is an error rather than ignored, because a
//! misspelled `forbiden_actions` silently ignored would widen what the role
//! may do compared with what its author meant.

use playbook_core::document::{Format, parse_value};
use serde_json::Value;

use super::ContextError;

/// The enforced part of a role overlay.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Overlay {
    /// Tools the role must not call, whatever else allows them.
    pub forbidden_actions: Vec<String>,
    /// When present, the role may call at most these tools.
    pub allowed_actions: Option<Vec<String>>,
}

/// Front matter keys the overlay knows besides the two lists; they carry
/// no rule. Keys starting with `x_` are extensions and are ignored too.
const DESCRIPTIVE_KEYS: &[&str] = &["role", "title", "description"];

impl Overlay {
    /// Reads the front matter of an overlay's text; `path` names it in
    /// errors. No front matter: nothing is enforced beyond the text.
    pub fn parse(path: &str, text: &str) -> Result<Overlay, ContextError> {
        let Some((yaml, first_line)) = front_matter(path, text)? else {
            return Ok(Overlay::default());
        };
        if yaml.trim().is_empty() {
            return Ok(Overlay::default());
        }
        let value = parse_value(yaml, Format::Yaml).map_err(|f| {
            let at = f
                .location
                .map(|l| format!(" line {}", l.line + first_line))
                .unwrap_or_default();
            ContextError::MalformedOverlay {
                path: path.to_string(),
                message: format!("front matter{at}: {}", f.message),
            }
        })?;
        let bad = |message: String| ContextError::MalformedOverlay {
            path: path.to_string(),
            message,
        };
        let Value::Object(map) = value else {
            return Err(bad(
                "the front matter must be a mapping such as `forbidden_actions: [git_commit]`"
                    .into(),
            ));
        };
        let mut overlay = Overlay::default();
        for (key, value) in map {
            match key.as_str() {
                "forbidden_actions" => overlay.forbidden_actions = names(&key, value, &bad)?,
                "allowed_actions" => overlay.allowed_actions = Some(names(&key, value, &bad)?),
                k if DESCRIPTIVE_KEYS.contains(&k) || k.starts_with("x_") => {}
                other => {
                    return Err(bad(format!(
                        "unknown front matter key `{other}`; the overlay knows forbidden_actions, allowed_actions, {} and x_* extensions",
                        DESCRIPTIVE_KEYS.join(", ")
                    )));
                }
            }
        }
        Ok(overlay)
    }
}

fn names(
    key: &str,
    value: Value,
    bad: &dyn Fn(String) -> ContextError,
) -> Result<Vec<String>, ContextError> {
    let Value::Array(items) = value else {
        return Err(bad(format!("`{key}` must be a list of tool names")));
    };
    items
        .into_iter()
        .map(|item| match item {
            Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            other => Err(bad(format!(
                "`{key}` holds `{other}`; each entry must be a tool name"
            ))),
        })
        .collect()
}

/// The YAML between a leading `---` line and the next `---` (or `...`)
/// line, with the 1-based line number of its first line. None when the text
/// does not start with front matter.
fn front_matter<'t>(path: &str, text: &'t str) -> Result<Option<(&'t str, usize)>, ContextError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    match lines.next() {
        Some(first) if first.trim_end() == "---" => {}
        _ => return Ok(None),
    }
    let start = text.find('\n').map_or(text.len(), |i| i + 1);
    let mut offset = start;
    for line in lines {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed == "..." {
            return Ok(Some((&text[start..offset], 2)));
        }
        offset += line.len();
    }
    Err(ContextError::MalformedOverlay {
        path: path.to_string(),
        message:
            "the front matter opened by `---` on line 1 is never closed; end it with a `---` line"
                .into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overlay_without_front_matter_enforces_nothing() {
        assert_eq!(
            Overlay::parse("agents/A.md", "# A\n---\n").unwrap(),
            Overlay::default()
        );
        assert_eq!(
            Overlay::parse("agents/A.md", "").unwrap(),
            Overlay::default()
        );
    }

    #[test]
    fn front_matter_lists_are_read() {
        let o = Overlay::parse(
            "agents/A.md",
            "---\r\nforbidden_actions: [git_commit]\r\nallowed_actions:\r\n  - read_file\r\n---\r\n# A",
        )
        .unwrap();
        assert_eq!(o.forbidden_actions, ["git_commit"]);
        assert_eq!(
            o.allowed_actions.as_deref(),
            Some(&["read_file".to_string()][..])
        );
    }

    #[test]
    fn a_misspelled_key_an_unclosed_block_or_a_bad_list_is_an_error_naming_the_file() {
        for text in [
            "---\nforbiden_actions: [x]\n---\n",
            "---\nforbidden_actions: [x]\n",
            "---\nforbidden_actions: git_push\n---\n",
            "---\nforbidden_actions: [1]\n---\n",
            "---\n- a\n---\n",
            "---\nforbidden_actions: [a]\nforbidden_actions: [b]\n---\n",
            "---\nforbidden_actions: [a\n---\n",
        ] {
            let err = Overlay::parse("agents/A.md", text).unwrap_err().to_string();
            assert!(err.contains("agents/A.md"), "{text:?}: {err}");
        }
    }
}
