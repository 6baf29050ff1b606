//! The git files of each linked worktree, which decide what git runs and
//! reads there as much as the common ones do:
//!
//! - its folder in the common git directory, `worktrees/<id>/`: its own
//!   configuration `config.worktree` (read once `extensions.worktreeConfig`
//!   is on, as `git sparse-checkout` turns it on; it can name a
//!   `core.fsmonitor`, hooks, filter drivers like the common one),
//!   `commondir` (the repository it belongs to: another one brings that
//!   one's configuration and hooks), `gitdir` (where git believes the
//!   worktree is, the folder `git worktree remove` deletes) and `info/`
//!   (its sparse-checkout patterns);
//! - for the run's own worktrees, the `.git` file inside the worktree, which
//!   names that folder (another one, or a whole repository in its place,
//!   makes every git command there read another configuration).
//!
//! The run's own worktrees are recorded as `git worktree add` left them,
//! before any agent ran in them ([`OwnWorktrees`]); another worktree is
//! taken as the run first sees it (the person's, made before or during the
//! run). Another run's worktrees are left to that run's own guard.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::entries::{Entry, look, scan};

/// The files and folders of a worktree's folder in the common git
/// directory that are compared and put back.
const ADMIN_FILES: &[&str] = &["config.worktree", "commondir", "gitdir"];
const ADMIN_DIRS: &[&str] = &["info"];

/// One worktree's folder in the common git directory, scanned.
pub(super) type Admin = BTreeMap<PathBuf, Entry>;

/// Where the linked worktrees' folders are in a common git directory.
pub(super) fn admins_dir(common: &Path) -> PathBuf {
    common.join("worktrees")
}

/// The watched files of the worktree folder `admin`.
pub(super) fn scan_admin(admin: &Path) -> Admin {
    scan(admin, ADMIN_FILES, ADMIN_DIRS, &[])
}

/// Every linked worktree's folder (its id) that is a real folder, not a
/// link; at most a bounded number.
pub(super) fn admin_ids(common: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(admins_dir(common)) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .take(10_000)
        .collect();
    ids.sort();
    ids
}

/// The run (`<run8>` of `<common>/playbook/worktrees/<run8>/<task>`) whose
/// worktree the folder `admin` describes, read from its `gitdir` file;
/// `None` for any other worktree.
pub(super) fn run_of_admin(common: &Path, admin: &Path) -> Option<String> {
    let text = read_small(&admin.join("gitdir"))?;
    let named = PathBuf::from(text.trim_end_matches(['\n', '\r']));
    let at = lexical(&admin.join(named));
    let rest = at
        .strip_prefix(common.join("playbook").join("worktrees"))
        .ok()?;
    match rest.components().next()? {
        Component::Normal(run8) => run8.to_str().map(str::to_string),
        _ => None,
    }
}

/// A path with `.` and `..` taken out as text (what it names may be gone).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A small file's text (a few KiB at most), never through a link or a FIFO.
fn read_small(path: &Path) -> Option<String> {
    let file = crate::regular_file::open(path).ok()?;
    let (bytes, _) = crate::regular_file::read_capped(file, 4096).ok()?;
    String::from_utf8(bytes).ok()
}

/// One worktree of the run, as `git worktree add` left it.
#[derive(Debug, Clone)]
pub(super) struct Made {
    /// Its folder's name under `<common>/worktrees/`.
    pub(super) id: String,
    /// The `.git` file in the worktree.
    pub(super) dot_git: Option<Entry>,
    pub(super) admin: Admin,
}

/// The worktrees a run made, each recorded right after `git worktree add`
/// made it, before any agent ran there. The run's `Worktrees` records and
/// forgets them, its `Guard` compares with them; both reach the same record
/// through the `Repo` they were given (a clone shares it).
#[derive(Debug, Clone, Default)]
pub(crate) struct OwnWorktrees(Arc<Mutex<BTreeMap<PathBuf, Made>>>);

impl OwnWorktrees {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<PathBuf, Made>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records `worktree` of the repository whose common git directory is
    /// `common` as it is now. A worktree whose `.git` file does not name a
    /// folder under `<common>/worktrees/` is not recorded: the guard then
    /// takes it as it first sees it.
    pub(crate) fn record(&self, common: &Path, worktree: &Path) {
        let dot_git = worktree.join(".git");
        let Some(text) = read_small(&dot_git) else {
            return;
        };
        let Some(named) = text.trim_end_matches(['\n', '\r']).strip_prefix("gitdir: ") else {
            return;
        };
        let admin = lexical(&worktree.join(named));
        let Ok(id) = admin.strip_prefix(admins_dir(common)) else {
            return;
        };
        let Some(id) = id.to_str().filter(|id| !id.is_empty() && !id.contains('/')) else {
            return;
        };
        let made = Made {
            id: id.to_string(),
            dot_git: look(&dot_git),
            admin: scan_admin(&admin),
        };
        self.lock().insert(worktree.to_path_buf(), made);
    }

    /// Forgets a worktree the run removed: git may give its folder's name
    /// to another worktree later.
    pub(crate) fn forget(&self, worktree: &Path) {
        self.lock().remove(worktree);
    }

    /// The recorded worktrees that are still there.
    pub(super) fn present(&self) -> Vec<(PathBuf, Made)> {
        self.lock()
            .iter()
            .filter(|(path, _)| std::fs::symlink_metadata(path).is_ok())
            .map(|(path, made)| (path.clone(), made.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{lexical, run_of_admin};
    use std::path::{Path, PathBuf};

    #[test]
    fn a_worktree_folder_names_its_run_by_its_gitdir() {
        let tmp = tempfile::tempdir().unwrap();
        let common = tmp.path().join(".git");
        let admin = common.join("worktrees/T-1");
        std::fs::create_dir_all(&admin).unwrap();
        let write = |text: &str| std::fs::write(admin.join("gitdir"), text).unwrap();
        write(&format!(
            "{}\n",
            common
                .join("playbook/worktrees/ab12cd34/T-1/.git")
                .display()
        ));
        assert_eq!(run_of_admin(&common, &admin).as_deref(), Some("ab12cd34"));
        // Relative, as `worktree.useRelativePaths` writes it.
        write("../../playbook/worktrees/ef56/T-1/.git\n");
        assert_eq!(run_of_admin(&common, &admin).as_deref(), Some("ef56"));
        write("/home/person/elsewhere/.git\n");
        assert_eq!(run_of_admin(&common, &admin), None);
        assert_eq!(lexical(Path::new("/a/b/../c/./d")), PathBuf::from("/a/c/d"));
    }
}
