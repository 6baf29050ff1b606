//! Findings: what validation reports, each with a stable code.
//!
//! Codes never change meaning once published; `docs/lints.md` documents every
//! one. The UI matches a finding to its field by `path` (a JSON pointer into
//! the document) and the CLI turns the pointer into `file:line:column`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How bad a finding is. Only errors block a run or an export as valid.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, TS,
)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Info => "info",
        }
    }
}

macro_rules! codes {
    ($($variant:ident = $code:literal, $severity:ident, $title:literal;)*) => {
        /// Stable finding codes. See `docs/lints.md`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
        #[ts(export)]
        pub enum Code {
            $(#[doc = $title] #[serde(rename = $code)] $variant,)*
        }

        impl Code {
            /// Every code, in documentation order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code as written in reports, e.g. `PB301`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)* }
            }

            /// The severity a finding with this code has unless options change it.
            pub fn default_severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }

            /// One line saying what the code means.
            pub fn title(self) -> &'static str {
                match self { $(Code::$variant => $title,)* }
            }
        }
    };
}

codes! {
    Syntax = "PB001", Error, "The file is not well-formed YAML or JSON.";
    Schema = "PB002", Error, "A value has the wrong type or a required field is missing.";
    UnsupportedVersion = "PB003", Error, "The schema_version has a major version this build does not know.";
    UnknownField = "PB004", Warning, "A field is not part of the format and has no x_ prefix.";
    DocumentSize = "PB005", Error, "The document is empty or larger than the size limit.";
    MissingVersion = "PB006", Info, "The document has no schema_version and is read as a legacy 1.0.0 file.";
    DuplicateKey = "PB007", Error, "A mapping has the same key twice, so readers disagree on which one counts.";
    LegacyReading = "PB009", Info, "A legacy (agenterm) construct is read with the meaning agenterm gave it.";
    UnsupportedYaml = "PB008", Error, "The file uses a YAML feature a playbook cannot hold: a tag, a second document, a non-text key or a non-finite number.";
    StageWithoutRoles = "PB101", Warning, "An enabled stage has no roles.";
    ParallelismZero = "PB102", Error, "max_parallel_worktrees is 0, so the stage can never run a task.";
    ParallelismHigh = "PB103", Warning, "max_parallel_worktrees is above the limit for one machine.";
    NoEnabledStage = "PB104", Warning, "No stage is enabled, so a run does nothing.";
    NoActions = "PB201", Warning, "A role has no actions_allowed.";
    NoRequiredOutputs = "PB202", Warning, "A role's outputs_contract names no required fields.";
    ReviewerInputs = "PB203", Warning, "A reviewer does not require spec_path and commit_sha.";
    DuplicateRole = "PB204", Error, "Two roles have the same name.";
    NoAgents = "PB205", Warning, "A role has no allowed_agents.";
    MutatingWithoutApproval = "PB206", Warning, "A role may use mutating tools without requires_user_approval.";
    ReviewerWithoutVerdict = "PB207", Error, "A reviewer's outputs_contract has no verdict field.";
    TesterWithoutFailures = "PB208", Error, "A tester's outputs_contract has no failures field.";
    LegacyRole = "PB209", Info, "A role has no contract fields; it is prompt-only.";
    ContractWithoutMode = "PB210", Warning, "A role has contract fields but no mode.";
    UnknownPlaceholder = "PB211", Info, "suggested_prompt has a {placeholder} that is not an input of the role.";
    UnknownHandoff = "PB301", Error, "handoff_to names a role that does not exist.";
    UnboundedLoop = "PB302", Error, "A handoff cycle has no retry_policy.max_iterations on any of its roles.";
    UnreachableRole = "PB303", Info, "No handoff reaches the role: only a direct assignment starts it.";
    InputNotProduced = "PB304", Warning, "A required input is neither a run input nor an output of an earlier role.";
    HandoffToDisabled = "PB305", Warning, "handoff_to names a role in a disabled stage.";
    HandoffToItself = "PB306", Warning, "handoff_to names the role itself, a handoff the orchestrator never follows.";
    NoEscalation = "PB401", Warning, "max_iterations is set but escalate_on is empty.";
    ZeroIterations = "PB402", Error, "max_iterations is 0, so the role can never run.";
    UnknownEscalation = "PB404", Warning, "escalate_on names a condition the orchestrator never raises.";
    GateSyntax = "PB501", Error, "A gate expression does not compile.";
    GateUnpromisedField = "PB502", Error, "A gate reads a field the outputs contract does not promise.";
    UnknownPolicy = "PB503", Error, "A gate names a policy key that is neither built in nor in policies.";
    ManualGate = "PB504", Info, "A gate is free text: not machine-checkable, so it is a manual approval.";
    PolicySyntax = "PB505", Error, "An expression in policies does not compile.";
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A line and column in the source text, both 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(export)]
pub struct Location {
    pub line: usize,
    pub column: usize,
}

/// One problem (or hint) found in a playbook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(export)]
pub struct Finding {
    pub code: Code,
    pub severity: Severity,
    /// JSON pointer of the offending value, e.g. `/workflow/build/roles/1/handoff_to/0`.
    pub path: String,
    /// What is wrong, naming the values involved.
    pub message: String,
    /// How to fix it.
    pub hint: String,
    /// Where the value is in the source text, when validated from text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub location: Option<Location>,
}

impl Finding {
    pub fn new(
        code: Code,
        path: impl Into<String>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        // Messages quote names and values from the file; a control or
        // invisible character in one must not act on the terminal or the
        // editor that shows the finding.
        let shown = |text: String| match crate::printable::printable(&text) {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(escaped) => escaped,
        };
        Finding {
            code,
            severity: code.default_severity(),
            path: path.into(),
            message: shown(message.into()),
            hint: shown(hint.into()),
            location: None,
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Escapes one reference token of a JSON pointer (RFC 6901).
pub fn escape_pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Splits a JSON pointer into its unescaped reference tokens.
pub fn pointer_tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_shows_what_a_name_holds_without_acting_on_it() {
        let f = Finding::new(
            Code::UnknownHandoff,
            "/workflow/build/roles/0/handoff_to/0",
            "`w\u{1b}[2J` hands off to `x\ny`",
            "hand off to `w\u{202e}`",
        );
        assert_eq!(f.message, "`w\\u{1b}[2J` hands off to `x\\ny`");
        assert_eq!(f.hint, "hand off to `w\\u{202e}`");
    }
}
