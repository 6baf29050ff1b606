//! `max_parallel_worktrees` counts the tasks at work, not every task that
//! ever had a worktree: under the default cap of one, tasks run one after
//! another through every stage, and each comes back to its own branch in
//! the next stage.

use serde_json::json;

use crate::harness::{FULL, Repo, done, git, run};

#[test]
fn three_tasks_run_one_after_another_under_the_default_cap() {
    let repo = Repo::new();
    let before = repo.snapshot();
    let input = tempfile::NamedTempFile::new().unwrap();
    let tasks: String = (1..=3)
        .map(|n| {
            format!(
                "  - {{id: T-{n}, title: task {n}, lock_scope: [src/], acceptance_criteria: [it works]}}\n"
            )
        })
        .collect();
    std::fs::write(input.path(), format!("goal: g\ntasks:\n{tasks}")).unwrap();
    // Build (worker, reviewer) then test (tester): each task leaves the
    // build stage, waits at the barrier, and is tested on its own branch.
    let script = json!({
        "worker": [{
            "calls": [
                {"tool": "write_file", "args": {"path": "src/{task_id}.txt", "content": "{task_id}"}},
                {"tool": "git_commit", "args": {"message": "Work of {task_id}"}}
            ],
            "answer": {"output": {"summary": "done"}, "result": done()}
        }],
        "reviewer": [{"answer": {"output": {"verdict": "pass", "issues": []}, "result": done()}}],
        "tester": [{
            "calls": [{"tool": "read_file", "args": {"path": "src/{task_id}.txt"}}, {"tool": "run_tests"}],
            "answer": {"output": {"failed_cases": 0, "report": "green"}, "result": done()}
        }]
    });
    let run = run(
        &repo,
        FULL,
        script,
        &["--input", input.path().to_str().unwrap()],
    );
    assert!(
        !run.stdout.contains("WORKSPACE_TOO_MANY_WORKTREES")
            && !run.stderr.contains("WORKSPACE_TOO_MANY_WORKTREES"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(run.outcome(), "passed", "{}\n{}", run.stdout, run.stderr);
    let done: Vec<&str> = run
        .events
        .iter()
        .filter(|e| e["type"] == "task_done")
        .filter_map(|e| e["task_id"].as_str())
        .collect();
    assert_eq!(done, ["T-1", "T-2", "T-3"]);
    // The tester of each task read that task's file: its worktree was made
    // again from its branch in the test stage.
    let read: Vec<&serde_json::Value> = run
        .agent_log
        .iter()
        .filter(|l| l["tool"] == "read_file")
        .collect();
    assert_eq!(read.len(), 3, "{read:?}");
    assert!(read.iter().all(|l| l["error"] == false), "{read:?}");
    // Each branch carries its task's change only.
    for n in 1..=3 {
        let branch = git(
            repo.path(),
            &[
                "for-each-ref",
                "--format=%(refname:short)",
                &format!("refs/heads/playbook/*/T-{n}"),
            ],
        );
        let files = git(repo.path(), &["diff", "--name-only", "main", &branch]);
        assert_eq!(files, format!("src/T-{n}.txt"));
    }
    // Passed tasks' worktrees are gone; the person's checkout is as it was.
    let worktrees = git(repo.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
    assert_eq!(repo.snapshot(), before);
}
