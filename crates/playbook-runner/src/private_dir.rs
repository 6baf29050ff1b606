//! A run's private directory in the system's temporary directory: the tool
//! gateway's socket and each invocation's token (`mcp.json`) live there.
//!
//! A run removes its directory when it ends. A run that is killed
//! (`SIGKILL`, a power cut) cannot, so the directory holds a `lock` file
//! with an exclusive `flock` for the run's life: the kernel lets go of it
//! however the process ends. [`sweep`] removes the directories whose lock
//! is free, at the start of every run and in `playbook run clean`, so the
//! tokens of a killed run do not stay on disk. Only directories that are
//! plainly a run's are touched: named `playbook-run-*`, directly in the
//! temporary directory, real directories (not links) owned by this user.

use std::fs::File;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::workspace::live::{flock, open_lock_file};

/// The name every run's private directory starts with.
const PREFIX: &str = "playbook-run-";

/// The file whose lock says the run is alive.
const LOCK: &str = "lock";

/// A directory without its lock file is a run between creating the
/// directory and locking it, unless it is older than this.
const UNLOCKED_GRACE: Duration = Duration::from_secs(60);

/// Sweeps look at no more entries than this, so a temporary directory
/// with millions of files costs a bounded time.
const MAX_ENTRIES: usize = 100_000;

/// A live run's private directory; removed when dropped.
#[derive(Debug)]
pub struct PrivateDir {
    /// Held for its lock; closed before the directory goes.
    _lock: File,
    dir: tempfile::TempDir,
}

impl PrivateDir {
    /// Creates the directory (owner only, whatever the umask) in the
    /// system's temporary directory and locks it.
    pub fn create() -> std::io::Result<PrivateDir> {
        Self::create_in(&std::env::temp_dir())
    }

    fn create_in(parent: &Path) -> std::io::Result<PrivateDir> {
        let dir = tempfile::Builder::new()
            .prefix(PREFIX)
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(parent)?;
        let lock = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(dir.path().join(LOCK))?;
        flock(&lock, libc::LOCK_EX | libc::LOCK_NB)?;
        Ok(PrivateDir { _lock: lock, dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// What a sweep did.
#[derive(Debug, Default)]
pub struct Swept {
    /// Directories of runs that are over, removed.
    pub removed: Vec<PathBuf>,
    /// Such directories that could not be removed, and why.
    pub problems: Vec<String>,
}

/// Removes the private directories of this user's runs that are over.
pub fn sweep() -> Swept {
    sweep_in(&std::env::temp_dir())
}

fn sweep_in(parent: &Path) -> Swept {
    let mut swept = Swept::default();
    let Ok(entries) = std::fs::read_dir(parent) else {
        return swept;
    };
    // SAFETY: getuid has no preconditions and cannot fail.
    let me = unsafe { libc::getuid() };
    for entry in entries.take(MAX_ENTRIES).flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(|n| n.starts_with(PREFIX)) {
            continue;
        }
        let path = entry.path();
        // Not followed: a link named like a run's directory is not one.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() || meta.uid() != me || !is_over(&path, &meta) {
            continue;
        }
        match std::fs::remove_dir_all(&path) {
            Ok(()) => swept.removed.push(path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => swept
                .problems
                .push(format!("{} could not be removed: {e}", path.display())),
        }
    }
    swept
}

/// Whether the run of a private directory is over: its lock can be taken,
/// or it never got one and is past the grace a starting run needs.
fn is_over(dir: &Path, meta: &std::fs::Metadata) -> bool {
    match open_lock_file(&dir.join(LOCK)) {
        // Taken here and let go when `lock` closes, before the removal.
        Ok(lock) => flock(&lock, libc::LOCK_EX | libc::LOCK_NB).is_ok(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => meta
            .modified()
            .ok()
            .and_then(|at| SystemTime::now().duration_since(at).ok())
            .is_some_and(|age| age > UNLOCKED_GRACE),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_runs_directory_stays_and_an_ended_runs_goes() {
        let parent = tempfile::tempdir().unwrap();
        let live = PrivateDir::create_in(parent.path()).unwrap();
        std::fs::write(live.path().join("mcp.json"), "{\"token\":\"t\"}").unwrap();
        // A killed run: its directory and lock file stay, the lock is free.
        let killed = PrivateDir::create_in(parent.path()).unwrap();
        let killed_path = killed.path().to_path_buf();
        let PrivateDir { _lock, dir } = killed;
        drop(_lock);
        let _ = dir.keep();
        std::fs::write(killed_path.join("mcp.json"), "{\"token\":\"t\"}").unwrap();

        let swept = sweep_in(parent.path());
        assert_eq!(swept.removed, vec![killed_path.clone()]);
        assert!(swept.problems.is_empty(), "{:?}", swept.problems);
        assert!(!killed_path.exists());
        assert!(live.path().join("mcp.json").exists());
        // Again: nothing more to do.
        assert!(sweep_in(parent.path()).removed.is_empty());
    }

    #[test]
    fn only_plain_directories_of_runs_are_touched() {
        let parent = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("keep"), "x").unwrap();
        // A link named like a run's directory, to a directory without a lock.
        let link = parent.path().join("playbook-run-link");
        std::os::unix::fs::symlink(elsewhere.path(), &link).unwrap();
        // A file, and a directory of another name.
        std::fs::write(parent.path().join("playbook-run-file"), "x").unwrap();
        std::fs::create_dir(parent.path().join("other")).unwrap();
        // A run between creating its directory and locking it.
        let starting = parent.path().join("playbook-run-starting");
        std::fs::create_dir(&starting).unwrap();

        let swept = sweep_in(parent.path());
        assert!(swept.removed.is_empty(), "{:?}", swept.removed);
        assert!(elsewhere.path().join("keep").exists());
        assert!(starting.exists());
        assert!(parent.path().join("playbook-run-file").exists());
    }
}
