//! Agent definitions: how to start an agent process (docs/agents.md).
//!
//! A definition is kept per user or per library, not in the playbook (whose
//! `allowed_agents` names it). It is a command line whose elements may hold
//! placeholders (`{prompt_file}`, `{mcp_config}`, `{worktree}`...), a
//! working directory, environment, standard input, an optional time budget
//! and the form in which the process returns its answer. Rendering replaces
//! placeholders inside each element; an element never splits and nothing
//! runs through a shell, so a prompt or a path with spaces or quotes stays
//! one argument.
//!
//! An agents file (YAML or JSON) holds `agents: {<name>: <definition>}`; it
//! is read with the core's document reader (duplicate keys, depth, aliases
//! and size refused), unknown fields are errors except `x_` extensions, and
//! every template is checked when the file is loaded. Built-in definitions
//! (`claude-code`, `codex`, `gemini`, `command`) exist without a file; a
//! file may redefine them.

mod builtin;
mod template;

use std::path::{Path, PathBuf};
use std::time::Duration;

use indexmap::IndexMap;
use playbook_core::document::{Format, parse_value};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::process::Launch;
pub use crate::process::OutputForm;
pub use builtin::{BUILTIN_NAMES, builtin};
pub use template::PLACEHOLDERS;

/// Longest time budget a definition may give itself: one week.
pub const MAX_AGENT_TIMEOUT_SECONDS: u64 = 7 * 24 * 3600;
/// Largest agents file, in bytes.
pub const MAX_AGENTS_FILE_BYTES: u64 = 1024 * 1024;

/// How to start one agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentDef {
    /// The agent's name (its key in the agents file).
    #[serde(skip)]
    #[schemars(skip)]
    pub name: String,
    /// Program and arguments; each element may hold placeholders.
    #[schemars(length(min = 1))]
    pub command: Vec<String>,
    /// Working directory (placeholders allowed). Default: the task's
    /// worktree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Environment added to the process (values may hold placeholders).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub env: IndexMap<String, String>,
    /// Text written to the process's standard input (placeholders allowed;
    /// `"{prompt}"` sends the prompt). Default: empty input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// The agent's own time budget; the smaller of it and the task's
    /// `timeout_seconds` applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 604800))]
    pub timeout_seconds: Option<u64>,
    /// How the final answer is read from what the process printed.
    #[serde(default)]
    pub output: OutputForm,
    /// What the agent is, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// An agents file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "Agents",
    description = "Agent definitions: how to start each agent process of a run (docs/agents.md). Keys starting with x_ are extensions and are ignored."
)]
pub struct AgentsFile {
    pub agents: IndexMap<String, AgentDef>,
}

/// Why an agent definition cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AgentsError {
    #[error("cannot read agents file {path}: {message}")]
    Read { path: String, message: String },
    #[error("agents file {path}: {message}")]
    Invalid { path: String, message: String },
    #[error("agent `{name}` in {source_name}: {message}")]
    Definition {
        name: String,
        source_name: String,
        message: String,
    },
    #[error(
        "unknown agent `{name}`; the agents are {}; define it under `agents:` in {where_}",
        known.join(", ")
    )]
    Unknown {
        name: String,
        known: Vec<String>,
        where_: String,
    },
    #[error(
        "agent `{name}`: program `{program}` not found on PATH; install it or define the agent in {where_}"
    )]
    ProgramNotFound {
        name: String,
        program: String,
        where_: String,
    },
}

/// The values of one invocation's placeholders.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placeholders {
    pub prompt: String,
    pub prompt_file: PathBuf,
    pub packet_file: PathBuf,
    pub mcp_config: PathBuf,
    pub result_file: PathBuf,
    pub worktree: PathBuf,
    pub role: String,
    pub task_id: String,
    /// The gateway relay's program and arguments, for agents configured by
    /// command-line values rather than an MCP config file (Codex). Read
    /// from the MCP config with [`Placeholders::with_mcp_server_from_config`].
    pub mcp_command: Option<(String, Vec<String>)>,
}

impl Placeholders {
    /// The placeholders of a prepared invocation, the gateway relay's
    /// command read from its MCP config.
    pub fn from_prepared(prepared: &crate::process::Prepared) -> Placeholders {
        Placeholders {
            prompt: prepared.prompt.clone(),
            prompt_file: prepared.prompt_file.clone(),
            packet_file: prepared.packet_file.clone(),
            mcp_config: prepared.mcp_config.clone(),
            result_file: prepared.result_file.clone(),
            worktree: prepared.worktree.clone(),
            role: prepared.role.clone(),
            task_id: prepared.task_id.clone(),
            mcp_command: None,
        }
        .with_mcp_server_from_config()
    }

