//! The file tools: read, list, search, write, edit, delete — every one
//! bounded (sizes, counts, bytes scanned) and unable to block on a special
//! file (a FIFO, a device) or to write outside the worktree through a link:
//! only regular files are opened, without following a last-component link
//! and without blocking, and a write gives the name a new file rather than
//! writing into the one there (`crate::regular_file`), so a hard link to a
//! file outside the worktree is broken, never written through.

use std::fs::File;
use std::path::Path;

use regex::RegexBuilder;
use serde_json::{Value, json};
use walkdir::WalkDir;

use super::confine::{Confined, resolve_for_read};
use crate::regular_file::{self, Refused};

/// Bytes of a file `read_file` returns.
pub const READ_LIMIT: usize = 1024 * 1024;
/// Largest file `edit_file` rewrites.
pub const EDIT_LIMIT: usize = 8 * 1024 * 1024;
/// Largest text `write_file` writes.
pub const WRITE_LIMIT: usize = 8 * 1024 * 1024;
/// Entries `list_files` returns.
pub const LIST_LIMIT: usize = 5000;
/// Matches `search_code` returns.
pub const MATCH_LIMIT: usize = 500;
/// Files larger than this are not searched.
pub const SEARCH_FILE_LIMIT: u64 = 1024 * 1024;
/// Bytes `search_code` reads in all, so a huge tree cannot stall a call.
pub const SEARCH_TOTAL_LIMIT: u64 = 64 * 1024 * 1024;
/// Files `search_code` looks at, so a tree of countless empty files
/// cannot stall a call either.
pub const SEARCH_FILES_LIMIT: usize = 50_000;
/// Characters of a matching line shown.
const LINE_SHOWN: usize = 300;
/// How deep a listing or search descends.
const MAX_DEPTH: usize = 64;

pub fn fail(error: impl Into<String>) -> Value {
    json!({ "ok": false, "error": error.into() })
}

/// Opens a regular file for reading, never blocking and never following a
/// link in its last component.
fn open_regular(path: &Path, rel: &str) -> Result<File, String> {
    regular_file::open(path).map_err(|e| match e {
        Refused::Missing => {
            format!("`{rel}` does not exist in the task's worktree; list_files shows what does")
        }
        Refused::Link => format!("`{rel}` is a symbolic link; use the path it points to"),
        Refused::NotRegular(what) => {
            format!("`{rel}` is {what}, not a regular file; only files can be read")
        }
        Refused::Io(e) => format!("`{rel}` cannot be opened: {e}"),
    })
}

/// Reads at most `limit` bytes; `true` when the file had more.
fn read_capped(file: File, limit: usize, rel: &str) -> Result<(Vec<u8>, bool), String> {
    regular_file::read_capped(file, limit).map_err(|e| format!("`{rel}` cannot be read: {e}"))
}

fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|&b| b == 0)
}

pub fn read_file(root: &Path, target: &Confined) -> Value {
    let path = match resolve_for_read(root, target) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let result = open_regular(&path, &target.rel).and_then(|f| {
        let size = f.metadata().map(|m| m.len()).unwrap_or(0);
        read_capped(f, READ_LIMIT, &target.rel).map(|(b, c)| (b, c, size))
    });
    match result {
        Ok((bytes, _, _)) if looks_binary(&bytes) => fail(format!(
            "`{}` is a binary file; read_file returns text only",
            target.rel
        )),
        Ok((bytes, clipped, size)) => {
            let text = String::from_utf8_lossy(&bytes);
            // Of a clipped file, only what no credential cut at the clip can
            // have touched: the content reaches the audit log, whose
            // redaction must see every secret whole.
            let content = if clipped {
                playbook_redact::head_window(&text)
            } else {
                &text
            };
            let mut out = json!({
                "ok": true,
                "path": target.rel,
                "content": content,
                "bytes": size,
                "clipped": clipped,
            });
            if clipped {
                out["note"] = json!(format!(
                    "the file has {size} bytes; only its first {} are shown (at most {READ_LIMIT}, ending where the text read can end whole)",
                    content.len()
                ));
            }
            out
        }
        Err(e) => fail(e),
    }
}

/// Files under a folder (links and special files are listed as what they
/// are, never followed), `.git` left out.
fn walk(dir: &Path) -> impl Iterator<Item = walkdir::DirEntry> {
    WalkDir::new(dir)
        .follow_links(false)
        .max_depth(MAX_DEPTH)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !e.file_name().eq_ignore_ascii_case(".git"))
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

fn directory(root: &Path, target: &Confined) -> Result<std::path::PathBuf, String> {
    let dir = if target.rel.is_empty() {
        root.to_path_buf()
    } else {
        resolve_for_read(root, target)?
    };
    if !dir.is_dir() {
        return Err(format!(
            "`{}` is not a folder of the task's worktree",
            target.rel
        ));
    }
    Ok(dir)
}

pub fn list_files(root: &Path, target: &Confined) -> Value {
    let dir = match directory(root, target) {
        Ok(d) => d,
        Err(e) => return fail(e),
    };
    let mut files = Vec::new();
    let mut clipped = false;
    for entry in walk(&dir) {
        if files.len() == LIST_LIMIT {
            clipped = true;
            break;
        }
        files.push(relative(root, entry.path()));
    }
    json!({ "ok": true, "path": target.rel, "files": files, "clipped": clipped })
}

