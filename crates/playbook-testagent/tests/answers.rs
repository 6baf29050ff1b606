//! The test agent answers by the agent protocol; its MCP side is exercised
//! by `playbook run`'s tests (crates/playbook-cli/tests/run).

use std::process::Command;

#[test]
fn it_prints_the_scripted_answer_with_the_task_filled_in() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(
        &script,
        r#"{"worker": [{"answer": {"output": {"summary": "first"}}}, {"answer": {"output": {"summary": "{task_id} again"}}}]}"#,
    )
    .unwrap();
    let answer = |iteration: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_playbook-testagent"))
            .env("TESTAGENT_SCRIPT", &script)
            .env("PLAYBOOK_ROLE", "worker")
            .env("PLAYBOOK_ITERATION", iteration)
            .env("PLAYBOOK_TASK_ID", "T-7")
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(answer("1").trim(), r#"{"output":{"summary":"first"}}"#);
    assert_eq!(
        answer("5").trim(),
        r#"{"output":{"summary":"T-7 again"}}"#,
        "the last turn repeats"
    );
}

#[test]
fn without_its_environment_it_says_what_is_missing() {
    let out = Command::new(env!("CARGO_BIN_EXE_playbook-testagent"))
        .env_remove("TESTAGENT_SCRIPT")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("TESTAGENT_SCRIPT"));
}
