//! The workspace's typed error: a stable kind the runner and the app can
//! match on, and a message that says where the problem is and how to fix it.

use std::fmt;

/// What went wrong, as a stable code (`kind.code()`), never a string match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkspaceErrorKind {
    /// The folder does not exist or is not inside a git working tree.
    NotARepository,
    /// The repository has no commit to start from.
    NoCommit,
    /// The working tree has tracked changes or untracked files.
    DirtyTree,
    /// The base ref does not name a commit.
    BadBaseRef,
    /// A run or task id cannot name a branch or a folder.
    BadId,
    /// More live worktrees than `max_parallel_worktrees`.
    TooManyWorktrees,
    /// `git` could not be started, failed, or did not finish in time.
    Git,
    /// A file system operation of the workspace itself failed.
    Io,
}

impl WorkspaceErrorKind {
    /// Every kind, in the order of the table in `docs/error-codes.md`
    /// ("Workspace"); a test keeps the two in step.
    pub const ALL: &'static [WorkspaceErrorKind] = &[
        WorkspaceErrorKind::NotARepository,
        WorkspaceErrorKind::NoCommit,
        WorkspaceErrorKind::DirtyTree,
        WorkspaceErrorKind::BadBaseRef,
        WorkspaceErrorKind::BadId,
        WorkspaceErrorKind::TooManyWorktrees,
        WorkspaceErrorKind::Git,
        WorkspaceErrorKind::Io,
    ];

    /// The stable code of this kind, as recorded and shown.
    pub fn code(self) -> &'static str {
        match self {
            WorkspaceErrorKind::NotARepository => "WORKSPACE_NOT_A_REPOSITORY",
            WorkspaceErrorKind::NoCommit => "WORKSPACE_NO_COMMIT",
            WorkspaceErrorKind::DirtyTree => "WORKSPACE_DIRTY_TREE",
            WorkspaceErrorKind::BadBaseRef => "WORKSPACE_BAD_BASE_REF",
            WorkspaceErrorKind::BadId => "WORKSPACE_BAD_ID",
            WorkspaceErrorKind::TooManyWorktrees => "WORKSPACE_TOO_MANY_WORKTREES",
            WorkspaceErrorKind::Git => "WORKSPACE_GIT_FAILED",
            WorkspaceErrorKind::Io => "WORKSPACE_IO",
        }
    }
}

/// A workspace error: a kind and a message naming where and how to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceError {
    pub kind: WorkspaceErrorKind,
    pub message: String,
}

impl WorkspaceError {
    pub(crate) fn new(kind: WorkspaceErrorKind, message: impl Into<String>) -> WorkspaceError {
        WorkspaceError {
            kind,
            message: message.into(),
        }
    }

    /// The stable code of the error's kind.
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }
}

impl fmt::Display for WorkspaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.code(), self.message)
    }
}

impl std::error::Error for WorkspaceError {}
