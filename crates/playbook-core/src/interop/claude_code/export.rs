//! A playbook → one subagent file per role, and the `PreToolUse` hook entry
//! of `.claude/settings.json` that runs `playbook gate`.
//!
//! Subagent file format: <https://code.claude.com/docs/en/sub-agents>.
//! Hook configuration: <https://code.claude.com/docs/en/hooks#configuration>
//! (`hooks.PreToolUse[]` of `{matcher, hooks: [{type: "command", command}]}`;
//! `*` matches every tool).

use serde_json::{Map, Value, json};

use super::import::EXTENSION_KEY;
use super::tools::{export_tools, is_claude_tool_name};
use crate::model::{Playbook, RoleRef};

/// Front matter key under which export keeps the role verbatim, so that a
/// re-import gives back the same role. Claude Code reads only the keys it
/// knows and ignores this one.
pub const EXPORT_KEY: &str = "x_playbook";

/// What marks a hook command as the one export wrote (replaced, not
/// duplicated, by the next export).
pub const GATE_MARKER: &str = " gate --playbook ";

/// Where an export writes its subagent files, relative to the project.
pub const AGENTS_DIR: &str = ".claude/agents/";

/// Where an export merges its gate hook, relative to the project.
pub const SETTINGS_FILE: &str = ".claude/settings.json";

/// First line of the playbook copy the app writes beside the subagents
/// (`.claude/playbooks/<id>.yaml`, the file its gate hook reads): how a later
/// export knows the file is its own and may replace it ([`replaceable`]).
pub const PLAYBOOK_COPY_HEADER: &str = "# Written by Playbook Studio's Claude Code export for `playbook gate`; the next export replaces this file.";

/// Keys of the extension that export does not copy into the front matter:
/// the ones the role itself decides.
const NOT_COPIED: &[&str] = &["name", "description", "tools", "tools_unmapped", EXPORT_KEY];

/// One subagent file to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedAgent {
    /// File name inside `.claude/agents/`.
    pub file_name: String,
    /// The whole text: front matter and body.
    pub text: String,
    /// What a person should know (tools with no Claude Code counterpart...).
    pub notes: Vec<String>,
}

/// A file name for a role: its name with anything but letters, digits,
/// `-`, `_` and `.` replaced, never hidden, never a path.
pub fn agent_file_name(role_name: &str) -> String {
    let mut stem: String = role_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .take(100)
        .collect();
    stem = stem.trim_start_matches(['.', '-']).to_string();
    if stem.is_empty() {
        stem = "role".into();
    }
    format!("{stem}.md")
}

/// The subagent file of one role. `body` is the role's rendered contract
/// prompt (what `playbook prompt` prints); `position` its place in the
/// playbook's role order, kept so that re-import restores the order.
pub fn export_role(
    playbook: &Playbook,
    role: &RoleRef<'_>,
    position: usize,
    body: &str,
) -> ExportedAgent {
    let r = role.role;
    let mut notes = Vec::new();
    let mut front = Map::new();
    front.insert("name".into(), json!(r.name));
    let description = r
        .responsibilities
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| {
            format!(
                "Role `{}` of stage `{}` in playbook `{}`.",
                r.name, role.stage, playbook.id
            )
        });
    front.insert("description".into(), json!(description));
    let extension = r.extra.get(EXTENSION_KEY).and_then(Value::as_object);
    match &r.actions_allowed {
        Some(actions) => {
            let mut tools: Vec<String> = Vec::new();
            fn push(t: &str, tools: &mut Vec<String>) {
                if !tools.iter().any(|x| x == t) {
                    tools.push(t.to_string());
                }
            }
            for action in actions {
                if is_claude_tool_name(action) {
                    push(action, &mut tools);
                    continue;
                }
                let mut any = false;
                for t in export_tools(action) {
                    push(t, &mut tools);
                    any = true;
                }
                if !any {
                    notes.push(format!(
                        "role `{}`: Claude Code has no tool for `{action}`; the subagent cannot call it",
                        r.name
                    ));
                }
            }
            let unmapped = extension
                .and_then(|x| x.get("tools_unmapped"))
                .and_then(Value::as_array);
            for t in unmapped.into_iter().flatten().filter_map(Value::as_str) {
                push(t, &mut tools);
            }
            if tools.is_empty() {
                notes.push(format!(
                    "role `{}` may call no tool; `playbook gate` denies every call it makes",
                    r.name
                ));
            }
            front.insert("tools".into(), json!(tools.join(", ")));
        }
        None => notes.push(format!(
            "role `{}` has no `actions_allowed`: the subagent gets every tool and the gate allows them all",
            r.name
        )),
    }
    for (key, value) in extension.into_iter().flatten() {
        if !NOT_COPIED.contains(&key.as_str()) && !front.contains_key(key) {
            front.insert(key.clone(), value.clone());
        }
    }
    let role_value = serde_json::to_value(r).unwrap_or(Value::Null);
    front.insert(
        EXPORT_KEY.into(),
        json!({
            "playbook": playbook.id,
            "stage": role.stage,
            "position": position,
            "role": role_value,
        }),
    );
    let yaml = yaml_serde::to_string(&Value::Object(front))
        .unwrap_or_else(|e| format!("# could not write the front matter: {e}\n"));
    ExportedAgent {
        file_name: agent_file_name(&r.name),
        text: format!("---\n{yaml}---\n\n{}\n", body.trim_end()),
        notes,
    }
}

