//! The gateway's tool catalog: every tool a real run can execute, what it
//! touches, and the arguments it takes.
//!
//! The engine's gateway reads this table to apply the rules that depend on
//! what a call *does* — the task kind (`inspect` is read-only, `run` changes
//! no file, git history only in kind `git`) and the scopes of every path
//! written — before any call runs, in a preview and in a real run alike. The
//! runner's MCP server lists the same entries (name, description, JSON
//! Schema of the arguments) to agents, so what an agent sees and what the
//! gateway checks cannot drift apart.
//!
//! A tool a playbook names that is not in the catalog (`deploy`, a team's own
//! tool) is still gated by `actions_allowed` and approval; it has no known
//! effect, so kinds other than `edit_repo` refuse it (fail closed).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ts_rs::TS;

/// What a task is for (spec/director-associate-contracts.md, task kinds).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS,
)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum TaskKind {
    /// Change files to satisfy the acceptance criteria.
    #[default]
    EditRepo,
    /// Execute commands without modifying files.
    Run,
    /// Checkpoint, reset, check out or inspect git state.
    Git,
    /// Read-only context gathering.
    Inspect,
}

impl TaskKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::EditRepo => "edit_repo",
            TaskKind::Run => "run",
            TaskKind::Git => "git",
            TaskKind::Inspect => "inspect",
        }
    }
}

/// What a tool does to the worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Reads files or git state; changes nothing.
    Read,
    /// Writes the files named by these arguments.
    Write(&'static [&'static str]),
    /// Runs a program in the worktree (it may write; only `edit_repo` and
    /// `run` tasks may run programs).
    Command,
    /// Records a commit on the task's branch from the worktree's changes.
    Commit,
    /// Moves the worktree through git history (checkpoint, reset, checkout):
    /// only in a `git` task (director-associate contracts, "Git actions").
    History,
    /// Leaves the machine (push): never executed by a run.
    Remote,
}

/// One tool of the catalog.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    pub name: &'static str,
    pub effect: Effect,
    pub description: &'static str,
    /// The JSON Schema of the arguments, as MCP's `inputSchema`.
    pub schema: fn() -> Value,
}

