//! The guard's files: each watched file as it was (content, mode, or a
//! link's target, never followed), what changed, in words, and putting it
//! back.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use walkdir::WalkDir;

/// Files up to this size are kept whole, so they can be put back; a larger
/// one (no git configuration or hook is) is compared by its hash only.
pub(super) const KEEP_BYTES: usize = 1024 * 1024;
/// Bytes of a file hashed at most: a planted huge file cannot make every
/// check slow.
const HASH_BYTES: u64 = 64 * 1024 * 1024;
/// Entries looked at under each watched folder, and how deep.
const MAX_ENTRIES: usize = 10_000;
const MAX_DEPTH: usize = 8;
/// Lines of a changed text file quoted in a report, each cut to a width.
const QUOTED_LINES: usize = 6;
pub(super) const QUOTED_WIDTH: usize = 200;

#[derive(Debug, Clone)]
pub(super) enum Entry {
    File {
        /// SHA-256 of the size and the first [`HASH_BYTES`].
        hash: [u8; 32],
        mode: u32,
        /// The whole content, when it is at most [`KEEP_BYTES`].
        bytes: Option<Vec<u8>>,
    },
    Link(PathBuf),
    Dir,
    /// A FIFO, socket or device: never put there by git.
    Other,
}

impl Entry {
    pub(super) fn same(&self, other: &Entry) -> bool {
        match (self, other) {
            (
                Entry::File { hash, mode, .. },
                Entry::File {
                    hash: h, mode: m, ..
                },
            ) => hash == h && mode == m,
            (Entry::Link(a), Entry::Link(b)) => a == b,
            (Entry::Dir, Entry::Dir) | (Entry::Other, Entry::Other) => true,
            _ => false,
        }
    }
}

/// The watched `files` and `folders` (with everything in them) under
/// `base`, by their path relative to it; `skip` are paths git writes there
/// on its own.
pub(super) fn scan(
    base: &Path,
    files: &[&str],
    folders: &[&str],
    skip: &[&str],
) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    for name in files {
        if let Some(entry) = look(&base.join(name)) {
            out.insert(PathBuf::from(name), entry);
        }
    }
    for dir in folders {
        let walk = WalkDir::new(base.join(dir))
            .follow_links(false)
            .follow_root_links(false)
            .max_depth(MAX_DEPTH)
            .sort_by_file_name();
        for item in walk.into_iter().filter_map(Result::ok).take(MAX_ENTRIES) {
            let Ok(rel) = item.path().strip_prefix(base) else {
                continue;
            };
            if skip.iter().any(|s| rel == Path::new(s)) {
                continue;
            }
            if let Some(entry) = look(item.path()) {
                out.insert(rel.to_path_buf(), entry);
            }
        }
    }
    out
}

/// One entry, never followed through a link, never blocking on a FIFO.
pub(super) fn look(path: &Path) -> Option<Entry> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let kind = meta.file_type();
    if kind.is_symlink() {
        return std::fs::read_link(path).ok().map(Entry::Link);
    }
    if kind.is_dir() {
        return Some(Entry::Dir);
    }
    if !kind.is_file() {
        return Some(Entry::Other);
    }
    // Swapped for a link or a special file since `symlink_metadata`: still
    // never followed and never blocking (`regular_file::open`).
    let file = match crate::regular_file::open(path) {
        Ok(file) => file,
        Err(crate::regular_file::Refused::Link) => {
            return std::fs::read_link(path).ok().map(Entry::Link);
        }
        Err(crate::regular_file::Refused::NotRegular(_)) => return Some(Entry::Other),
        Err(_) => return None,
    };
    let meta = file.metadata().ok()?;
    let mut hasher = Sha256::new();
    hasher.update(meta.len().to_le_bytes());
    let mut kept = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut reader = file.take(HASH_BYTES);
    let mut whole = true;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        hasher.update(&buf[..n]);
        if whole && kept.len() + n <= KEEP_BYTES {
            kept.extend_from_slice(&buf[..n]);
        } else {
            whole = false;
        }
    }
    Some(Entry::File {
        hash: hasher.finalize().into(),
        mode: meta.permissions().mode() & 0o7777,
        bytes: (whole && kept.len() as u64 == meta.len()).then_some(kept),
    })
}

