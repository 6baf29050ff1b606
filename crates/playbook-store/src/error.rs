//! Typed errors of the store, each with a stable code.
//!
//! The desktop app and the CLI show `code`, the message and the hint; they
//! never match on message text. `NotFound` is its own variant because callers
//! treat it differently from failures (the UI shows an empty state, not an
//! alert).

use playbook_core::Finding;
use serde::Serialize;
use ts_rs::TS;

use crate::types::DraftNumber;

/// Stable error codes of the store. Documented in `docs/error-codes.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[ts(export, rename = "StoreErrorCode")]
pub enum ErrorCode {
    NotFound,
    AlreadyExists,
    ConcurrencyConflict,
    Deleted,
    NotDeleted,
    InvalidName,
    InvalidPlaybook,
    InvalidInput,
    ImportRefused,
    DbNewerVersion,
    NotADatabase,
    ReadOnly,
    Corrupt,
    Busy,
    DiskFull,
    Io,
    Database,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotFound => "NOT_FOUND",
            Self::AlreadyExists => "ALREADY_EXISTS",
            Self::ConcurrencyConflict => "CONCURRENCY_CONFLICT",
            Self::Deleted => "DELETED",
            Self::NotDeleted => "NOT_DELETED",
            Self::InvalidName => "INVALID_NAME",
            Self::InvalidPlaybook => "INVALID_PLAYBOOK",
            Self::InvalidInput => "INVALID_INPUT",
            Self::ImportRefused => "IMPORT_REFUSED",
            Self::DbNewerVersion => "DB_NEWER_VERSION",
            Self::NotADatabase => "NOT_A_DATABASE",
            Self::ReadOnly => "READ_ONLY",
            Self::Corrupt => "CORRUPT",
            Self::Busy => "BUSY",
            Self::DiskFull => "DISK_FULL",
            Self::Io => "IO",
            Self::Database => "DATABASE",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything that can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The playbook, version, template or run does not exist.
    #[error("{what} not found")]
    NotFound { what: String },
    #[error("{what} already exists")]
    AlreadyExists { what: String },
    /// An export would replace files that are already there (code
    /// `ALREADY_EXISTS`, with a hint about files rather than ids).
    #[error("{}", describe_files(.paths))]
    FileExists { paths: Vec<String> },
    /// Another version was saved after the one the caller edited. Nothing
    /// was saved; the caller's text was kept as draft `draft` when set.
    #[error(
        "{what} {playbook}: you edited version {edited}, but version {latest} was saved since; {}",
        kept(.draft)
    )]
    ConcurrencyConflict {
        what: &'static str,
        playbook: String,
        edited: u32,
        latest: u32,
        /// The draft that holds the refused text; `None` when it was not
        /// kept (templates keep no drafts), and then the message says so.
        draft: Option<DraftNumber>,
    },
    #[error("{what} is deleted")]
    Deleted { what: String },
    #[error("{what} is not deleted, so it cannot be purged")]
    NotDeleted { what: String },
    #[error("invalid name {name:?}: {reason}")]
    InvalidName { name: String, reason: String },
    /// A playbook's display name the schema would refuse (code
    /// `INVALID_NAME`; the rule is not the one of ids and file names).
    /// `name` is shown escaped (`printable`): it is what was refused.
    #[error("invalid playbook name \"{name}\": {reason}")]
    InvalidDisplayName { name: String, reason: String },
    /// The text is not a playbook (or role) the store can keep as a version.
    #[error("{}", describe(.message, .findings))]
    InvalidPlaybook {
        message: String,
        findings: Vec<Finding>,
    },
    /// A value given to the store is unusable (e.g. a run event that is not JSON).
    #[error("{message}")]
    InvalidInput { message: String },
    /// A file to import was refused; nothing was written. The file's name
    /// is shown escaped: a name in a directory is anyone's text.
    #[error(
        "{}: {}",
        playbook_core::printable::printable(.source_name),
        describe(.reason, .findings)
    )]
    ImportRefused {
        source_name: String,
        reason: String,
        findings: Vec<Finding>,
    },
    #[error(
        "the library was written by a newer Playbook Studio (format {found}; this build reads up to {supported})"
    )]
    DbNewerVersion { found: u32, supported: u32 },
    #[error("not a Playbook Studio library: {reason}")]
    NotADatabase { reason: String },
    #[error("the library is read-only: {reason}")]
    ReadOnly { reason: String },
    #[error("the library file is corrupt: {message}")]
    Corrupt { message: String },
    #[error("the library is locked by another process: {message}")]
    Busy { message: String },
    /// The disk (or the library's quota) is full; nothing was half-written.
    #[error("the disk is full: {message}")]
    DiskFull { message: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("database error: {0}")]
    Database(rusqlite::Error),
}

