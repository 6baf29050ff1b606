//! Claude Code subagents (`.claude/agents/*.md`) in and out, and the
//! decision of the `PreToolUse` hook that enforces a role's contract inside
//! Claude Code.
//!
//! Formats followed, as Claude Code's documentation gives them:
//! - subagent files: <https://code.claude.com/docs/en/sub-agents> (YAML
//!   front matter `name`, `description`, `tools` — a comma list; absent
//!   means every tool —, `model` and newer optional keys; the body is the
//!   system prompt);
//! - hooks: <https://code.claude.com/docs/en/hooks> (settings
//!   `hooks.PreToolUse[]`, the input on stdin and the decision output).
//!
//! The mapping between Claude Code's tool names and the playbook tool
//! catalog is one table ([`tools::TOOL_MAP`]) used by import, export and the
//! gate alike, so the three cannot disagree.

mod agent_file;
mod command;
mod export;
mod gate;
#[cfg(test)]
mod gate_tests;
mod import;
mod options;
pub mod tools;

pub use agent_file::{AgentFile, MAX_AGENT_FILE_BYTES, parse_agent};
pub use export::{
    AGENTS_DIR, EXPORT_KEY, ExportedAgent, GATE_MARKER, PLAYBOOK_COPY_HEADER, PlaybookPath,
    ProjectExport, SETTINGS_FILE, agent_file_name, export_project, export_role, gate_command,
    merge_settings, playbook_copy, replaceable,
};
pub use gate::{
    Decision, GateInput, MAX_HOOK_INPUT_BYTES, Permission, SCOPE_KEY, Scopes, decide, parse_input,
};
pub(crate) use gate::{scope_entries, scope_path, within};
pub use import::{EXTENSION_KEY, Import, MAX_AGENT_FILES, Note, import};

/// Why a subagent file cannot be read: the file, the line (1-based) when
/// known, what is wrong and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
    pub hint: String,
    /// The file has no front matter at all: a README or notes kept next
    /// to the subagents rather than a broken subagent.
    pub not_a_subagent: bool,
}

impl ImportError {
    pub(crate) fn new(
        file: &str,
        line: Option<usize>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        ImportError {
            file: file.to_string(),
            line,
            message: message.into(),
            hint: hint.into(),
            not_a_subagent: false,
        }
    }
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        super::fmt_located(f, &self.file, self.line, &self.message, &self.hint)
    }
}

impl std::error::Error for ImportError {}
