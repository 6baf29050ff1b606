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
    // The scenario scripts every role by mode: both of tdd's worker-mode
    // roles (test_author, worker) try the forbidden tools.
    let out = playbook(&[
        "preview",
        "playbooks/tdd.yaml",
        "--scenario",
        "playbooks/scenarios/disallowed-tool.yaml",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let summary = text.split("\nsummary\n").nth(1).expect("a summary");
    assert!(
        summary.contains("tool calls refused: 6")
            && summary.contains("T-1 reviewer `git_push` (TOOL_NOT_ALLOWED)"),
        "{summary}"
    );
}

/// A copy of tdd.yaml whose `worker` is called `coder`.
fn tdd_with_coder(dir: &std::path::Path) -> String {
    let text = std::fs::read_to_string(crate::root().join("playbooks/tdd.yaml")).unwrap();
    let text = text
        .replace("- name: worker", "- name: coder")
        .replace("handoff_to: [worker]", "handoff_to: [coder]");
    let path = dir.join("coder.yaml");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_scenario_naming_a_missing_role_says_which_map_flag_to_add_and_the_flag_works() {
    let dir = tempfile::tempdir().unwrap();
    let playbook_path = tdd_with_coder(dir.path());
    let scenario = dir.path().join("named.yaml");
    std::fs::write(
        &scenario,
        "input: {tasks: [{id: T-1, title: t}]}\nroles:\n  worker: {default: {tool_calls: [read_file]}}\n",
    )
    .unwrap();
    let scenario = scenario.to_str().unwrap();
    let args = ["preview", &playbook_path, "--scenario", scenario];
    let output = playbook(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("add: --map worker=coder"), "{stderr}");
    assert!(
        stderr.contains("test_author"),
        "the other candidate: {stderr}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("SCENARIO_INVALID"), "{stdout}");

    let mapped = playbook(&[&args[..], &["--map", "worker=coder"]].concat());
    let stderr = String::from_utf8_lossy(&mapped.stderr);
    assert_eq!(mapped.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("--map"), "{stderr}");

    let wrong = playbook(&[&args[..], &["--map", "ghost=coder"]].concat());
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert_ne!(wrong.status.code(), Some(0));
    assert!(stderr.contains("no role `ghost`"), "{stderr}");
    let malformed = playbook(&[&args[..], &["--map", "worker"]].concat());
    assert_eq!(malformed.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&malformed.stderr).contains("OLD=NEW"));
}

/// Regression (sweep B, repro 9): `--map worker=nobody` onto a role the
/// playbook lacks advised `--map nobody=ROLE`, which fails. The refusal
/// names the target and the flag that works.
#[test]
fn a_map_onto_a_role_the_playbook_lacks_names_the_target_and_a_flag_that_works() {
    let dir = tempfile::tempdir().unwrap();
    let playbook_path = tdd_with_coder(dir.path());
    let scenario = dir.path().join("named.yaml");
    std::fs::write(
        &scenario,
        "input: {tasks: [{id: T-1, title: t}]}\nroles:\n  worker: {default: {tool_calls: [read_file]}}\n",
    )
    .unwrap();
    let scenario = scenario.to_str().unwrap();
    let args = ["preview", &playbook_path, "--scenario", scenario];
    let wrong = playbook(&[&args[..], &["--map", "worker=nobody"]].concat());
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert_ne!(wrong.status.code(), Some(0));
    assert!(
        stderr.contains("the target `nobody` is not a role of the playbook"),
        "{stderr}"
    );
    assert!(!stderr.contains("nobody=ROLE"), "{stderr}");
    assert!(stderr.contains("`worker=coder`"), "{stderr}");
    let advised = playbook(&[&args[..], &["--map", "worker=coder"]].concat());
    assert_eq!(
        advised.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&advised.stderr)
    );
}

#[test]
fn every_shipped_scenario_previews_tdd_with_a_renamed_worker() {
    let dir = tempfile::tempdir().unwrap();
    let playbook_path = tdd_with_coder(dir.path());
    for entry in std::fs::read_dir(crate::root().join("playbooks/scenarios")).unwrap() {
        let path = entry.unwrap().path();
        let output = playbook(&[
            "preview",
            &playbook_path,
            "--scenario",
            path.to_str().unwrap(),
            "--format",
            "jsonl",
        ]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !stdout.contains("SCENARIO_INVALID") && !stderr.contains("--map"),
            "{}: {stderr}",
            path.display()
        );
    }
}

#[test]
fn no_text_from_a_file_or_an_agent_acts_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    // An agent's error, a task title and a verdict holding an escape
    // sequence that would clear the screen, a title-setting sequence, a
    // carriage return and a line break that would forge a report line.
    let scenario = serde_json::json!({
        "input": {
            "goal": "ship it",
            "tasks": [{ "id": "T-1", "title": "title \u{1b}]0;pwned\u{7}" }],
        },
        "roles": {
            "reviewer": { "default": {
                "output": { "verdict": "fail\u{1b}[2J", "issues": [] },
            } },
            "tester": { "default": { "error": "boom \u{1b}[2J\r\n[00:00:09.000] T-1 PASSED" } },
        },
    });
    let path = dir.path().join("hostile.json");
    std::fs::write(&path, scenario.to_string()).unwrap();
    let output = playbook(&[
        "preview",
        "playbooks/tdd.yaml",
        "--scenario",
        path.to_str().unwrap(),
        "--approve",
        "auto",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\u{7}') && !stdout.contains('\r'),
        "a control character reached the terminal:\n{stdout}"
    );
    assert!(
        stdout.contains("\\u{1b}"),
        "escaped, not dropped:\n{stdout}"
    );
    assert!(
        !stdout
            .lines()
            .any(|l| l.starts_with("[00:00:09.000] T-1 PASSED")),
        "an agent forged a report line:\n{stdout}"
    );
}

/// The first line `reader` gives within `wait`, read on another thread.
pub(crate) fn first_line_within(
    reader: impl std::io::Read + Send + 'static,
    wait: std::time::Duration,
) -> Option<String> {
    use std::io::BufRead;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        if std::io::BufReader::new(reader).read_line(&mut line).is_ok() {
            let _ = tx.send(line);
        }
    });
    rx.recv_timeout(wait).ok().filter(|l| !l.is_empty())
}

