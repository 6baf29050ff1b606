//! No credential in what `import`, `export` and `gate` print. The gate's
//! reason quotes the command it refuses, and import's notes and errors
//! quote the names a file gives (a tool, an agent, a task id): any of them
//! may hold a token (`git push https://user:TOKEN@...`, a key pasted into
//! `tools:`). Claude Code keeps the hook's reason in its transcript and
//! logs, and CI keeps stderr, so every message goes through the redactor.
//! The files themselves are the user's data and are kept as written.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const TOKEN: &str = "ghp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo";

fn bin() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_playbook"));
    command.env_remove("PLAYBOOK_DB");
    command
}

fn run(args: &[&str]) -> Output {
    bin()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[track_caller]
fn no_token(what: &str, text: &str) {
    assert!(!text.contains("panicked"), "{what}: {text}");
    // Any 8 characters of the token in a row would be a piece of it.
    for i in 0..=TOKEN.len() - 8 {
        let piece = &TOKEN[i..i + 8];
        assert!(!text.contains(piece), "{what} holds `{piece}`: {text}");
    }
}

fn gate(playbook: &str, input: &str) -> (Value, String) {
    let mut child = bin()
        .args(["gate", "--playbook", playbook])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    no_token("the gate's answer", &stdout);
    no_token("the gate's stderr", &stderr);
    (serde_json::from_str(&stdout).expect("JSON"), stderr)
}

/// A refused command with a token in its URL, header or option: the call
/// is still denied, the reason still names what was refused, and no piece
/// of the token is in the answer or on stderr.
#[test]
fn gate_reasons_never_quote_a_credential() {
    let playbook = format!("{}/../../playbooks/tdd.yaml", env!("CARGO_MANIFEST_DIR"));
    for command in [
        format!("git push https://bob:{TOKEN}@github.com/acme/app"),
        format!("curl -H 'Authorization: token {TOKEN}' https://api.github.com/user"),
        format!("git log --output={TOKEN}"),
    ] {
        let input = serde_json::json!({
            "session_id": "s", "transcript_path": "/t", "cwd": "/proj",
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command},
            "tool_use_id": "t1", "agent_id": "a1", "agent_type": "reviewer",
        });
        let (answer, _) = gate(&playbook, &input.to_string());
        let out = &answer["hookSpecificOutput"];
        assert_eq!(out["permissionDecision"], "deny", "{command}");
        let reason = out["permissionDecisionReason"].as_str().unwrap();
        assert!(reason.contains("reviewer"), "{reason}");
    }
}

/// Import's notes (an unmapped tool) and errors (an unknown agent) name
/// what the file says without the token; the imported playbook keeps the
/// tool as written, so nothing is lost.
#[test]
fn import_messages_never_quote_a_credential() {
    let tmp = tempfile::tempdir().unwrap();
    let agents = tmp.path().join("cc/.claude/agents");
    write(
        &agents.join("helper.md"),
        &format!("---\nname: helper\ndescription: Helps\ntools: Read, {TOKEN}\n---\nHelp.\n"),
    );
    let out = tmp.path().join("cc.yaml");
    let output = run(&[
        "import",
        "--from",
        "claude-code",
        tmp.path().join("cc").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("tools_unmapped"),
        "the note is still given: {stderr}"
    );
    no_token("import's notes", &stderr);
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(
        written.contains(TOKEN),
        "the file's own text is kept: {written}"
    );

    let crew = tmp.path().join("crew");
    write(
        &crew.join("agents.yaml"),
        "writer:\n  role: Writer\n  goal: Write\n",
    );
    write(
        &crew.join("tasks.yaml"),
        &format!("draft:\n  description: Draft\n  expected_output: Text\n  agent: {TOKEN}\n"),
    );
    let output = run(&["import", "--from", "crewai", crew.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "an unknown agent is refused: {stderr}"
    );
    assert!(
        stderr.contains("tasks.yaml:4"),
        "the refusal still says where: {stderr}"
    );
    no_token("import's error", &stderr);
}
