//! The line protocol between the `playbook gateway` relay and the run's
//! broker: one JSON object per line, each way. Private to Playbook Studio
//! (agents speak MCP to the relay, never this), but versioned so a relay
//! from another build is refused instead of misread.

use playbook_orchestrator::agent::ToolResult;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Version of this line protocol.
pub const WIRE_VERSION: u32 = 1;
/// Longest line either side accepts (a tool result can carry a file).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// Relay → broker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// First line: which invocation the relay serves.
    Hello { version: u32, token: String },
    /// `tools/list`.
    List { id: u64 },
    /// `tools/call`.
    Call { id: u64, tool: String, args: Value },
    /// The agent sent anything at all (a ping, a request): it is alive.
    Alive,
}

/// A tool as the relay lists it (MCP's `Tool`: name, description,
/// `inputSchema`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// Broker → relay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Reply {
    /// Answer to `hello`: the token is valid.
    Welcome,
    /// The token is unknown or its invocation ended.
    Refused {
        message: String,
    },
    Tools {
        id: u64,
        tools: Vec<ToolInfo>,
    },
    Result {
        id: u64,
        result: ToolResult,
    },
}
