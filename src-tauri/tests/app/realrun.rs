//! Run mode without a window: the choices kept on the Rust side, the
//! requests refused before anything starts, the git views of a branch, the
//! gateway's arguments, the agents file's names.

use std::path::Path;
use std::process::Command;

use playbook_orchestrator::agent::{ApprovalDecision, ApprovalRequest, Approver};
use playbook_studio::api::RealRunRequest;
use playbook_studio::error::ErrorCode;
use playbook_studio::realrun::{self, Runs, git};
use serde_json::Value;

fn sh_git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository with one commit on `main`.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    sh_git(root, &["init", "-q", "-b", "main"]);
    sh_git(root, &["config", "user.name", "Test"]);
    sh_git(root, &["config", "user.email", "test@example.invalid"]);
    std::fs::write(root.join("lib.txt"), "fine\n").unwrap();
    sh_git(root, &["add", "-A"]);
    sh_git(root, &["commit", "-q", "-m", "start"]);
    dir
}

struct Never;

impl Approver for Never {
    async fn decide(&mut self, _: &ApprovalRequest<'_>) -> ApprovalDecision {
        panic!("nothing may be asked before a run starts")
    }
}

fn tdd() -> Value {
    yaml_serde::from_str(include_str!("../../../playbooks/tdd.yaml")).unwrap()
}

fn request(repository: u64, goal: &str, agent: &str) -> RealRunRequest {
    serde_json::from_value(serde_json::json!({
        "repository": repository, "goal": goal, "agent": agent,
    }))
    .unwrap()
}

fn start(
    runs: &Runs,
    document: Value,
    request: &RealRunRequest,
) -> playbook_studio::error::AppError {
    realrun::run(runs, document, request, None, Never, |_| {}).expect_err("the run does not start")
}

#[test]
fn a_folder_that_is_not_a_git_checkout_is_refused_in_words() {
    let runs = Runs::default();
    let plain = tempfile::tempdir().unwrap();
    let e = runs.add_repository(plain.path()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Repository);
    assert!(
        e.message.contains("not inside a git repository"),
        "{}",
        e.message
    );

    let empty = tempfile::tempdir().unwrap();
    sh_git(empty.path(), &["init", "-q"]);
    let e = runs.add_repository(empty.path()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Repository);
    assert!(e.message.contains("no commit"), "{}", e.message);
}

#[test]
fn a_chosen_repository_is_kept_by_id_with_its_commit_branch_and_state() {
    let runs = Runs::default();
    let dir = repo();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let chosen = runs.add_repository(&dir.path().join("sub")).unwrap();
    let head = sh_git(dir.path(), &["rev-parse", "HEAD"]);
    assert!(head.starts_with(&chosen.commit));
    assert_eq!(chosen.branch.as_deref(), Some("main"));
    assert!(!chosen.dirty);
    assert_eq!(
        Path::new(&chosen.path).canonicalize().unwrap(),
        dir.path().canonicalize().unwrap(),
        "a folder inside the checkout stands for its top"
    );

    std::fs::write(dir.path().join("new.txt"), "x").unwrap();
    let again = runs.add_repository(dir.path()).unwrap();
    assert!(again.dirty, "an untracked file is an uncommitted change");
    assert_ne!(again.id, chosen.id);
}

#[test]
fn requests_the_window_could_forge_or_get_wrong_are_refused_before_anything_runs() {
    let runs = Runs::default();
    let dir = repo();
    let id = runs.add_repository(dir.path()).unwrap().id;

    let e = start(&runs, tdd(), &request(id + 100, "Fix it", ""));
    assert_eq!(
        e.code,
        ErrorCode::InvalidInput,
        "an id no dialog gave: {}",
        e.message
    );
    let e = start(&runs, tdd(), &request(id, "   ", ""));
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("goal"), "{}", e.message);
    let e = start(&runs, tdd(), &request(id, &"x".repeat(10_001), ""));
    assert_eq!(e.code, ErrorCode::InvalidInput);
    for agent in ["../bin/sh", "a b", "claude;rm -rf /", &"a".repeat(65)] {
        let e = start(&runs, tdd(), &request(id, "Fix it", agent));
        assert_eq!(
            e.code,
            ErrorCode::InvalidInput,
            "agent {agent:?}: {}",
            e.message
        );
    }
    let mut forged = request(id, "Fix it", "");
    forged.agents_file = Some(999);
    let e = start(&runs, tdd(), &forged);
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("agents file"), "{}", e.message);

    let mut broken = tdd();
    broken["workflow"]["build"]["roles"][0]["mode"] = "nonsense".into();
    let e = start(&runs, broken, &request(id, "Fix it", ""));
    assert_eq!(e.code, ErrorCode::Blocked, "{}", e.message);
    for document in [
        Value::Null,
        serde_json::json!([1, 2]),
        serde_json::json!("text"),
    ] {
        let e = start(&runs, document, &request(id, "Fix it", ""));
        assert_ne!(e.code, ErrorCode::Internal, "{}", e.message);
    }
    // Nothing above left a run marked as going on.
    assert!(!runs.stop(), "no run goes on");
    // And the person's checkout is as it was.
    assert_eq!(sh_git(dir.path(), &["status", "--porcelain"]), "");
}

