//! One subagent file: YAML front matter between `---` lines, then the body
//! (the subagent's system prompt).
//!
//! The front matter goes through the playbook YAML reader
//! (`document::parse_document`), which refuses duplicate keys, alias bombs
//! and deep nesting with a location. Many published subagent files write
//! `description:` as one long unquoted line holding `Examples: <example>...`
//! — a `: ` that strict YAML refuses but Claude Code reads as text — so a
//! top-level value that breaks only that way is read as text, with a note.

use indexmap::IndexMap;
use serde_json::Value;

use super::ImportError;
use crate::document::{Format, parse_document};

/// Largest subagent file read. Real ones are a few KB; the body becomes a
/// prompt, and prompts of this size are already a mistake.
pub const MAX_AGENT_FILE_BYTES: usize = 256 * 1024;

/// A parsed subagent file.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentFile {
    /// The file's name as given by the caller (for messages).
    pub file: String,
    /// The front matter, keys in file order.
    pub front: IndexMap<String, Value>,
    /// Line (1-based) of each front matter key, for messages.
    pub lines: IndexMap<String, usize>,
    /// The body: the subagent's system prompt, trimmed.
    pub body: String,
    /// Keys whose value was read as text although it is not valid YAML.
    pub lenient_keys: Vec<String>,
}

/// Parses a subagent file's text. `file` only names it in errors.
pub fn parse_agent(file: &str, text: &str) -> Result<AgentFile, ImportError> {
    if text.len() > MAX_AGENT_FILE_BYTES {
        return Err(ImportError::new(
            file,
            None,
            format!(
                "the file is {} bytes; a subagent file is limited to {MAX_AGENT_FILE_BYTES} bytes",
                text.len()
            ),
            "shorten the prompt or move reference material into files the agent reads",
        ));
    }
    if let Some(at) = text.find('\0') {
        let line = text[..at].matches('\n').count() + 1;
        return Err(ImportError::new(
            file,
            Some(line),
            "the file contains a NUL byte; it is binary, not a Markdown subagent file",
            "import only the `.md` subagent files of `.claude/agents`",
        ));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let is_fence = |line: &str| line.trim_end() == "---";
    if !lines.first().is_some_and(|l| is_fence(l)) {
        return Err(ImportError::new(
            file,
            Some(1),
            "no YAML front matter: a subagent file starts with a `---` line",
            "start the file with `---`, then `name:` and `description:` lines, then `---` and the prompt",
        ));
    }
    let Some(end) = lines
        .iter()
        .skip(1)
        .position(|l| is_fence(l))
        .map(|i| i + 1)
    else {
        return Err(ImportError::new(
            file,
            Some(1),
            "the front matter opened on line 1 is never closed",
            "add a `---` line after the last front matter key",
        ));
    };
    let front_text: String = lines[1..end].concat();
    let body = lines[end + 1..].concat().trim().to_string();
    let (value, lenient_keys) = parse_front(file, &front_text)?;
    let Value::Object(map) = value else {
        return Err(ImportError::new(
            file,
            Some(2),
            "the front matter is not a set of `key: value` lines",
            "write the front matter as `name: ...`, `description: ...`, one key per line",
        ));
    };
    let lines = key_lines(&front_text);
    Ok(AgentFile {
        file: file.to_string(),
        front: map.into_iter().collect(),
        lines,
        body,
        lenient_keys,
    })
}

/// Parses the front matter; on a YAML error, retries once with the
/// unquoted top-level values that contain `: ` quoted, as Claude Code reads
/// them. The first error is the one reported if the retry fails too.
fn parse_front(file: &str, front: &str) -> Result<(Value, Vec<String>), ImportError> {
    if front.trim().is_empty() {
        return Err(ImportError::new(
            file,
            Some(2),
            "the front matter is empty",
            "add at least `name:` and `description:` between the `---` lines",
        ));
    }
    let first = match parse_document(front, Format::Yaml) {
        Ok(value) => return Ok((value, Vec::new())),
        Err(findings) => findings,
    };
    let (quoted, keys) = quote_plain_values(front);
    if !keys.is_empty()
        && let Ok(value) = parse_document(&quoted, Format::Yaml)
    {
        return Ok((value, keys));
    }
    let finding = first.into_iter().next();
    // Front matter line 1 is file line 2 (after the opening `---`).
    let line = finding
        .as_ref()
        .and_then(|f| f.location)
        .map(|l| l.line + 1);
    let message = finding
        .map(|f| f.message)
        .unwrap_or_else(|| "the front matter is not valid YAML".into());
    Err(ImportError::new(
        file,
        line,
        format!("front matter is not valid YAML: {message}"),
        "quote values that contain `: ` or start with `[`, `{`, `*`, `&` or `!`",
    ))
}

/// Top-level `key: value` lines whose plain value holds `: ` or ` #`,
/// rewritten as single-quoted strings. Returns the text and the keys changed.
fn quote_plain_values(front: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(front.len() + 64);
    let mut keys = Vec::new();
    for line in front.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let rewritten = top_level_pair(content).and_then(|(key, value)| {
            let plain = !value.starts_with(['\'', '"', '[', '{', '|', '>', '&', '*', '!']);
            (plain && (value.contains(": ") || value.contains(" #"))).then(|| {
                keys.push(key.to_string());
                format!("{key}: '{}'\n", value.replace('\'', "''"))
            })
        });
        match rewritten {
            Some(r) => out.push_str(&r),
            None => out.push_str(line),
        }
    }
    (out, keys)
}