/// `.claude/settings.json` with the gate's `PreToolUse` hook: the user's
/// settings (`existing`, if the file exists) kept as they are, an earlier
/// export's gate hook replaced. Refuses settings it would have to drop.
pub fn merge_settings(existing: Option<&str>, command: &str) -> Result<String, String> {
    // Read untrimmed, so the lines errors name are the file's lines.
    let mut settings = match existing.filter(|t| !t.trim().is_empty()) {
        None => Map::new(),
        Some(text) if text.starts_with('\u{feff}') => {
            return Err(
                "it starts with a byte-order mark (U+FEFF), which JSON does not allow; save it as UTF-8 without one".into(),
            );
        }
        Some(text) => match serde_json::from_str::<Value>(text) {
            // JSON readers keep the last of a key given twice, so the merged
            // text would silently lose the first: refused, as every reader
            // of the product refuses it (PB007).
            Ok(_) if repeated_key(text).is_some() => {
                return Err(repeated_key(text).unwrap_or_default());
            }
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err("it is not a JSON object".into()),
            Err(e) => {
                return Err(format!(
                    "it is not valid JSON (line {}, column {}: {e})",
                    e.line(),
                    e.column()
                ));
            }
        },
    };
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err("its `hooks` is not an object".into());
    };
    let pre = hooks
        .entry("PreToolUse")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Value::Array(pre) = pre else {
        return Err("its `hooks.PreToolUse` is not a list".into());
    };
    let ours = |h: &Value| {
        h.get("command")
            .and_then(Value::as_str)
            .is_some_and(|c| c.contains(GATE_MARKER))
    };
    pre.retain_mut(|entry| {
        let Some(list) = entry.get_mut("hooks").and_then(Value::as_array_mut) else {
            return true;
        };
        let before = list.len();
        list.retain(|h| !ours(h));
        !(list.is_empty() && before > 0)
    });
    pre.push(json!({
        "matcher": "*",
        "hooks": [{ "type": "command", "command": command }],
    }));
    let mut text = serde_json::to_string_pretty(&Value::Object(settings))
        .map_err(|e| format!("cannot write settings: {e}"))?;
    text.push('\n');
    Ok(text)
}

/// Why `text` (valid JSON) cannot be merged as read: a key it gives twice,
/// with both places.
fn repeated_key(text: &str) -> Option<String> {
    let finding = crate::document::parse_value(text, crate::Format::Json).err()?;
    (finding.code == crate::finding::Code::DuplicateKey).then(|| {
        let at = finding
            .location
            .map(|l| format!("line {}, column {}: ", l.line, l.column))
            .unwrap_or_default();
        format!("{at}{}; keep one of the two", finding.message)
    })
}

