//! The boundaries the engine talks through: agents, approvers, role
//! assigners and tools. A preview plugs in the scripted implementations of
//! [`crate::scenario`]; a real run would plug in model-backed ones. The engine
//! never knows which.
//!
//! Each trait method returns a future, so an implementation may wait on a
//! model, a person or a process; the engine bounds every such wait in virtual
//! time (an agent's reported duration against the task timeout, an approver's
//! wait against the approval timeout).

use std::future::Future;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::envelope::{AssignmentPacket, RoleAssignmentRequest};
use crate::toolset::TaskKind;

/// What the engine hands an agent for one invocation of one role.
#[derive(Debug)]
pub struct Invocation<'a> {
    pub run_id: &'a str,
    pub task_id: &'a str,
    pub stage: &'a str,
    pub role: &'a str,
    /// 1-based count of this role's invocations for this task.
    pub iteration: u32,
    /// The rendered system prompt, contract block included.
    pub prompt: &'a str,
    pub packet: &'a AssignmentPacket,
}

/// A tool call an agent attempts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ToolCall {
    pub tool: String,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[ts(type = "unknown")]
    pub args: Value,
}

/// What the engine answers to a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "status", rename_all = "snake_case")]
#[ts(export)]
pub enum ToolResult {
    /// The tool ran.
    Ran {
        #[ts(type = "unknown")]
        result: Value,
    },
    /// The call was refused before invocation; `message` explains which
    /// contract rule refused it, so the agent can adapt.
    Denied {
        code: crate::code::ErrorCode,
        message: String,
    },
}

/// The agent's final answer for an invocation.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentOutcome {
    /// The role output (JSON text or an already parsed value) and the
    /// subagent result envelope, if the agent produced one.
    Output {
        output: AgentOutput,
        result: Option<Value>,
    },
    /// The role output and a subagent result envelope an in-process agent
    /// built as a typed value. It is held to the same contract as a JSON
    /// result (size, every field check, the completion invariants, the run
    /// and task it names); only the parsing, which its type already did, is
    /// skipped.
    Checked {
        output: serde_json::Map<String, Value>,
        result: Box<crate::envelope::SubagentResult>,
    },
    /// The agent cannot go on without a person.
    NeedsInput { questions: Vec<String> },
    /// The agent crashed or the model call failed.
    Error { message: String },
    /// The agent stopped answering: its time budget ran out or its heartbeat
    /// went silent. Routed like a timeout, whatever the duration says.
    TimedOut { message: String },
}

/// The role output as the agent returned it.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentOutput {
    /// Raw text, as a model returns it; must parse as a JSON object.
    Text(String),
    /// An already structured value.
    Json(Value),
}

/// One move of an agent during an invocation.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentStep {
    /// Attempt a tool call; the engine answers with a [`ToolResult`].
    Call(ToolCall),
    /// Finish the invocation after `duration_ms` of virtual time.
    Finish {
        outcome: AgentOutcome,
        duration_ms: u64,
    },
}

/// An agent that plays roles.
pub trait Agent {
    /// The agent's next move. `last` is the answer to its previous tool call.
    fn step(
        &mut self,
        invocation: &Invocation<'_>,
        last: Option<&ToolResult>,
    ) -> impl Future<Output = AgentStep>;

    /// The engine ends the invocation without waiting for the agent to
    /// finish (tool call limit, a stop): a process agent kills its process
    /// tree here. Scripted agents have nothing to end.
    fn abort(&mut self, _invocation: &Invocation<'_>) {}
}

/// What needs approval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum ApprovalSubject {
    /// A mutating tool call of a role with `requires_user_approval`.
    Tool { tool: String },
    /// A gate written as free text (or the `user_approved` policy).
    Gate { gate: String },
}

/// A request for approval.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest<'a> {
    pub task_id: &'a str,
    pub stage: &'a str,
    pub role: Option<&'a str>,
    pub subject: ApprovalSubject,
}

/// An approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalDecision {
    pub approved: bool,
    /// Who decided (e.g. `auto`, `scenario`, `user`).
    pub by: String,
    /// Virtual time the decision took.
    pub waited_ms: u64,
}

