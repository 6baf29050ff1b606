//! One subagent file: YAML front matter between `---` lines, then the body
//! (the subagent's system prompt).
//!
//! The front matter goes through the playbook YAML reader
//! (`document::parse_document`), which refuses duplicate keys, alias bombs
//! and deep nesting with a location. Many published subagent files write
//! `description:` as one long unquoted line holding `Examples: <example>...`
//! or continues it on unindented lines (`Context:`, `user: "..."`) — which
//! strict YAML refuses but Claude Code reads as text — so a
//! file that breaks only that way is read leniently ([`recover`]), with a
//! note naming each key read as text.

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
        let mut e = ImportError::new(
            file,
            Some(1),
            "no YAML front matter: a subagent file starts with a `---` line",
            "start the file with `---`, then `name:` and `description:` lines, then `---` and the prompt",
        );
        e.not_a_subagent = true;
        return Err(e);
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
    // A file saved with Windows line ends keeps them in the prompt, where
    // each `\r` would become an escape in the playbook's YAML: the prompt
    // is text, so its lines end as the playbook's do.
    let body = lines[end + 1..]
        .concat()
        .replace("\r\n", "\n")
        .trim()
        .to_string();
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

/// Parses the front matter; on a YAML error, retries with [`recover`], as
/// Claude Code reads such files. The first error is the one reported when
/// recovery fails too.
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
    if let Some(recovered) = recover(front) {
        return Ok(recovered);
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

/// Front matter keys Claude Code documents for subagents; a line starting
/// with one of them (or an `x_` key) at column 0 starts a new key when the
/// front matter is read leniently.
const KNOWN_KEYS: &[&str] = &[
    "name",
    "description",
    "tools",
    "disallowedTools",
    "model",
    "color",
    "permissionMode",
    "maxTurns",
    "skills",
    "mcpServers",
    "hooks",
    "memory",
    "background",
    "isolation",
    "effort",
    "initialPrompt",
];

/// Reads front matter that strict YAML refuses the way published subagent
/// files need: each documented key at column 0 starts a block, and every
/// other line (`Context: ...`, `user: "..."` of an unindented example)
/// continues the block before it. A block that is valid YAML on its own
/// keeps its YAML value; any other is read as text. `None` when the text
/// does not start with a key, a key repeats or a quoted or bracketed value
/// does not parse: then it is not a subagent file with a sloppy
/// description but a broken one.
fn recover(front: &str) -> Option<(Value, Vec<String>)> {
    let mut blocks: Vec<(String, Vec<&str>)> = Vec::new();
    for line in front.lines() {
        let key = line.split_once(':').and_then(|(k, rest)| {
            let known = KNOWN_KEYS.contains(&k) || k.starts_with("x_");
            let simple = k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            (known && simple && (rest.is_empty() || rest.starts_with([' ', '\t']))).then_some(k)
        });
        match (key, blocks.last_mut()) {
            (Some(k), _) => {
                if blocks.iter().any(|(seen, _)| seen == k) {
                    return None;
                }
                blocks.push((k.to_string(), vec![line]));
            }
            (None, Some((_, lines))) => lines.push(line),
            (None, None) if line.trim().is_empty() || line.trim_start().starts_with('#') => {}
            (None, None) => return None,
        }
    }
    let mut map = serde_json::Map::new();
    let mut lenient = Vec::new();
    for (key, lines) in blocks {
        let block = lines.join("\n");
        let parsed = match parse_document(&block, Format::Yaml) {
            Ok(Value::Object(m)) if m.contains_key(&key) => Some(m),
            _ => None,
        };
        let value = match parsed {
            // A block may hold undocumented keys after its own (`category:`
            // under `tools:`); they parse together and are all kept.
            Some(mut m) => {
                let own = m.shift_remove(&key).unwrap_or(Value::Null);
                for (k, v) in m {
                    if map.contains_key(&k) || k == key {
                        return None;
                    }
                    map.insert(k, v);
                }
                own
            }
            None => {
                let first = lines[0][key.len() + 1..].trim();
                // A flow collection, quoted or block scalar that does not
                // parse is broken, not merely unquoted.
                if first != "*"
                    && first
                        .starts_with(['[', '{', '"', '\'', '|', '>', '&', '*', '!', '%', '@', '`'])
                {
                    return None;
                }
                lenient.push(key.clone());
                let rest: Vec<&str> = lines[1..].iter().map(|l| l.trim_end()).collect();
                let text = std::iter::once(first)
                    .chain(rest)
                    .collect::<Vec<_>>()
                    .join("\n");
                Value::String(text.trim().to_string())
            }
        };
        map.insert(key, value);
    }
    (!lenient.is_empty()).then_some((Value::Object(map), lenient))
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
    fn a_body_with_windows_line_ends_reads_as_plain_lines() {
        let a = parse_agent(
            "a.md",
            "---\r\nname: a\r\ndescription: d\r\n---\r\nOne.\r\nTwo.\r\n",
        )
        .unwrap();
        assert_eq!(a.body, "One.\nTwo.");
    }

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
    fn unindented_example_lines_continue_the_description() {
        let a = parse_agent(
            "c.md",
            "---\nname: c\ndescription: Use when asked. Examples:\n\n<example>\nContext: a PR\nuser: \"review it\"\nassistant: \"I'll use c\"\n</example>\nmodel: sonnet\ntools: [\"Read\"]\n---\nbody",
        )
        .unwrap();
        let d = a.front["description"].as_str().unwrap();
        assert!(
            d.starts_with("Use when asked. Examples:") && d.contains("user: \"review it\""),
            "{d}"
        );
        assert_eq!(a.front["model"], "sonnet");
        assert_eq!(a.front["tools"], serde_json::json!(["Read"]));
        assert_eq!(a.lenient_keys, ["description"]);
        // `tools: *` (every tool) is text, not a YAML alias.
        let a = parse_agent("s.md", "---\nname: s\ntools: *\n---\n").unwrap();
        assert_eq!(a.front["tools"], "*");
        // A repeated key is not recovered from.
        assert!(parse_agent("d.md", "---\nname: a\ndescription: x: y\nname: b\n---\n").is_err());
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
