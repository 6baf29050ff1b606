//! What an agent's own process plants where the run reads or writes: a
//! FIFO, a symbolic link, a hard link to a file of the person's checkout.
//! Each is refused or replaced at once: the run never blocks on it (a FIFO
//! once hung `playbook run` for good, deaf to Ctrl+C and `SIGTERM`), never
//! follows it, and never writes through it.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::{Repo, done, git, run_command, single, wrapped_agent};

/// Runs `command`, its output into files, killed after `limit`: `None`
/// when it had not ended by then (a hung run must fail the test, not hang
/// it).
fn run_within(mut command: Command, work: &Path, limit: Duration) -> Option<Output> {
    let stdout_path = work.join("stdout");
    let stderr_path = work.join("stderr");
    let mut child = command
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    Some(Output {
        status,
        stdout: std::fs::read(&stdout_path).unwrap(),
        stderr: std::fs::read(&stderr_path).unwrap(),
    })
}

/// `playbook run` of one worker whose agent is `sh -c shell` followed by
/// the test agent (`exec "$0"`) answering `answer`; `None` when the run
/// was still going after a minute.
fn run_planting(repo: &Repo, shell: &str, tools: &str, turn: Value) -> Option<(Output, String)> {
    let work = tempfile::tempdir().unwrap();
    let playbook = crate::harness::playbook(work.path(), &single(tools));
    let script = work.path().join("script.json");
    std::fs::write(&script, json!({ "worker": [turn] }).to_string()).unwrap();
    let input = work.path().join("input.yaml");
    std::fs::write(
        &input,
        "tasks:\n  - {id: T-1, title: t, acceptance_criteria: [it works], lock_scope: [src/]}\n",
    )
    .unwrap();
    let agents = wrapped_agent(work.path(), shell, ("PB_PLANTED_TEST", "1"));
    let mut command = run_command(&playbook, repo.path(), &agents, work.path(), &script);
    command.arg("--input").arg(&input);
    let out = run_within(command, work.path(), Duration::from_secs(60))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    Some((out, stdout))
}

fn answer() -> Value {
    json!({"answer": {"output": {"summary": "done"}, "result": done()}})
}

/// The `task_failed` event of the run's JSON lines.
fn failure(stdout: &str) -> Value {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "task_failed")
        .unwrap_or_else(|| panic!("no task_failed: {stdout}"))
}

#[test]
fn a_result_file_that_is_not_a_regular_file_fails_the_invocation_at_once() {
    let repo = Repo::new();
    // A file outside the worktree holding an answer that would pass: a
    // link to it must not be followed.
    let elsewhere = repo.outside.path().join("answer.json");
    let passing = json!({"output": {"summary": "read from elsewhere"}, "result": done()});
    std::fs::write(&elsewhere, passing.to_string()).unwrap();
    let plants = [
        (
            "mkfifo \"$PLAYBOOK_RESULT_FILE\"".to_string(),
            "a FIFO (named pipe)",
        ),
        (
            format!("ln -s '{}' \"$PLAYBOOK_RESULT_FILE\"", elsewhere.display()),
            "a symbolic link",
        ),
        ("mkdir \"$PLAYBOOK_RESULT_FILE\"".to_string(), "a folder"),
    ];
    for (plant, said) in plants {
        let before = repo.snapshot();
        let shell = format!("{plant} && exec \"$0\"");
        let (out, stdout) = run_planting(&repo, &shell, "read_file", answer())
            .unwrap_or_else(|| panic!("`{plant}`: the run hung on the result file"));
        assert!(!out.status.success(), "`{plant}`: {stdout}");
        let failed = failure(&stdout);
        assert_eq!(failed["code"], "AGENT_FAILED", "`{plant}`: {failed}");
        let reason = failed["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("PLAYBOOK_RESULT_FILE") && reason.contains(said),
            "`{plant}`: {reason}"
        );
        assert!(!stdout.contains("read from elsewhere"), "{stdout}");
        assert_eq!(repo.snapshot(), before);
    }
}