pub fn search_code(root: &Path, target: &Confined, pattern: &str) -> Value {
    let regex = match RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            return fail(format!(
                "the pattern is not a valid regular expression: {e}"
            ));
        }
    };
    let dir = match directory(root, target) {
        Ok(d) => d,
        Err(e) => return fail(e),
    };
    let mut matches = Vec::new();
    let mut skipped = 0u64;
    let mut scanned = 0u64;
    let mut clipped = false;
    'files: for (seen, entry) in walk(&dir).enumerate() {
        if seen == SEARCH_FILES_LIMIT {
            clipped = true;
            break;
        }
        if !entry.file_type().is_file() {
            continue;
        }
        let size = entry.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
        if size > SEARCH_FILE_LIMIT || scanned + size > SEARCH_TOTAL_LIMIT {
            skipped += 1;
            clipped |= scanned + size > SEARCH_TOTAL_LIMIT;
            continue;
        }
        let rel = relative(root, entry.path());
        let Ok((bytes, _)) = open_regular(entry.path(), &rel)
            .and_then(|f| read_capped(f, SEARCH_FILE_LIMIT as usize, &rel))
        else {
            skipped += 1;
            continue;
        };
        scanned += bytes.len() as u64;
        if looks_binary(&bytes) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.lines().enumerate() {
            if regex.is_match(line) {
                if matches.len() == MATCH_LIMIT {
                    clipped = true;
                    break 'files;
                }
                // A line too long to show whole is redacted before it is
                // cut: cut first, a credential split at the cut would keep a
                // piece the audit log's redaction no longer recognises.
                // Lines shown whole are left as the file has them.
                let shown = match line.char_indices().nth(LINE_SHOWN) {
                    Some(_) => playbook_redact::redact_then_clip(line, LINE_SHOWN, ""),
                    None => std::borrow::Cow::Borrowed(line),
                };
                matches.push(json!({ "path": rel, "line": n + 1, "text": shown }));
            }
        }
    }
    json!({
        "ok": true,
        "matches": matches,
        "clipped": clipped,
        "skipped_files": skipped,
    })
}

/// Writes `content` as the file at `target`, creating its folders: the
/// name gets a new file (`regular_file::replace`), so a hard link there
/// (to a file in the person's checkout, or a package manager's store) is
/// broken rather than written through; a link or special file in the last
/// component is refused, not followed. Returns the result to report.
fn write_bytes(target: &Confined, content: &[u8]) -> Value {
    if let Some(parent) = target.abs.parent()
        && let Err(e) = std::fs::create_dir_all(parent)
    {
        return fail(format!(
            "the folder of `{}` cannot be made: {e}",
            target.rel
        ));
    }
    let rel = &target.rel;
    match regular_file::replace(&target.abs, content) {
        Ok(replaced) => {
            let mut out = json!({ "ok": true, "path": rel, "bytes": content.len() });
            if replaced.other_links > 0 {
                out["note"] = json!(format!(
                    "`{rel}` had {} other hard link(s), names elsewhere (possibly outside the worktree) for the same file; it was replaced by a new file, so the write stays in the task's worktree and those names keep the old text",
                    replaced.other_links
                ));
            }
            out
        }
        Err(Refused::Link) => fail(format!(
            "`{rel}` is a symbolic link; write the file it points to instead"
        )),
        Err(Refused::NotRegular(what)) => fail(format!(
            "`{rel}` is {what}, not a regular file; it was not written"
        )),
        Err(e) => fail(format!("`{rel}` cannot be written: {e}")),
    }
}

pub fn write_file(target: &Confined, content: &str) -> Value {
    if content.len() > WRITE_LIMIT {
        return fail(format!(
            "the content has {} bytes; write_file takes at most {WRITE_LIMIT}",
            content.len()
        ));
    }
    write_bytes(target, content.as_bytes())
}

pub fn edit_file(target: &Confined, old: &str, new: &str) -> Value {
    if old.is_empty() {
        return fail("`old` is empty; give the exact text to replace");
    }
    let current = open_regular(&target.abs, &target.rel)
        .and_then(|f| read_capped(f, EDIT_LIMIT, &target.rel));
    let text = match current {
        Ok((_, true)) => {
            return fail(format!(
                "`{}` is larger than {EDIT_LIMIT} bytes; edit_file does not rewrite it",
                target.rel
            ));
        }
        Ok((bytes, false)) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(_) => return fail(format!("`{}` is not UTF-8 text", target.rel)),
        },
        Err(e) => return fail(e),
    };
    let count = text.matches(old).count();
    if count != 1 {
        return fail(format!(
            "`old` occurs {count} times in `{}`; it must occur exactly once — include more surrounding text to make it unique",
            target.rel
        ));
    }
    let updated = text.replacen(old, new, 1);
    if updated.len() > WRITE_LIMIT {
        return fail(format!("the edited file would exceed {WRITE_LIMIT} bytes"));
    }
    write_bytes(target, updated.as_bytes())
}

pub fn delete_file(target: &Confined) -> Value {
    match std::fs::symlink_metadata(&target.abs) {
        Err(_) => fail(format!(
            "`{}` does not exist in the task's worktree",
            target.rel
        )),
        Ok(m) if m.is_dir() => fail(format!(
            "`{}` is a folder; delete_file deletes files (delete each file in it)",
            target.rel
        )),
        // A link is removed itself, never what it points to.
        Ok(_) => match std::fs::remove_file(&target.abs) {
            Ok(()) => json!({ "ok": true, "path": target.rel, "deleted": true }),
            Err(e) => fail(format!("`{}` cannot be deleted: {e}", target.rel)),
        },
    }
}
