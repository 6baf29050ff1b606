//! The journey of a real run: a worker edits and commits, a reviewer fails
//! twice and then passes, a tester runs the repository's real test command;
//! the branch is kept for a person, the person's checkout is untouched.

use serde_json::json;

use crate::harness::{FULL, Repo, done, git, run};

#[test]
fn worker_reviewer_tester_on_a_real_repository() {
    let repo = Repo::new();
    let before = repo.snapshot();
    let script = json!({
        "worker": [
            {
                "calls": [
                    {"tool": "edit_file", "args": {"path": "src/lib.txt", "old": "fine", "new": "fine and better"}},
                    {"tool": "git_commit", "args": {"message": "Improve lib"}}
                ],
                "answer": {"output": {"summary": "improved"}, "result": done()}
            },
            {
                "calls": [
                    {"tool": "write_file", "args": {"path": "src/round-{iteration}.txt", "content": "round {iteration}"}},
                    {"tool": "git_commit", "args": {"message": "Address review, round {iteration}"}}
                ],
                "answer": {"output": {"summary": "addressed"}, "result": done()}
            }
        ],
        "reviewer": [
            {"calls": [{"tool": "git_diff"}], "answer": {"output": {"verdict": "fail", "issues": ["too small"]}, "result": done()}},
            {"answer": {"output": {"verdict": "fail", "issues": ["still small"]}, "result": done()}},
            {"answer": {"output": {"verdict": "pass", "issues": []}, "result": done(), "model": "scripted-reviewer-1"}}
        ],
        "tester": [{
            "calls": [{"tool": "run_tests"}],
            "answer": {"output": {"failed_cases": 0, "report": "all green"}, "result": done()}
        }]
    });
    let run = run(&repo, FULL, script, &["--goal", "Improve the library"]);
    assert!(
        run.out.status.success(),
        "stderr: {}\nstdout: {}",
        run.stderr,
        run.stdout
    );
    assert_eq!(run.outcome(), "passed");

    // Three worker rounds, three reviews, one test run: the loop ran as the
    // playbook says.
    let invoked: Vec<String> = run
        .events
        .iter()
        .filter(|e| e["type"] == "agent_invoked")
        .map(|e| e["role"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        invoked,
        [
            "worker", "reviewer", "worker", "reviewer", "worker", "reviewer", "tester"
        ]
    );

    // The agents saw only their role's tools, and the tester's run_tests ran
    // the repository's real test command.
    let listed: Vec<&serde_json::Value> = run
        .agent_log
        .iter()
        .filter(|l| l.get("listed").is_some())
        .collect();
    assert!(
        listed
            .iter()
            .any(|l| l["listed"] == json!(["read_file", "run_tests"])),
        "{listed:?}"
    );
    let tests = run
        .agent_log
        .iter()
        .find(|l| l["tool"] == "run_tests")
        .expect("run_tests was called");
    assert_eq!(tests["error"], false, "{tests}");
    assert!(tests["text"].to_string().contains("make"), "{tests}");

    // Every process is on record as it ended, with the model it named.
    let runs = repo.path().join(".git/playbook/runs");
    let run_dir = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let records: Vec<serde_json::Value> =
        std::fs::read_to_string(run_dir.join("invocations.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    assert_eq!(
        records.len(),
        7,
        "one record per agent process: {records:?}"
    );
    assert!(
        records
            .iter()
            .all(|r| r["ended"] == "exited with status 0" && r["exit_code"] == 0),
        "{records:?}"
    );
    assert_eq!(records[5]["role"], "reviewer");
    assert_eq!(records[5]["model"], "scripted-reviewer-1");
    assert!(
        records[0].get("model").is_none(),
        "no model is made up: {}",
        records[0]
    );

    // The task's branch holds the work; the person's checkout does not.
    let branch = git(
        repo.path(),
        &[
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads/playbook/",
        ],
    );
    assert_eq!(branch.lines().count(), 1, "one task, one branch: {branch}");
    let log = git(
        repo.path(),
        &["log", "--format=%s", &format!("main..{branch}")],
    );
    assert_eq!(log.lines().count(), 3, "a commit per worker round: {log}");
    let file = git(repo.path(), &["show", &format!("{branch}:src/lib.txt")]);
    assert_eq!(file, "fine and better");
    assert_eq!(
        repo.snapshot(),
        before,
        "the person's branches, HEAD, status and files are unchanged"
    );
    assert_eq!(
        std::fs::read_to_string(repo.path().join("src/lib.txt")).unwrap(),
        "fine\n"
    );
}
