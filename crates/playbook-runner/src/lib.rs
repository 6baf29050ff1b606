//! Real runs: the ports of the preview engine made real.
//!
//! The engine (`playbook-orchestrator`) runs a playbook through ports and does
//! no IO; a preview plugs in scripted agents and simulated tools. This crate
//! plugs in the real ones, so the CLI and the app share one runner:
//!
//! - [`workspace`] — the repository, one git worktree per task, and the
//!   tools an agent may call, confined to its worktree;
//! - [`context`] — the context bundle (`AGENTS.md`, `agents/<ROLE>.md`,
//!   `policy/*.json`) and the mandatory preflight;
//! - [`verify`] — the verification that follows a worker;
//! - [`agents`] — agent definitions (how to start Claude Code, Codex,
//!   Gemini CLI or any command) and [`assigner`], a role assigner that is a
//!   command;
//! - [`gateway`] — the MCP server each agent process reaches its tools
//!   through, and the broker that puts every call through the engine's
//!   checks;
//! - [`process`] — an agent that is a process;
//! - [`runner`] — everything wired into one run.

pub mod agents;
pub mod assigner;
pub mod context;
pub mod gateway;
pub mod private_dir;
pub mod process;
mod regular_file;
pub mod runner;
pub mod schema;
pub mod spill;
pub mod verify;
pub mod workspace;
