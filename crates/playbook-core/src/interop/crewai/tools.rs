//! CrewAI tool names → the playbook tool catalog, where the meaning is
//! evident.
//!
//! In YAML a tool is a name that `crew.py` resolves to a Python object: a
//! class from `crewai_tools` (`FileReadTool`) or the snake_case name of a
//! method or `@tool` function (`file_read_tool`). Names are compared after
//! dropping case, `_`, `-` and a trailing `tool`, so both spellings meet the
//! same row. Everything else (web search, scraping, custom tools) has no
//! counterpart and is kept under `x_crewai.tools_unmapped`.

/// Normalised CrewAI tool name → our tool. docs/interop.md shows this
/// table; keep the two in step.
pub const TOOL_MAP: &[(&str, &str)] = &[
    ("fileread", "read_file"),
    ("filewriter", "write_file"),
    ("filewrite", "write_file"),
    ("directoryread", "list_files"),
    ("directorysearch", "search_code"),
    ("codeinterpreter", "run_command"),
];

/// Our tool for a CrewAI tool name, if the meaning is evident.
pub fn import_tool(name: &str) -> Option<&'static str> {
    let key = normalise(name);
    TOOL_MAP
        .iter()
        .find(|(c, _)| *c == key)
        .map(|(_, ours)| *ours)
}

fn normalise(name: &str) -> String {
    let flat: String = name
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    match flat.strip_suffix("tool") {
        Some(stem) if !stem.is_empty() => stem.to_string(),
        _ => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_and_method_spellings_meet() {
        assert_eq!(import_tool("FileReadTool"), Some("read_file"));
        assert_eq!(import_tool("file_read_tool"), Some("read_file"));
        assert_eq!(import_tool("FileWriterTool"), Some("write_file"));
        assert_eq!(import_tool("directory_read_tool"), Some("list_files"));
        assert_eq!(import_tool("CodeInterpreterTool"), Some("run_command"));
        assert_eq!(import_tool("SerperDevTool"), None);
        assert_eq!(import_tool("tool"), None);
        assert_eq!(import_tool(""), None);
    }
}
