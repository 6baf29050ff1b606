//! Stable error codes of the orchestrator, documented in `docs/error-codes.md`.
//!
//! Every blocked or failed task, every contract violation and every refused
//! run carries one of these, so the UI and CI switch on a code, never on a
//! message.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

macro_rules! codes {
    ($($variant:ident = $text:literal, $title:literal;)*) => {
        /// Stable orchestrator codes (`SCREAMING_SNAKE_CASE` in every payload).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema, TS)]
        #[ts(export)]
        pub enum ErrorCode {
            $(#[doc = $title] #[serde(rename = $text)] $variant,)*
        }

        impl ErrorCode {
            /// Every code, in documentation order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $text,)* }
            }

            /// One line saying what the code means.
            pub fn title(self) -> &'static str {
                match self { $(ErrorCode::$variant => $title,)* }
            }
        }
    };
}

codes! {
    PlaybookInvalid = "PLAYBOOK_INVALID", "The playbook has validation errors; the run is refused before anything runs.";
    ScenarioInvalid = "SCENARIO_INVALID", "The scenario file is malformed, too large or names a role the playbook does not have.";
    UnsupportedVersion = "UNSUPPORTED_VERSION", "A payload has a schema_version with an unknown major version; it is refused (fail closed).";
    RoleUnknown = "ROLE_UNKNOWN", "A task names a role explicitly that the playbook does not define; the run stops.";
    PreflightFailed = "PREFLIGHT_FAILED", "A mandatory preflight check failed; the run does not start.";
    InputMissing = "INPUT_MISSING", "A role's inputs_required are not all present; the agent is not invoked.";
    ToolNotAllowed = "TOOL_NOT_ALLOWED", "A tool call is not in the role's actions_allowed; it is denied before invocation.";
    ApprovalDenied = "APPROVAL_DENIED", "A mutating tool call or manual gate was denied by the approver.";
    ApprovalTimeout = "APPROVAL_TIMEOUT", "The approver did not answer within the virtual approval timeout; counts as denied.";
    ToolCallLimit = "TOOL_CALL_LIMIT", "An agent attempted more tool calls in one invocation than the limit allows.";
    OutputNotJson = "OUTPUT_NOT_JSON", "The role output is not a JSON object.";
    OutputMissingField = "OUTPUT_MISSING_FIELD", "The role output lacks a field its outputs_contract requires.";
    OutputTooLarge = "OUTPUT_TOO_LARGE", "The role output or a value in it exceeds the size limit.";
    ResultInvalid = "RESULT_INVALID", "The subagent result envelope violates spec/contracts.md (fields, regexes, ranges).";
    ResultInconsistent = "RESULT_INCONSISTENT", "The subagent result claims done but its acceptance checks are empty, failing or lack evidence.";
    AgentBlocked = "AGENT_BLOCKED", "The agent reported status blocked.";
    AgentFailed = "AGENT_FAILED", "The agent reported status failed or raised an error.";
    AgentTimeout = "AGENT_TIMEOUT", "An agent invocation took longer than the task's timeout_seconds (virtual time).";
    NeedsInput = "NEEDS_INPUT", "The agent needs input from a person to proceed.";
    GateFailed = "GATE_FAILED", "A pass_condition failed and there is no earlier role to send the task back to.";
    RetryLimit = "RETRY_LIMIT", "A review loop reached retry_policy.max_iterations without passing.";
    StageEnterBlocked = "STAGE_ENTER_BLOCKED", "The stage's enter_gate failed for the task.";
    StageExitBlocked = "STAGE_EXIT_BLOCKED", "The stage's exit_gate failed for the task.";
    WaitTimeout = "WAIT_TIMEOUT", "A task waited for a lock, a dependency or a role cap longer than the virtual wait timeout.";
    DependencyBlocked = "DEPENDENCY_BLOCKED", "A task depends on a task that was blocked or failed.";
    RoleAssignmentInvalid = "ROLE_ASSIGNMENT_INVALID", "The role assignment response was invalid; the first available role was used (warning).";
    ConcurrencyConflict = "CONCURRENCY_CONFLICT", "Two ledger delta streams changed the same row concurrently; re-read the canonical ledger (D5).";
    LedgerRowMissing = "LEDGER_ROW_MISSING", "A ledger delta updates a row that does not exist and is not a create (D4).";
    LedgerDrift = "LEDGER_DRIFT", "Reconciliation found the ledger disagreeing with the run state.";
    StepLimit = "STEP_LIMIT", "The run exceeded its step budget; it stops cleanly instead of looping.";
    RunStopped = "RUN_STOPPED", "The run was stopped by policy after a contract violation; remaining tasks are canceled.";
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
