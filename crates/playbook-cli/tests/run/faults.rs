//! Process faults and bad repositories: each is a clear error or a coded
//! event, never a hang, and the repository is left exactly as it was.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::{Repo, done, git, run, single, testagent};

fn agent_error(turn: serde_json::Value) -> crate::harness::Run {
    let repo = Repo::new();
    let before = repo.snapshot();
    let run = run(
        &repo,
        &single("read_file"),
        json!({ "worker": [turn] }),
        &[],
    );
    assert_eq!(repo.snapshot(), before);
    run
}

#[test]
fn a_non_zero_exit_is_an_agent_failure_with_its_last_words() {
    let run = agent_error(json!({"exit": 3}));
    assert_eq!(run.outcome(), "failed", "{}", run.stderr);
    let failed = run
        .events
        .iter()
        .find(|e| e["code"] == "AGENT_FAILED")
        .expect("AGENT_FAILED");
    assert!(failed.to_string().contains("status 3"), "{failed}");
}

#[test]
fn garbage_on_stdout_is_an_agent_failure_that_quotes_it() {
    let run = agent_error(json!({"stdout": "I think I am done!"}));
    assert!(
        run.codes().contains(&"AGENT_FAILED".to_string()),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("I think I am done"));
}

#[test]
fn a_flood_on_stdout_is_bounded() {
    let run = agent_error(json!({"flood_bytes": 50_000_000}));
    assert!(
        run.codes().contains(&"AGENT_FAILED".to_string()),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.len() < 1_000_000,
        "the flood is not copied into the records"
    );
}

#[test]
fn a_result_for_another_task_is_refused() {
    let mut result = done();
    result["task_id"] = json!("T-99");
    let run = agent_error(json!({"answer": {"output": {"summary": "s"}, "result": result}}));
    assert!(
        run.codes().contains(&"RESULT_INVALID".to_string()),
        "{}",
        run.stdout
    );
}

#[test]
fn a_silent_agent_is_killed_after_two_missed_heartbeats() {
    let repo = Repo::new();
    let input = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        input.path(),
        "tasks:\n  - {id: T-1, title: t, acceptance_criteria: [ok], timeout_seconds: 60, heartbeat_interval_seconds: 5}\n",
    )
    .unwrap();
    let started = Instant::now();
    let run = run(
        &repo,
        &single("read_file"),
        json!({"worker": [{"hang": true}]}),
        &["--input", input.path().to_str().unwrap()],
    );
    assert!(
        started.elapsed() < Duration::from_secs(50),
        "killed well before the timeout"
    );
    assert!(
        run.codes().contains(&"AGENT_TIMEOUT".to_string()),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("no sign of life"), "{}", run.stdout);
}

#[test]
fn an_absent_agent_program_is_a_clear_error() {
    let repo = Repo::new();
    let work = tempfile::tempdir().unwrap();
    let playbook = crate::harness::playbook(work.path(), &single("read_file"));
    let agents = work.path().join("agents.yaml");
    std::fs::write(
        &agents,
        "agents:\n  ghost:\n    command: [\"definitely-not-a-program-xyz\"]\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_playbook"))
        .arg("run")
        .arg(&playbook)
        .arg("--repo")
        .arg(repo.path())
        .arg("--agents")
        .arg(&agents)
        .args(["--agent", "ghost", "--approve", "auto"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("definitely-not-a-program-xyz"), "{stderr}");
}

/// `playbook run` on a repository in a bad state: a clear error, exit 2,
/// and the repository exactly as it was.
fn refused(repo: &std::path::Path, extra: &[&str], expect: &str) {
    let work = tempfile::tempdir().unwrap();
    let playbook = crate::harness::playbook(work.path(), &single("read_file"));
    let agents = work.path().join("agents.yaml");
    std::fs::write(
        &agents,
        format!(
            "agents:\n  scripted:\n    command: [\"{}\"]\n",
            testagent().display()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_playbook"))
        .arg("run")
        .arg(&playbook)
        .arg("--repo")
        .arg(repo)
        .arg("--agents")
        .arg(&agents)
        .args(["--agent", "scripted", "--approve", "auto"])
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_lowercase();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(expect), "expected {expect:?} in {stderr}");
}

#[test]
fn a_folder_that_is_not_a_repository_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("file.txt"), "x").unwrap();
    refused(dir.path(), &[], "not inside a git working tree");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "nothing was created"
    );
}

#[test]
fn a_dirty_tree_and_a_missing_base_ref_are_refused_and_left_alone() {
    let repo = Repo::new();
    std::fs::write(repo.path().join("src/lib.txt"), "edited, not committed\n").unwrap();
    let before = repo.snapshot();
    refused(repo.path(), &[], "src/lib.txt");
    assert_eq!(repo.snapshot(), before);
    git(repo.path(), &["checkout", "-q", "--", "src/lib.txt"]);
    let before = repo.snapshot();
    refused(
        repo.path(),
        &["--base-ref", "no-such-branch"],
        "no-such-branch",
    );
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn ctrl_c_stops_the_run_records_it_and_keeps_the_worktree() {
    let repo = Repo::new();
    let work = tempfile::tempdir().unwrap();
    let playbook = crate::harness::playbook(work.path(), &single("read_file"));
    let script = work.path().join("script.json");
    std::fs::write(&script, json!({"worker": [{"hang": true}]}).to_string()).unwrap();
    let agents = work.path().join("agents.yaml");
    std::fs::write(
        &agents,
        format!(
            "agents:\n  scripted:\n    command: [\"{}\"]\n",
            testagent().display()
        ),
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_playbook"))
        .arg("run")
        .arg(&playbook)
        .arg("--repo")
        .arg(repo.path())
        .arg("--agents")
        .arg(&agents)
        .args([
            "--agent",
            "scripted",
            "--approve",
            "auto",
            "--format",
            "jsonl",
        ])
        .env("TESTAGENT_SCRIPT", &script)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    // SAFETY: sends SIGINT to the child we started, as Ctrl+C in its terminal would.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("\"outcome\":\"stopped\""),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("RUN_STOPPED"));
    // The run's log and the task's worktree are kept.
    let runs = std::path::PathBuf::from(git(repo.path(), &["rev-parse", "--git-common-dir"]));
    let runs = if runs.is_absolute() {
        runs
    } else {
        repo.path().join(runs)
    }
    .join("playbook/runs");
    let dirs: Vec<_> = std::fs::read_dir(&runs).unwrap().collect();
    assert_eq!(dirs.len(), 1);
    let worktrees = git(repo.path(), &["worktree", "list", "--porcelain"]);
    assert!(worktrees.matches("worktree ").count() >= 2, "{worktrees}");
}
