//! Stable codes of the contracts, documented in `docs/error-codes.md`: the
//! orchestrator's [`ErrorCode`] (events, worklogs, blockers, audit) and the
//! [`ValidatorCode`] of the Validator Output Contract.
//!
//! Both are closed sets: a payload naming a code that is not listed here (and
//! in the doc, which a test keeps in step) is refused, so the UI and CI can
//! switch on a code and never meet one they do not know.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where a person looks up every code.
pub const CODES_DOC: &str = "docs/error-codes.md";

macro_rules! codes {
    (
        $(#[$meta:meta])*
        $name:ident, $section:literal {
            $($variant:ident = $text:literal, $title:literal;)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
        pub enum $name {
            $(#[doc = $title] #[serde(rename = $text)] $variant,)*
        }

        impl $name {
            /// Every code, in documentation order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];
            /// The section of `docs/error-codes.md` that lists these codes.
            pub const DOC_SECTION: &'static str = $section;

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            /// One line saying what the code means.
            pub fn title(self) -> &'static str {
                match self { $($name::$variant => $title,)* }
            }

            /// The code spelled `text`, if it is one of the documented codes.
            pub fn parse(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)* _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownCode;

            fn from_str(text: &str) -> Result<Self, UnknownCode> {
                $name::parse(text).ok_or_else(|| UnknownCode {
                    code: text.to_string(),
                    section: $section,
                })
            }
        }
    };
}

/// A code that is not in `docs/error-codes.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCode {
    pub code: String,
    /// The section of the doc that lists the codes allowed here.
    pub section: &'static str,
}

impl std::fmt::Display for UnknownCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "code `{}` is not a documented code; the allowed codes are listed in {CODES_DOC} (section {})",
            self.code.escape_debug(),
            self.section
        )
    }
}

impl std::error::Error for UnknownCode {}

codes! {
    /// Stable orchestrator codes (`SCREAMING_SNAKE_CASE` in every payload).
    ///
    /// Every blocked or failed task, every contract violation and every
    /// refused run carries one of these.
    #[derive(TS)]
    #[ts(export)]
    ErrorCode, "Orchestrator" {
    PlaybookInvalid = "PLAYBOOK_INVALID", "The playbook has validation errors; the run is refused before anything runs.";
    ScenarioInvalid = "SCENARIO_INVALID", "The scenario file is malformed, too large or names a role the playbook does not have.";
    UnsupportedVersion = "UNSUPPORTED_VERSION", "A payload has a schema_version with an unknown major version; it is refused (fail closed).";
    RoleUnknown = "ROLE_UNKNOWN", "A task names a role explicitly that the playbook does not define; the run stops.";
    PreflightFailed = "PREFLIGHT_FAILED", "A mandatory preflight check failed; the run does not start.";
    InputMissing = "INPUT_MISSING", "A role's inputs_required are not all present; the agent is not invoked.";
    ToolNotAllowed = "TOOL_NOT_ALLOWED", "A tool call is not in the role's actions_allowed; it is denied before invocation.";
    TaskKindForbids = "TASK_KIND_FORBIDS", "The task's kind forbids the tool (inspect is read-only, run changes no file, git history only in kind git, never a push); denied before invocation.";
    ScopeViolation = "SCOPE_VIOLATION", "A tool would write outside the task's lock_scope, into its forbidden_scope or onto a path another task locks; denied before invocation.";
    PathEscape = "PATH_ESCAPE", "A tool path leaves the task's worktree (absolute, `..` above the root, a symbolic link out, `.git`); denied before invocation.";
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
    RunStopped = "RUN_STOPPED", "The run was stopped by a person or by policy after a contract violation; remaining tasks are canceled.";
    BudgetExceeded = "BUDGET_EXCEEDED", "The run reached its tool-call or wall-time budget; it stops and remaining tasks are canceled.";
    }
}

codes! {
    /// The `code` of the Validator Output Contract (`playbook validate
    /// --format json` and any validator in `scripts/`).
    ValidatorCode, "Validator" {
    Ok = "OK", "Every file is allowed (warnings and infos do not block).";
    ReadError = "READ_ERROR", "A file could not be read (missing, a directory, a device, too large, not UTF-8).";
    ParseError = "PARSE_ERROR", "A file is not well-formed YAML or JSON.";
    UnsupportedSchemaVersion = "UNSUPPORTED_SCHEMA_VERSION", "A document has a schema_version with an unknown major version (fail closed).";
    DocumentSize = "DOCUMENT_SIZE", "A document is larger than the 8 MiB limit.";
    SchemaViolation = "SCHEMA_VIOLATION", "A playbook breaks the structure of its JSON Schema.";
    ValidationFailed = "VALIDATION_FAILED", "A playbook or an envelope has errors beyond structure (lints, contract checks).";
    }
}