/// The files named, at most five (an export over a full directory would
/// otherwise print thousands of names).
fn describe_files(paths: &[String]) -> String {
    const SHOWN: usize = 5;
    match paths {
        [one] => format!("file {one} already exists"),
        _ => {
            let mut text = format!(
                "{} files already exist: {}",
                paths.len(),
                paths[..paths.len().min(SHOWN)].join(", ")
            );
            if paths.len() > SHOWN {
                text.push_str(&format!(" and {} more", paths.len() - SHOWN));
            }
            text
        }
    }
}

/// What became of a refused text: the promise a conflict makes is only
/// the one the store kept.
fn kept(draft: &Option<DraftNumber>) -> String {
    match draft {
        Some(number) => format!("nothing was saved, and your text is kept as draft {number}"),
        None => "nothing was saved".to_string(),
    }
}

fn describe(message: &str, findings: &[Finding]) -> String {
    let mut text = message.to_string();
    for finding in findings.iter().filter(|f| f.is_error()).take(5) {
        let at = match finding.location {
            Some(l) => format!(" (line {}, column {})", l.line, l.column),
            None if finding.path.is_empty() => String::new(),
            None => format!(" (at {})", finding.path),
        };
        text.push_str(&format!("\n  {} {}{at}", finding.code, finding.message));
    }
    text
}

