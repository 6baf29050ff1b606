//! `playbook preview` through the real binary: neither the text report nor
//! the JSONL log ever shows a secret an agent leaked.

use crate::playbook;

/// Secrets in the forms agents leak them, and the text that must not show.
const SECRETS: &[(&str, &str)] = &[
    ("failed: api_key=cli-space-1x9q", "cli-space-1x9q"),
    ("failed:\napi_key=cli-newline-2x9q", "cli-newline-2x9q"),
    ("failed:\tapi_key=cli-tab-3x9q", "cli-tab-3x9q"),
    (r#"{"api_key": "cli-json-4x9q"}"#, "cli-json-4x9q"),
    (
        "ghp_Cq8Wm3Kx7Vb2Nc5Lp9Rt4Hy6Jd1Fs0Ga2Ek7",
        "Cq8Wm3Kx7Vb2Nc5Lp9Rt4Hy6Jd1Fs0Ga2Ek7",
    ),
    ("AKIAC7Y6X5W4V3U2T1S0", "C7Y6X5W4V3U2T1S0"),
    ("Authorization: Bearer cliBearer77xyz", "cliBearer77xyz"),
    (
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIcliPem99\n-----END EC PRIVATE KEY-----",
        "MHcCAQEEIcliPem99",
    ),
];

fn leak() -> String {
    SECRETS
        .iter()
        .map(|(form, _)| *form)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_secret_in_the_text_report_or_the_event_log() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = serde_json::json!({
        "input": {
            "goal": "ship it",
            "tasks": [
                { "id": "T-1", "title": "error path" },
                { "id": "T-2", "title": "question path" },
                { "id": "T-3", "title": "evidence path" },
                { "id": "T-4", "title": SECRETS[6].0 },
            ],
        },
        "roles": { "test_author": { "tasks": {
            "T-1": { "default": { "error": leak() } },
            "T-2": { "default": { "needs_input": [leak()] } },
            "T-3": { "default": { "acceptance_check": [
                { "criterion": "tests fail first", "status": "fail", "evidence": leak() },
            ] } },
        } } },
    });
    let path = dir.path().join("leaky.json");
    std::fs::write(&path, scenario.to_string()).unwrap();
    let path = path.to_str().unwrap();
    for format in ["text", "jsonl"] {
        let output = playbook(&[
            "preview",
            "playbooks/tdd.yaml",
            "--scenario",
            path,
            "--approve",
            "auto",
            "--format",
            format,
        ]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stdout.contains("[REDACTED]"),
            "the leaks reached the {format} report, redacted:\n{stdout}"
        );
        assert_eq!(output.status.code(), Some(1), "tasks failed: exit 1");
        for (_, secret) in SECRETS {
            assert!(
                !stdout.contains(secret) && !stderr.contains(secret),
                "{secret} in the {format} output:\n{stdout}\n{stderr}"
            );
        }
    }
}

#[test]
fn the_summary_names_every_refused_tool_call() {
    let out = playbook(&[
        "preview",
        "playbooks/tdd.yaml",
        "--scenario",
        "playbooks/scenarios/disallowed-tool.yaml",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let summary = text.split("\nsummary\n").nth(1).expect("a summary");
    assert!(
        summary.contains("tool calls refused: 4")
            && summary.contains("T-1 reviewer `git_push` (TOOL_NOT_ALLOWED)"),
        "{summary}"
    );
}
