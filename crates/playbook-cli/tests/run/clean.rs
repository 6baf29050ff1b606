//! `playbook run clean` beside a run that is going on, and after a run that
//! left work not committed in a worktree.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::{Repo, git, run_command, single, testagent};

fn clean(repo: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_playbook"))
        .args(["run", "clean", "--repo"])
        .arg(repo)
        .args(extra)
        .output()
        .expect("the binary runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn clean_leaves_a_run_going_on_alone_and_names_the_work_it_would_discard() {
    let repo = Repo::new();
    let work = tempfile::tempdir().unwrap();
    let playbook = crate::harness::playbook(work.path(), &single("write_file"));
    let input = work.path().join("input.yaml");
    std::fs::write(
        &input,
        "tasks:\n  - {id: T-1, title: t, acceptance_criteria: [ok], lock_scope: [src/]}\n",
    )
    .unwrap();
    // The agent writes, then goes on thinking: the run is going on.
    let script = work.path().join("script.json");
    std::fs::write(
        &script,
        json!({"worker": [{
            "calls": [{"tool": "write_file", "args": {"path": "src/wip.txt", "content": "wip"}}],
            "hang_after": true
        }]})
        .to_string(),
    )
    .unwrap();
    let agents = work.path().join("agents.yaml");
    std::fs::write(
        &agents,
        format!(
            "agents:\n  scripted:\n    command: [\"{}\"]\n",
            testagent().display()
        ),
    )
    .unwrap();
    let child = run_command(&playbook, repo.path(), &agents, work.path(), &script)
        .arg("--input")
        .arg(&input)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let worktrees = repo.path().join(".git/playbook/worktrees");
    let started = Instant::now();
    let worktree: PathBuf = loop {
        let found = std::fs::read_dir(&worktrees)
            .into_iter()
            .flatten()
            .flatten()
            .map(|run| run.path().join("T-1"))
            .find(|w| w.join("src/wip.txt").is_file());
        if let Some(found) = found {
            break found;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the agent never wrote"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let run8 = worktree
        .parent()
        .and_then(|p| p.file_name())
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let branch = format!("refs/heads/playbook/{run8}/T-1");

    // During the run: nothing of it is touched, not even with --force.
    let out = clean(repo.path(), &["--force"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("left alone (runs still going on): {run8}")),
        "{}",
        text(&out)
    );
    assert!(worktree.join("src/wip.txt").is_file());
    git(repo.path(), &["rev-parse", "--verify", &branch]);

    // Stopped, the run keeps the worktree; its work was never committed.
    // SAFETY: sends SIGINT to the child we started, as Ctrl+C would.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let run = child.wait_with_output().unwrap();
    assert!(
        String::from_utf8_lossy(&run.stdout).contains("\"outcome\":\"stopped\""),
        "{}",
        text(&run)
    );
    let out = clean(repo.path(), &[]);
    assert!(!out.status.success(), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!("not cleaned: {}: src/wip.txt", worktree.display()))
            && said.contains("--force"),
        "{said}"
    );
    assert!(worktree.join("src/wip.txt").is_file());

    // --force discards it and names what it discarded.
    let out = clean(repo.path(), &["--force"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!(
            "discarded changes not committed (--force): {}: src/wip.txt",
            worktree.display()
        )),
        "{}",
        text(&out)
    );
    assert!(!worktree.exists());
}
