//! The person's repository outside the run's own branches and worktrees,
//! looked at after every agent invocation.
//!
//! An agent process and the programs `run_command` starts run as the user,
//! not sandboxed, in a worktree whose `.git` points at the repository's
//! shared git directory. From there they can change what every later git
//! command of the person does: the configuration (`core.hooksPath`,
//! `core.fsmonitor`, aliases, filter and diff drivers name programs git
//! runs), the hooks, `info/` (attributes, excludes), the object store's
//! alternates; and they can move refs of other branches. [`Guard`]
//! snapshots all of it when the run starts and compares after each
//! invocation:
//!
//! - the configuration, hooks, `info/` and alternates are put back as they
//!   were, and the step that changed them counts as a scope violation: they
//!   decide which programs run on the person's next git command, and nothing
//!   a task does needs to change them;
//! - refs outside the run's branches and the checkout's `HEAD` are reported,
//!   never moved back: the person may commit, fetch or switch branches in
//!   their checkout while a run goes on, and the run cannot tell their move
//!   from an agent's (a deleted ref's commit is named, so it can be brought
//!   back);
//! - first of all, processes of the run that outlived their invocation are
//!   killed and named: an agent's process group is killed when its
//!   invocation ends, but a program that started a new session (`setsid`,
//!   a daemon) left the group. Such a process is found by what it cannot
//!   easily shed: the run's id in its environment (every agent process
//!   has `PLAYBOOK_RUN_ID`, and its children inherit it) or a working
//!   folder inside the worktree of a task at work (where `run_command`
//!   and verification start programs), and it started after the run did.
//!   The worktree of a task that ended is left alone: the person may open
//!   a shell in a kept worktree while the run goes on.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use playbook_orchestrator::agent::OutsideChange;
use sha2::{Digest, Sha256};
use walkdir::WalkDir;

use super::error::WorkspaceError;
use super::git;
use super::repo::Repo;

/// Files up to this size are kept whole, so they can be put back; a larger
/// one (no git configuration or hook is) is compared by its hash only.
const KEEP_BYTES: usize = 1024 * 1024;
/// Bytes of a file hashed at most: a planted huge file cannot make every
/// check slow.
const HASH_BYTES: u64 = 64 * 1024 * 1024;
/// Entries looked at under each watched folder, and how deep.
const MAX_ENTRIES: usize = 10_000;
const MAX_DEPTH: usize = 8;
/// Lines of a changed text file quoted in a report, each cut to a width.
const QUOTED_LINES: usize = 6;
const QUOTED_WIDTH: usize = 200;

/// The files of the git directory that decide what git runs and reads for
/// the person, relative to the common git directory. Folders are watched
/// with everything in them.
const WATCHED_FILES: &[&str] = &["config", "config.worktree", "objects/info/alternates"];
const WATCHED_DIRS: &[&str] = &["hooks", "info"];
/// The one file under them git writes on its own: `git repack` (after an
/// automatic gc a commit can start) runs `update-server-info`. It is for
/// dumb HTTP transports and names no program.
const GIT_WRITES: &str = "info/refs";
/// Changes named in one report; the rest are counted.
const MAX_SAID: usize = 12;