    /// The text of placeholder `name`.
    pub fn value(&self, name: &str) -> String {
        let path = |p: &Path| p.display().to_string();
        match name {
            "prompt" => self.prompt.clone(),
            "prompt_file" => path(&self.prompt_file),
            "packet_file" => path(&self.packet_file),
            "mcp_config" => path(&self.mcp_config),
            "result_file" => path(&self.result_file),
            "worktree" => path(&self.worktree),
            "role" => self.role.clone(),
            "task_id" => self.task_id.clone(),
            // A JSON string or array of strings is also a valid TOML value.
            "mcp_command_toml" => serde_json::to_string(
                &self
                    .mcp_command
                    .as_ref()
                    .map(|c| c.0.as_str())
                    .unwrap_or(""),
            )
            .unwrap_or_default(),
            "mcp_args_toml" => serde_json::to_string(
                self.mcp_command
                    .as_ref()
                    .map(|c| c.1.as_slice())
                    .unwrap_or(&[]),
            )
            .unwrap_or_default(),
            _ => String::new(),
        }
    }

    /// Fills [`Placeholders::mcp_command`] from the `playbook` server of an
    /// MCP config file (`{"mcpServers": {"playbook": {"command", "args"}}}`).
    pub fn with_mcp_server_from_config(mut self) -> Self {
        let server = std::fs::read_to_string(&self.mcp_config)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v.pointer("/mcpServers/playbook").cloned());
        if let Some(server) = server {
            let command = server
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let args = server
                .get("args")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            self.mcp_command = Some((command, args));
        }
        self
    }
}

impl AgentDef {
    /// Checks every template and value; `source_name` names where the
    /// definition came from in errors.
    pub fn check(&self, source_name: &str) -> Result<(), AgentsError> {
        let bad = |message: String| AgentsError::Definition {
            name: self.name.clone(),
            source_name: source_name.to_string(),
            message,
        };
        if self.command.is_empty() || self.command[0].trim().is_empty() {
            return Err(bad(
                "`command` is empty; give the program and its arguments, e.g. [\"my-agent\", \"{prompt_file}\"]".into(),
            ));
        }
        let templates = self
            .command
            .iter()
            .map(|c| ("command", c))
            .chain(self.cwd.iter().map(|c| ("cwd", c)))
            .chain(self.stdin.iter().map(|c| ("stdin", c)))
            .chain(self.env.values().map(|c| ("env", c)));
        for (field, text) in templates {
            if text.contains('\0') {
                return Err(bad(format!("`{field}` holds a NUL character")));
            }
            template::parse(text).map_err(|e| bad(format!("`{field}`: {e}")))?;
        }
        for key in self.env.keys() {
            if key.is_empty() || key.contains(['=', '\0']) {
                return Err(bad(format!(
                    "environment variable name `{key}` is empty or holds `=` or NUL"
                )));
            }
        }
        if let Some(t) = self.timeout_seconds
            && (t == 0 || t > MAX_AGENT_TIMEOUT_SECONDS)
        {
            return Err(bad(format!(
                "`timeout_seconds` is {t}; give 1 to {MAX_AGENT_TIMEOUT_SECONDS}"
            )));
        }
        Ok(())
    }
}

impl AgentsFile {
    /// Reads and checks an agents file.
    pub fn load(path: &Path) -> Result<AgentsFile, AgentsError> {
        let shown = path.display().to_string();
        let read_err = |message: String| AgentsError::Read {
            path: shown.clone(),
            message,
        };
        let meta = std::fs::metadata(path).map_err(|e| read_err(e.to_string()))?;
        if !meta.is_file() {
            return Err(read_err("not a file".into()));
        }
        if meta.len() > MAX_AGENTS_FILE_BYTES {
            return Err(read_err(format!(
                "{} bytes; the limit is {MAX_AGENTS_FILE_BYTES}",
                meta.len()
            )));
        }
        let text = std::fs::read_to_string(path).map_err(|e| read_err(e.to_string()))?;
        AgentsFile::parse(&shown, &text)
    }

    /// Parses and checks the text of an agents file named `path`.
    pub fn parse(path: &str, text: &str) -> Result<AgentsFile, AgentsError> {
        let invalid = |message: String| AgentsError::Invalid {
            path: path.to_string(),
            message,
        };
        let format = if path.to_ascii_lowercase().ends_with(".json") {
            Format::Json
        } else {
            Format::sniff(text)
        };
        let mut value = parse_value(text, format).map_err(|f| {
            let at = f
                .location
                .map(|l| format!("line {} column {}: ", l.line, l.column))
                .unwrap_or_default();
            invalid(format!("{at}{}", f.message))
        })?;
        strip_extensions(&mut value);
        if let Some(Value::Object(agents)) = value.get_mut("agents") {
            agents.values_mut().for_each(strip_extensions);
        }
        let mut file: AgentsFile = serde_json::from_value(value).map_err(|e| {
            invalid(format!(
                "{e}; the shape is `agents: {{<name>: {{command: [...], ...}}}}` (schemas/agents.schema.json)"
            ))
        })?;
        for (name, def) in file.agents.iter_mut() {
            if name.trim().is_empty() || name.chars().any(char::is_control) {
                return Err(invalid(format!(
                    "agent name `{}` is empty or holds control characters",
                    name.escape_debug()
                )));
            }
            def.name = name.clone();
            def.check(path)?;
        }
        Ok(file)
    }
}

