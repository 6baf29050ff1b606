//! The context bundle, tool permissions, preflight, verification, agent
//! definitions and the command assigner of a real run, against real git
//! repositories and real processes made in temporary directories.

mod agents;
mod assigner;
mod bundle;
mod permissions;
mod preflight;
mod schemas;
mod verify;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A git repository in a temporary directory.
pub struct Repo {
    pub dir: tempfile::TempDir,
}

impl Repo {
    /// A repository with `files` committed on `main`.
    pub fn with(files: &[(&str, &str)]) -> Repo {
        let repo = Repo {
            dir: tempfile::tempdir().unwrap(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.email", "t@example.com"]);
        repo.git(&["config", "user.name", "T"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo.commit(files);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .arg("-C")
            .arg(self.path())
            .args(args)
            // One test sets GIT_DIR for a moment; the helper never follows it.
            .env_remove("GIT_DIR")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    pub fn write(&self, path: &str, text: &str) {
        let full = self.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }

    /// Writes and commits `files` (an empty commit when there are none).
    pub fn commit(&self, files: &[(&str, &str)]) -> String {
        for (path, text) in files {
            self.write(path, text);
        }
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", "c"]);
        self.git(&["rev-parse", "HEAD"])
    }
}

pub fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}
