//! Path confinement: a tool's path argument, resolved inside the task's
//! worktree or refused.
//!
//! The engine already refuses what it can see in the text of a path
//! (absolute, `..` above the root, `.git`) before any scope check; this
//! module adds what only the file system shows: a component that is a
//! symbolic link leading out of the worktree. Every existing prefix of the
//! path is checked, so a link anywhere in the chain is caught, and a file
//! that does not exist yet is judged by its parent chain. A link that stays
//! inside the worktree is fine. Writers then open the last component with
//! `O_NOFOLLOW`, so a link planted there after the check is not followed.

use std::path::{Component, Path, PathBuf};

use playbook_orchestrator::ErrorCode;
use playbook_orchestrator::agent::ToolDenial;
use playbook_orchestrator::toolset;

/// A path inside the worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confined {
    /// Relative, `/`-separated, as the engine's scope rules saw it; empty
    /// for the root.
    pub rel: String,
    /// The parent folder with every link resolved (inside the root), joined
    /// with the last component unresolved: what a writer opens with
    /// `O_NOFOLLOW`, and a reader opens after resolving the last link.
    pub abs: PathBuf,
}

fn escape(message: String) -> ToolDenial {
    ToolDenial {
        code: ErrorCode::PathEscape,
        message,
    }
}

/// Whether a path component names git's own folder on some file system:
/// one rule with the Claude Code gate's.
pub use playbook_core::scope::is_git_name;

/// Whether a directory argument names the root (left out, empty or `.`).
pub fn is_root(raw: &str) -> bool {
    matches!(raw.trim_end_matches('/'), "" | ".")
}

/// Resolves `raw` inside `root` (which must be canonical). Directory tools
/// pass `allow_root` so `""` or `.` means the whole worktree.
pub fn confine(root: &Path, raw: &str, allow_root: bool) -> Result<Confined, ToolDenial> {
    if allow_root && is_root(raw) {
        return Ok(Confined {
            rel: String::new(),
            abs: root.to_path_buf(),
        });
    }
    // The same normalization as the engine's scope check, so the file
    // written is the one whose path the scopes allowed.
    let rel = toolset::normalize(raw)
        .map_err(|why| escape(format!("{why}; use a path inside the task's worktree")))?;
    if let Some(part) = rel.split('/').find(|p| is_git_name(p)) {
        return Err(escape(format!(
            "`{raw}` goes through `{part}`, git's own state; files there change only through the git tools"
        )));
    }
    let mut prefix = root.to_path_buf();
    let mut shown = String::new();
    // The deepest existing folder, resolved, and what follows it.
    let mut resolved = root.to_path_buf();
    let mut missing: Vec<&str> = Vec::new();
    let parts: Vec<&str> = rel.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        prefix.push(part);
        if !shown.is_empty() {
            shown.push('/');
        }
        shown.push_str(part);
        let last = i + 1 == parts.len();
        if !missing.is_empty() {
            missing.push(part);
            continue;
        }
        let meta = match std::fs::symlink_metadata(&prefix) {
            Ok(m) => m,
            Err(_) => {
                // Does not exist (or cannot be looked at): nothing below it
                // exists either, and creating it stays under `resolved`.
                missing.push(part);
                continue;
            }
        };
        if meta.file_type().is_symlink() {
            let target = std::fs::canonicalize(&prefix).map_err(|_| {
                escape(format!(
                    "`{shown}` is a symbolic link to a path that does not exist, so where `{raw}` leads cannot be checked; remove the link or use a path without it"
                ))
            })?;
            if !target.starts_with(root) {
                return Err(escape(format!(
                    "`{shown}` is a symbolic link to {}, outside the task's worktree; `{raw}` was refused — use a path inside the worktree",
                    target.display()
                )));
            }
            if !last {
                resolved = target;
            }
        } else if !last {
            resolved.push(part);
        }
    }
    // Canonicalize the existing parent once more: it is inside the root by
    // the checks above, and this yields a path free of links.
    let parent = if missing.is_empty() {
        resolved
    } else {
        let mut p = resolved;
        p.extend(missing.iter().take(missing.len().saturating_sub(1)));
        p
    };
    let parent = match parent.canonicalize() {
        Ok(p) => p,
        Err(_) => parent,
    };
    if !parent.starts_with(root) || parent.components().any(|c| c == Component::ParentDir) {
        return Err(escape(format!(
            "`{raw}` resolves outside the task's worktree; use a path inside it"
        )));
    }
    if through_git(root, &parent) {
        return Err(escape(format!(
            "`{raw}` leads through a symbolic link into a `.git` folder; files there change only through the git tools"
        )));
    }
    let name = parts.last().copied().unwrap_or_default();
    Ok(Confined {
        abs: parent.join(name),
        rel,
    })
}

/// Whether a resolved path inside `root` goes through a `.git` folder (a
/// link to a nested repository's git directory).
fn through_git(root: &Path, resolved: &Path) -> bool {
    resolved.strip_prefix(root).is_ok_and(|rel| {
        rel.components()
            .any(|c| is_git_name(&c.as_os_str().to_string_lossy()))
    })
}

/// Resolves the last component too, for a reader: a link inside the root
/// is followed; one out of it (planted after `confine`) is refused.
pub fn resolve_for_read(root: &Path, confined: &Confined) -> Result<PathBuf, String> {
    match confined.abs.canonicalize() {
        Ok(p) if through_git(root, &p) => Err(format!(
            "`{}` leads into a `.git` folder; git's state is read through the git tools",
            confined.rel
        )),
        Ok(p) if p.starts_with(root) => Ok(p),
        Ok(_) => Err(format!(
            "`{}` leads outside the task's worktree; use a path inside it",
            confined.rel
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
            "`{}` does not exist in the task's worktree; list_files shows what does",
            confined.rel
        )),
        Err(e) => Err(format!("`{}` cannot be opened: {e}", confined.rel)),
    }
}