fn strip_extensions(value: &mut Value) {
    if let Value::Object(map) = value {
        map.retain(|k, _| !k.starts_with("x_"));
    }
}

/// The definition of agent `name`: from `user_file` when it defines it,
/// else a built-in. Its program must be found (on PATH, or at the path
/// given) unless it is itself a placeholder.
pub fn resolve(name: &str, user_file: Option<&Path>) -> Result<AgentDef, AgentsError> {
    let where_ = user_file.map_or_else(
        || "an agents file passed with --agents FILE".to_string(),
        |p| p.display().to_string(),
    );
    let file = user_file.map(AgentsFile::load).transpose()?;
    let def = match file.as_ref().and_then(|f| f.agents.get(name)) {
        Some(def) => def.clone(),
        None => match builtin(name) {
            Some(def) if !def.command.is_empty() => def,
            Some(_) => {
                return Err(AgentsError::Definition {
                    name: name.to_string(),
                    source_name: "the built-in definitions".into(),
                    message: format!(
                        "the `command` agent runs the command line you give it; define `agents: {{command: {{command: [\"my-agent\", \"{{prompt_file}}\"]}}}}` in {where_}"
                    ),
                });
            }
            None => {
                let mut known: Vec<String> =
                    file.iter().flat_map(|f| f.agents.keys().cloned()).collect();
                known.extend(BUILTIN_NAMES.iter().map(|s| s.to_string()));
                known.dedup();
                return Err(AgentsError::Unknown {
                    name: name.to_string(),
                    known,
                    where_,
                });
            }
        },
    };
    let program = &def.command[0];
    if checkable(program) && find_program(program).is_none() {
        return Err(AgentsError::ProgramNotFound {
            name: name.to_string(),
            program: program.clone(),
            where_,
        });
    }
    Ok(def)
}

/// The `command` agent with the command line a person gave (the CLI's
/// agent command): checked like a definition from a file, and its program
/// must be found.
pub fn command_agent(argv: Vec<String>) -> Result<AgentDef, AgentsError> {
    let mut def = builtin("command").unwrap_or_else(|| AgentDef {
        name: "command".into(),
        command: Vec::new(),
        cwd: None,
        env: IndexMap::new(),
        stdin: None,
        timeout_seconds: None,
        output: OutputForm::Protocol,
        description: None,
    });
    def.command = argv;
    def.check("the agent command line")?;
    let program = &def.command[0];
    if checkable(program) && find_program(program).is_none() {
        return Err(AgentsError::ProgramNotFound {
            name: def.name.clone(),
            program: program.clone(),
            where_: "an agents file passed with --agents FILE".into(),
        });
    }
    Ok(def)
}

/// Whether the program of a definition can be checked before it starts:
/// not when it is a placeholder, nor a relative path (`./bin/agent`), which
/// only means something in the working directory it starts in.
fn checkable(program: &str) -> bool {
    !template::has_slots(program) && (!program.contains('/') || program.starts_with('/'))
}

/// Where `program` would be run from: itself when it holds a `/`, else the
/// first executable file of that name on PATH.
pub fn find_program(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let p = PathBuf::from(program);
        return executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}

/// The command line of one invocation.
pub fn render(def: &AgentDef, values: &Placeholders) -> Vec<String> {
    let value = |name: &str| values.value(name);
    def.command
        .iter()
        .map(|t| template::render(t, &value))
        .collect()
}

/// Everything needed to start one invocation: command line, working
/// directory (default: the worktree), environment, standard input, answer
/// form and time budget.
pub fn launch(def: &AgentDef, values: &Placeholders) -> Launch {
    let value = |name: &str| values.value(name);
    Launch {
        argv: render(def, values),
        cwd: def.cwd.as_ref().map_or_else(
            || values.worktree.clone(),
            |c| PathBuf::from(template::render(c, &value)),
        ),
        env: def
            .env
            .iter()
            .map(|(k, v)| (k.clone(), template::render(v, &value)))
            .collect(),
        stdin: def.stdin.as_ref().map(|s| template::render(s, &value)),
        output: def.output,
        timeout: def.timeout_seconds.map(Duration::from_secs),
    }
}

/// The JSON Schema of an agents file (`schemas/agents.schema.json`).
pub fn schema() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(AgentsFile)).unwrap_or(Value::Null);
    let extensions = serde_json::json!({"^x_": {}});
    if let Value::Object(map) = &mut schema {
        map.insert(
            "$id".into(),
            "https://playbook.studio/schemas/agents.schema.json".into(),
        );
        map.insert("patternProperties".into(), extensions.clone());
    }
    if let Some(Value::Object(def)) = schema.pointer_mut("/$defs/AgentDef") {
        def.insert("patternProperties".into(), extensions);
    }
    schema
}