/// Decides approval requests: auto-approve, auto-deny, scripted or a person.
pub trait Approver {
    fn decide(&mut self, request: &ApprovalRequest<'_>) -> impl Future<Output = ApprovalDecision>;
}

/// Approves everything at once.
#[derive(Debug, Clone, Copy, Default)]
pub struct AutoApprove;

impl Approver for AutoApprove {
    async fn decide(&mut self, _: &ApprovalRequest<'_>) -> ApprovalDecision {
        ApprovalDecision {
            approved: true,
            by: "auto".into(),
            waited_ms: 0,
        }
    }
}

/// Denies everything at once.
#[derive(Debug, Clone, Copy, Default)]
pub struct AutoDeny;

impl Approver for AutoDeny {
    async fn decide(&mut self, _: &ApprovalRequest<'_>) -> ApprovalDecision {
        ApprovalDecision {
            approved: false,
            by: "auto".into(),
            waited_ms: 0,
        }
    }
}

/// Chooses a role at runtime; answers with raw text, as a model would
/// (spec/role-assignment-llm-contract.md). The engine parses and checks it.
pub trait RoleAssigner {
    /// `stage` is the playbook's stage name; the request carries the
    /// contract's stage kind.
    fn assign(
        &mut self,
        stage: &str,
        request: &RoleAssignmentRequest,
    ) -> impl Future<Output = String>;
}

/// Where a tool call happens: the task it serves and what the task is for.
#[derive(Debug, Clone, Copy)]
pub struct ToolContext<'a> {
    pub run_id: &'a str,
    pub task_id: &'a str,
    pub stage: &'a str,
    pub role: &'a str,
    pub kind: TaskKind,
}

/// A refusal found by looking at the world (a path that leaves the worktree
/// through a symbolic link): the engine records it like any other blocked
/// call, before approval and before the call runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDenial {
    pub code: crate::code::ErrorCode,
    pub message: String,
}

/// How a task stops working in its worktree, as the engine tells the
/// [`Tools`] port: a real run frees the task's worktree slot then, so the
/// next task can start under `max_parallel_worktrees`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// It passed its stage and waits for the next one (or the run's end);
    /// its work is on its branch.
    LeftStage,
    /// It ended: `passed` every stage, or not (failed, blocked, canceled).
    Ended { passed: bool },
}

/// A change found outside every task's worktree and branch once an
/// invocation ended: what an unsandboxed program of the agent left in the
/// person's repository (its git configuration, hooks, refs of other
/// branches).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutsideChange {
    /// What changed and what was done about it, in words for the person.
    pub message: String,
    /// The step is held to it: it counts as a scope violation
    /// (`SCOPE_VIOLATION`). Otherwise the change is reported as a warning:
    /// the person may have made it in their own checkout meanwhile.
    pub violation: bool,
}

/// Runs tools that a role was allowed (and approved) to call.
pub trait Tools {
    /// Checks that need the world, after the engine's contract checks and
    /// before approval. Simulated tools have none.
    fn check(&mut self, _ctx: &ToolContext<'_>, _call: &ToolCall) -> Result<(), ToolDenial> {
        Ok(())
    }

    /// Runs the call. A failure of the tool itself (a file that does not
    /// exist) is a result the agent reads, not a contract denial.
    fn run(&mut self, ctx: &ToolContext<'_>, call: &ToolCall) -> impl Future<Output = Value>;

    /// The worktree paths a commit made now would record: changed, added
    /// or deleted since the task branch's last commit. The engine holds each
    /// to the task's scopes before a commit tool runs, since a program that
    /// `run_command` started, or the agent's own process, may have written
    /// them without a tool. `Err` (the list cannot be made) refuses the
    /// commit. Simulated tools change nothing.
    fn uncommitted_paths(&mut self, _ctx: &ToolContext<'_>) -> Result<Vec<String>, String> {
        Ok(Vec::new())
    }

    /// Every path the task's branch changes since its base commit, whether
    /// committed or not: what the branch would bring to the person. The
    /// engine holds each to the task's scopes before the task leaves a
    /// stage and before it passes the run, since a program `run_command`
    /// started (or the agent's own process) can commit without the
    /// gateway. `Err` (the list cannot be made) fails the task. A task that
    /// never had a worktree has none; simulated tools change nothing.
    fn branch_paths(&mut self, _task_id: &str) -> Result<Vec<String>, String> {
        Ok(Vec::new())
    }

    /// The task no longer works in its stage (`how` says whether it only
    /// left the stage or ended). Called once per stage a task leaves and
    /// once when it ends; a call for a task without a worktree does nothing.
    fn release(&mut self, _task_id: &str, _how: Release) {}

    /// What changed outside every task's worktree and branch since the
    /// last call; the engine asks after each invocation and once at the
    /// run's end. Simulated tools see nothing.
    fn outside_changes(&mut self) -> Vec<OutsideChange> {
        Vec::new()
    }
}

/// Preview tools: nothing runs; every call answers `{"ok": true}`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimulatedTools;

impl Tools for SimulatedTools {
    async fn run(&mut self, _: &ToolContext<'_>, _: &ToolCall) -> Value {
        serde_json::json!({ "ok": true, "simulated": true })
    }
}
