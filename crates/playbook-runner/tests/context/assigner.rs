//! A role assigner that is a command.

use std::time::{Duration, Instant};

use playbook_orchestrator::agent::RoleAssigner;
use playbook_orchestrator::envelope::RoleAssignmentRequest;
use playbook_runner::assigner::CommandAssigner;

fn request() -> RoleAssignmentRequest {
    serde_json::from_value(serde_json::json!({
        "task": {"id": "T-1", "path": "tasks/T-1.md", "content": "do it"},
        "stage": "work",
        "available_roles": ["Executor", "Helper"],
        "caps": {"global": 4, "default_role": 2, "roles": {}, "in_flight": {}}
    }))
    .unwrap()
}

fn assign(argv: &[&str], timeout: Duration) -> (String, Option<String>) {
    let mut assigner = CommandAssigner::new(
        argv.iter().map(|s| s.to_string()).collect(),
        std::env::temp_dir(),
        timeout,
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let answer = rt.block_on(assigner.assign("build", &request()));
    (answer, assigner.last_error)
}

#[test]
fn a_script_reads_the_request_on_stdin_and_its_stdout_is_the_answer() {
    let script = r#"req=$(cat); case "$req" in *'"T-1"'*) printf '{"role":"Helper","rationale":"stage %s"}' "$PLAYBOOK_STAGE";; *) exit 1;; esac"#;
    let (answer, error) = assign(&["sh", "-c", script], Duration::from_secs(10));
    assert_eq!(answer, r#"{"role":"Helper","rationale":"stage build"}"#);
    assert_eq!(error, None);
}

#[test]
fn a_hanging_assigner_is_killed_and_answers_nothing() {
    let started = Instant::now();
    let (answer, error) = assign(&["sh", "-c", "sleep 60"], Duration::from_millis(300));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(answer, "", "the engine rejects it and falls back");
    assert!(error.unwrap().contains("killed"));
}

#[test]
fn failures_answer_nothing_with_a_reason() {
    let (answer, error) = assign(&["no-such-assigner-xyz"], Duration::from_secs(5));
    assert_eq!(answer, "");
    assert!(error.unwrap().contains("could not start"));
    let (answer, error) = assign(
        &["sh", "-c", "echo '{\"role\":\"Helper\"}'; exit 2"],
        Duration::from_secs(5),
    );
    assert_eq!(answer, "", "a non-zero exit is a failure even with output");
    assert!(error.unwrap().contains("exited"));
    let (answer, error) = assign(
        &["sh", "-c", "head -c 200000 /dev/zero | tr '\\0' x"],
        Duration::from_secs(10),
    );
    assert_eq!(answer, "");
    assert!(error.unwrap().contains("more than"));
    let (answer, _) = assign(&[], Duration::from_secs(5));
    assert_eq!(answer, "");
}
