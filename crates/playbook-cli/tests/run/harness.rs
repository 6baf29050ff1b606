//! A repository, an agent script and a run, as the tests need them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The scripted MCP agent. `cargo test --workspace` builds it (its package
/// has tests of its own); a lone `cargo test -p playbook-cli` needs it built
/// first, and says so rather than waiting on cargo's lock.
pub fn testagent() -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_playbook"));
    let agent = bin.with_file_name("playbook-testagent");
    assert!(
        agent.exists(),
        "{} is missing: run `cargo build -p playbook-testagent` (cargo test --workspace builds it)",
        agent.display()
    );
    agent
}

/// A temporary git repository with one commit: a Makefile whose `test`
/// target passes while `src/lib.txt` does not contain `BUG`.
pub struct Repo {
    pub dir: tempfile::TempDir,
    /// Outside the repository: nothing may ever appear here.
    pub outside: tempfile::TempDir,
}

impl Repo {
    pub fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        git(root, &["config", "user.name", "Test"]);
        git(root, &["config", "user.email", "test@example.invalid"]);
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("src/lib.txt"), "fine\n").unwrap();
        std::fs::write(root.join("docs/readme.md"), "docs\n").unwrap();
        std::fs::write(
            root.join("Makefile"),
            "test:\n\t! grep -q BUG src/lib.txt\n",
        )
        .unwrap();
        // A link that leads out of the repository: writing through it is an
        // escape even though the path looks relative.
        std::os::unix::fs::symlink(outside.path(), root.join("src/out")).unwrap();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "start"]);
        Repo { dir, outside }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Branches, HEAD, status and tracked files: what must not change.
    pub fn snapshot(&self) -> (String, String, String, String) {
        let root = self.path();
        let branches: String = git(
            root,
            &[
                "for-each-ref",
                "--format=%(refname) %(objectname)",
                "refs/heads/",
            ],
        )
        .lines()
        .filter(|l| !l.starts_with("refs/heads/playbook/"))
        .collect::<Vec<_>>()
        .join("\n");
        (
            branches,
            git(root, &["rev-parse", "HEAD"]),
            git(root, &["status", "--porcelain", "--ignored"]),
            git(root, &["ls-files", "-s"]),
        )
    }

    /// Everything under `outside`.
    pub fn outside_entries(&self) -> Vec<String> {
        std::fs::read_dir(self.outside.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }
}

