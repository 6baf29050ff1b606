//! Commands: argv without a shell, in the worktree, killed with their whole
//! process tree at the deadline, output clipped without hanging.

use std::time::{Duration, Instant};

use playbook_runner::workspace::{SharedWorktrees, WorktreeTools};
use serde_json::json;

use crate::support::{Fixture, gate, ran};

fn setup() -> (Fixture, WorktreeTools, std::path::PathBuf) {
    let fx = Fixture::new();
    let (tools, shared) = fx.tools(1);
    let root = shared.lock().unwrap().acquire("T1").unwrap();
    (fx, tools, root)
}

#[test]
fn a_command_runs_in_the_worktree_without_a_shell() {
    let (_fx, mut tools, root) = setup();
    let r = ran(gate(
        &mut tools,
        "T1",
        "run_command",
        json!({"argv": ["pwd"]}),
    ));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["exit_code"], 0);
    assert_eq!(r["stdout"].as_str().unwrap().trim(), root.to_str().unwrap());
    let r = ran(gate(
        &mut tools,
        "T1",
        "run_command",
        json!({"argv": ["echo", "$HOME", ";", "rm"]}),
    ));
    assert_eq!(
        r["stdout"], "$HOME ; rm\n",
        "no shell expands anything: {r}"
    );
    let r = ran(gate(
        &mut tools,
        "T1",
        "run_command",
        json!({"argv": ["sh", "-c", "echo err >&2; exit 3"]}),
    ));
    assert_eq!(r["exit_code"], 3, "{r}");
    assert_eq!(r["stderr"], "err\n");
}

#[test]
fn a_command_that_sleeps_forever_is_killed_with_its_grandchildren() {
    let (fx, mut tools, _root) = setup();
    let pidfile = fx.tmp.path().join("grandchild.pid");
    let script = format!("sleep 1000 & echo $! > {}; wait", pidfile.display());
    let started = Instant::now();
    let r = ran(gate(
        &mut tools,
        "T1",
        "run_command",
        json!({"argv": ["sh", "-c", script], "timeout_seconds": 1}),
    ));
    assert!(started.elapsed() < Duration::from_secs(15), "no hang");
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["timed_out"], true);
    assert!(r["error"].as_str().unwrap().contains("1 s"), "{r}");
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The grandchild is gone: signal 0 probes without sending.
    let mut alive = true;
    for _ in 0..100 {
        // SAFETY: kill with signal 0 only checks that the process exists.
        alive = unsafe { libc::kill(pid, 0) } == 0 && !is_zombie(pid);
        if !alive {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive, "the sleeping grandchild {pid} was killed");
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(true)
}

#[test]
fn a_command_printing_100_mb_is_clipped_and_does_not_hang() {
    let (_fx, mut tools, _root) = setup();
    let started = Instant::now();
    let r = ran(gate(
        &mut tools,
        "T1",
        "run_command",
        json!({
            "argv": ["sh", "-c", "head -c 100000000 /dev/zero | tr '\\0' x; head -c 100000000 /dev/zero | tr '\\0' y >&2"],
            "timeout_seconds": 120,
        }),
    ));
    assert!(started.elapsed() < Duration::from_secs(90), "no hang");
    assert_eq!(r["exit_code"], 0, "{}", r["error"]);
    assert_eq!(r["stdout"].as_str().unwrap().len(), 64 * 1024);
    assert_eq!(r["stdout_clipped"], true);
    assert_eq!(r["stderr"].as_str().unwrap().len(), 64 * 1024);
    assert_eq!(r["stderr_clipped"], true);
}

#[test]
fn a_background_process_holding_the_pipe_does_not_hang_the_call() {
    let (_fx, mut tools, _root) = setup();
    let started = Instant::now();
    let r = ran(gate(
        &mut tools,
        "T1",
        "run_command",
        json!({"argv": ["sh", "-c", "sleep 1000 & echo started"]}),
    ));
    assert!(started.elapsed() < Duration::from_secs(15), "no hang");
    assert_eq!(r["stdout"], "started\n", "{r}");
}

#[test]
fn the_runners_secrets_are_not_in_a_commands_environment() {
    let (_fx, mut tools, _root) = setup();
    let r = ran(gate(
        &mut tools,
        "T1",
        "run_command",
        json!({"argv": ["env"]}),
    ));
    let env = r["stdout"].as_str().unwrap();
    assert!(env.contains("PATH="), "{env}");
    for line in env.lines() {
        let name = line.split('=').next().unwrap_or("").to_ascii_uppercase();
        assert!(
            !name.contains("TOKEN") && !name.contains("SECRET") && name != "GIT_DIR",
            "{line}"
        );
    }
}

#[test]
fn run_tests_runs_the_given_commands_or_says_unknown() {
    let fx = Fixture::new();
    let worktrees = playbook_runner::workspace::Worktrees::new(&fx.open(), "r1", 1).unwrap();
    let shared: SharedWorktrees = std::sync::Arc::new(std::sync::Mutex::new(worktrees));
    let mut none = WorktreeTools::new(shared.clone(), Vec::new());
    let r = ran(gate(&mut none, "T1", "run_tests", json!({})));
    assert_eq!(r["status"], "unknown", "{r}");

    let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut passing = WorktreeTools::new(
        shared.clone(),
        vec![argv(&["test", "-f", "README.md"]), argv(&["true"])],
    );
    let r = ran(gate(&mut passing, "T1", "run_tests", json!({})));
    assert_eq!(r["status"], "passed", "{r}");
    assert_eq!(r["commands"].as_array().unwrap().len(), 2);

    let mut failing = WorktreeTools::new(
        shared,
        vec![argv(&["sh", "-c", "echo boom; exit 1"]), argv(&["true"])],
    );
    let r = ran(gate(&mut failing, "T1", "run_tests", json!({})));
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["commands"][0]["stdout"], "boom\n");
    assert_eq!(
        r["commands"].as_array().unwrap().len(),
        1,
        "stops at the first failure"
    );
}

#[test]
fn a_command_whose_call_is_abandoned_is_killed_without_waiting_for_its_deadline() {
    let (fx, mut tools, _root) = setup();
    let pidfile = fx.tmp.path().join("abandoned.pid");
    let script = format!("echo $$ > {}; exec sleep 1000", pidfile.display());
    let c = crate::support::ctx("T1", playbook_orchestrator::toolset::TaskKind::EditRepo);
    let call = crate::support::call(
        "run_command",
        json!({"argv": ["sh", "-c", script], "timeout_seconds": 3600}),
    );
    let outcome = crate::support::block_on(async {
        tokio::time::timeout(
            Duration::from_millis(500),
            playbook_orchestrator::agent::Tools::run(&mut tools, &c, &call),
        )
        .await
    });
    assert!(outcome.is_err(), "the call was abandoned");
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let mut alive = true;
    for _ in 0..250 {
        // SAFETY: kill with signal 0 only checks that the process exists.
        alive = unsafe { libc::kill(pid, 0) } == 0 && !is_zombie(pid);
        if !alive {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive, "the abandoned command {pid} was killed");
}

#[test]
fn run_tests_with_only_empty_command_lines_is_unknown() {
    let fx = Fixture::new();
    let worktrees = playbook_runner::workspace::Worktrees::new(&fx.open(), "r1", 1).unwrap();
    let shared: SharedWorktrees = std::sync::Arc::new(std::sync::Mutex::new(worktrees));
    let mut tools = WorktreeTools::new(shared, vec![vec![], vec![String::new()]]);
    let r = ran(gate(&mut tools, "T1", "run_tests", json!({})));
    assert_eq!(r["status"], "unknown", "{r}");
}