/// What differs between two scans, in words; each path is named as under
/// `shown` (where the scanned folder is, as the person would look for it).
pub(super) fn describe_files(
    shown: &Path,
    before: &BTreeMap<PathBuf, Entry>,
    now: &BTreeMap<PathBuf, Entry>,
) -> Vec<String> {
    let mut said = Vec::new();
    for (rel, was) in before {
        let name = shown.join(rel);
        let name = name.display();
        match now.get(rel) {
            None => said.push(format!("`{name}` was removed")),
            Some(is) if was.same(is) => {}
            Some(is) => said.push(match (was, is) {
                (Entry::File { bytes: Some(a), .. }, Entry::File { bytes: Some(b), .. }) => {
                    format!("`{name}` was changed{}", line_diff(a, b))
                }
                _ => format!("`{name}` was changed"),
            }),
        }
    }
    for (rel, is) in now {
        if before.contains_key(rel) {
            continue;
        }
        let name = shown.join(rel);
        let name = name.display();
        said.push(match is {
            Entry::File { bytes: Some(b), .. } => {
                format!("`{name}` was added{}", line_diff(&[], b))
            }
            Entry::Link(to) => format!("`{name}` was added, a link to {}", to.display()),
            _ => format!("`{name}` was added"),
        });
    }
    said
}

/// Each line of a configuration text with the section header (`[core]`)
/// it sits under, both trimmed.
fn keyed_lines(text: &str) -> Vec<(String, String)> {
    let mut section = String::new();
    text.lines()
        .map(|line| {
            let t = line.trim();
            if t.starts_with('[') {
                section = t.to_string();
            }
            (section.clone(), t.to_string())
        })
        .collect()
}

/// Whether a configuration changed only as `git worktree add` changes it
/// with relative worktree paths (see `accept_worktree_bookkeeping`).
pub(super) fn worktree_bookkeeping(before: &[u8], after: &[u8]) -> bool {
    let (Ok(a), Ok(b)) = (std::str::from_utf8(before), std::str::from_utf8(after)) else {
        return false;
    };
    let norm = |text: &str| -> Vec<(String, String)> {
        keyed_lines(text)
            .into_iter()
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('[') && !l.starts_with(['#', ';']))
            .map(|(s, l)| {
                let l: String = l.chars().filter(|c| !c.is_whitespace()).collect();
                (s.to_ascii_lowercase(), l.to_ascii_lowercase())
            })
            .collect()
    };
    let (old, new) = (norm(a), norm(b));
    let pair = |s: &str, l: &str| (s.to_string(), l.to_string());
    let may_add = [
        pair("[extensions]", "relativeworktrees=true"),
        pair("[core]", "repositoryformatversion=1"),
    ];
    let may_remove = [pair("[core]", "repositoryformatversion=0")];
    let added: Vec<_> = new.iter().filter(|l| !old.contains(l)).collect();
    let removed: Vec<_> = old.iter().filter(|l| !new.contains(l)).collect();
    !added.is_empty()
        && added.iter().all(|l| may_add.contains(l))
        && removed.iter().all(|l| may_remove.contains(l))
}

