//! No credential in what `validate` prints, in any format. Findings quote
//! the document (role names, tools, placeholders, values a schema error
//! shows, an envelope's codes), and their output is kept: CI logs, SARIF in
//! code scanning, annotations on a pull request. Every text is redacted
//! once, before any format is rendered; the pointers and positions still
//! say where the finding is, and the files are left as written.

use std::path::Path;
use std::process::{Command, Output, Stdio};

const GITHUB: &str = "ghp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo";
const ANTHROPIC: &str = "sk-ant-api03-Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4YoPl7Qs9Mt1Nv3Bx5Cz7Dk9Fh2Gj4Lm6Np8Rt0Wy2Ek4Ia6Ob8Uc1AA";

fn validate(dir: &Path, format: &str, files: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_playbook"))
        .current_dir(dir)
        .env_remove("PLAYBOOK_DB")
        .env_remove("GITHUB_WORKSPACE")
        .args(["validate", "--format", format])
        .args(files)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

#[track_caller]
fn no_piece(what: &str, text: &str) {
    assert!(!text.contains("panicked"), "{what}: {text}");
    // Any 8 characters of a secret in a row would be a piece of it.
    for secret in [GITHUB, ANTHROPIC] {
        for i in 0..=secret.len() - 8 {
            let piece = &secret[i..i + 8];
            assert!(!text.contains(piece), "{what} holds `{piece}`: {text}");
        }
    }
}

/// A role named like a GitHub token (quoted in messages, hints and fix
/// titles), an `x_env` API key quoted by a schema error, and an envelope
/// quoting a token as its code: each format still reports every finding,
/// at its place, and no piece of either secret.
#[test]
fn validate_never_prints_a_credential_in_any_format() {
    let tmp = tempfile::tempdir().unwrap();
    let lints = format!(
        "schema_version: 1.0.0\nid: leak\nname: Leak\nworkflow:\n  build:\n    roles:\n      \
         - name: {GITHUB}\n        mode: worker\n        allowed_agents: [codex]\n        \
         suggested_prompt: \"Do {{task}} with {{{GITHUB}}}\"\n        inputs_required: [task]\n        \
         actions_allowed: [read_file, {GITHUB}]\n        handoff_to: [nobody]\n      \
         - name: {GITHUB}\n        mode: worker\n        handoff_to: [{GITHUB}]\n"
    );
    let schema = format!(
        "schema_version: 1.0.0\nid: env\nname: Env\nworkflow:\n  build:\n    roles:\n      \
         - name: worker\n        mode: worker\n        handoff_to: {{x_env: {{API_KEY: {ANTHROPIC}}}}}\n"
    );
    let envelope = format!(
        "{{\"schema_version\": \"1.0.0\", \"run_id\": \"3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4\", \
         \"ledger_delta\": [], \"assignments\": [], \"active_locks\": [], \"blockers\": \
         [{{\"task_id\": \"T-1\", \"code\": \"{GITHUB}\", \"reason\": \"r\"}}], \"next_actions\": []}}"
    );
    std::fs::write(tmp.path().join("lints.yaml"), &lints).unwrap();
    std::fs::write(tmp.path().join("schema.yaml"), &schema).unwrap();
    std::fs::write(tmp.path().join("envelope.json"), &envelope).unwrap();
    let files = ["lints.yaml", "schema.yaml", "envelope.json"];

    for format in ["text", "json", "sarif", "github"] {
        let output = validate(tmp.path(), format, &files);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{format}: {stdout}{stderr}");
        no_piece(&format!("{format} stdout"), &stdout);
        no_piece(&format!("{format} stderr"), &stderr);
        // Redacted, not dropped: every finding is still there, at its place.
        for expected in [
            "PB204",
            "PB301",
            "PB211",
            "PB002",
            "RESULT_INVALID",
            "[REDACTED]",
        ] {
            assert!(
                stdout.contains(expected),
                "{format}: no {expected}: {stdout}"
            );
        }
        let place = match format {
            "text" => "lints.yaml:13:22",
            "github" => "file=lints.yaml,line=13,col=22",
            _ => "/workflow/build/roles/0/handoff_to/0",
        };
        assert!(stdout.contains(place), "{format}: no {place}: {stdout}");
    }

    let contract: serde_json::Value =
        serde_json::from_slice(&validate(tmp.path(), "json", &files).stdout).unwrap();
    let findings = contract["details"]["findings"].as_array().unwrap();
    let pb204 = findings.iter().find(|f| f["code"] == "PB204").unwrap();
    assert_eq!(pb204["path"], "/workflow/build/roles/1/name", "{pb204:#}");
    assert_eq!(pb204["location"]["line"], 14, "{pb204:#}");
    assert!(
        pb204["fixes"][0]["title"]
            .as_str()
            .unwrap()
            .contains("[REDACTED]"),
        "the fix is still offered: {pb204:#}"
    );
    // The files are the author's and stay as written.
    let kept = std::fs::read_to_string(tmp.path().join("lints.yaml")).unwrap();
    assert_eq!(kept, lints);
}

/// The document's keys and the file's name are printed too: keys in every
/// pointer (text, JSON, SARIF), the name as the file (every format, the
/// SARIF artifact URI, the annotation's `file=`). A stage keyed by a token,
/// an unknown field named by a token or by a URL with its password (which
/// the pointer writes `https:~1~1…`), a role named by a token with a
/// zero-width space inside (which the finding's message escapes as
/// `\u{200b}` before the CLI sees it), in a file named by a token: no piece
/// of any secret in any format, every finding still at its place, and the
/// SARIF log still valid.
#[test]
fn validate_never_prints_a_credential_from_a_key_or_a_file_name() {
    const URL_PASSWORD: &str = "S3cr3tPw9xQ";
    let tmp = tempfile::tempdir().unwrap();
    let split = format!("{}\u{200b}{}", &GITHUB[..20], &GITHUB[20..]);
    let playbook = format!(
        "schema_version: 1.0.0\nid: keys\nname: Keys\nworkflow:\n  {GITHUB}:\n    roles:\n      \
         - name: worker\n        mode: worker\n        {ANTHROPIC}: 1\n        \
         \"https://bob:{URL_PASSWORD}@git.example.com\": 1\n  build:\n    roles:\n      \
         - name: \"{split}\"\n        mode: worker\n        handoff_to: [nobody]\n"
    );
    let file = format!("{GITHUB}.yaml");
    std::fs::write(tmp.path().join(&file), &playbook).unwrap();

    for format in ["text", "json", "sarif", "github"] {
        let output = validate(tmp.path(), format, &[&file]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{format}: {stdout}{stderr}");
        for printed in [&stdout, &stderr] {
            no_piece(format, printed);
            assert!(!printed.contains(URL_PASSWORD), "{format}: {printed}");
        }
        for expected in ["PB004", "PB301", "[REDACTED]"] {
            assert!(
                stdout.contains(expected),
                "{format}: no {expected}: {stdout}"
            );
        }
        let place = match format {
            "text" => "[REDACTED].yaml:9:9",
            "github" => "file=[REDACTED].yaml,line=9,col=9",
            "sarif" => "%5BREDACTED%5D.yaml",
            _ => "/workflow/[REDACTED]/roles/0/[REDACTED]",
        };
        assert!(stdout.contains(place), "{format}: no {place}: {stdout}");
    }

    let contract: serde_json::Value =
        serde_json::from_slice(&validate(tmp.path(), "json", &[&file]).stdout).unwrap();
    let pointers: Vec<&str> = contract["details"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "PB004")
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        pointers,
        [
            "/workflow/[REDACTED]/roles/0/[REDACTED]",
            "/workflow/[REDACTED]/roles/0/https:~1~1bob:[REDACTED]@git.example.com",
        ],
        "still pointers, with every key that held no secret"
    );

    // Valid SARIF 2.1.0, the pointer in each result's properties redacted.
    let (log, code) = super::report::sarif(tmp.path(), &[&file], &[]);
    assert_eq!(code, Some(1));
    let text = log.to_string();
    no_piece("sarif log", &text);
    assert!(
        text.contains("\"pointer\":\"/workflow/[REDACTED]/roles/0/actions_allowed\""),
        "{text}"
    );
}
