//! The agent names the Run mode offers: the built-in definitions and those
//! of an agents file the person chose (docs/agents.md). The runner reads the
//! file again when the run starts; here it is read only for its names.

use std::path::Path;

/// The agent definitions every run has without an agents file.
pub const BUILT_IN: &[&str] = &["claude-code", "codex", "gemini", "command"];

/// The largest agents file the app reads.
const LIMIT: u64 = 1024 * 1024;

/// The names an agents file defines, in file order: the keys of its
/// top-level `agents` mapping (YAML or JSON).
pub fn names(path: &Path) -> Result<Vec<String>, String> {
    let shown = path.display();
    let size = std::fs::metadata(path)
        .map_err(|e| format!("cannot read the agents file {shown}: {e}"))?
        .len();
    if size > LIMIT {
        return Err(format!(
            "the agents file {shown} is {size} bytes; an agents file is at most {LIMIT} bytes"
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the agents file {shown} as UTF-8 text: {e}"))?;
    names_in(&text).map_err(|why| format!("the agents file {shown} {why}"))
}

/// [`names`] of a file's text; the error completes "the agents file X …".
pub fn names_in(text: &str) -> Result<Vec<String>, String> {
    // YAML is a superset of JSON, so one parser reads both.
    let value: serde_json::Value =
        yaml_serde::from_str(text).map_err(|e| format!("is not valid YAML or JSON: {e}"))?;
    let agents = value
        .get("agents")
        .ok_or("has no top-level `agents` mapping; see docs/agents.md")?
        .as_object()
        .ok_or("has an `agents` entry that is not a mapping of names to definitions")?;
    if agents.is_empty() {
        return Err("defines no agent under `agents`".to_string());
    }
    Ok(agents.keys().cloned().collect())
}
