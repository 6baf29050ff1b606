//! Process faults and bad repositories: each is a clear error or a coded
//! event, never a hang, and the repository is left exactly as it was.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::{Repo, done, git, run, run_command, single, testagent, wrapped_agent};

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
    let child = run_command(&playbook, repo.path(), &agents, work.path(), &script)
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

/// The live processes (zombies aside) whose environment and command line
/// `pick` chooses, with their command lines.
fn processes(pick: impl Fn(&[u8], &str) -> bool) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let dir = entry.path();
        let Ok(environ) = std::fs::read(dir.join("environ")) else {
            continue;
        };
        let cmdline = std::fs::read(dir.join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if !pick(&environ, &cmdline) {
            continue;
        }
        let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
        let state = stat.rsplit(") ").next().and_then(|s| s.chars().next());
        if state == Some('Z') {
            continue;
        }
        found.push((pid, cmdline));
    }
    found
}

/// The processes whose environment carries `mark` (`NAME=value`).
fn marked(mark: &str) -> Vec<(u32, String)> {
    processes(|environ, _| environ.split(|b| *b == 0).any(|var| var == mark.as_bytes()))
}

/// A mark no other test or run carries.
fn unique(what: &str) -> String {
    format!(
        "{what}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

/// Kills what carries the mark (in its environment or command line) when
/// dropped, so a failing test leaves no process behind either.
struct KillMarked(String);

impl Drop for KillMarked {
    fn drop(&mut self) {
        let mark = self.0.as_bytes();
        let picked = processes(|environ, cmdline| {
            environ.split(|b| *b == 0).any(|var| var == mark) || cmdline.contains(&self.0)
        });
        for (pid, _) in picked {
            // SAFETY: sends SIGKILL to a process this test's run started
            // (it carries the test's own mark).
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
            }
        }
    }
}

/// A script whose worker lists its tools, then hangs: the run goes on
/// until it is stopped.
fn hanging_script(work: &std::path::Path) -> std::path::PathBuf {
    let script = work.join("script.json");
    std::fs::write(
        &script,
        json!({"worker": [{"list": true, "hang_after": true}]}).to_string(),
    )
    .unwrap();
    script
}

/// `playbook run` with an agent that leaves a child sleeping and keeps its
/// gateway open, stopped by `signal`: the run records the stop and nothing
/// it started survives it.
fn a_signal_stops_the_run_and_leaves_no_process(signal: i32, words: &str) {
    let repo = Repo::new();
    let work = tempfile::tempdir().unwrap();
    let playbook = crate::harness::playbook(work.path(), &single("read_file"));
    let script = hanging_script(work.path());
    let value = unique(words);
    let mark = format!("PB_STOP_TEST={value}");
    let _cleanup = KillMarked(mark.clone());
    // The agent is a shell that starts a child in the background, then
    // becomes the scripted agent (which starts the gateway).
    let agents = wrapped_agent(
        work.path(),
        "sleep 400 & exec \"$0\"",
        ("PB_STOP_TEST", &value),
    );
    let child = run_command(&playbook, repo.path(), &agents, work.path(), &script)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Wait until the agent, its sleeping child and the gateway all run.
    let started = Instant::now();
    let running = loop {
        let procs = marked(&mark);
        let has = |what: &str| procs.iter().any(|(_, c)| c.contains(what));
        if has("sleep 400") && has(" gateway ") {
            break procs;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the agent did not start: {procs:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let socket_dir = running
        .iter()
        .find_map(|(_, c)| {
            let mut words = c.split(' ');
            words.find(|w| *w == "--socket")?;
            words.next().map(std::path::PathBuf::from)
        })
        .and_then(|socket| socket.parent().map(std::path::Path::to_path_buf))
        .expect("the gateway names its socket");
    assert!(socket_dir.exists());
    // SAFETY: sends a signal to the child this test started.
    unsafe {
        libc::kill(pid as i32, signal);
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the run ends soon after the signal")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("\"outcome\":\"stopped\"") && stdout.contains("RUN_STOPPED"),
        "{stdout}\n{stderr}"
    );
    assert!(stderr.contains(&format!("stopping ({words})")), "{stderr}");
    // Nothing the run started is left: not the agent, not its child, not
    // the gateway.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut left = marked(&mark);
    while !left.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        left = marked(&mark);
    }
    assert!(left.is_empty(), "still running after the run: {left:?}");
    assert!(!socket_dir.exists(), "{} is left", socket_dir.display());
    // The records are written.
    let runs = repo.path().join(".git/playbook/runs");
    let dirs: Vec<_> = std::fs::read_dir(&runs).unwrap().flatten().collect();
    assert_eq!(dirs.len(), 1);
    let report = std::fs::read_to_string(dirs[0].path().join("report.json")).unwrap();
    assert!(report.contains("\"stopped\""), "{report}");
}

#[test]
fn sigterm_stops_the_run_like_ctrl_c_and_leaves_no_process() {
    a_signal_stops_the_run_and_leaves_no_process(libc::SIGTERM, "terminate");
}

#[test]
fn sighup_stops_the_run_like_ctrl_c_and_leaves_no_process() {
    a_signal_stops_the_run_and_leaves_no_process(libc::SIGHUP, "hang-up");
}

/// A run killed outright (`SIGKILL`) cannot remove its private directory,
/// which holds the gateway's socket and the invocation's token: `playbook
/// run clean` (and the next run's start) removes it once the run is over,
/// and leaves a live run's alone.
#[test]
fn the_private_directory_of_a_killed_run_is_removed_by_clean() {
    let repo = Repo::new();
    let work = tempfile::tempdir().unwrap();
    // The run's temporary directory, so only this test's runs are in it.
    let tmp = tempfile::tempdir().unwrap();
    let playbook = crate::harness::playbook(work.path(), &single("read_file"));
    let script = hanging_script(work.path());
    let value = unique("sigkill");
    let mark = format!("PB_KILL_TEST={value}");
    let cleanup = KillMarked(mark.clone());
    let agents = wrapped_agent(work.path(), "exec \"$0\"", ("PB_KILL_TEST", &value));
    let mut child = run_command(&playbook, repo.path(), &agents, work.path(), &script)
        .env("TMPDIR", tmp.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !marked(&mark).iter().any(|(_, c)| c.contains(" gateway ")) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the agent did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let private: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("playbook-run-")
        })
        .collect();
    assert_eq!(private.len(), 1, "{private:?}");
    let clean = || {
        Command::new(env!("CARGO_BIN_EXE_playbook"))
            .args(["run", "clean", "--repo"])
            .arg(repo.path())
            .env("TMPDIR", tmp.path())
            .output()
            .unwrap()
    };
    // While the run goes on, clean leaves its directory alone.
    let out = clean();
    assert!(private[0].is_dir(), "{out:?}");

    child.kill().unwrap();
    child.wait().unwrap();
    drop(cleanup);
    assert!(private[0].is_dir(), "SIGKILL leaves it behind");
    let out = clean();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!private[0].exists(), "{stdout}");
    assert!(
        stdout.contains("removed private directories of ended runs")
            && stdout.contains(&*private[0].to_string_lossy()),
        "{stdout}"
    );
}

