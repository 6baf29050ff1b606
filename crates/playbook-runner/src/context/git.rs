//! Reading a repository at one commit through the `git` command line.
//!
//! Everything that governs a run is read from the commit, never from the
//! working tree, so an uncommitted edit cannot change it. Entries are listed
//! with their object id and size (`git ls-tree -l -z`), so a file over the
//! size cap is refused before a byte of it is read, and content is read by
//! object id (`git cat-file blob`), so no path is ever parsed by git again.

use std::path::Path;
use std::process::{Command, Stdio};

use super::ContextError;

/// Largest file of the context bundle (and of the preflight), in bytes.
/// Governance files are a few kilobytes; anything near this is a mistake or
/// hostile, and every byte of it would reach each agent's prompt.
pub const MAX_CONTEXT_FILE_BYTES: u64 = 1024 * 1024;

/// Most entries read from one directory (`agents/`, `policy/`).
pub const MAX_DIR_ENTRIES: usize = 1000;

/// What a tree entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular (or executable) file.
    File,
    /// A symbolic link: refused as context, since its content is only the
    /// path it points to.
    Symlink,
    Dir,
    /// A submodule or anything else.
    Other,
}

/// One entry of a tree at the commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Name within its directory.
    pub name: String,
    pub kind: Kind,
    pub object: String,
    pub size: Option<u64>,
}

/// A repository at one resolved commit.
#[derive(Debug, Clone)]
pub struct AtCommit<'a> {
    pub repo: &'a Path,
    /// The full object id of the commit.
    pub commit: String,
}

fn git(repo: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(repo)
        // Paths in answers are raw bytes, never C-quoted.
        .args(["-c", "core.quotepath=off"])
        // No program a configuration file names runs from here, as from
        // every git command of the runner (see `workspace::git`).
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
        ])
        .env("GIT_TERMINAL_PROMPT", "0")
        // An inherited repository override (a git hook's environment)
        // would make git read another repository than `repo`.
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_OBJECT_DIRECTORY")
        .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
        .env_remove("GIT_NAMESPACE")
        .stdin(Stdio::null());
    command
}

