//! The JSONL event log on stdout is written as the run goes, not when it
//! ends: a reader of the pipe follows the run, and a run that is killed
//! has written every event so far (what was read before the stop).

use std::io::BufRead;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{Repo, playbook, run_command, single, testagent};

#[test]
fn the_event_log_on_stdout_is_written_as_the_run_goes() {
    let repo = Repo::new();
    let work = tempfile::tempdir().unwrap();
    let playbook = playbook(work.path(), &single("read_file"));
    let script = work.path().join("script.json");
    // The agent hangs: the run goes on until it is killed.
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
    let mut child = run_command(&playbook, repo.path(), &agents, work.path(), &script)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // The agent has been started (and hangs): its events are on the pipe
    // while the run goes on.
    let invoked = |lines: &[String]| lines.iter().any(|l| l.contains("\"agent_invoked\""));
    let mut seen = Vec::new();
    let started = std::time::Instant::now();
    while !invoked(&seen) {
        let left = Duration::from_secs(30).saturating_sub(started.elapsed());
        match rx.recv_timeout(left) {
            Ok(line) => seen.push(line),
            Err(_) => break,
        }
    }
    let during_the_run = invoked(&seen);
    // Stopped as Ctrl+C would, which also stops the hanging agent.
    // SAFETY: sends SIGINT to the child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let _ = child.wait();
    seen.extend(rx.iter());
    assert!(
        during_the_run,
        "no event reached the pipe while the run went on; after it: {seen:?}"
    );
    for line in &seen {
        let event: Value = serde_json::from_str(line).expect("whole JSON lines");
        assert!(event.get("type").is_some(), "{line}");
    }
}
