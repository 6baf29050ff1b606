//! Subagent files → a playbook: one role per file.
//!
//! A file that `export` wrote carries its role verbatim under
//! [`EXPORT_KEY`](super::EXPORT_KEY), so import → export → import gives back
//! the same roles. Any other file is read field by field: `description`
//! becomes `responsibilities`, the body `suggested_prompt`, `tools` the
//! `actions_allowed` through [`super::tools::TOOL_MAP`]; everything without a
//! counterpart (`model`, `color`, tools we do not have...) is kept under
//! [`EXTENSION_KEY`] so that export writes it back.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::export::EXPORT_KEY;
use super::tools::import_tool;
use super::{AgentFile, ImportError};
use crate::ids::{MAX_ID_CHARS, is_valid_id};
use crate::model::{Playbook, Role, RoleMode, SCHEMA_VERSION, Stage};
use crate::templates::role_template;

/// The role extension holding what Claude Code has and playbooks do not.
pub const EXTENSION_KEY: &str = "x_claude_code";

/// Most subagent files one import reads.
pub const MAX_AGENT_FILES: usize = 500;

/// Something a person should check after an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub file: String,
    pub message: String,
}

/// The playbook an import built, and what to check in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    pub playbook: Playbook,
    pub notes: Vec<Note>,
}

/// Front matter keys read into the role itself (not kept under the extension).
const READ_KEYS: &[&str] = &["name", "description", "tools", EXPORT_KEY];

/// Builds a playbook from parsed subagent files (in the order given).
/// `dir_name` names the playbook when no file says which playbook it came from.
pub fn import(files: &[AgentFile], dir_name: &str) -> Result<Import, ImportError> {
    if files.is_empty() {
        return Err(ImportError::new(
            dir_name,
            None,
            "no subagent files (`*.md`) found",
            "point at a project directory with `.claude/agents/*.md`, or at that agents directory",
        ));
    }
    if files.len() > MAX_AGENT_FILES {
        return Err(ImportError::new(
            dir_name,
            None,
            format!(
                "{} subagent files; one import reads at most {MAX_AGENT_FILES}",
                files.len()
            ),
            "import the agents of one team at a time",
        ));
    }
    let mut notes = Vec::new();
    let mut placed: Vec<Placed> = Vec::new();
    let mut seen: IndexMap<String, &str> = IndexMap::new();
    for file in files {
        let p = read_role(file, &mut notes)?;
        if let Some(other) = seen.insert(p.role.name.clone(), &file.file) {
            return Err(ImportError::new(
                &file.file,
                file.lines.get("name").copied(),
                format!("the name `{}` is also the name of {other}", p.role.name),
                "give every subagent its own `name`; roles are found by name",
            ));
        }
        placed.push(p);
    }
    // Roles that export wrote go back to their place; the others follow.
    placed.sort_by_key(|p| p.position.unwrap_or(usize::MAX));
    let mut workflow: IndexMap<String, Stage> = IndexMap::new();
    for p in placed.iter() {
        workflow
            .entry(p.stage.clone())
            .or_default()
            .roles
            .get_or_insert_with(Vec::new)
            .push(p.role.clone());
    }
    if workflow.len() > 1 && placed.iter().all(|p| p.position.is_none()) {
        reorder_by_mode(&mut workflow);
    }
    let exported_ids: Vec<&str> = placed
        .iter()
        .filter_map(|p| p.playbook.as_deref())
        .collect();
    let id = match exported_ids.first() {
        Some(first) if exported_ids.iter().all(|i| i == first) && is_valid_id(first) => {
            first.to_string()
        }
        _ => id_from(dir_name),
    };
    if placed.iter().all(|p| p.position.is_none()) {
        notes.push(Note {
            file: dir_name.to_string(),
            message: "Claude Code subagents do not say who hands work to whom: add `handoff_to`, `inputs_required` and `outputs_contract` to connect the roles".into(),
        });
    }
    let playbook = Playbook {
        schema: None,
        schema_version: Some(SCHEMA_VERSION.into()),
        name: format!("Claude Code agents of {}", display_name(dir_name)),
        id,
        description: Some("Imported from Claude Code subagents (.claude/agents).".into()),
        phases: None,
        policies: None,
        run_inputs: None,
        mutating_actions: None,
        workflow,
        extra: Default::default(),
    };
    Ok(Import { playbook, notes })
}

