//! Claude Code's tool names ↔ the playbook tool catalog, as one table.
//!
//! Claude Code's built-in tools are listed at
//! <https://code.claude.com/docs/en/settings#tools-available-to-claude>.
//! Several of our tools have no tool of their own in Claude Code: running
//! tests, git and deleting a file all happen through `Bash`. So the table is
//! not one-to-one; each row says in which direction it applies.

/// In which direction a row of [`TOOL_MAP`] is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Import reads the Claude Code tool as ours; export writes ours as it.
    Both,
    /// Only import: an older or alternative name of a Claude Code tool
    /// (`LS`, `NotebookRead`) that export never writes.
    Import,
    /// Only export: one of our tools that Claude Code does through a more
    /// general tool (`run_tests` through `Bash`). Import does not grant it,
    /// since `Bash` alone does not say the role is meant to commit.
    Export,
}

/// One row: a Claude Code tool, one of ours, and the direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolPair {
    pub claude: &'static str,
    pub ours: &'static str,
    pub direction: Direction,
}

const fn pair(claude: &'static str, ours: &'static str, direction: Direction) -> ToolPair {
    ToolPair {
        claude,
        ours,
        direction,
    }
}

/// The mapping, used by import, export and the gate. docs/interop.md shows
/// it as a table; keep the two in step.
pub const TOOL_MAP: &[ToolPair] = &[
    pair("Read", "read_file", Direction::Both),
    pair("NotebookRead", "read_file", Direction::Import),
    pair("Glob", "list_files", Direction::Both),
    pair("LS", "list_files", Direction::Import),
    pair("Grep", "search_code", Direction::Both),
    pair("Write", "write_file", Direction::Both),
    pair("Edit", "edit_file", Direction::Both),
    pair("MultiEdit", "edit_file", Direction::Both),
    pair("NotebookEdit", "edit_file", Direction::Import),
    pair("Bash", "run_command", Direction::Both),
    pair("Bash", "run_tests", Direction::Export),
    pair("Bash", "delete_file", Direction::Export),
    pair("Bash", "git_status", Direction::Export),
    pair("Bash", "git_diff", Direction::Export),
    pair("Bash", "git_commit", Direction::Export),
    pair("Bash", "git_checkpoint", Direction::Export),
    pair("Bash", "git_reset", Direction::Export),
    pair("Bash", "git_checkout", Direction::Export),
];

/// Claude Code tools that write the file named by `tool_input.file_path`
/// (`notebook_path` for `NotebookEdit`), as the hooks reference gives their
/// inputs; the gate checks that path against the scopes.
pub const FILE_WRITERS: &[(&str, &str)] = &[
    ("Write", "file_path"),
    ("Edit", "file_path"),
    ("MultiEdit", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

/// Our tool for a Claude Code tool read from a subagent file, if any.
pub fn import_tool(claude: &str) -> Option<&'static str> {
    TOOL_MAP
        .iter()
        .find(|p| p.claude == claude && p.direction != Direction::Export)
        .map(|p| p.ours)
}

/// The Claude Code tools that give a role one of our tools, for export.
pub fn export_tools(ours: &str) -> impl Iterator<Item = &'static str> + '_ {
    TOOL_MAP
        .iter()
        .filter(move |p| p.ours == ours && p.direction != Direction::Import)
        .map(|p| p.claude)
}

/// Every one of our tools a Claude Code tool call may stand for (the gate
/// allows the call when the role has any of them: a `Bash` call may be the
/// role's `run_tests`).
pub fn tools_behind(claude: &str) -> impl Iterator<Item = &'static str> + '_ {
    TOOL_MAP
        .iter()
        .filter(move |p| p.claude == claude)
        .map(|p| p.ours)
}

/// Whether `name` looks like a Claude Code tool name rather than one of
/// ours: built-in names are CamelCase, MCP tools are `mcp__server__tool`.
/// Export writes such names from `actions_allowed` unchanged.
pub fn is_claude_tool_name(name: &str) -> bool {
    name.starts_with("mcp__")
        || (name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// Whether `rule`, an entry of a subagent's `tools` (or of a role's
/// `actions_allowed`), names a whole MCP server that `tool` belongs to:
/// `mcp__server` as published subagents write it, or `mcp__server__*` as
/// Claude Code's permission rules do. A server name holds no `__` and no
/// `*`, and neither does the tool part matched: `mcp__a__b__c` could be
/// server `a__b`'s tool, so `mcp__a` does not grant it (denied, which is
/// the safe side).
pub fn mcp_server_grants(rule: &str, tool: &str) -> bool {
    let Some(server) = rule.strip_prefix("mcp__") else {
        return false;
    };
    let server = server.strip_suffix("__*").unwrap_or(server);
    let plain = |s: &str| !s.is_empty() && !s.contains("__") && !s.contains('*');
    plain(server)
        && tool
            .strip_prefix("mcp__")
            .and_then(|t| t.strip_prefix(server))
            .and_then(|t| t.strip_prefix("__"))
            .is_some_and(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_import_row_round_trips_through_export() {
        for p in TOOL_MAP.iter().filter(|p| p.direction == Direction::Both) {
            assert_eq!(import_tool(p.claude), Some(p.ours), "{}", p.claude);
            assert!(export_tools(p.ours).any(|c| c == p.claude), "{}", p.ours);
        }
        // Whatever export writes for one of our tools imports back as a
        // tool the role already had, or as nothing new it lacks.
        for p in TOOL_MAP {
            for c in export_tools(p.ours) {
                assert!(import_tool(c).is_some(), "{c}");
            }
        }
    }

    #[test]
    fn bash_stands_for_commands_tests_and_git() {
        let behind: Vec<_> = tools_behind("Bash").collect();
        assert!(behind.contains(&"run_tests") && behind.contains(&"git_commit"));
        assert_eq!(import_tool("Bash"), Some("run_command"));
        assert_eq!(import_tool("WebFetch"), None);
        assert!(is_claude_tool_name("WebFetch"));
        assert!(is_claude_tool_name("mcp__github__create_issue"));
        assert!(!is_claude_tool_name("read_file"));
    }
}