impl Error {
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::NotFound { .. } => ErrorCode::NotFound,
            Self::AlreadyExists { .. } | Self::FileExists { .. } => ErrorCode::AlreadyExists,
            Self::ConcurrencyConflict { .. } => ErrorCode::ConcurrencyConflict,
            Self::Deleted { .. } => ErrorCode::Deleted,
            Self::NotDeleted { .. } => ErrorCode::NotDeleted,
            Self::InvalidName { .. } | Self::InvalidDisplayName { .. } => ErrorCode::InvalidName,
            Self::InvalidPlaybook { .. } => ErrorCode::InvalidPlaybook,
            Self::InvalidInput { .. } => ErrorCode::InvalidInput,
            Self::ImportRefused { .. } => ErrorCode::ImportRefused,
            Self::DbNewerVersion { .. } => ErrorCode::DbNewerVersion,
            Self::NotADatabase { .. } => ErrorCode::NotADatabase,
            Self::ReadOnly { .. } => ErrorCode::ReadOnly,
            Self::Corrupt { .. } => ErrorCode::Corrupt,
            Self::Busy { .. } => ErrorCode::Busy,
            Self::DiskFull { .. } => ErrorCode::DiskFull,
            Self::Io { source, .. } if is_disk_full(source) => ErrorCode::DiskFull,
            Self::Io { .. } => ErrorCode::Io,
            Self::Database(_) => ErrorCode::Database,
        }
    }

    /// How to fix it, in one sentence.
    pub fn hint(&self) -> String {
        match self {
            Self::NotFound { .. } => "check the name with `playbook db list` (deleted ones: `--all`)".into(),
            Self::AlreadyExists { .. } => "pick another id, or save a new version of the existing one".into(),
            Self::FileExists { .. } => "pass --force to replace the existing files, or export into another directory; nothing was written".into(),
            Self::ConcurrencyConflict { what: "template", playbook, latest, .. } => format!(
                "`playbook db template show {playbook}` prints version {latest}: merge your changes into it and save again with `--base {latest}`"
            ),
            Self::ConcurrencyConflict { playbook, edited, latest, draft, .. } => {
                let changes = format!("`playbook db diff {playbook} {edited} {latest}` shows what changed since your version");
                match draft {
                    Some(number) => format!(
                        "{changes}, `playbook db draft {playbook} --number {number}` prints your text: merge the two and save with `playbook db save {playbook} FILE --base {latest}`"
                    ),
                    None => format!(
                        "{changes}: merge your changes into version {latest} and save with `playbook db save {playbook} FILE --base {latest}`"
                    ),
                }
            }
            Self::Deleted { .. } => "restore it (the app's Library, \"Deleted playbooks\", or `playbook db undelete`), or duplicate it".into(),
            Self::NotDeleted { .. } => "delete it first with `playbook db rm`".into(),
            Self::InvalidName { .. } => "use 1 to 200 characters without '/', '\\' or control characters".into(),
            Self::InvalidDisplayName { .. } => "use 1 to 200 characters, not only spaces, and no control or invisible formatting characters (the name is shown as one line; the id names files)".into(),
            Self::InvalidPlaybook { .. } => "fix the problems listed (`playbook validate FILE` shows them all)".into(),
            Self::InvalidInput { .. } => "pass the value in the documented form".into(),
            Self::ImportRefused { .. } => "fix the file (`playbook validate FILE` shows every problem) and import it again; the library was not changed".into(),
            Self::DbNewerVersion { .. } => "use the newer Playbook Studio that wrote it, or point --db / PLAYBOOK_DB at another library".into(),
            Self::NotADatabase { .. } => "point --db or PLAYBOOK_DB at a Playbook Studio library, or at a path that does not exist yet to create one; the file was left untouched".into(),
            Self::ReadOnly { .. } => "make the file and its directory writable, or copy the library somewhere writable".into(),
            Self::Corrupt { .. } => "`playbook db check` lists what does not read and `playbook db export --all --out DIR` exports every playbook that still does; restore the rest from a backup".into(),
            Self::Busy { .. } => "close the other program using the library, or try again".into(),
            Self::DiskFull { .. } => "free some disk space and try again; the library is unchanged by the failed write".into(),
            Self::Io { source, .. } if is_disk_full(source) => "the disk is full: free some space and try again".into(),
            Self::Io { .. } => "check that the path exists and is accessible".into(),
            Self::Database(_) => "this is likely a bug in Playbook Studio; please report it with the message".into(),
        }
    }

    /// The error as the app shows it: `{code, message, hint}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "code": self.code(),
            "message": self.to_string(),
            "hint": self.hint(),
        })
    }
}

impl From<rusqlite::Error> for Error {
    fn from(error: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode as C;
        // A stored text that is not UTF-8 is damage to the file, not a bug:
        // say so, whichever reader met it (a version's reader says which
        // version, `versions::unreadable`).
        if let rusqlite::Error::Utf8Error(..) = &error {
            return Error::Corrupt {
                message: "a stored text is not UTF-8 text".into(),
            };
        }
        let message = error.to_string();
        match error.sqlite_error_code() {
            Some(C::DatabaseCorrupt) => Error::Corrupt { message },
            Some(C::NotADatabase) => Error::NotADatabase { reason: message },
            Some(C::ReadOnly) => Error::ReadOnly { reason: message },
            Some(C::DatabaseBusy) | Some(C::DatabaseLocked) => Error::Busy { message },
            Some(C::DiskFull) => Error::DiskFull { message },
            _ => Error::Database(error),
        }
    }
}

/// ENOSPC and EDQUOT: the write failed for lack of space, not for a bug.
pub fn is_disk_full(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
