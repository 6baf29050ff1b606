//! The files the person chose in this session, and the one check every file
//! command makes against them.
//!
//! The page never names a file on its own authority: a path from the webview
//! is only honoured if the person picked it in a native dialog opened by this
//! side, or dropped it on the window, in this session. A script running in
//! the page (an injected one, a compromised dependency) can therefore neither
//! read nor overwrite any other file the user can. Reading and writing are
//! granted separately: a file chosen to open cannot be overwritten, a file
//! chosen as an export target cannot be read back through an import.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use crate::error::{AppError, ErrorCode, Result};

/// What a chosen file may be used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Chosen in an open dialog or dropped on the window.
    Read,
    /// Chosen in a save dialog.
    Write,
}

/// The session's chosen files (Tauri managed state).
#[derive(Debug, Default)]
pub struct Grants {
    chosen: Mutex<HashSet<(Access, PathBuf)>>,
}

impl Grants {
    /// Records that the person chose `path` for `access`.
    pub fn allow(&self, access: Access, path: &Path) {
        if let Some(key) = key(path) {
            self.lock().insert((access, key));
        }
    }

    /// The path as given, if the person chose it for `access` in this
    /// session; otherwise a `forbidden` error that says how to choose it.
    pub fn check(&self, access: Access, path: &str) -> Result<PathBuf> {
        let given = Path::new(path.trim());
        if path.trim().is_empty() {
            return Err(AppError::new(ErrorCode::InvalidInput, "no file was chosen"));
        }
        let granted = key(given).is_some_and(|k| self.lock().contains(&(access, k)));
        if granted {
            return Ok(given.to_path_buf());
        }
        let how = match access {
            Access::Read => "choose it with Open file… or drop it on the window",
            Access::Write => "choose where to write with Export… or Save as…",
        };
        Err(AppError::new(
            ErrorCode::Forbidden,
            format!(
                "{} was not chosen in this session, so the app will not {} it; {how}",
                given.display(),
                match access {
                    Access::Read => "read",
                    Access::Write => "write",
                }
            ),
        )
        .with_details(serde_json::json!({ "path": path })))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<(Access, PathBuf)>> {
        // A panic while holding the lock leaves a set that is still valid.
        self.chosen.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The identity of a path for comparison: absolute, with `.` and `..`
/// resolved and the folder's symlinks followed, so `a/../b` or a linked
/// folder cannot name a file other than the chosen one. The file name
/// itself is kept as given (a save target does not exist yet). `None` for
/// relative paths, which no dialog gives.
fn key(path: &Path) -> Option<PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    let name = match path.components().next_back()? {
        Component::Normal(name) => name.to_owned(),
        _ => return None,
    };
    let folder = path.parent()?;
    let folder = folder.canonicalize().unwrap_or_else(|_| lexical(folder));
    Some(folder.join(name))
}

/// `.` and `..` removed without touching the disk, for a folder that does
/// not exist (nothing can be read or written there anyway).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}