/// The lines a text gained and lost, a few of them, each under the section
/// header (`[core]`) it sits in, so a configuration change reads as a key.
fn line_diff(before: &[u8], after: &[u8]) -> String {
    let (Ok(a), Ok(b)) = (std::str::from_utf8(before), std::str::from_utf8(after)) else {
        return String::new();
    };
    let (old, new) = (keyed_lines(a), keyed_lines(b));
    let mut lines: Vec<String> = Vec::new();
    for (sign, from, other) in [("+", &new, &old), ("-", &old, &new)] {
        for (section, line) in from {
            if line.is_empty()
                || line.starts_with('[')
                || other.iter().any(|(s, l)| s == section && l == line)
            {
                continue;
            }
            let line: String = line.chars().take(QUOTED_WIDTH).collect();
            lines.push(if section.is_empty() {
                format!("{sign} {line}")
            } else {
                format!("{sign} {section} {line}")
            });
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    let more = lines.len().saturating_sub(QUOTED_LINES);
    lines.truncate(QUOTED_LINES);
    let more = if more > 0 {
        format!(" (and {more} more lines)")
    } else {
        String::new()
    };
    format!(" ({}{more})", lines.join(", "))
}

/// Puts the watched files under `base` back as `before` has them; returns
/// what could not be put back.
pub(super) fn restore(
    base: &Path,
    before: &BTreeMap<PathBuf, Entry>,
    now: &BTreeMap<PathBuf, Entry>,
) -> Vec<String> {
    let mut problems = Vec::new();
    // What is new, or is now of another kind, goes first, deepest first.
    for (rel, is) in now.iter().rev() {
        if before.get(rel).is_some_and(|was| was.same(is)) {
            continue;
        }
        if matches!((before.get(rel), is), (Some(Entry::Dir), Entry::Dir)) {
            continue;
        }
        if let Err(e) = remove(&base.join(rel)) {
            problems.push(format!("`{}` could not be removed: {e}", rel.display()));
        }
    }
    // Then what was there, parents before children (the map's order).
    for (rel, was) in before {
        let path = base.join(rel);
        if look(&path).is_some_and(|is| is.same(was)) {
            continue;
        }
        let put = match was {
            Entry::Dir => std::fs::create_dir(&path),
            Entry::Link(to) => std::os::unix::fs::symlink(to, &path),
            Entry::File {
                bytes: Some(bytes),
                mode,
                ..
            } => write_back(&path, bytes, *mode),
            Entry::File { bytes: None, .. } => {
                problems.push(format!(
                    "`{}` (larger than {KEEP_BYTES} bytes, so not kept)",
                    rel.display()
                ));
                continue;
            }
            Entry::Other => {
                problems.push(format!("`{}` (not a regular file)", rel.display()));
                continue;
            }
        };
        if let Err(e) = put {
            problems.push(format!("`{}` ({e})", rel.display()));
        }
    }
    problems
}

/// Removes a file, link or folder (a folder's links are removed, never
/// followed).
pub(super) fn remove(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
    }
}

/// Writes a file's old content beside it and renames it into place, so a
/// reader never sees half of it.
fn write_back(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    use std::io::Write;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.playbook-restore"));
    let _ = std::fs::remove_file(&tmp);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)?;
    file.write_all(bytes)?;
    file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    drop(file);
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::{line_diff, worktree_bookkeeping};

    const BEFORE: &str = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n";

    #[test]
    fn only_what_git_worktree_add_writes_is_the_runs_own() {
        let relative = "[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\trelativeWorktrees = true\n";
        assert!(worktree_bookkeeping(BEFORE.as_bytes(), relative.as_bytes()));
        let more = format!("{relative}\thooksPath = /tmp/x\n");
        assert!(!worktree_bookkeeping(BEFORE.as_bytes(), more.as_bytes()));
        let hooks = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\thooksPath = /tmp/x\n";
        assert!(!worktree_bookkeeping(BEFORE.as_bytes(), hooks.as_bytes()));
        assert!(!worktree_bookkeeping(BEFORE.as_bytes(), BEFORE.as_bytes()));
    }

    #[test]
    fn a_configuration_change_reads_as_its_keys() {
        let after =
            "[core]\n\trepositoryformatversion = 0\n\thooksPath = /tmp/x\n[alias]\n\tst = !sh\n";
        assert_eq!(
            line_diff(BEFORE.as_bytes(), after.as_bytes()),
            " (+ [core] hooksPath = /tmp/x, + [alias] st = !sh, - [core] bare = false)"
        );
    }
}