/// Where the hook finds the playbook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaybookPath<'a> {
    /// Inside the project: relative to `$CLAUDE_PROJECT_DIR`, which Claude
    /// Code sets for hook commands, so the project can move.
    InProject(&'a str),
    /// Anywhere else: an absolute path.
    Absolute(&'a str),
}

/// The hook's shell command. A gate that cannot start (the program is not
/// on `PATH`) exits 127, which Claude Code treats as a non-blocking error
/// and runs the tool; `|| exit 2` turns that into a blocking one, so the
/// contract fails closed.
/// `options` are further `(flag, value)` arguments of the gate.
pub fn gate_command(program: &str, playbook: PlaybookPath<'_>, options: &[(&str, &str)]) -> String {
    let mut path = match playbook {
        PlaybookPath::InProject(rel) => format!("\"$CLAUDE_PROJECT_DIR\"/{}", shell_quote(rel)),
        PlaybookPath::Absolute(abs) => shell_quote(abs),
    };
    for (flag, value) in options {
        path.push_str(&format!(" {} {}", shell_quote(flag), shell_quote(value)));
    }
    format!(
        "{}{GATE_MARKER}{path} || exit 2",
        shell_quote(program).trim_end()
    )
}

/// POSIX shell single quoting (a bare word when nothing needs quoting).
fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '-' | '_' | '+' | ':'));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_never_leave_the_directory() {
        assert_eq!(agent_file_name("code-reviewer"), "code-reviewer.md");
        assert_eq!(agent_file_name("../../etc/passwd"), "etc-passwd.md");
        assert_eq!(agent_file_name(".."), "role.md");
        assert_eq!(agent_file_name("a b/c"), "a-b-c.md");
    }

    #[test]
    fn settings_keep_the_users_keys_and_replace_the_old_gate() {
        let existing = r#"{"model":"opus","hooks":{"PreToolUse":[
            {"matcher":"Bash","hooks":[{"type":"command","command":"./lint.sh"}]},
            {"matcher":"*","hooks":[{"type":"command","command":"playbook gate --playbook old.yaml || exit 2"}]}
        ],"Stop":[]}}"#;
        let cmd = gate_command("playbook", PlaybookPath::InProject("pb/team.yaml"), &[]);
        let merged: Value =
            serde_json::from_str(&merge_settings(Some(existing), &cmd).unwrap()).unwrap();
        assert_eq!(merged["model"], "opus");
        assert_eq!(merged["hooks"]["Stop"], json!([]));
        let pre = merged["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0]["matcher"], "Bash");
        assert_eq!(pre[1]["hooks"][0]["command"], cmd.as_str());
        assert!(merge_settings(Some("[1]"), &cmd).is_err());
        assert!(merge_settings(Some("{\"hooks\":3}"), &cmd).is_err());
        assert!(
            merge_settings(Some("{,"), &cmd)
                .unwrap_err()
                .contains("line 1")
        );
    }

    /// Settings the merge cannot rewrite without changing them are refused
    /// with where and why, never rewritten: a key given twice (JSON readers
    /// keep the last one, so a rewrite silently dropped the first, a
    /// person's `permissions` among them) and a byte-order mark (not JSON;
    /// the error used to say only "line 1, column 1: expected value").
    #[test]
    fn settings_that_a_rewrite_would_change_are_refused_saying_why() {
        let cmd = gate_command("playbook", PlaybookPath::InProject("team.yaml"), &[]);
        let twice = "{\n  \"permissions\": {\"deny\": [\"Bash(curl:*)\"]},\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash\"]}\n}\n";
        let why = merge_settings(Some(twice), &cmd).unwrap_err();
        assert!(why.contains("`permissions`"), "{why}");
        assert!(why.contains("line 4"), "{why}");
        assert!(why.contains("line 2"), "{why}");
        let nested =
            r#"{"hooks": {"PreToolUse": [], "PreToolUse": [{"matcher": "Bash", "hooks": []}]}}"#;
        assert!(
            merge_settings(Some(nested), &cmd)
                .unwrap_err()
                .contains("`PreToolUse`")
        );
        let bom = "\u{feff}{\"model\": \"opus\"}";
        let why = merge_settings(Some(bom), &cmd).unwrap_err();
        assert!(why.contains("byte-order mark"), "{why}");
        // Numbers too large for a float stay a refusal of nothing: they are
        // kept as JSON readers read them.
        assert!(merge_settings(Some(r#"{"n": 123456789012345678901234567890}"#), &cmd).is_ok());
    }

    #[test]
    fn only_what_an_export_wrote_is_replaceable() {
        let own = "---\nname: w\nx_playbook: {playbook: p, stage: build, position: 0, role: {name: w}}\n---\nPrompt.\n";
        assert_eq!(replaceable(".claude/agents/w.md", own), Ok(()));
        let mine = "---\nname: my-helper\ndescription: my own\n---\nPrecious prompt I wrote.\n";
        assert!(
            replaceable(".claude/agents/w.md", mine)
                .unwrap_err()
                .contains("x_playbook")
        );
        assert!(replaceable(".claude/agents/w.md", "notes, no front matter\n").is_err());
        // The key in the body is not the marker.
        assert!(replaceable(".claude/agents/w.md", "---\nname: w\n---\nx_playbook: 1\n").is_err());
        assert_eq!(replaceable(SETTINGS_FILE, "{\"model\": \"opus\"}"), Ok(()));
        let copy = playbook_copy("id: tdd\n");
        assert_eq!(replaceable(".claude/playbooks/tdd.yaml", &copy), Ok(()));
        assert!(replaceable(".claude/playbooks/tdd.yaml", "id: tdd\n").is_err());
    }

    #[test]
    fn commands_quote_paths() {
        assert_eq!(
            gate_command(
                "playbook",
                PlaybookPath::InProject("team.yaml"),
                &[("--lock-scope", "src dir")]
            ),
            "playbook gate --playbook \"$CLAUDE_PROJECT_DIR\"/team.yaml --lock-scope 'src dir' || exit 2"
        );
        assert_eq!(
            gate_command(
                "/opt/my tools/playbook",
                PlaybookPath::Absolute("/x/it's.yaml"),
                &[]
            ),
            "'/opt/my tools/playbook' gate --playbook '/x/it'\\''s.yaml' || exit 2"
        );
    }
}

/// The files an export writes into a project, relative to it, and what a
/// person should know. Pure: the caller reads the existing settings and
/// writes the files (the CLI and the app, each with its atomic writer).
#[derive(Debug, Clone)]
pub struct ProjectExport {
    /// `(path relative to the project, text)`: each subagent file under
    /// `.claude/agents/`, then `.claude/settings.json`.
    pub files: Vec<(String, String)>,
    pub notes: Vec<String>,
}

/// Every file of an export: one subagent per role (with `body` giving each
/// role's rendered prompt) and the settings with the gate hook `command`
/// merged into `existing` settings. Fails (writing nothing) when the
/// existing settings cannot be merged.
pub fn export_project(
    playbook: &Playbook,
    body: impl Fn(&RoleRef<'_>) -> String,
    existing_settings: Option<&str>,
    command: &str,
) -> Result<ProjectExport, String> {
    let flow = crate::flow::Flow::new(playbook);
    let mut used: Vec<String> = Vec::new();
    let mut files = Vec::new();
    let mut notes = Vec::new();
    for (position, role) in flow.roles.iter().enumerate() {
        let mut agent = export_role(playbook, role, position, &body(role));
        agent.file_name = unique(&agent.file_name, &used);
        used.push(agent.file_name.to_ascii_lowercase());
        notes.extend(agent.notes);
        files.push((format!("{AGENTS_DIR}{}", agent.file_name), agent.text));
    }
    let settings = merge_settings(existing_settings, command)?;
    files.push((SETTINGS_FILE.to_string(), settings));
    Ok(ProjectExport { files, notes })
}

/// A playbook's text as the copy the app exports for the gate: the text
/// after [`PLAYBOOK_COPY_HEADER`] (a YAML comment, so the gate reads the
/// same playbook).
pub fn playbook_copy(yaml: &str) -> String {
    format!("{PLAYBOOK_COPY_HEADER}\n{yaml}")
}

/// Whether an export may replace the file now at `path` (relative to the
/// project, as in [`ProjectExport::files`]) holding `existing`, or why not.
///
/// An export only ever replaces what an export wrote, so a person's own
/// subagent that happens to share a role's file name is never lost:
/// - `.claude/settings.json` is merged (the person's settings are kept);
/// - a subagent file is the export's own when its front matter carries
///   [`EXPORT_KEY`], which every exported subagent has (so export → edit →
///   export into the same project keeps working);
/// - any other file (the app's playbook copy) when it starts with
///   [`PLAYBOOK_COPY_HEADER`].
///
/// The caller reads the file (this is pure) and refuses the whole export,
/// before writing anything, when any file is not replaceable, unless the
/// person asked to replace them.
pub fn replaceable(path: &str, existing: &str) -> Result<(), String> {
    if path == SETTINGS_FILE {
        return Ok(());
    }
    if path.starts_with(AGENTS_DIR) {
        return match super::parse_agent(path, existing) {
            Ok(file) if file.front.contains_key(EXPORT_KEY) => Ok(()),
            Ok(_) => Err(format!(
                "a subagent without `{EXPORT_KEY}` in its front matter: `playbook export` did not write it"
            )),
            Err(_) => Err("not a subagent file `playbook export` wrote".into()),
        };
    }
    if existing.starts_with(PLAYBOOK_COPY_HEADER) {
        Ok(())
    } else {
        Err("a file Playbook Studio's export did not write".into())
    }
}

/// `name`, or `name-2.md`... when a file of that name (ignoring case, as
/// some file systems do) is already written.
fn unique(name: &str, used: &[String]) -> String {
    if !used.contains(&name.to_ascii_lowercase()) {
        return name.to_string();
    }
    let stem = name.trim_end_matches(".md");
    (2..)
        .map(|i| format!("{stem}-{i}.md"))
        .find(|n| !used.contains(&n.to_ascii_lowercase()))
        .unwrap_or_else(|| name.to_string())
}
