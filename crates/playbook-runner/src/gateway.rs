//! The tool gateway of a real run: the only way an agent process reaches a
//! tool.
//!
//! ```text
//! agent process ──MCP (stdio)──▶ `playbook gateway` ──socket──▶ Broker ──▶ ProcessAgent::step
//!   (Claude Code, a script…)       (rmcp server,                (in the run)   returns AgentStep::Call
//!                                   relays only)                               to the engine, whose
//!                                                                               gateway checks it and
//!                                                                               answers a ToolResult
//! ```
//!
//! An agent CLI starts MCP servers itself, from a configuration file, as its
//! own child processes; so the run writes an MCP configuration naming
//! `playbook gateway --socket PATH --token TOKEN` and hands it to the agent.
//! That process is a thin relay: an `rmcp` stdio server whose `tools/list`
//! and `tools/call` are forwarded, one line of JSON each, over a Unix socket
//! to the run's [`Broker`]. The broker maps the token to the invocation it
//! was issued for and hands each call to that invocation's process agent,
//! which returns it to the engine as an ordinary agent step. So every call
//! of a real agent passes the engine's checks (`actions_allowed`, task kind,
//! scopes, worktree confinement, budget, approval) before it runs — the same
//! code path as a preview — and lands in the audit log, allowed or blocked.
//!
//! The relay holds no permissions: a token is valid only while its
//! invocation runs, lists only the tools the role may use, and an agent that
//! bypasses the relay and talks to the socket directly still only reaches
//! the engine's checks.

mod broker;
mod framing;
mod oversize;
mod server;
pub mod wire;

pub use broker::{Broker, Session, SessionEvent};
pub use server::serve_stdio;

/// `playbook gateway`: serves the relay on this process's standard streams
/// until the agent closes them.
pub fn relay(socket: &std::path::Path, token: &str) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the gateway's runtime: {e}"))?;
    runtime.block_on(serve_stdio(socket, token))
}
