//! Temporary repositories and a snapshot of everything a person would
//! notice changing in theirs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use playbook_orchestrator::agent::{ToolCall, ToolContext, ToolDenial, ToolResult, Tools};
use playbook_orchestrator::toolset::TaskKind;
use playbook_runner::workspace::{Repo, SharedWorktrees, WorktreeTools, Worktrees};
use serde_json::Value;
use tempfile::TempDir;

/// Runs git in `dir` with a fixed identity and no global configuration, so
/// the tests do not depend on the machine's.
#[track_caller]
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        // So taking a snapshot never refreshes the index it snapshots.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A temporary folder holding a repository at `repo/` (and room beside it
/// for canaries and link targets).
pub struct Fixture {
    pub tmp: TempDir,
}

impl Fixture {
    /// A repository on `main` with two commits: `README.md`, then
    /// `src/lib.rs` and a `.gitignore` that ignores `target/`.
    pub fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        git(&repo, &["init", "-q", "-b", "main"]);
        std::fs::write(repo.join("README.md"), "# demo\n").unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "first"]);
        std::fs::create_dir(repo.join("src")).unwrap();
        std::fs::write(repo.join("src/lib.rs"), "pub fn answer() -> u32 { 41 }\n").unwrap();
        std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "second"]);
        git(&repo, &["branch", "feature"]);
        Fixture { tmp }
    }

    pub fn repo_dir(&self) -> PathBuf {
        self.tmp.path().join("repo")
    }

    /// A file outside the repository that no tool may read or change.
    pub fn canary(&self) -> PathBuf {
        let p = self.tmp.path().join("canary.txt");
        if !p.exists() {
            std::fs::write(&p, "untouched\n").unwrap();
        }
        p
    }

    pub fn open(&self) -> Repo {
        Repo::open(&self.repo_dir(), None).expect("a clean repository opens")
    }

    pub fn tools(&self, max_parallel: u32) -> (WorktreeTools, SharedWorktrees) {
        let worktrees = Worktrees::new(&self.open(), "run12345abcdef", max_parallel).unwrap();
        let shared = Arc::new(Mutex::new(worktrees));
        (WorktreeTools::new(shared.clone(), Vec::new()), shared)
    }
}

/// Everything of a repository a person would notice: refs, HEAD, status,
/// and every file of the working tree with its content.
#[derive(Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub refs: Vec<String>,
    pub head: String,
    pub head_sha: String,
    pub status: String,
    pub files: BTreeMap<String, Vec<u8>>,
    /// The person's index and configuration, byte for byte.
    pub index: Vec<u8>,
    pub config: Vec<u8>,
}

impl Snapshot {
    pub fn take(repo: &Path) -> Snapshot {
        let mut files = BTreeMap::new();
        collect(repo, repo, &mut files);
        Snapshot {
            refs: git(repo, &["for-each-ref", "--format=%(refname) %(objectname)"])
                .lines()
                .map(str::to_string)
                .collect(),
            head: git(repo, &["symbolic-ref", "HEAD"]),
            head_sha: git(repo, &["rev-parse", "HEAD"]),
            status: git(repo, &["status", "--porcelain", "--untracked-files=all"]),
            files,
            index: std::fs::read(repo.join(".git/index")).unwrap_or_default(),
            config: std::fs::read(repo.join(".git/config")).unwrap_or_default(),
        }
    }

    /// The same snapshot without the branches a run keeps for the person
    /// (`refs/heads/playbook/…`), which are the run's only lasting trace.
    pub fn without_run_branches(mut self) -> Snapshot {
        self.refs.retain(|r| !r.starts_with("refs/heads/playbook/"));
        self
    }
}

fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if e.file_name() == ".git" {
            continue;
        }
        let path = e.path();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let ty = e.file_type().unwrap();
        if ty.is_symlink() {
            let target = std::fs::read_link(&path).unwrap();
            out.insert(rel, format!("-> {}", target.display()).into_bytes());
        } else if ty.is_dir() {
            collect(root, &path, out);
        } else {
            out.insert(rel, std::fs::read(&path).unwrap());
        }
    }
}

/// A fixture with the tools of a run of at most two worktrees, and the
/// worktree of task `T1`, acquired.
pub fn setup() -> (Fixture, WorktreeTools, PathBuf) {
    let fx = Fixture::new();
    let (tools, shared) = fx.tools(2);
    let root = shared.lock().unwrap().acquire("T1").unwrap();
    (fx, tools, root)
}

pub fn ctx<'a>(task_id: &'a str, kind: TaskKind) -> ToolContext<'a> {
    ToolContext {
        run_id: "run12345abcdef",
        task_id,
        stage: "implement",
        role: "worker",
        kind,
    }
}

pub fn call(tool: &str, args: Value) -> ToolCall {
    ToolCall {
        tool: tool.into(),
        args,
    }
}

/// What the engine would do with a call: the tools' check, then the run.
pub fn gate(tools: &mut WorktreeTools, task: &str, tool: &str, args: Value) -> ToolResult {
    let c = ctx(task, TaskKind::EditRepo);
    let call = call(tool, args);
    if let Err(ToolDenial { code, message }) = tools.check(&c, &call) {
        return ToolResult::Denied { code, message };
    }
    let result = block_on(tools.run(&c, &call));
    ToolResult::Ran { result }
}

/// Runs a tool directly (no check), as `run` must hold on its own.
pub fn run(tools: &mut WorktreeTools, task: &str, tool: &str, args: Value) -> Value {
    let c = ctx(task, TaskKind::Git);
    block_on(tools.run(&c, &call(tool, args)))
}

/// The result of a call that ran.
#[track_caller]
pub fn ran(result: ToolResult) -> Value {
    match result {
        ToolResult::Ran { result } => result,
        ToolResult::Denied { message, .. } => panic!("denied: {message}"),
    }
}

pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}