#[test]
fn processes_that_leave_the_process_group_do_not_outlive_the_invocation() {
    // `setsid` puts a program in a session of its own, out of the reach of
    // the process-group kill: once by the agent itself, once through
    // `run_command` (a program the run starts, not the agent).
    let repo = Repo::new();
    let work = tempfile::tempdir().unwrap();
    let playbook = crate::harness::playbook(work.path(), &single("read_file, run_command"));
    let value = unique("setsid");
    let mark = format!("PB_SETSID_TEST={value}");
    let _cleanup = KillMarked(mark.clone());
    // A sleep of a length no other process has: its command line is its mark.
    let seconds = format!("4000.{}", std::process::id());
    let _cleanup_command = KillMarked(format!("sleep {seconds}"));
    let script = work.path().join("script.json");
    std::fs::write(
        &script,
        json!({"worker": [{
            // The shell waits until `setsid` has left the group and become
            // `sleep` (it calls setsid(2), then runs the program): ended
            // sooner, the command's group kill could take it first, and
            // nothing would have escaped to be found.
            "calls": [{"tool": "run_command", "args": {"argv": ["sh", "-c",
                format!("setsid sleep {seconds} >/dev/null 2>&1 & \
                    for i in $(seq 100); do \
                    grep -q '^sleep' /proc/$!/cmdline 2>/dev/null && break; sleep 0.05; done")]}}],
            "answer": {"output": {"summary": "done"}, "result": done()}
        }]})
        .to_string(),
    )
    .unwrap();
    // Its output goes elsewhere; a program that holds it is
    // `programs_left_holding_the_agents_output_do_not_hang_the_run`.
    let agents = wrapped_agent(
        work.path(),
        "setsid sleep 400 >/dev/null 2>&1 & exec \"$0\"",
        ("PB_SETSID_TEST", &value),
    );
    let out = run_command(&playbook, repo.path(), &agents, work.path(), &script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("\"outcome\":\"passed\""),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let left = processes(|environ, cmdline| {
        environ.split(|b| *b == 0).any(|var| var == mark.as_bytes())
            || cmdline.contains(&format!("sleep {seconds}"))
    });
    assert!(left.is_empty(), "outlived the run: {left:?}");
    // The person is told what was killed.
    let warning = stdout
        .lines()
        .find(|l| l.contains("outlived its invocation"))
        .unwrap_or_else(|| panic!("no warning names the killed processes: {stdout}"));
    assert!(warning.contains("sleep 400"), "{warning}");
    assert!(warning.contains(&format!("sleep {seconds}")), "{warning}");
}

#[test]
fn programs_left_holding_the_agents_output_do_not_hang_the_run() {
    // The agent prints its answer and exits, leaving programs that inherited
    // its stdout and stderr and hold them open: one in its process group,
    // one that left it (`setsid`). The run takes the answer printed before
    // the exit, kills them and goes on; it used to wait for the pipes to
    // close, that is for the programs to end.
    let repo = Repo::new();
    let work = tempfile::tempdir().unwrap();
    let playbook = crate::harness::playbook(work.path(), &single("read_file"));
    let value = unique("held-output");
    let mark = format!("PB_HELD_OUTPUT_TEST={value}");
    let _cleanup = KillMarked(mark.clone());
    let script = work.path().join("script.json");
    std::fs::write(
        &script,
        json!({"worker": [{"answer": {"output": {"summary": "done"}, "result": done()}}]})
            .to_string(),
    )
    .unwrap();
    let agents = wrapped_agent(
        work.path(),
        "\"$0\" || exit; sleep 300 & setsid sleep 300 & exit 0",
        ("PB_HELD_OUTPUT_TEST", &value),
    );
    // Into files: a pipe nobody reads while the test polls could fill.
    let stdout_path = work.path().join("stdout");
    let stderr_path = work.path().join("stderr");
    let mut child = run_command(&playbook, repo.path(), &agents, work.path(), &script)
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap();
    // Generous: the point is that it ends at all before the sleeps do.
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let stdout = std::fs::read_to_string(&stdout_path).unwrap();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap();
    assert!(
        status.is_some(),
        "the run waited for the programs holding the agent's output:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("\"outcome\":\"passed\""),
        "{stdout}\n{stderr}"
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut left = marked(&mark);
    while !left.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        left = marked(&mark);
    }
    assert!(left.is_empty(), "outlived the run: {left:?}");
}