/// A role read from a file, with where it goes.
struct Placed {
    role: Role,
    stage: String,
    position: Option<usize>,
    playbook: Option<String>,
}

fn read_role(file: &AgentFile, notes: &mut Vec<Note>) -> Result<Placed, ImportError> {
    let line = |key: &str| file.lines.get(key).copied();
    let err = |key: &str, message: String, hint: &str| {
        ImportError::new(&file.file, line(key), message, hint)
    };
    let name = match file.front.get("name") {
        Some(Value::String(n)) if !n.trim().is_empty() => n.trim().to_string(),
        Some(Value::String(_)) | None | Some(Value::Null) => {
            return Err(err(
                "name",
                "the front matter has no `name`".into(),
                "add `name: <lowercase-with-hyphens>`; Claude Code invokes the subagent by it",
            ));
        }
        Some(other) => {
            return Err(err(
                "name",
                format!("`name` must be text, not {}", kind(other)),
                "write the name as text, e.g. `name: code-reviewer`",
            ));
        }
    };
    if name.chars().count() > MAX_ID_CHARS || name.chars().any(char::is_control) {
        return Err(err(
            "name",
            format!("`name` must be one line of at most {MAX_ID_CHARS} characters"),
            "use a short lowercase name with hyphens",
        ));
    }
    for key in &file.lenient_keys {
        notes.push(Note {
            file: file.file.clone(),
            message: format!(
                "line {}: `{key}` is not valid YAML (an unquoted `: ` or unindented lines); read as text, as Claude Code does",
                line(key).unwrap_or(2)
            ),
        });
    }
    if let Some(exported) = file.front.get(EXPORT_KEY) {
        return read_exported(file, name, exported, notes);
    }
    let description = match file.front.get("description") {
        Some(Value::String(d)) if !d.trim().is_empty() => Some(d.trim().to_string()),
        None | Some(Value::Null) | Some(Value::String(_)) => {
            notes.push(Note {
                file: file.file.clone(),
                message: "no `description`: Claude Code needs one to know when to use the subagent; `responsibilities` is left empty".into(),
            });
            None
        }
        Some(other) => {
            return Err(err(
                "description",
                format!("`description` must be text, not {}", kind(other)),
                "write the description as text; quote it if it contains `: `",
            ));
        }
    };
    let (mode, why) = guess_mode(&name);
    notes.push(Note {
        file: file.file.clone(),
        message: format!("`{name}` is read as a {mode} ({why}); change `mode` if it is not"),
    });
    let mut extension = Map::new();
    let mut unmapped: Vec<String> = Vec::new();
    let mut allowed: Vec<String> = Vec::new();
    // `*` or `all` is Claude Code's "every tool", as is leaving `tools` out.
    let tools = tool_list(file, "tools")?
        .filter(|t| !(t.len() == 1 && (t[0] == "*" || t[0].eq_ignore_ascii_case("all"))));
    match tools {
        Some(tools) => {
            for tool in tools {
                match import_tool(&tool) {
                    Some(ours) => push_unique(&mut allowed, ours.to_string()),
                    None => push_unique(&mut unmapped, tool),
                }
            }
        }
        None => {
            allowed = role_template(mode).actions_allowed.unwrap_or_default();
            notes.push(Note {
                file: file.file.clone(),
                message: format!(
                    "no `tools` means every tool in Claude Code; the role gets what a {mode} is allowed ({}): widen `actions_allowed` if it needs more",
                    allowed.join(", ")
                ),
            });
        }
    }
    if let Some(denied) = tool_list(file, "disallowedTools")? {
        allowed.retain(|ours| !denied.iter().any(|c| import_tool(c) == Some(ours.as_str())));
    }
    if !unmapped.is_empty() {
        notes.push(Note {
            file: file.file.clone(),
            message: format!(
                "no playbook tool for {}: kept in `{EXTENSION_KEY}.tools_unmapped` and written back on export",
                unmapped.join(", ")
            ),
        });
    }
    for (key, value) in &file.front {
        if !READ_KEYS.contains(&key.as_str()) {
            extension.insert(key.clone(), value.clone());
        }
    }
    if !unmapped.is_empty() {
        extension.insert("tools_unmapped".into(), json!(unmapped));
    }
    let mut role = Role {
        name,
        responsibilities: description,
        suggested_prompt: (!file.body.is_empty()).then(|| file.body.clone()),
        mode: Some(mode),
        actions_allowed: Some(allowed),
        ..Default::default()
    };
    if !extension.is_empty() {
        role.extra
            .insert(EXTENSION_KEY.into(), Value::Object(extension));
    }
    Ok(Placed {
        role,
        stage: stage_of(mode).into(),
        position: None,
        playbook: None,
    })
}

