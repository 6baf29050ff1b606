//! The agent names the Run mode offers: the built-in definitions and those
//! of an agents file the person chose (docs/agents.md). The file is read
//! and checked by the runner's own reader, so a file the app accepts is a
//! file the run accepts; the runner reads it again when the run starts.

use std::path::Path;

use playbook_runner::agents::{AgentsFile, BUILTIN_NAMES};

/// The agent definitions every run has without an agents file.
pub const BUILT_IN: &[&str] = BUILTIN_NAMES;

/// The names an agents file defines, in file order; the runner's words when
/// the file cannot be used.
pub fn names(path: &Path) -> Result<Vec<String>, String> {
    let file = AgentsFile::load(path).map_err(|e| e.to_string())?;
    names_of(file, &path.display().to_string())
}

/// [`names`] of a file's text, `path` naming it in messages.
pub fn names_in(path: &str, text: &str) -> Result<Vec<String>, String> {
    let file = AgentsFile::parse(path, text).map_err(|e| e.to_string())?;
    names_of(file, path)
}

fn names_of(file: AgentsFile, path: &str) -> Result<Vec<String>, String> {
    if file.agents.is_empty() {
        return Err(format!(
            "agents file {path} defines no agent under `agents:`; see docs/agents.md"
        ));
    }
    Ok(file.agents.into_keys().collect())
}