/// `(key, value)` of a top-level line `key: value` with a simple key.
fn top_level_pair(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let simple = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let value = value.strip_prefix(' ')?.trim();
    (simple && !value.is_empty()).then_some((key, value))
}

/// The file line of each top-level key of the front matter.
fn key_lines(front: &str) -> IndexMap<String, usize> {
    let mut lines = IndexMap::new();
    for (i, line) in front.lines().enumerate() {
        if let Some((key, _)) = line.split_once(':')
            && !key.is_empty()
            && !key.starts_with([' ', '\t', '#', '-'])
        {
            lines.entry(key.to_string()).or_insert(i + 2);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_front_matter_and_body() {
        let a = parse_agent(
            "a.md",
            "---\r\nname: a\r\ndescription: does a\r\ntools: Read, Grep\r\n---\r\n\r\nYou are A.\r\n",
        )
        .unwrap();
        assert_eq!(a.front["name"], "a");
        assert_eq!(a.front["tools"], "Read, Grep");
        assert_eq!(a.body, "You are A.");
        assert_eq!(a.lines["tools"], 4);
    }

    #[test]
    fn unquoted_colons_are_text_as_claude_code_reads_them() {
        let a = parse_agent(
            "r.md",
            "---\nname: r\ndescription: Use this agent when asked. Examples: <example>Context: it's late</example>\n---\nbody",
        )
        .unwrap();
        assert!(
            a.front["description"]
                .as_str()
                .unwrap()
                .contains("Context: it's late")
        );
        assert_eq!(a.lenient_keys, ["description"]);
    }

    #[test]
    fn refusals_name_the_line() {
        let e = parse_agent("x.md", "no front matter").unwrap_err();
        assert_eq!(e.line, Some(1));
        let e = parse_agent("x.md", "---\nname: a\n").unwrap_err();
        assert!(e.message.contains("never closed"), "{e}");
        let e = parse_agent("x.md", "---\nname: a\nname: b\n---\n").unwrap_err();
        assert_eq!(e.line, Some(3), "{e}");
        let e = parse_agent("x.md", "---\nname: [a\n---\n").unwrap_err();
        assert!(e.to_string().starts_with("x.md:"), "{e}");
        let e = parse_agent("x.md", "---\n- a\n- b\n---\n").unwrap_err();
        assert!(e.message.contains("key: value"), "{e}");
        let e = parse_agent("x.md", &"a".repeat(MAX_AGENT_FILE_BYTES + 1)).unwrap_err();
        assert!(e.message.contains("limited"), "{e}");
    }
}