/// A file export wrote: the role comes back verbatim from [`EXPORT_KEY`].
fn read_exported(
    file: &AgentFile,
    name: String,
    exported: &Value,
    notes: &mut Vec<Note>,
) -> Result<Placed, ImportError> {
    let bad = |why: String| {
        ImportError::new(
            &file.file,
            file.lines.get(EXPORT_KEY).copied(),
            format!("`{EXPORT_KEY}` is not what `playbook export` writes: {why}"),
            format!("remove `{EXPORT_KEY}` to import the file as a plain subagent"),
        )
    };
    let role_value = exported
        .get("role")
        .cloned()
        .ok_or_else(|| bad("it has no `role`".into()))?;
    let mut role: Role = serde_json::from_value(role_value)
        .map_err(|e| bad(format!("its `role` is invalid: {e}")))?;
    if role.name != name {
        notes.push(Note {
            file: file.file.clone(),
            message: format!(
                "the subagent is named `{name}` but was exported from role `{}`; the role takes the subagent's name",
                role.name
            ),
        });
        role.name = name;
    }
    let stage = match exported.get("stage") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        _ => role.mode.map(stage_of).unwrap_or("build").into(),
    };
    Ok(Placed {
        role,
        stage,
        position: exported
            .get("position")
            .and_then(Value::as_u64)
            .map(|p| p as usize),
        playbook: exported
            .get("playbook")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// `tools` (or `disallowedTools`): a comma-separated string or a list.
fn tool_list(file: &AgentFile, key: &str) -> Result<Option<Vec<String>>, ImportError> {
    let split = |s: &str| {
        s.split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    match file.front.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(split(s))),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(s.trim().to_string()),
                other => Err(ImportError::new(
                    &file.file,
                    file.lines.get(key).copied(),
                    format!("`{key}` lists {}, not a tool name", kind(other)),
                    "list tool names as text, e.g. `tools: Read, Grep, Glob`",
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|v| Some(v.into_iter().filter(|t| !t.is_empty()).collect())),
        Some(other) => Err(ImportError::new(
            &file.file,
            file.lines.get(key).copied(),
            format!(
                "`{key}` must be a comma-separated list of tools, not {}",
                kind(other)
            ),
            "write e.g. `tools: Read, Grep, Glob`, or leave the key out for every tool",
        )),
    }
}

/// The mode a subagent's name suggests, and why.
fn guess_mode(name: &str) -> (RoleMode, &'static str) {
    let n = name.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| n.contains(w));
    if has(&["review", "audit", "critic", "inspect"]) {
        (RoleMode::Reviewer, "its name says it reviews")
    } else if has(&["test", "qa", "verif"]) {
        (RoleMode::Tester, "its name says it tests")
    } else if has(&["plan", "architect", "design", "spec", "research"]) {
        (RoleMode::Planner, "its name says it plans")
    } else {
        (RoleMode::Worker, "nothing in its name says otherwise")
    }
}

fn stage_of(mode: RoleMode) -> &'static str {
    match mode {
        RoleMode::Planner => "plan",
        RoleMode::Worker => "build",
        RoleMode::Reviewer => "review",
        RoleMode::Tester => "test",
    }
}