fn path_arg(what: &str) -> Value {
    json!({ "type": "string", "description": what, "minLength": 1, "maxLength": 4096 })
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// Every tool a run can execute.
pub const CATALOG: &[ToolSpec] = &[
    ToolSpec {
        name: "read_file",
        effect: Effect::Read,
        description: "Read a text file of the task's worktree (path relative to the worktree root).",
        schema: || {
            object(
                json!({ "path": path_arg("File to read, relative to the worktree root.") }),
                &["path"],
            )
        },
    },
    ToolSpec {
        name: "list_files",
        effect: Effect::Read,
        description: "List files under a directory of the worktree (recursive, `.git` excluded).",
        schema: || {
            object(
                json!({ "path": path_arg("Directory, relative to the worktree root; default the root.") }),
                &[],
            )
        },
    },
    ToolSpec {
        name: "search_code",
        effect: Effect::Read,
        description: "Search the worktree's text files for a regular expression; returns path, line and text of each match.",
        schema: || {
            object(
                json!({
                    "pattern": { "type": "string", "minLength": 1, "maxLength": 1000, "description": "Regular expression (Rust regex syntax)." },
                    "path": path_arg("Directory to search, relative to the worktree root; default the root."),
                }),
                &["pattern"],
            )
        },
    },
    ToolSpec {
        name: "write_file",
        effect: Effect::Write(&["path"]),
        description: "Create or replace a file of the worktree with the given text.",
        schema: || {
            object(
                json!({
                    "path": path_arg("File to write, relative to the worktree root."),
                    "content": { "type": "string", "description": "The whole new text of the file." },
                }),
                &["path", "content"],
            )
        },
    },
    ToolSpec {
        name: "edit_file",
        effect: Effect::Write(&["path"]),
        description: "Replace one exact occurrence of `old` by `new` in a file of the worktree.",
        schema: || {
            object(
                json!({
                    "path": path_arg("File to edit, relative to the worktree root."),
                    "old": { "type": "string", "minLength": 1, "description": "Text to replace; must occur exactly once." },
                    "new": { "type": "string", "description": "Replacement text." },
                }),
                &["path", "old", "new"],
            )
        },
    },
    ToolSpec {
        name: "delete_file",
        effect: Effect::Write(&["path"]),
        description: "Delete a file of the worktree.",
        schema: || {
            object(
                json!({ "path": path_arg("File to delete, relative to the worktree root.") }),
                &["path"],
            )
        },
    },
    ToolSpec {
        name: "run_command",
        effect: Effect::Command,
        description: "Run a program in the worktree (argv, no shell), time-limited; returns exit code, stdout and stderr (clipped).",
        schema: || {
            object(
                json!({
                    "argv": { "type": "array", "items": { "type": "string" }, "minItems": 1, "maxItems": 256, "description": "Program and arguments." },
                    "timeout_seconds": { "type": "integer", "minimum": 1, "maximum": 3600, "description": "Default 120." },
                }),
                &["argv"],
            )
        },
    },
    ToolSpec {
        name: "run_tests",
        effect: Effect::Command,
        description: "Run the repository's test command (the verify profile's commands, else the one discovered: cargo test, npm test, pytest, go test, make test).",
        schema: || object(json!({}), &[]),
    },
    ToolSpec {
        name: "git_status",
        effect: Effect::Read,
        description: "The worktree's git status (porcelain).",
        schema: || object(json!({}), &[]),
    },
    ToolSpec {
        name: "git_diff",
        effect: Effect::Read,
        description: "The diff of the worktree against the task's base commit (or against `ref`).",
        schema: || {
            object(
                json!({ "ref": { "type": "string", "minLength": 1, "maxLength": 256 } }),
                &[],
            )
        },
    },
    ToolSpec {
        name: "git_commit",
        effect: Effect::Commit,
        description: "Commit every change of the worktree on the task's branch.",
        schema: || {
            object(
                json!({ "message": { "type": "string", "minLength": 1, "maxLength": 10000 } }),
                &["message"],
            )
        },
    },
    ToolSpec {
        name: "git_checkpoint",
        effect: Effect::History,
        description: "Record the worktree's state as a checkpoint commit on the task's branch (git tasks only).",
        schema: || {
            object(
                json!({ "label": { "type": "string", "maxLength": 200 } }),
                &[],
            )
        },
    },
    ToolSpec {
        name: "git_reset",
        effect: Effect::History,
        description: "Reset the worktree and the task's branch to a commit of the task's own history (git tasks only).",
        schema: || {
            object(
                json!({ "ref": { "type": "string", "minLength": 1, "maxLength": 256 } }),
                &["ref"],
            )
        },
    },
    ToolSpec {
        name: "git_checkout",
        effect: Effect::History,
        description: "Restore files of the worktree from a commit of the task's own history (git tasks only).",
        schema: || {
            object(
                json!({
                    "ref": { "type": "string", "minLength": 1, "maxLength": 256 },
                    "paths": { "type": "array", "items": { "type": "string" }, "maxItems": 1000 },
                }),
                &["ref"],
            )
        },
    },
    ToolSpec {
        name: "git_push",
        effect: Effect::Remote,
        description: "Never runs: a run keeps its branches local for a person to merge.",
        schema: || object(json!({}), &[]),
    },
];

/// The catalog entry of a tool, if it has one.
pub fn spec(tool: &str) -> Option<&'static ToolSpec> {
    CATALOG.iter().find(|t| t.name == tool)
}

/// Why a task kind refuses a tool, or `None` when it allows it.
pub fn kind_refusal(kind: TaskKind, tool: &str) -> Option<String> {
    let effect = spec(tool).map(|s| s.effect);
    let refused = match (kind, effect) {
        (_, Some(Effect::Remote)) => {
            return Some(format!(
                "`{tool}` leaves the machine; a run never pushes: its branches stay local for a person to merge"
            ));
        }
        (TaskKind::EditRepo, Some(Effect::History)) => {
            "git history moves (checkpoint, reset, checkout) only in a task of kind `git`"
        }
        (TaskKind::EditRepo, _) => return None,
        (TaskKind::Inspect, Some(Effect::Read)) => return None,
        (TaskKind::Inspect, _) => "a task of kind `inspect` is read-only",
        (TaskKind::Run, Some(Effect::Read | Effect::Command)) => return None,
        (TaskKind::Run, _) => "a task of kind `run` executes commands and changes no file",
        (TaskKind::Git, Some(Effect::Read | Effect::History | Effect::Commit)) => return None,
        (TaskKind::Git, _) => "a task of kind `git` only reads and moves git state",
    };
    Some(match effect {
        Some(_) => format!("{refused}; `{tool}` was not run"),
        None => format!("{refused}, and `{tool}` has no known effect; it was not run"),
    })
}

