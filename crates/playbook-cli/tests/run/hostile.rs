//! Hostile agents: every forbidden action is refused before it happens,
//! recorded with its rule, and the file system and refs show it did not
//! happen.

use serde_json::json;

use crate::harness::{Repo, done, git, run, single};

fn answer() -> serde_json::Value {
    json!({"output": {"summary": "tried"}, "result": done()})
}

/// Runs one task, T-1, whose `lock_scope` is `src/`.
fn run_in_src(repo: &Repo, playbook: &str, script: serde_json::Value) -> crate::harness::Run {
    let input = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        input.path(),
        "goal: g\ntasks:\n  - id: T-1\n    title: t\n    acceptance_criteria: [it works]\n    lock_scope: [src/]\n",
    )
    .unwrap();
    run(
        repo,
        playbook,
        script,
        &["--input", input.path().to_str().unwrap()],
    )
}

/// The branch the run made for its task.
fn task_branch(repo: &Repo) -> String {
    git(
        repo.path(),
        &[
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads/playbook/",
        ],
    )
}

#[test]
fn forbidden_tools_paths_and_git_actions_are_refused_before_they_run() {
    let repo = Repo::new();
    let before = repo.snapshot();
    let playbook = single("read_file, write_file, edit_file, git_commit, git_push, git_reset");
    let script = json!({"worker": [{
        "calls": [
            {"tool": "run_command", "args": {"argv": ["touch", "/tmp/never"]}},
            {"tool": "write_file", "args": {"path": "../escaped.txt", "content": "x"}},
            {"tool": "write_file", "args": {"path": "/etc/escaped.txt", "content": "x"}},
            {"tool": "write_file", "args": {"path": "src/out/through-link.txt", "content": "x"}},
            {"tool": "read_file", "args": {"path": "src/out/hostname"}},
            {"tool": "write_file", "args": {"path": ".git/hooks/pre-commit", "content": "x"}},
            {"tool": "write_file", "args": {"path": "docs/readme.md", "content": "defaced"}},
            {"tool": "git_push"},
            {"tool": "git_reset", "args": {"ref": "HEAD~1"}},
            {"tool": "write_file", "args": {"path": "src/ok.txt", "content": "allowed"}}
        ],
        "answer": answer()
    }]});
    let run = run_in_src(&repo, &playbook, script);
    assert_eq!(
        run.blocked("run_command").as_deref(),
        Some("TOOL_NOT_ALLOWED"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.blocked("git_push").as_deref(),
        Some("TASK_KIND_FORBIDS")
    );
    assert_eq!(
        run.blocked("git_reset").as_deref(),
        Some("TASK_KIND_FORBIDS")
    );
    let blocked: Vec<String> = run
        .events
        .iter()
        .filter(|e| e["type"] == "tool_call_blocked")
        .map(|e| format!("{} {}", e["tool"], e["code"]))
        .collect();
    // The write calls: ../, absolute, through the link, .git, outside lock_scope.
    for code in ["PATH_ESCAPE", "SCOPE_VIOLATION"] {
        assert!(
            blocked.iter().any(|b| b.contains(code)),
            "{code} in {blocked:?}"
        );
    }
    assert_eq!(
        blocked.iter().filter(|b| b.contains("write_file")).count(),
        5,
        "every hostile write was blocked: {blocked:?}"
    );
    assert!(
        blocked
            .iter()
            .any(|b| b.contains("read_file") && b.contains("PATH_ESCAPE")),
        "{blocked:?}"
    );
    // The agent was told why, in words.
    let told = run.errors_told();
    assert!(
        told.iter()
            .any(|t| t.contains("SCOPE_VIOLATION") && t.contains("lock_scope")),
        "{told:?}"
    );
    // Nothing happened outside, nothing in the person's checkout, and the
    // one allowed write is in the task's worktree only.
    assert!(
        repo.outside_entries().is_empty(),
        "{:?}",
        repo.outside_entries()
    );
    assert!(!repo.path().parent().unwrap().join("escaped.txt").exists());
    assert!(!std::path::Path::new("/tmp/never").exists());
    assert_eq!(repo.snapshot(), before);
    let wt = run
        .events
        .iter()
        .find(|e| e["type"] == "run_finished")
        .is_some();
    assert!(wt);
    let branch = task_branch(&repo);
    assert_eq!(
        git(repo.path(), &["rev-parse", &branch]),
        git(repo.path(), &["rev-parse", "main"]),
        "no commit was made"
    );
}

#[test]
fn a_commit_does_not_carry_a_change_made_without_a_tool_outside_the_scope() {
    // A program the worker may run writes where the task may not; the
    // gateway never saw that write, so the commit is where it is caught.
    let repo = Repo::new();
    let playbook = single("read_file, write_file, run_command, git_commit");
    let script = json!({"worker": [{
        "calls": [
            {"tool": "run_command", "args": {"argv": ["sh", "-c", "mkdir -p docs && echo defaced > docs/outside.txt"]}},
            {"tool": "write_file", "args": {"path": "src/ok.txt", "content": "allowed"}},
            {"tool": "git_commit", "args": {"message": "both"}},
            {"tool": "run_command", "args": {"argv": ["rm", "docs/outside.txt"]}},
            {"tool": "git_commit", "args": {"message": "only the task's change"}}
        ],
        "answer": answer()
    }]});
    let run = run_in_src(&repo, &playbook, script);
    assert_eq!(
        run.blocked("git_commit").as_deref(),
        Some("SCOPE_VIOLATION"),
        "{}",
        run.stderr
    );
    let told = run.errors_told();
    assert!(
        told.iter()
            .any(|t| t.contains("docs/outside.txt") && t.contains("lock_scope")),
        "{told:?}"
    );
    // The second commit, once the stray file is gone, records the task's
    // change only.
    let branch = task_branch(&repo);
    let files = git(repo.path(), &["diff", "--name-only", "main", branch.trim()]);
    assert_eq!(files.trim(), "src/ok.txt", "{}", run.stderr);
}

#[test]
fn an_inspect_task_cannot_run_commands_or_write() {
    let repo = Repo::new();
    let playbook = single("read_file, write_file, run_command, git_status");
    let script = json!({"worker": [{
        "calls": [
            {"tool": "run_command", "args": {"argv": ["touch", "src/made-by-command"]}},
            {"tool": "write_file", "args": {"path": "src/x.txt", "content": "x"}},
            {"tool": "git_status"}
        ],
        "answer": answer()
    }]});
    let input = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        input.path(),
        "tasks:\n  - {id: T-1, title: look, kind: inspect, acceptance_criteria: [it works]}\n",
    )
    .unwrap();
    let run = run(
        &repo,
        &playbook,
        script,
        &["--input", input.path().to_str().unwrap()],
    );
    assert_eq!(
        run.blocked("run_command").as_deref(),
        Some("TASK_KIND_FORBIDS"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.blocked("write_file").as_deref(),
        Some("TASK_KIND_FORBIDS")
    );
    assert_eq!(run.blocked("git_status"), None);
    assert!(
        run.events
            .iter()
            .any(|e| e["type"] == "tool_call_allowed" && e["tool"] == "git_status")
    );
}

#[test]
fn the_agent_call_budget_stops_the_run() {
    let repo = Repo::new();
    let playbook = crate::harness::FULL;
    let script = json!({
        "worker": [{"answer": {"output": {"summary": "s"}, "result": done()}}],
        "reviewer": [{"answer": {"output": {"verdict": "fail", "issues": ["no"]}}}]
    });
    let run = run(&repo, playbook, script, &["--max-agent-calls", "3"]);
    assert_eq!(run.outcome(), "stopped", "{}", run.stderr);
    assert!(run.codes().contains(&"STEP_LIMIT".to_string()));
    let invoked = run
        .events
        .iter()
        .filter(|e| e["type"] == "agent_invoked")
        .count();
    assert_eq!(invoked, 3, "exactly the budget, never one more");
}