#[derive(Debug, Clone)]
enum Entry {
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
    fn same(&self, other: &Entry) -> bool {
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

/// The person's repository as the run found it, and what changed since.
#[derive(Debug)]
pub struct Guard {
    /// `PLAYBOOK_RUN_ID=<run id>`, as the run's agent processes carry it.
    run_env: Vec<u8>,
    /// When the run started, in clock ticks since boot (`/proc` times).
    started_ticks: u64,
    root: PathBuf,
    common: PathBuf,
    /// The checkout's own git directory (its `HEAD`).
    git_dir: PathBuf,
    /// `refs/heads/playbook/<run8>/`: the run's own branches, which its
    /// tasks move.
    own_refs: String,
    files: BTreeMap<PathBuf, Entry>,
    refs: BTreeMap<String, String>,
    head: Vec<u8>,
}

impl Guard {
    /// Snapshots `repo` for the run `run_id`.
    pub fn snapshot(repo: &Repo, run_id: &str) -> Result<Guard, WorkspaceError> {
        let run8: String = run_id.chars().take(8).collect();
        let root = repo.root().to_path_buf();
        let git_dir = PathBuf::from(git::text(&root, &["rev-parse", "--absolute-git-dir"])?);
        let common = repo.common_dir().to_path_buf();
        Ok(Guard {
            run_env: format!("PLAYBOOK_RUN_ID={run_id}").into_bytes(),
            // A second of slack: the clock of `/proc/uptime` and the start
            // times are both rounded.
            started_ticks: uptime_ticks().saturating_sub(ticks_per_second()),
            refs: list_refs(&root)?,
            files: scan(&common),
            head: read_head(&git_dir),
            root,
            common,
            git_dir,
            own_refs: format!("refs/heads/playbook/{run8}/"),
        })
    }

    /// What changed since the snapshot (or the last check). Processes of
    /// the run still running (carrying its id, or working in one of the
    /// `live` worktrees: those of the tasks at work) are killed; the git
    /// directory's watched files are put back as they were (a violation);
    /// moved refs and `HEAD` are reported once each and not moved back.
    pub fn check(&mut self, live: &[PathBuf]) -> Vec<OutsideChange> {
        let mut changes = Vec::new();
        // Killed first, so nothing changes the repository while it is
        // compared and put back.
        let (killed, count) = self.kill_strays(live);
        if count > 0 {
            let more = match count.saturating_sub(killed.len()) {
                0 => String::new(),
                n => format!(" (and {n} more)"),
            };
            changes.push(OutsideChange {
                message: format!(
                    "{count} process(es) the agent started outlived its invocation (they left its process group, as `setsid` or a daemon does) and were killed: {}{more}. Nothing an agent starts may outlive its invocation; a program that must keep running belongs outside the run",
                    killed.join("; ")
                ),
                violation: false,
            });
        }
        let now = scan(&self.common);
        self.accept_worktree_bookkeeping(&now);
        let mut said = describe_files(&self.files, &now);
        if said.len() > MAX_SAID {
            let more = said.len() - MAX_SAID;
            said.truncate(MAX_SAID);
            said.push(format!("and {more} more"));
        }
        if !said.is_empty() {
            let problems = restore(&self.common, &self.files, &now);
            let after = if problems.is_empty() {
                "put back as it was when the run started (a change you made yourself during the run must be made again)".to_string()
            } else {
                format!(
                    "put back as far as possible; not put back: {} — check them before using git in this repository",
                    problems.join("; ")
                )
            };
            changes.push(OutsideChange {
                message: format!(
                    "the repository's git directory ({}) was changed outside the task's worktree, by the agent's process or a program it ran: {}; {after}. Agents may not change git's configuration, hooks or info/ of the person's repository",
                    self.common.display(),
                    said.join("; ")
                ),
                violation: true,
            });
        }
        let mut moved = Vec::new();
        match list_refs(&self.root) {
            Ok(refs) => {
                moved = describe_refs(&self.refs, &refs, &self.own_refs);
                self.refs = refs;
            }
            Err(e) => moved.push(format!("the refs could not be listed ({e})")),
        }
        let head = read_head(&self.git_dir);
        if head != self.head {
            moved.push(format!(
                "the checkout's HEAD changed from `{}` to `{}`",
                shown(&self.head),
                shown(&head)
            ));
            self.head = head;
        }
        if !moved.is_empty() {
            changes.push(OutsideChange {
                message: format!(
                    "the person's repository changed outside the run's branches while the agent ran: {}. The run never moves these; it left them as they are, since you may have moved them yourself — check them (`git reflog`) before you go on",
                    moved.join("; ")
                ),
                violation: false,
            });
        }
        changes
    }
}

impl Guard {
    /// Takes into the snapshot the one change the run's own git makes to the
    /// configuration: `git worktree add` with `worktree.useRelativePaths`
    /// (git 2.48 and later) records `extensions.relativeWorktrees` and
    /// raises the repository format version. Neither names a program.
    fn accept_worktree_bookkeeping(&mut self, now: &BTreeMap<PathBuf, Entry>) {
        let config = Path::new("config");
        let (
            Some(Entry::File {
                bytes: Some(before),
                ..
            }),
            Some(
                after @ Entry::File {
                    bytes: Some(after_bytes),
                    ..
                },
            ),
        ) = (self.files.get(config), now.get(config))
        else {
            return;
        };
        if worktree_bookkeeping(before, after_bytes) {
            self.files.insert(config.to_path_buf(), after.clone());
        }
    }

    /// Kills the run's processes that are still running after their
    /// invocation (see the module's documentation); returns a few of them,
    /// named, and how many were killed. Looked for again until none is
    /// left, since one may be forking as it is killed.
    fn kill_strays(&self, live: &[PathBuf]) -> (Vec<String>, usize) {
        const NAMED: usize = 5;
        let me = std::process::id();
        let mut named = Vec::new();
        let mut count = 0;
        for _round in 0..10 {
            let strays = self.strays(me, live);
            if strays.is_empty() {
                break;
            }
            for (pid, command) in strays {
                // SAFETY: kill only sends a signal, to a process of this
                // user that carries this run's id or works in its
                // worktrees and started after the run.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
                count += 1;
                if named.len() < NAMED {
                    named.push(format!("{pid} `{command}`"));
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        (named, count)
    }

    /// The live processes (zombies aside) of this run other than this one.
    fn strays(&self, me: u32, live: &[PathBuf]) -> Vec<(i32, String)> {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for entry in dir.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            if u32::try_from(pid).ok() == Some(me) {
                continue;
            }
            let proc = entry.path();
            // Another user's environment cannot be read: not ours.
            let Ok(environ) = std::fs::read(proc.join("environ")) else {
                continue;
            };
            let ours = environ
                .split(|b| *b == 0)
                .any(|var| var == self.run_env.as_slice())
                || std::fs::read_link(proc.join("cwd"))
                    .is_ok_and(|cwd| live.iter().any(|w| cwd.starts_with(w)));
            if !ours {
                continue;
            }
            let Some((state, start)) = state_and_start(&proc) else {
                continue;
            };
            if state == 'Z' || start < self.started_ticks {
                continue;
            }
            let cmdline = std::fs::read(proc.join("cmdline")).unwrap_or_default();
            let command: String = String::from_utf8_lossy(&cmdline)
                .replace('\0', " ")
                .trim()
                .chars()
                .take(QUOTED_WIDTH)
                .collect();
            out.push((pid, command));
        }
        out
    }
}

/// A process's state letter and start time (clock ticks since boot), from
/// `/proc/<pid>/stat`; fields are counted after the command's closing
/// parenthesis, since the command may hold spaces and parentheses.
fn state_and_start(proc: &Path) -> Option<(char, u64)> {
    let stat = std::fs::read_to_string(proc.join("stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    // `state` is field 3 of stat(5); `starttime` is field 22.
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
}

fn ticks_per_second() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|t| *t > 0).unwrap_or(100)
}

/// Now, in clock ticks since boot, as `/proc/<pid>/stat` counts start
/// times. Zero when it cannot be read: every process then counts as
/// started after the run, and only the run's id and worktrees decide.
fn uptime_ticks() -> u64 {
    let seconds = std::fs::read_to_string("/proc/uptime")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    (seconds * ticks_per_second() as f64) as u64
}

/// The watched files and folders of the common git directory.
fn scan(common: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    for name in WATCHED_FILES {
        if let Some(entry) = look(&common.join(name)) {
            out.insert(PathBuf::from(name), entry);
        }
    }
    for dir in WATCHED_DIRS {
        let walk = WalkDir::new(common.join(dir))
            .follow_links(false)
            .follow_root_links(false)
            .max_depth(MAX_DEPTH)
            .sort_by_file_name();
        for item in walk.into_iter().filter_map(Result::ok).take(MAX_ENTRIES) {
            let Ok(rel) = item.path().strip_prefix(common) else {
                continue;
            };
            if rel == Path::new(GIT_WRITES) {
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
fn look(path: &Path) -> Option<Entry> {
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
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return Some(Entry::Other);
    }
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

/// What differs between two scans, in words.
fn describe_files(
    before: &BTreeMap<PathBuf, Entry>,
    now: &BTreeMap<PathBuf, Entry>,
) -> Vec<String> {
    let mut said = Vec::new();
    for (rel, was) in before {
        let name = rel.display();
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
        let name = rel.display();
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
fn worktree_bookkeeping(before: &[u8], after: &[u8]) -> bool {
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

/// Puts the watched files back as `before` has them; returns what could not
/// be put back.
fn restore(
    common: &Path,
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
        if let Err(e) = remove(&common.join(rel)) {
            problems.push(format!("`{}` could not be removed: {e}", rel.display()));
        }
    }
    // Then what was there, parents before children (the map's order).
    for (rel, was) in before {
        let path = common.join(rel);
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
fn remove(path: &Path) -> std::io::Result<()> {
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

/// Every ref of the repository and the commit or object it names.
fn list_refs(root: &Path) -> Result<BTreeMap<String, String>, WorkspaceError> {
    let text = git::text(root, &["for-each-ref", "--format=%(objectname) %(refname)"])?;
    Ok(text
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(sha, name)| (name.to_string(), sha.to_string()))
        .collect())
}

/// The refs that moved, appeared or went, except the run's own branches.
fn describe_refs(
    before: &BTreeMap<String, String>,
    now: &BTreeMap<String, String>,
    own: &str,
) -> Vec<String> {
    let short = |sha: &str| sha.chars().take(12).collect::<String>();
    let mut said = Vec::new();
    for (name, was) in before {
        if name.starts_with(own) {
            continue;
        }
        match now.get(name) {
            None => said.push(format!(
                "`{name}` was deleted (it named {was}; `git update-ref {name} {was}` brings it back)"
            )),
            Some(is) if is != was => said.push(format!(
                "`{name}` moved from {} to {} (`git update-ref {name} {was}` moves it back)",
                short(was),
                short(is)
            )),
            Some(_) => {}
        }
    }
    for (name, is) in now {
        if !name.starts_with(own) && !before.contains_key(name) {
            said.push(format!("`{name}` was created at {}", short(is)));
        }
    }
    said
}

/// The checkout's `HEAD` file, as bytes (at most a few KiB are read).
fn read_head(git_dir: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    if let Ok(file) = std::fs::File::open(git_dir.join("HEAD")) {
        let _ = file.take(4096).read_to_end(&mut out);
    }
    out
}

fn shown(head: &[u8]) -> String {
    String::from_utf8_lossy(head)
        .trim()
        .chars()
        .take(QUOTED_WIDTH)
        .collect()
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