/// The worktree-relative paths a call writes, read from its arguments.
/// `Err` names an argument that should be a path and is not text. A path
/// argument left out names nothing to check (the tool itself then refuses
/// the call for want of it; a scripted preview call often has no arguments).
pub fn written_paths(call_tool: &str, args: &Value) -> Result<Vec<String>, String> {
    let Some(ToolSpec {
        effect: Effect::Write(keys),
        ..
    }) = spec(call_tool)
    else {
        return Ok(Vec::new());
    };
    keys.iter()
        .filter_map(|k| match args.get(k) {
            None | Some(Value::Null) => None,
            Some(Value::String(p)) => Some(Ok(p.clone())),
            Some(_) => Some(Err(format!(
                "`{call_tool}`'s argument `{k}` must be a path as text"
            ))),
        })
        .collect()
}

/// A path written by a tool, as the scope rules compare it: relative,
/// `/`-separated, without `.` segments. `Err` says why the path leaves the
/// worktree (absolute, `..` above the root, `.git`), which no scope allows.
pub fn normalize(path: &str) -> Result<String, String> {
    if path.is_empty() {
        return Err("the path is empty".into());
    }
    if path.contains('\0') {
        return Err("the path contains a NUL byte".into());
    }
    let unified = path.replace('\\', "/");
    if unified.starts_with('/') || unified.as_bytes().get(1) == Some(&b':') {
        return Err(format!(
            "`{path}` is absolute; paths are relative to the task's worktree"
        ));
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(format!("`{path}` leaves the task's worktree"));
                }
            }
            p => parts.push(p),
        }
    }
    if parts
        .first()
        .is_some_and(|p| p.eq_ignore_ascii_case(".git"))
    {
        return Err(format!(
            "`{path}` is inside `.git`; git state changes only through the git tools"
        ));
    }
    if parts.is_empty() {
        return Err(format!("`{path}` is the worktree root, not a file"));
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_an_object_schema() {
        for t in CATALOG {
            let s = (t.schema)();
            assert_eq!(s["type"], "object", "{}", t.name);
            assert!(!t.description.is_empty());
        }
        let mut names: Vec<_> = CATALOG.iter().map(|t| t.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CATALOG.len(), "tool names are unique");
    }

    #[test]
    fn kinds_refuse_what_they_must() {
        use TaskKind::*;
        let allowed = |k, t| kind_refusal(k, t).is_none();
        assert!(allowed(EditRepo, "write_file"));
        assert!(allowed(EditRepo, "git_commit"));
        assert!(!allowed(EditRepo, "git_reset"));
        assert!(
            allowed(EditRepo, "deploy"),
            "unknown tools: actions_allowed decides"
        );
        assert!(allowed(Inspect, "read_file"));
        assert!(allowed(Inspect, "git_diff"));
        for t in ["write_file", "run_command", "git_commit", "deploy"] {
            assert!(!allowed(Inspect, t), "{t}");
        }
        assert!(allowed(Run, "run_command"));
        assert!(allowed(Run, "run_tests"));
        assert!(!allowed(Run, "edit_file"));
        assert!(!allowed(Run, "git_commit"));
        assert!(allowed(Git, "git_checkpoint"));
        assert!(!allowed(Git, "run_command"));
        for k in [EditRepo, Run, Git, Inspect] {
            assert!(!allowed(k, "git_push"));
        }
    }

    #[test]
    fn normalize_refuses_every_escape() {
        assert_eq!(normalize("./src//a.rs").unwrap(), "src/a.rs");
        assert_eq!(normalize("src/x/../a.rs").unwrap(), "src/a.rs");
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "src/../../x",
            "C:\\x",
            "..\\x",
            ".git/config",
            ".GIT/hooks/pre-commit",
            "a/../.git/HEAD",
            ".",
            "a\0b",
        ] {
            assert!(normalize(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn written_paths_reads_path_arguments() {
        assert_eq!(
            written_paths("write_file", &json!({"path": "a", "content": ""})).unwrap(),
            vec!["a"]
        );
        assert!(written_paths("write_file", &json!({"path": 3})).is_err());
        assert!(written_paths("write_file", &json!({})).unwrap().is_empty());
        assert!(written_paths("read_file", &json!({})).unwrap().is_empty());
    }
}
