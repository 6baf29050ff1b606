//! The per-run audit log (spec/role-scoped-agent-runs.md §7): inputs, a
//! context snapshot of hashes, outputs, metadata and every tool call, the
//! blocked ones included, in order.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use ts_rs::TS;

use crate::agent::ToolResult;
use crate::code::ErrorCode;

/// Hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Hex SHA-256 of a value's JSON text (as `serde_json::to_vec` writes it),
/// hashed as it is written: a large scenario's text (its tasks) is never
/// held whole.
pub fn sha256_json_hex<T: serde::Serialize + ?Sized>(value: &T) -> String {
    struct Hashing(Sha256);
    impl std::io::Write for Hashing {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.update(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut hashing = Hashing(Sha256::new());
    if serde_json::to_writer(&mut hashing, value).is_err() {
        // What `to_vec(..).unwrap_or_default()` hashed: nothing.
        return sha256_hex(&[]);
    }
    hex(&hashing.0.finalize())
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// What the run was asked to do.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AuditInputs {
    pub playbook_id: String,
    pub scenario: Option<String>,
    pub seed: u64,
    pub goal: String,
    pub task_ids: Vec<String>,
    /// Repository and branch/commit context, from the run input values.
    pub repo: Option<String>,
    pub base_ref: Option<String>,
}

/// Hashes of everything that shaped the agents' behaviour.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ContextSnapshot {
    /// SHA-256 of the playbook's canonical JSON (its version).
    pub playbook_hash: String,
    /// SHA-256 of the playbook's policies and mutating actions.
    pub policies_hash: String,
    /// SHA-256 of the scenario's canonical JSON.
    pub scenario_hash: String,
    /// Role → SHA-256 of its prompt template rendered without inputs.
    pub role_prompts: IndexMap<String, String>,
    /// A real run's context bundle: repository path (`AGENTS.md`,
    /// `agents/<ROLE>.md`, `policy/*.json`) → SHA-256 at the run's commit.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub files: IndexMap<String, String>,
    /// Context files the repository does not have (the playbook's contracts
    /// alone govern what they would have said).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<String>,
}

/// One tool call, allowed or blocked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ToolCallRecord {
    pub tool: String,
    #[ts(type = "unknown")]
    pub args: Value,
    pub result: ToolResult,
}

/// One agent invocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AgentRunRecord {
    pub task_id: String,
    pub stage: String,
    pub role: String,
    pub iteration: u32,
    /// Identifies the agent implementation (e.g. `scripted`).
    pub agent: String,
    /// SHA-256 of the rendered prompt sent.
    pub prompt_hash: String,
    pub started_at: String,
    pub ended_at: String,
    /// Virtual latency.
    pub latency_ms: u64,
    /// `ok`, `violation`, `needs_input`, `error`, `timeout`, `not_invoked`.
    pub outcome: String,
    pub code: Option<ErrorCode>,
    /// The output payload as received (for text outputs, the text).
    #[ts(type = "unknown")]
    pub output: Value,
    pub tool_calls: Vec<ToolCallRecord>,
}

/// The audit log of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AuditLog {
    pub run_id: String,
    pub inputs: AuditInputs,
    pub context: ContextSnapshot,
    pub started_at: String,
    pub ended_at: String,
    pub outcome: Option<crate::event::Outcome>,
    pub runs: Vec<AgentRunRecord>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_hashed_as_written_is_the_hash_of_its_text() {
        let value = serde_json::json!({"tasks": ["a", "b"], "n": 1.5, "s": "ü\n"});
        assert_eq!(
            sha256_json_hex(&value),
            sha256_hex(&serde_json::to_vec(&value).unwrap())
        );
    }
}
