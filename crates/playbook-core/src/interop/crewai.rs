//! CrewAI crews (`config/agents.yaml` + `config/tasks.yaml`) → a playbook.
//!
//! Format followed, as CrewAI's documentation gives it
//! (<https://docs.crewai.com/en/concepts/agents>,
//! <https://docs.crewai.com/en/concepts/tasks>): each top-level key of
//! `agents.yaml` is an agent id with `role`, `goal`, `backstory`, `tools`,
//! `llm`, `max_iter`, `allow_delegation`...; each top-level key of
//! `tasks.yaml` is a task id with `description`, `expected_output`, `agent`,
//! `context` (task ids whose output the task reads), `human_input`,
//! `output_file`, `async_execution`, `tools`... Text may hold `{name}`
//! placeholders, filled from the crew's `kickoff(inputs=...)`.
//!
//! What the YAML cannot say — the crew's process (sequential or
//! hierarchical), tools implemented in Python, callbacks — lives in
//! `crew.py`; the import says what to check there as notes.

mod config;
mod context;
mod import;
pub mod tools;

pub use config::MAX_ENTRIES;
pub use import::{EXTENSION_KEY, import};

/// One YAML file of the crew: its name as shown to the user, and its text.
#[derive(Debug, Clone, Copy)]
pub struct CrewFile<'a> {
    pub file: &'a str,
    pub text: &'a str,
}

/// Something a person should check after an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub file: String,
    pub message: String,
}

/// The playbook an import built, and what to check in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    pub playbook: crate::model::Playbook,
    pub notes: Vec<Note>,
}

/// Why a crew cannot be read: the file, the line (1-based) when known, what
/// is wrong and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
    pub hint: String,
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
        }
    }
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        super::fmt_located(f, &self.file, self.line, &self.message, &self.hint)
    }
}

impl std::error::Error for ImportError {}

#[cfg(test)]
mod tests;
