//! The built-in agent definitions (docs/agents.md explains each flag).
//!
//! Each reaches its tools only through the run's MCP gateway: the built-in
//! tools of the agent CLI are switched off or left unapproved where the CLI
//! allows it, and the prompt goes on standard input (a prompt can exceed
//! the 128 KiB Linux allows for one argument).

use indexmap::IndexMap;

use super::{AgentDef, OutputForm};

/// Names of the built-in definitions.
pub const BUILTIN_NAMES: &[&str] = &["claude-code", "codex", "gemini", "command"];

fn words(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The built-in definition `name`. `command` has an empty command line:
/// the person gives it (an agents file, or the CLI's agent command).
pub fn builtin(name: &str) -> Option<AgentDef> {
    let def = |command: Vec<String>, output, description: &str| AgentDef {
        name: name.to_string(),
        command,
        cwd: None,
        env: IndexMap::new(),
        stdin: Some("{prompt}".into()),
        timeout_seconds: None,
        output,
        description: Some(description.into()),
    };
    match name {
        "claude-code" => Some(def(
            words(&[
                "claude",
                "-p",
                "--output-format",
                "json",
                "--mcp-config",
                "{mcp_config}",
                "--strict-mcp-config",
                // No built-in tool (Read, Edit, Bash...): every tool call
                // goes through the gateway.
                "--tools",
                "",
                "--allowedTools",
                "mcp__playbook",
            ]),
            OutputForm::ClaudeJson,
            "Claude Code in print mode; only the gateway's MCP tools; the answer is inside the `result` of its JSON output.",
        )),
        "codex" => Some(def(
            words(&[
                "codex",
                "exec",
                // Codex's own shell may read, never write: writes go
                // through the gateway.
                "--sandbox",
                "read-only",
                "-c",
                "approval_policy=\"never\"",
                "-c",
                "mcp_servers.playbook.command={mcp_command_toml}",
                "-c",
                "mcp_servers.playbook.args={mcp_args_toml}",
                "--output-last-message",
                "{result_file}",
                // The prompt is read from standard input.
                "-",
            ]),
            OutputForm::Text,
            "Codex non-interactive (`codex exec`); the gateway is configured with -c overrides; the last message is written to the result file.",
        )),
        "gemini" => {
            let mut d = def(
                words(&[
                    "gemini",
                    "--output-format",
                    "text",
                    "--allowed-mcp-server-names",
                    "playbook",
                ]),
                OutputForm::Text,
                "Gemini CLI headless (prompt on standard input); the gateway comes from the MCP config, loaded as its system settings file.",
            );
            d.env.insert(
                "GEMINI_CLI_SYSTEM_SETTINGS_PATH".into(),
                "{mcp_config}".into(),
            );
            Some(d)
        }
        "command" => {
            let mut d = def(
                Vec::new(),
                OutputForm::Protocol,
                "A plain command that speaks the agent protocol (docs/agent-protocol.md).",
            );
            d.stdin = None;
            Some(d)
        }
        _ => None,
    }
}