#[test]
fn what_a_program_plants_in_the_runs_log_folder_is_replaced_not_followed() {
    // The run's log folder is named by PLAYBOOK_RUN_ID. A FIFO where the
    // report goes used to hang the end of the run; a link would have
    // redirected the write.
    let repo = Repo::new();
    let canary = repo.outside.path().join("canary.txt");
    std::fs::write(&canary, "untouched\n").unwrap();
    let shell = format!(
        "d=\"$(git rev-parse --git-common-dir)/playbook/runs/$PLAYBOOK_RUN_ID\" \
         && mkfifo \"$d/report.json\" && ln -s '{}' \"$d/audit.json\" && exec \"$0\"",
        canary.display()
    );
    let (_, stdout) = run_planting(&repo, &shell, "read_file", answer())
        .expect("the run hung writing its records");
    assert!(stdout.contains("\"type\":\"run_finished\""), "{stdout}");
    assert_eq!(std::fs::read_to_string(&canary).unwrap(), "untouched\n");
    let runs: Vec<_> = std::fs::read_dir(repo.path().join(".git/playbook/runs"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(runs.len(), 1);
    for name in ["report.json", "audit.json"] {
        let path = runs[0].path().join(name);
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert!(meta.is_file(), "{name} is a regular file again");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with('{') || text.starts_with('['),
            "{name}: {text}"
        );
    }
}

#[test]
fn a_hard_link_to_the_persons_checkout_is_replaced_not_written_through() {
    // The agent's process links a file of the person's checkout into its
    // worktree, inside lock_scope, under two names; the gateway's writes
    // to those names must change the worktree only.
    let repo = Repo::new();
    let before = repo.snapshot();
    let shell = "c=\"$(git rev-parse --git-common-dir)/..\" \
        && ln \"$c/docs/readme.md\" src/a.md && ln \"$c/docs/readme.md\" src/b.md \
        && exec \"$0\"";
    let turn = json!({
        "calls": [
            {"tool": "write_file", "args": {"path": "src/a.md", "content": "defaced\n"}},
            {"tool": "edit_file", "args": {"path": "src/b.md", "old": "docs", "new": "DEFACED"}},
            {"tool": "git_commit", "args": {"message": "through the links"}}
        ],
        "answer": {"output": {"summary": "done"}, "result": done()}
    });
    let work = tempfile::tempdir().unwrap();
    let log = work.path().join("agent-log.jsonl");
    let playbook =
        crate::harness::playbook(work.path(), &single("write_file, edit_file, git_commit"));
    let script = work.path().join("script.json");
    std::fs::write(&script, json!({ "worker": [turn] }).to_string()).unwrap();
    let input = work.path().join("input.yaml");
    std::fs::write(
        &input,
        "tasks:\n  - {id: T-1, title: t, acceptance_criteria: [it works], lock_scope: [src/]}\n",
    )
    .unwrap();
    let agents = wrapped_agent(work.path(), shell, ("PB_PLANTED_TEST", "1"));
    let mut command = run_command(&playbook, repo.path(), &agents, work.path(), &script);
    command
        .arg("--input")
        .arg(&input)
        .env("TESTAGENT_LOG", &log);
    let out = run_within(command, work.path(), Duration::from_secs(60)).expect("the run ends");
    let stdout = String::from_utf8_lossy(&out.stdout);

    // The person's checkout is exactly as it was.
    assert_eq!(
        std::fs::read_to_string(repo.path().join("docs/readme.md")).unwrap(),
        "docs\n",
        "{stdout}"
    );
    assert_eq!(repo.snapshot(), before);
    // The writes landed in the worktree, on the task's branch.
    let branch = git(
        repo.path(),
        &[
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads/playbook/",
        ],
    );
    let show = |file: &str| git(repo.path(), &["show", &format!("{branch}:{file}")]);
    assert_eq!(show("src/a.md"), "defaced", "{stdout}");
    assert_eq!(show("src/b.md"), "DEFACED", "{stdout}");
    // The agent was told why the other names kept the old text.
    let told = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(told.matches("other hard link").count(), 2, "{told}");
}