/// One stage of one role: `worker` (edit_repo) with the given tools, or a
/// build → review loop → test playbook when `full`.
pub fn playbook(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("playbook.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

pub const FULL: &str = r#"
schema_version: 1.0.0
id: real
name: Real run
workflow:
  build:
    roles:
      - name: worker
        mode: worker
        responsibilities: Make the change and commit it.
        outputs_contract:
          required: [summary]
        actions_allowed: [read_file, write_file, edit_file, git_commit, git_status]
        gates:
          requires_user_approval: true
        handoff_to: [reviewer]
      - name: reviewer
        mode: reviewer
        responsibilities: Review the change.
        outputs_contract:
          required: [verdict, issues]
        actions_allowed: [read_file, git_diff]
        gates:
          requires_user_approval: false
          pass_condition: review_passed
        handoff_to: [worker]
        retry_policy:
          max_iterations: 4
          escalate_on: [retry_limit]
  test:
    roles:
      - name: tester
        mode: tester
        responsibilities: Run the suite.
        outputs_contract:
          required: [failed_cases, report]
        actions_allowed: [read_file, run_tests]
        gates:
          requires_user_approval: false
          pass_condition: tests_green
"#;

/// A one-role playbook whose worker may use `tools`.
pub fn single(tools: &str) -> String {
    format!(
        r#"
schema_version: 1.0.0
id: single
name: Single
workflow:
  build:
    roles:
      - name: worker
        mode: worker
        responsibilities: Work.
        outputs_contract:
          required: [summary]
        actions_allowed: [{tools}]
        gates:
          requires_user_approval: false
"#
    )
}

/// A finished `playbook run`: its output and what the agents were told.
pub struct Run {
    pub out: Output,
    pub stdout: String,
    pub stderr: String,
    /// The JSON lines of the agents' log (every tool result they saw).
    pub agent_log: Vec<Value>,
    pub events: Vec<Value>,
}

impl Run {
    pub fn codes(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| e.get("code").and_then(Value::as_str).map(str::to_string))
            .collect()
    }

    pub fn outcome(&self) -> String {
        self.events
            .iter()
            .find(|e| e["type"] == "run_finished")
            .map(|e| e["outcome"].as_str().unwrap_or_default().to_string())
            .unwrap_or_default()
    }

    /// The text of every tool result the agents were told was an error.
    pub fn errors_told(&self) -> Vec<String> {
        self.agent_log
            .iter()
            .filter(|l| l["error"] == true)
            .map(|l| l["text"].to_string())
            .collect()
    }

    pub fn blocked(&self, tool: &str) -> Option<String> {
        self.events
            .iter()
            .find(|e| e["type"] == "tool_call_blocked" && e["tool"] == tool)
            .map(|e| e["code"].as_str().unwrap_or_default().to_string())
    }
}

/// `playbook run` as the tests start it: `playbook` on `repo`, the agent
/// `scripted` of the agents file `agents` playing every role from the test
/// agent's `script`, approvals automatic, the JSONL log on stdout, the
/// library in `work`.
pub fn run_command(
    playbook: &Path,
    repo: &Path,
    agents: &Path,
    work: &Path,
    script: &Path,
) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_playbook"));
    command
        .arg("run")
        .arg(playbook)
        .arg("--repo")
        .arg(repo)
        .arg("--agents")
        .arg(agents)
        .args([
            "--agent",
            "scripted",
            "--approve",
            "auto",
            "--format",
            "jsonl",
        ])
        .arg("--db")
        .arg(work.join("library.db"))
        .env("TESTAGENT_SCRIPT", script);
    command
}

/// An agents file in `work` whose `scripted` agent is the test agent
/// started by `sh -c shell` (the test agent is `$0`), with `env` set.
pub fn wrapped_agent(work: &Path, shell: &str, env: (&str, &str)) -> PathBuf {
    let agents = work.join("agents.yaml");
    // JSON is YAML.
    let definition = serde_json::json!({"agents": {"scripted": {
        "command": ["sh", "-c", shell, testagent().display().to_string()],
        "env": {env.0: env.1},
        "output": "protocol"
    }}});
    std::fs::write(&agents, definition.to_string()).unwrap();
    agents
}

/// Runs `playbook run` with an agent script (JSON) and extra arguments;
/// events as JSONL on stdout.
pub fn run(repo: &Repo, playbook_text: &str, script: Value, extra: &[&str]) -> Run {
    let work = tempfile::tempdir().unwrap();
    let playbook_path = playbook(work.path(), playbook_text);
    let script_path = work.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let log_path = work.path().join("agent-log.jsonl");
    let agents = work.path().join("agents.yaml");
    std::fs::write(
        &agents,
        format!(
            "agents:\n  scripted:\n    command: [\"{}\"]\n    output: protocol\n",
            testagent().display()
        ),
    )
    .unwrap();
    let out = run_command(
        &playbook_path,
        repo.path(),
        &agents,
        work.path(),
        &script_path,
    )
    .args(extra)
    .env("TESTAGENT_LOG", &log_path)
    .output()
    .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let events = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let agent_log = std::fs::read_to_string(&log_path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    Run {
        out,
        stdout,
        stderr,
        agent_log,
        events,
    }
}

/// A subagent result for the current task, done, with evidence.
pub fn done() -> Value {
    serde_json::json!({
        "schema_version": "1.0.0",
        "run_id": "{run_id}",
        "task_id": "{task_id}",
        "status": "done",
        "changes": [],
        "acceptance_check": [{"criterion": "it works", "status": "pass", "evidence": "checked by the agent"}],
        "worklog_path": "worklogs/{task_id}.jsonl",
        "notes_for_orchestrator": []
    })
}
