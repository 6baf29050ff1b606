//! Which runs of a repository are still going.
//!
//! A run holds an exclusive `flock` on `<common dir>/playbook/live/<run id,
//! first 8>` for as long as its worktrees are in use. The kernel lets go of
//! the lock when the process ends, however it ends (a crash, `SIGKILL`), so
//! a held lock means a live run; a process id, which the system hands out
//! again, is never trusted for it. `playbook run clean` leaves a live run's
//! worktrees and branches alone, and a run's guard does not hold another
//! run's branches and worktrees against its own agents.
//!
//! The file stays when the run ends (unlocked), so a run that started and
//! ended while another went on is still known as a run; `playbook run
//! clean` removes it with the last of the run's worktrees and branches.
//!
//! The lock is a courtesy between runs and the person's tools, not a
//! defence against an agent: a program of the same user can delete the
//! file. It is opened with `O_CLOEXEC` (Rust's default), so no agent process
//! inherits it and keeps a dead run looking alive.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::error::{WorkspaceError, WorkspaceErrorKind};

/// How long a run waits for its lock at its start: only a probe (held for
/// microseconds) or a clean removing a dead run's file of the same name can
/// hold it then.
const TAKE_FOR: Duration = Duration::from_secs(2);

/// The folder of the runs' lock files.
pub(crate) fn dir(common: &Path) -> PathBuf {
    common.join("playbook").join("live")
}

/// Whether a run id prefix can name a lock file: what `check_id` allows
/// for a run.
fn plain(run8: &str) -> bool {
    !run8.is_empty()
        && run8.len() <= 100
        && !run8.starts_with('.')
        && run8
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

pub(crate) fn flock(file: &File, how: libc::c_int) -> std::io::Result<()> {
    // SAFETY: flock only acts on the descriptor, which `file` owns.
    if unsafe { libc::flock(file.as_raw_fd(), how) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Opens a lock file to probe or take its lock: never through a link, and
/// never blocking (on a FIFO planted under its name, say).
pub(crate) fn open_lock_file(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

/// The lock of a live run; released when dropped (its file stays).
#[derive(Debug)]
pub(crate) struct RunLock {
    /// Held open for the lock; never read.
    _file: File,
}

impl RunLock {
    /// Takes the lock of run `run8` of the repository whose common git
    /// directory is `common`.
    pub(crate) fn take(common: &Path, run8: &str) -> Result<RunLock, WorkspaceError> {
        let folder = dir(common);
        let fail = |e: std::io::Error| {
            WorkspaceError::new(
                WorkspaceErrorKind::Io,
                format!(
                    "{}: {e}; check that the repository's git directory is writable",
                    folder.join(run8).display()
                ),
            )
        };
        std::fs::create_dir_all(&folder).map_err(fail)?;
        let path = folder.join(run8);
        let started = Instant::now();
        loop {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
                .open(&path)
                .map_err(fail)?;
            match flock(&file, libc::LOCK_EX | libc::LOCK_NB) {
                // Locked: but a clean may have removed the file of a dead
                // run of the same name just before, leaving this lock on a
                // file no one else can find. Only the file at the path
                // counts.
                Ok(()) => {
                    let same = std::fs::symlink_metadata(&path).is_ok_and(|at| {
                        file.metadata()
                            .is_ok_and(|held| held.ino() == at.ino() && held.dev() == at.dev())
                    });
                    if same {
                        return Ok(RunLock { _file: file });
                    }
                }
                Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => {}
                Err(e) => return Err(fail(e)),
            }
            if started.elapsed() > TAKE_FOR {
                return Err(WorkspaceError::new(
                    WorkspaceErrorKind::Io,
                    format!(
                        "another process holds {} (a run with the same id is going on); start the run again",
                        path.display()
                    ),
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Whether run `run8` is going on now (in this process or another). A lock
/// file that exists but cannot be tested counts as live: whoever asks then
/// leaves the run alone, which is the safe mistake.
pub(crate) fn is_live(common: &Path, run8: &str) -> bool {
    if !plain(run8) {
        return false;
    }
    let file = match open_lock_file(&dir(common).join(run8)) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return false,
        Err(_) => return true,
    };
    // A shared lock is refused only while a run holds its exclusive one;
    // it goes again when `file` closes.
    flock(&file, libc::LOCK_SH | libc::LOCK_NB).is_err()
}

/// Removes the lock file of a run that is over (a run killed before it
/// could remove its own); leaves a live run's.
pub(crate) fn remove_if_over(common: &Path, run8: &str) {
    if !plain(run8) {
        return;
    }
    let path = dir(common).join(run8);
    let Ok(file) = open_lock_file(&path) else {
        return;
    };
    // Removed while held, as the run itself does: a run starting with the
    // same name checks that its locked file is still the one at the path.
    if flock(&file, libc::LOCK_EX | libc::LOCK_NB).is_ok() {
        let _ = std::fs::remove_file(&path);
    }
}

/// The names of the runs with a lock file (live or left by a run killed
/// before it could remove it).
pub(crate) fn listed(common: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir(common)) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|name| plain(name))
        .take(10_000)
        .collect()
}