#[test]
fn diffs_are_shown_only_for_runs_this_window_finished() {
    let runs = Runs::default();
    let e = runs.diff(1, "T-1").unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(!runs.stop(), "stop with no run is a no-op");
}

#[test]
fn a_branch_diff_is_cut_at_the_limit_and_runs_no_program_of_the_repository() {
    let dir = repo();
    let root = dir.path();
    let base = sh_git(root, &["rev-parse", "HEAD"]);
    sh_git(root, &["switch", "-q", "-c", "playbook/T-1"]);
    let big: String = (0..40_000)
        .map(|i| format!("line {i} of a long file\n"))
        .collect();
    std::fs::write(root.join("big.txt"), &big).unwrap();
    sh_git(root, &["add", "-A"]);
    sh_git(root, &["commit", "-q", "-m", "Add a big file"]);
    sh_git(root, &["switch", "-q", "main"]);
    // A repository's configuration must not run programs when the app reads it.
    let marker = root.join("../ext-diff-ran");
    let script = root.join("../ext.sh");
    std::fs::write(&script, format!("#!/bin/sh\ntouch {}\n", marker.display())).unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    sh_git(root, &["config", "diff.external", script.to_str().unwrap()]);

    let diff = git::diff(root, &base, "playbook/T-1").unwrap();
    assert!(diff.truncated);
    assert_eq!(diff.text.len(), git::DIFF_LIMIT);
    assert!(
        diff.text.starts_with("diff --git a/big.txt b/big.txt"),
        "{}",
        &diff.text[..80]
    );
    assert!(!marker.exists(), "the external diff program did not run");
    assert_eq!(git::commits(root, &base, "playbook/T-1").unwrap().len(), 1);

    let small = git::diff(root, &base, &base).unwrap();
    assert!(!small.truncated && small.text.is_empty());
    let e = git::diff(root, &base, "no-such-branch").err().unwrap();
    assert!(e.contains("failed"), "{e}");
}

#[test]
fn the_gateway_takes_exactly_its_socket_and_token() {
    use playbook_studio::gateway::parse;
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let ok = parse(&args(&["--socket", "/tmp/s", "--token", "t"])).unwrap();
    assert_eq!(
        (ok.socket.to_str().unwrap(), ok.token.as_str()),
        ("/tmp/s", "t")
    );
    let ok = parse(&args(&["--token=t", "--socket=/tmp/s"])).unwrap();
    assert_eq!(ok.token, "t");
    for bad in [
        &[][..],
        &["--socket", "/tmp/s"],
        &["--socket"],
        &["--socket", "/tmp/s", "--token", ""],
        &["--socket", "a", "--socket", "b", "--token", "t"],
        &["--socket", "a", "--token", "t", "--verbose"],
        &["serve"],
    ] {
        let e = parse(&args(bad)).unwrap_err();
        assert!(e.contains("usage:"), "{bad:?}: {e}");
    }
}

#[test]
fn an_agents_file_offers_its_names_in_order_and_bad_files_are_explained() {
    assert_eq!(
        realrun::agent_names_in(
            "agents.yaml",
            "agents:\n  scripted:\n    command: [x]\n  other:\n    command: [y]\n"
        )
        .unwrap(),
        ["scripted", "other"]
    );
    assert_eq!(
        realrun::agent_names_in("agents.json", r#"{"agents": {"a": {"command": ["x"]}}}"#).unwrap(),
        ["a"]
    );
    for bad in [
        "",
        "agents: [a, b]",
        "agents: {}",
        "other: 1",
        "{{{",
        "agents:\n  - x",
        "agents:\n  a:\n    command: []\n",
        "agents:\n  a:\n    command: [x]\n    shell: true\n",
    ] {
        let e = realrun::agent_names_in("agents.yaml", bad).unwrap_err();
        assert!(e.contains("agents"), "{bad:?}: {e}");
    }
    assert!(realrun::BUILT_IN.contains(&"command"));

    // Chosen through the dialog: the file is kept by id with its names;
    // a file that is not one is refused in words.
    let runs = Runs::default();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("agents.yaml");
    std::fs::write(&file, "agents:\n  scripted:\n    command: [x]\n").unwrap();
    let chosen = runs.add_agents_file(&file).unwrap();
    assert_eq!(chosen.agents, ["scripted"]);
    let e = runs.add_agents_file(dir.path()).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("not a file"), "{}", e.message);
}

#[test]
fn the_folder_dialog_opens_beside_the_repository_chosen_last() {
    let runs = Runs::default();
    let dir = repo();
    runs.add_repository(dir.path()).unwrap();
    let start = runs.dialog_start().expect("a folder to start at");
    assert_eq!(
        start.canonicalize().unwrap(),
        dir.path().parent().unwrap().canonicalize().unwrap()
    );
}
