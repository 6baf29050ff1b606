//! The one error every command returns.
//!
//! The UI switches on [`ErrorCode`], never on the message text, so a message
//! can be reworded without breaking a screen. `details` carries structured
//! context (findings of a rejected import, the path that failed).

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// What went wrong, as a stable code. Documented in `docs/error-codes.md`, section "App".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export, rename = "AppErrorCode")]
pub enum ErrorCode {
    /// An argument from the UI is malformed (empty name, unknown format ...).
    InvalidInput,
    /// The text is not a structurally valid playbook; `details.findings` says why.
    InvalidPlaybook,
    /// The playbook has error findings and the action needs a valid one (run, export as valid).
    Blocked,
    /// A file is larger than a playbook can be.
    TooLarge,
    /// Reading or writing a file failed.
    Io,
    /// The playbook, version or run does not exist.
    NotFound,
    /// Someone saved a newer version first (optimistic concurrency).
    Conflict,
    /// A change was made to a document revision the backend no longer
    /// holds; the UI sends the whole document instead.
    Stale,
    /// The library database failed.
    Store,
    /// The preview engine failed.
    Engine,
    /// The repository of a real run is not usable: not a git checkout, no
    /// commit, uncommitted changes, a missing base ref, unreadable policy
    /// files. The message says which and how to fix it.
    Repository,
    /// No agent of a real run can start: an unknown agent name, or its
    /// program is not installed.
    Agent,
    /// A real run is going on; one runs at a time.
    Busy,
    /// A file the person did not choose in this session (dialog or drop);
    /// the page cannot name files on its own (`grants.rs`).
    Forbidden,
    /// A bug: something that should not happen did.
    Internal,
}

/// `{code, message, details}`, the shape every failed command takes.
#[derive(Debug, Clone, Serialize, TS, thiserror::Error)]
#[error("{message}")]
#[ts(export)]
pub struct AppError {
    pub code: ErrorCode,
    /// One sentence for the user, naming what failed and what to do.
    pub message: String,
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub details: Option<Value>,
}

impl AppError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        AppError {
            code,
            message: message.into(),
            details: None,
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
}

impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        let code = match e.kind() {
            std::io::ErrorKind::NotFound => ErrorCode::NotFound,
            _ => ErrorCode::Io,
        };
        AppError::new(code, e.to_string())
    }
}

pub type Result<T, E = AppError> = std::result::Result<T, E>;