fn run(repo: &Path, args: &[&str]) -> Result<Vec<u8>, ContextError> {
    let output = git(repo)
        .args(args)
        .output()
        .map_err(|e| ContextError::Git {
            message: format!("cannot run git in {}: {e}", repo.display()),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(ContextError::Git {
            message: format!(
                "`git {}` failed in {}: {}",
                args.join(" "),
                repo.display(),
                stderr.trim()
            ),
        });
    }
    Ok(output.stdout)
}

impl<'a> AtCommit<'a> {
    /// Resolves `commit` (a branch, tag or object id) to the commit it names.
    /// A name that could be read as an option, or holds a character git
    /// revision syntax gives meaning to beyond a plain name, is refused
    /// before git sees it.
    pub fn resolve(repo: &'a Path, commit: &str) -> Result<AtCommit<'a>, ContextError> {
        let plain = !commit.is_empty()
            && !commit.starts_with('-')
            && commit.len() <= 256
            && !commit
                .chars()
                .any(|c| c.is_control() || c.is_whitespace() || ":?*[\\".contains(c));
        if !plain {
            // Quoted in an error that reaches the run's records: redacted
            // whole before it is cut, so a cut cannot split a credential.
            return Err(ContextError::BadRef {
                reference: playbook_redact::redact_then_clip(commit, 80, "").into_owned(),
            });
        }
        let spec = format!("{commit}^{{commit}}");
        let out = run(repo, &["rev-parse", "--verify", "--quiet", &spec]).map_err(|_| {
            ContextError::MissingRef {
                reference: commit.to_string(),
                repo: repo.display().to_string(),
            }
        })?;
        let id = String::from_utf8_lossy(&out).trim().to_string();
        if id.is_empty() {
            return Err(ContextError::MissingRef {
                reference: commit.to_string(),
                repo: repo.display().to_string(),
            });
        }
        Ok(AtCommit { repo, commit: id })
    }

    /// The root of the repository's working tree, if it has one.
    pub fn working_tree(&self) -> Option<std::path::PathBuf> {
        let out = run(self.repo, &["rev-parse", "--show-toplevel"]).ok()?;
        let text = String::from_utf8(out).ok()?;
        let top = text.trim_end_matches('\n');
        (!top.is_empty()).then(|| std::path::PathBuf::from(top))
    }

    /// The entries of directory `dir` ("" for the root) at the commit; an
    /// empty list when it does not exist.
    pub fn list(&self, dir: &str) -> Result<Vec<Entry>, ContextError> {
        let treeish = if dir.is_empty() {
            format!("{}^{{tree}}", self.commit)
        } else {
            format!("{}:{dir}", self.commit)
        };
        // A directory that does not exist at the commit (or is a file
        // there) has no entries; callers look at the parent's entry to tell
        // which.
        let is_tree = git(self.repo)
            .args(["cat-file", "-t", &treeish])
            .stderr(Stdio::null())
            .output()
            .map(|o| o.status.success() && o.stdout.trim_ascii() == b"tree")
            .unwrap_or(false);
        if !is_tree {
            return Ok(Vec::new());
        }
        let out = run(self.repo, &["ls-tree", "-l", "-z", &treeish])?;
        let mut entries = Vec::new();
        for record in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            if entries.len() >= MAX_DIR_ENTRIES {
                break;
            }
            if let Some(entry) = parse_entry(record) {
                entries.push(entry);
            }
        }
        Ok(entries)
    }

    /// The entry at `path` (`dir/name`), if any.
    pub fn entry(&self, path: &str) -> Result<Option<Entry>, ContextError> {
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        Ok(self.list(dir)?.into_iter().find(|e| e.name == name))
    }

    /// The bytes of a regular file entry, refused when over the cap or not
    /// a regular file. `path` only names it in errors.
    pub fn read(&self, path: &str, entry: &Entry) -> Result<Vec<u8>, ContextError> {
        match entry.kind {
            Kind::File => {}
            Kind::Symlink => {
                return Err(ContextError::NotAFile {
                    path: path.to_string(),
                    what: "a symbolic link".into(),
                });
            }
            Kind::Dir => {
                return Err(ContextError::NotAFile {
                    path: path.to_string(),
                    what: "a directory".into(),
                });
            }
            Kind::Other => {
                return Err(ContextError::NotAFile {
                    path: path.to_string(),
                    what: "a submodule".into(),
                });
            }
        }
        let size = entry.size.unwrap_or(u64::MAX);
        if size > MAX_CONTEXT_FILE_BYTES {
            return Err(ContextError::TooLarge {
                path: path.to_string(),
                size,
                limit: MAX_CONTEXT_FILE_BYTES,
            });
        }
        run(self.repo, &["cat-file", "blob", &entry.object])
    }
}

/// `<mode> SP <type> SP <object> SP+ <size> TAB <name>`.
fn parse_entry(record: &[u8]) -> Option<Entry> {
    let tab = record.iter().position(|b| *b == b'\t')?;
    let head = std::str::from_utf8(&record[..tab]).ok()?;
    let name = String::from_utf8(record[tab + 1..].to_vec()).ok()?;
    let mut fields = head.split_whitespace();
    let mode = fields.next()?;
    let kind = fields.next()?;
    let object = fields.next()?.to_string();
    let size = fields.next().and_then(|s| s.parse().ok());
    let kind = match (kind, mode) {
        ("blob", "120000") => Kind::Symlink,
        ("blob", _) => Kind::File,
        ("tree", _) => Kind::Dir,
        _ => Kind::Other,
    };
    Some(Entry {
        name,
        kind,
        object,
        size,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ls_tree_record_is_read_with_its_size_and_kind() {
        let e = parse_entry(b"100644 blob 0123abcd      42\tAGENTS.md").unwrap();
        assert_eq!(e.name, "AGENTS.md");
        assert_eq!(e.kind, Kind::File);
        assert_eq!(e.size, Some(42));
        let l = parse_entry(b"120000 blob ab 5\tlink.md").unwrap();
        assert_eq!(l.kind, Kind::Symlink);
        let d = parse_entry(b"040000 tree cd       -\tagents").unwrap();
        assert_eq!((d.kind, d.size), (Kind::Dir, None));
        assert!(parse_entry(b"garbage").is_none());
    }
}