/// Stages in the order work flows: plan, build, review, test.
fn reorder_by_mode(workflow: &mut IndexMap<String, Stage>) {
    let rank = |s: &str| {
        ["plan", "build", "review", "test"]
            .iter()
            .position(|x| *x == s)
    };
    workflow.sort_by(|a, _, b, _| rank(a).cmp(&rank(b)));
}

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// A playbook id from a directory name: lowercase letters, digits, `-`.
fn id_from(name: &str) -> String {
    super::super::names::id_from(display_name(name), "claude-code-agents")
}

fn display_name(name: &str) -> &str {
    super::super::names::display_name(name, "this project")
}

#[cfg(test)]
mod tests {
    use super::super::parse_agent;
    use super::*;

    fn files(specs: &[(&str, &str)]) -> Vec<AgentFile> {
        specs
            .iter()
            .map(|(n, t)| parse_agent(n, t).unwrap())
            .collect()
    }

    #[test]
    fn maps_tools_and_keeps_the_rest() {
        let imp = import(
            &files(&[(
                "a.md",
                "---\nname: code-reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob, Bash, WebFetch, mcp__gh__pr\nmodel: opus\ncolor: red\n---\nYou review.\n",
            )]),
            "proj",
        )
        .unwrap();
        let role = &imp.playbook.workflow["review"].roles()[0];
        assert_eq!(role.mode, Some(RoleMode::Reviewer));
        assert_eq!(
            role.actions_allowed(),
            ["read_file", "search_code", "list_files", "run_command"]
        );
        let x = &role.extra[EXTENSION_KEY];
        assert_eq!(x["model"], "opus");
        assert_eq!(x["color"], "red");
        assert_eq!(x["tools_unmapped"], json!(["WebFetch", "mcp__gh__pr"]));
        assert_eq!(role.suggested_prompt.as_deref(), Some("You review."));
        assert_eq!(imp.playbook.id, "proj");
    }

    #[test]
    fn absent_tools_give_what_the_mode_allows_with_a_note() {
        let imp = import(
            &files(&[("w.md", "---\nname: builder\ndescription: builds\n---\n")]),
            "p",
        )
        .unwrap();
        let role = &imp.playbook.workflow["build"].roles()[0];
        assert_eq!(
            role.actions_allowed,
            role_template(RoleMode::Worker).actions_allowed
        );
        assert!(imp.notes.iter().any(|n| n.message.contains("no `tools`")));
    }

    #[test]
    fn bad_input_names_file_and_line() {
        let dup = files(&[
            ("a.md", "---\nname: x\ndescription: a\n---\n"),
            ("b.md", "---\ndescription: b\nname: x\n---\n"),
        ]);
        let e = import(&dup, "p").unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("b.md", Some(3)));
        assert!(e.message.contains("a.md"), "{e}");
        let e = import(&files(&[("n.md", "---\ndescription: a\n---\n")]), "p").unwrap_err();
        assert!(e.message.contains("no `name`"), "{e}");
        let e = import(&files(&[("n.md", "---\nname: 3\n---\n")]), "p").unwrap_err();
        assert!(e.message.contains("number"), "{e}");
        let e = import(&files(&[("t.md", "---\nname: t\ntools: 3\n---\n")]), "p").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(import(&[], "p").is_err());
    }

    #[test]
    fn ids_come_from_directory_names() {
        assert_eq!(id_from("/home/me/My Project/"), "my-project");
        assert_eq!(id_from("."), "this-project");
        assert_eq!(id_from("///"), "this-project");
        assert_eq!(id_from("日本"), "claude-code-agents");
    }
}