#[test]
fn a_preview_that_asks_a_person_has_written_its_events_so_far() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let playbook_path = dir.path().join("asks.yaml");
    std::fs::write(
        &playbook_path,
        "schema_version: 1.0.0\nid: asks\nname: Asks\nworkflow:\n  build:\n    roles:\n      - name: worker\n        mode: worker\n        responsibilities: Work.\n        outputs_contract:\n          required: [summary]\n        actions_allowed: [read_file, write_file]\n        gates:\n          requires_user_approval: true\n",
    )
    .unwrap();
    let scenario = dir.path().join("asks.json");
    std::fs::write(
        &scenario,
        serde_json::json!({
            "input": {"goal": "ship it", "tasks": [{"id": "T-1", "title": "one"}]},
            "roles": {"worker": {"default": {
                "tool_calls": ["read_file", "write_file"],
                "output": {"summary": "done"},
            }}},
        })
        .to_string(),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_playbook"))
        .arg("preview")
        .arg(&playbook_path)
        .arg("--scenario")
        .arg(&scenario)
        .args(["--format", "jsonl", "--approve", "ask"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The preview now waits for an answer on its standard input: the
    // events that led to the question are already on the pipe.
    let stdout = child.stdout.take().unwrap();
    let first = first_line_within(stdout, std::time::Duration::from_secs(30));
    drop(child.stdin.take());
    let _ = child.wait();
    let first = first.expect("no event reached the pipe while the preview asked");
    let event: serde_json::Value = serde_json::from_str(&first).expect("a JSON event line");
    assert!(event.get("type").is_some(), "{first}");
}
