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

/// The events of one type.
fn events_of<'r>(run: &'r crate::harness::Run, kind: &str) -> Vec<&'r serde_json::Value> {
    run.events.iter().filter(|e| e["type"] == kind).collect()
}

#[test]
fn a_commit_a_program_made_outside_the_scopes_fails_the_task_and_is_not_offered() {
    // The worker's program commits a change outside lock_scope itself, where
    // the gateway never sees it; the worker's own commit is clean. The
    // branch carries both, so the task must not pass.
    let repo = Repo::new();
    let before = repo.snapshot();
    let playbook = single("read_file, write_file, run_command, git_commit");
    let script = json!({"worker": [{
        "calls": [
            {"tool": "run_command", "args": {"argv": ["sh", "-c",
                "echo defaced > docs/readme.md && git commit -qam sneaky"]}},
            {"tool": "write_file", "args": {"path": "src/ok.txt", "content": "allowed"}},
            {"tool": "git_commit", "args": {"message": "the task's change"}}
        ],
        "answer": answer()
    }]});
    let run = run_in_src(&repo, &playbook, script);
    // The sneaky commit really is on the branch: the check is what stops it.
    let branch = task_branch(&repo);
    let files = git(repo.path(), &["diff", "--name-only", "main", branch.trim()]);
    assert_eq!(files, "docs/readme.md\nsrc/ok.txt", "{}", run.stderr);

    let failed = events_of(&run, "task_failed");
    assert_eq!(failed.len(), 1, "{}", run.stdout);
    assert_eq!(failed[0]["code"], "SCOPE_VIOLATION");
    let reason = failed[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("`docs/readme.md` is outside the task's lock_scope")
            && reason.contains("not offered for merge")
            && reason.contains("run the task again"),
        "{reason}"
    );
    assert!(!reason.contains("src/ok.txt"), "{reason}");
    assert!(events_of(&run, "task_done").is_empty());
    assert_eq!(run.outcome(), "failed");
    assert!(!run.out.status.success());
    // The person is not told the branch passed.
    assert!(
        run.stderr.contains("T-1") && run.stderr.contains("did not pass"),
        "{}",
        run.stderr
    );
    assert_eq!(
        repo.snapshot(),
        before,
        "the person's checkout is untouched"
    );
}

#[test]
fn git_config_and_hooks_a_program_changes_are_put_back_and_fail_the_task() {
    let repo = Repo::new();
    let common = repo.path().join(".git");
    let config_before = std::fs::read(common.join("config")).unwrap();
    let hooks_before: Vec<String> = std::fs::read_dir(common.join("hooks"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let outside = repo.outside.path().display().to_string();
    let playbook = single("read_file, run_command");
    let script = json!({"worker": [{
        "calls": [
            {"tool": "run_command", "args": {"argv": ["git", "config", "core.hooksPath", outside]}},
            {"tool": "run_command", "args": {"argv": ["sh", "-c",
                "h=\"$(git rev-parse --git-common-dir)/hooks\"; mkdir -p \"$h\"; printf '#!/bin/sh\\necho owned\\n' > \"$h/post-checkout\"; chmod +x \"$h/post-checkout\""]}},
            {"tool": "run_command", "args": {"argv": ["git", "branch", "sneaky"]}}
        ],
        "answer": answer()
    }]});
    let run = run_in_src(&repo, &playbook, script);
    // Every call ran: nothing refused them; what they left is caught after.
    assert_eq!(
        run.agent_log
            .iter()
            .filter(|l| l["tool"] == "run_command" && l["error"] == false)
            .count(),
        3,
        "{:?}",
        run.agent_log
    );
    // Put back, byte for byte.
    assert_eq!(
        String::from_utf8_lossy(&std::fs::read(common.join("config")).unwrap()),
        String::from_utf8_lossy(&config_before)
    );
    assert!(!common.join("hooks/post-checkout").exists());
    let hooks_after: Vec<String> = std::fs::read_dir(common.join("hooks"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(hooks_after.len(), hooks_before.len(), "{hooks_after:?}");
    // The step is a scope violation that names what changed.
    let violations = events_of(&run, "contract_violation");
    assert_eq!(violations.len(), 1, "{}", run.stdout);
    let detail = violations[0]["detail"].as_str().unwrap();
    assert_eq!(violations[0]["code"], "SCOPE_VIOLATION");
    assert!(
        detail.contains("hooksPath")
            && detail.contains("hooks/post-checkout")
            && detail.contains("put back"),
        "{detail}"
    );
    assert_eq!(events_of(&run, "task_failed")[0]["code"], "SCOPE_VIOLATION");
    // A new branch is the person's business too, but they may have made it:
    // it is reported, and left.
    let warnings: Vec<&str> = events_of(&run, "warning")
        .iter()
        .filter_map(|w| w["message"].as_str())
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("`refs/heads/sneaky` was created")),
        "{warnings:?}"
    );
    assert!(!git(repo.path(), &["rev-parse", "--verify", "sneaky"]).is_empty());
}

#[test]
fn a_forbidden_path_spelled_in_another_case_is_refused_and_fails_the_branch() {
    // On a case-insensitive file system (macOS's default) `src/Secret/z`
    // is inside `src/secret/`: the gateway refuses it, and a commit of such
    // a path a program made fails the task like any forbidden change.
    let repo = Repo::new();
    let before = repo.snapshot();
    let playbook = single("read_file, write_file, run_command");
    let script = json!({"worker": [{
        "calls": [
            {"tool": "write_file", "args": {"path": "src/Secret/z", "content": "x"}},
            {"tool": "write_file", "args": {"path": "SRC/SECRET/z", "content": "x"}},
            {"tool": "write_file", "args": {"path": "src/ok.txt", "content": "allowed"}},
            {"tool": "run_command", "args": {"argv": ["sh", "-c",
                "mkdir -p src/SeCrEt && echo k > src/SeCrEt/k && git add -A && git commit -qm sneaky"]}}
        ],
        "answer": answer()
    }]});
    let input = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        input.path(),
        "tasks:\n  - {id: T-1, title: t, acceptance_criteria: [it works], lock_scope: [src/], forbidden_scope: [src/secret/]}\n",
    )
    .unwrap();
    let run = run(
        &repo,
        &playbook,
        script,
        &["--input", input.path().to_str().unwrap()],
    );
    let blocked: Vec<&str> = events_of(&run, "tool_call_blocked")
        .iter()
        .filter(|e| e["tool"] == "write_file")
        .filter_map(|e| e["reason"].as_str())
        .collect();
    assert_eq!(blocked.len(), 2, "{}", run.stdout);
    assert!(
        blocked.iter().all(|r| r.contains("forbidden_scope")),
        "{blocked:?}"
    );
    let failed = events_of(&run, "task_failed");
    assert_eq!(failed.len(), 1, "{}", run.stdout);
    assert_eq!(failed[0]["code"], "SCOPE_VIOLATION");
    let reason = failed[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("src/SeCrEt/k") && reason.contains("forbidden_scope"),
        "{reason}"
    );
    assert_eq!(repo.snapshot(), before);
}
