//! `playbook validate`, `fmt`, `template` and `schema` through the real
//! binary: exit codes, the Validator Output Contract and hostile input.

use std::process::Output;

use crate::{playbook, root};

use serde_json::Value;

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is the JSON contract ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

#[track_caller]
fn check_contract(args: &[&str], allow: bool, code: &str) -> Value {
    let output = playbook(args);
    let contract = json_of(&output);
    assert_eq!(contract["allow"], allow, "{contract:#}");
    assert_eq!(contract["code"], code, "{contract:#}");
    assert!(
        contract["reason"].is_string(),
        "reason is required by the contract"
    );
    assert_eq!(
        output.status.success(),
        allow,
        "exit 0 only when allow=true (Validator Output Contract)"
    );
    contract
}

#[test]
fn the_examples_are_allowed_with_no_findings() {
    let contract = check_contract(
        &[
            "validate",
            "--format",
            "json",
            "playbooks/tdd.yaml",
            "playbooks/pairing.yaml",
            "playbooks/compound-engineering.yaml",
        ],
        true,
        "OK",
    );
    assert_eq!(contract["details"]["findings"], Value::Array(vec![]));
}

#[test]
fn the_legacy_example_is_allowed_with_hints() {
    let contract = check_contract(
        &["validate", "--format", "json", "playbooks/legacy.yaml"],
        true,
        "OK",
    );
    let findings = contract["details"]["findings"].as_array().unwrap();
    assert!(!findings.is_empty(), "legacy roles get hints");
    assert!(findings.iter().all(|f| f["severity"] == "info"));
}

#[test]
fn a_broken_playbook_reports_code_pointer_location_and_file() {
    let contract = check_contract(
        &[
            "validate",
            "--format",
            "json",
            "tests/fixtures/lints/pb301-unknown-handoff.json",
        ],
        false,
        "VALIDATION_FAILED",
    );
    let finding = &contract["details"]["findings"][0];
    assert_eq!(finding["code"], "PB301");
    assert_eq!(finding["path"], "/workflow/build/roles/0/handoff_to/0");
    assert!(finding["location"]["line"].as_u64().unwrap() > 1);
    assert!(
        finding["hint"].as_str().unwrap().contains("reviewer"),
        "the hint names the closest role"
    );
    assert_eq!(
        finding["file"],
        "tests/fixtures/lints/pb301-unknown-handoff.json"
    );
}

/// A JSON playbook saved with a byte-order mark (Windows editors, some
/// generators) has its findings where they are without one, not at 1:1.
#[test]
fn a_json_playbook_with_a_byte_order_mark_is_located_as_without_one() {
    let fixture = "tests/fixtures/lints/pb301-unknown-handoff.json";
    let text = std::fs::read_to_string(root().join(fixture)).unwrap();
    assert!(!text.starts_with('\u{feff}'));
    let dir = tempfile::tempdir().unwrap();
    let with_mark = dir.path().join("bom.json");
    std::fs::write(&with_mark, format!("\u{feff}{text}")).unwrap();
    let with_mark = with_mark.to_string_lossy().into_owned();
    let placed = |file: &str| {
        let contract = check_contract(
            &["validate", "--format", "json", file],
            false,
            "VALIDATION_FAILED",
        );
        let finding = contract["details"]["findings"][0].clone();
        assert_eq!(finding["code"], "PB301", "{contract:#}");
        finding["location"].clone()
    };
    let plain = placed(fixture);
    assert!(plain["line"].as_u64().unwrap() > 1, "{plain}");
    assert_eq!(placed(&with_mark), plain);
    let output = playbook(&["validate", &with_mark]);
    let at = format!(
        "{with_mark}:{}:{}: error[PB301]",
        plain["line"], plain["column"]
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains(&at), "{stdout}");
}

#[test]
fn text_output_points_at_file_line_and_column() {
    let output = playbook(&["validate", "tests/fixtures/lints/pb001-syntax-error.yaml"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success());
    assert!(
        text.contains("tests/fixtures/lints/pb001-syntax-error.yaml:8:12: error[PB001]"),
        "{text}"
    );
}

#[test]
fn strict_mode_rejects_unknown_fields() {
    let file = "tests/fixtures/lints/pb004-unknown-fields.yaml";
    check_contract(&["validate", "--format", "json", file], true, "OK");
    check_contract(
        &["validate", "--strict", "--format", "json", file],
        false,
        "VALIDATION_FAILED",
    );
}

#[test]
fn an_unknown_major_version_fails_closed() {
    check_contract(
        &[
            "validate",
            "--format",
            "json",
            "tests/fixtures/lints/pb003-unknown-major-version.yaml",
        ],
        false,
        "UNSUPPORTED_SCHEMA_VERSION",
    );
}

#[test]
fn the_spec_envelope_examples_validate_and_a_lying_result_is_caught() {
    for file in [
        "assignment-packet.json",
        "subagent-result.json",
        "director-task.json",
        "associate-result.json",
        "role-assignment-request.json",
        "role-assignment-response.json",
    ] {
        let path = format!("tests/fixtures/envelopes/{file}");
        check_contract(
            &["validate", "--strict", "--format", "json", &path],
            true,
            "OK",
        );
    }
    let contract = check_contract(
        &[
            "validate",
            "--format",
            "json",
            "tests/fixtures/envelopes/subagent-result-lies.json",
        ],
        false,
        "VALIDATION_FAILED",
    );
    let codes: Vec<&str> = contract["details"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"RESULT_INCONSISTENT"),
        "done with a failing check is a lie: {codes:?}"
    );
}

#[test]
fn hostile_files_are_refused_with_a_clear_error_and_no_panic() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_string_lossy().into_owned()
    };
    let huge = write("huge.yaml", &vec![b'#'; 50 * 1024 * 1024]);
    let binary = write("binary.yaml", &[0xff, 0xfe, 0x00, 0x13, 0x37, 0x80, 0x81]);
    let deep = write(
        "deep.json",
        ("[".repeat(10_000) + &"]".repeat(10_000)).as_bytes(),
    );
    let empty = write("empty.yaml", b"");
    let cases = [
        (huge.as_str(), "READ_ERROR", "limited to"),
        (binary.as_str(), "READ_ERROR", "not UTF-8"),
        (deep.as_str(), "DOCUMENT_SIZE", "nests deeper"),
        (empty.as_str(), "DOCUMENT_SIZE", "empty"),
        ("does/not/exist.yaml", "READ_ERROR", "cannot read"),
    ];
    for (file, code, says) in cases {
        let output = playbook(&["validate", "--format", "json", file]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{file}: {stderr}");
        assert!(!output.status.success(), "{file} must not be allowed");
        let contract = json_of(&output);
        assert_eq!(contract["code"], code, "{file}: {contract:#}");
        assert!(
            contract.to_string().contains(says),
            "{file}: the reason says why: {contract:#}"
        );
    }
}

#[test]
fn fmt_normalises_and_check_reports_without_writing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clean.yaml");
    std::fs::copy(root().join("tests/fixtures/lints/clean.yaml"), &path).unwrap();
    let path = path.to_str().unwrap();
    let before = std::fs::read_to_string(path).unwrap();

    let check = playbook(&["fmt", "--check", path]);
    assert_eq!(
        check.status.code(),
        Some(1),
        "flow-style YAML is not normalised"
    );
    assert_eq!(
        std::fs::read_to_string(path).unwrap(),
        before,
        "--check writes nothing"
    );

    assert!(playbook(&["fmt", path]).status.success());
    let after = std::fs::read_to_string(path).unwrap();
    assert_ne!(after, before);
    assert!(
        playbook(&["fmt", "--check", path]).status.success(),
        "fmt is idempotent"
    );
    let reparsed: Value = yaml_serde::from_str(&after).unwrap();
    let original: Value = yaml_serde::from_str(&before).unwrap();
    assert_eq!(reparsed, original, "fmt changes formatting only");
}

/// A file `fmt` cannot format says where its first error is, as `whatif`
/// and `diff` do: it said only the message, with no line or pointer.
#[test]
fn fmt_refusing_a_file_names_the_place_of_its_first_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.yaml");
    std::fs::write(
        &path,
        "schema_version: 1.0.0\nid: d\nname: D\nworkflow:\n  b:\n    roles:\n      - name: w\n        mode: wizard\n",
    )
    .unwrap();
    let output = playbook(&["fmt", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("at /workflow/b/roles/0/mode (line 8, column 9)"),
        "{stderr}"
    );
}

#[test]
fn fmt_keeps_the_comments_and_layout_of_a_commented_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("commented.yaml");
    let original = std::fs::read_to_string(root().join("playbooks/tdd.yaml")).unwrap();
    let commented = format!(
        "# Owned by the platform team.   \r\n{}",
        original
            .replacen(
                "workflow:\n",
                "workflow:   # stages in order\n\n  # First, plan.\n",
                1
            )
            .replace('\n', "  \n")
    );
    std::fs::write(&path, &commented).unwrap();
    let path = path.to_str().unwrap();

    let check = playbook(&["fmt", "--check", path]);
    assert_eq!(
        check.status.code(),
        Some(1),
        "trailing blanks are not normalised"
    );
    let formatted = playbook(&["fmt", path]);
    assert!(
        formatted.status.success(),
        "{}",
        String::from_utf8_lossy(&formatted.stderr)
    );
    assert!(String::from_utf8_lossy(&formatted.stdout).contains("comments kept"));
    let after = std::fs::read_to_string(path).unwrap();
    for comment in [
        "# Owned by the platform team.\n",
        "workflow:   # stages in order\n\n  # First, plan.\n",
    ] {
        assert!(after.contains(comment), "lost {comment:?}:\n{after}");
    }
    // Trailing blanks go, except inside block scalars, where they are text.
    let blank_ended = |t: &str| t.lines().filter(|l| l.ends_with(' ')).count();
    assert!(blank_ended(&after) < blank_ended(&commented) / 2, "{after}");
    assert!(after.contains("\nid: tdd\n") || !original.contains("\nid: tdd\n"));
    let reparsed: Value = yaml_serde::from_str(&after).unwrap();
    let before: Value = yaml_serde::from_str(&commented).unwrap();
    assert_eq!(reparsed, before, "fmt changes formatting only");
    assert!(
        playbook(&["fmt", "--check", path]).status.success(),
        "fmt is idempotent"
    );

    // Asked for, the canonical layout is written and the comments go.
    assert!(playbook(&["fmt", "--drop-comments", path]).status.success());
    assert!(
        !std::fs::read_to_string(path)
            .unwrap()
            .contains("# First, plan.")
    );
}

/// Regression (sweep C): `fmt` wrote the canonical layout, dropping every
/// comment, when the only comments followed a tab or sat on a first line
/// after a byte-order mark; and it turned CRLF line ends into LF. Comments
/// are now the scanner's, and the file keeps its line ends.
#[test]
fn fmt_keeps_comments_after_a_tab_or_a_byte_order_mark_and_crlf_line_ends() {
    let dir = tempfile::tempdir().unwrap();
    let uncommented = std::fs::read_to_string(root().join("playbooks/tdd.yaml")).unwrap();
    assert!(!uncommented.contains('#'), "the base has no comment");
    let cases = [
        (
            "tab.yaml",
            uncommented.replacen("\nid: tdd", "\nid: tdd\t# stable id", 1),
            "\t# stable id",
        ),
        (
            "bom.yaml",
            format!("\u{feff}# Owned by the platform team.\n{uncommented}"),
            "# Owned by the platform team.",
        ),
        (
            "flow.yaml",
            uncommented.replacen("[", "[  # first\n              ", 1),
            "# first",
        ),
    ];
    for (name, text, comment) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &text).unwrap();
        let path = path.to_str().unwrap();
        let output = playbook(&["fmt", path]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let after = std::fs::read_to_string(path).unwrap();
        assert!(
            after.contains(comment),
            "{name}: lost {comment:?}:\n{after}"
        );
    }
    // A `#` inside a quoted string is no comment: the canonical layout.
    let quoted = dir.path().join("quoted.yaml");
    std::fs::write(
        &quoted,
        uncommented.replacen("\nname: ", "\nname: \"Team #1\"\nx_was: ", 1),
    )
    .unwrap();
    let output = playbook(&["fmt", quoted.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&output.stdout).ends_with(": normalised\n"));

    let crlf = dir.path().join("crlf.yaml");
    std::fs::write(&crlf, format!("# c\n{uncommented}").replace('\n', "\r\n")).unwrap();
    assert!(playbook(&["fmt", crlf.to_str().unwrap()]).status.success());
    let after = std::fs::read_to_string(&crlf).unwrap();
    assert!(
        !after.replace("\r\n", "").contains('\n'),
        "every line ends in CRLF"
    );
    let clean = dir.path().join("clean.yaml");
    std::fs::write(&clean, uncommented.replace('\n', "\r\n")).unwrap();
    assert!(playbook(&["fmt", clean.to_str().unwrap()]).status.success());
    let after = std::fs::read_to_string(&clean).unwrap();
    assert!(after.contains("\r\n") && !after.replace("\r\n", "").contains('\n'));
}

#[test]
fn fmt_keeps_every_comment_of_the_legacy_example() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("legacy.yaml");
    std::fs::copy(root().join("playbooks/legacy.yaml"), &path).unwrap();
    let before = std::fs::read_to_string(&path).unwrap();
    let path = path.to_str().unwrap();
    let output = playbook(&["fmt", path]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let after = std::fs::read_to_string(path).unwrap();
    for line in before.lines().filter(|l| l.trim_start().starts_with('#')) {
        assert!(after.contains(line), "lost {line:?}");
    }
}

#[test]
fn templates_compose_into_a_clean_playbook() {
    let mut text = String::from(
        "schema_version: 1.0.0\nid: from-templates\nname: From templates\nworkflow:\n",
    );
    for (stage, modes) in [
        ("plan", &["planner"][..]),
        ("build", &["worker", "reviewer"]),
        ("test", &["tester"]),
    ] {
        text.push_str(&format!("  {stage}:\n    roles:\n"));
        for mode in modes {
            let role = playbook(&["template", mode]);
            assert!(role.status.success());
            for (i, line) in String::from_utf8_lossy(&role.stdout).lines().enumerate() {
                let prefix = if i == 0 { "      - " } else { "        " };
                text.push_str(&format!("{prefix}{line}\n"));
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("templates.yaml");
    std::fs::write(&path, &text).unwrap();
    let contract = check_contract(
        &["validate", "--format", "json", path.to_str().unwrap()],
        true,
        "OK",
    );
    assert_eq!(
        contract["details"]["findings"],
        Value::Array(vec![]),
        "templates are contract-rich and clean:\n{text}"
    );
}

#[test]
fn every_published_schema_is_checked_in() {
    let list = playbook(&["schema", "--list"]);
    let names = String::from_utf8_lossy(&list.stdout);
    assert!(names.lines().count() >= 2);
    for name in names.lines() {
        let printed = playbook(&["schema", name]);
        let on_disk = std::fs::read_to_string(root().join("schemas").join(name)).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&printed.stdout),
            on_disk,
            "schemas/{name} is stale; run `playbook schema --out schemas`"
        );
    }
}

/// Validates `text` (written to a temporary `.json` file) as JSON contract.
/// `schema --out DIR` replaces its own earlier files (regenerating
/// `schemas/`), but not a person's file under a schema's name.
#[test]
fn schema_out_replaces_its_own_files_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    assert!(playbook(&["schema", "--out", out]).status.success());
    let again = playbook(&["schema", "--out", out]);
    assert!(again.status.success(), "its own files are replaced");
    let mine = dir.path().join("playbook.schema.json");
    std::fs::write(&mine, "{\"mine\": true}\n").unwrap();
    let refused = playbook(&["schema", "--out", out]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains("playbook.schema.json") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&mine).unwrap(),
        "{\"mine\": true}\n"
    );
    assert!(
        playbook(&["schema", "--out", out, "--force"])
            .status
            .success()
    );
    assert!(std::fs::read_to_string(&mine).unwrap().contains("$id"));
}

fn validate_json(text: &str, strict: bool) -> (Value, bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("payload.json");
    std::fs::write(&path, text).unwrap();
    let path = path.to_string_lossy().into_owned();
    let mut args = vec!["validate", "--format", "json"];
    if strict {
        args.push("--strict");
    }
    args.push(&path);
    let output = playbook(&args);
    (json_of(&output), output.status.success())
}

const WORKLOG: &str = r#"{"timestamp": "2026-05-01T12:00:00Z", "run_id": "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4", "task_id": "T-1", "actor": "coder", "action": "edit", "files_touched": [], "decision": "d", "result": "r", "next_step": "n"}"#;

#[test]
fn a_broken_worklog_entry_is_reported_as_a_worklog_entry_at_its_field() {
    let (contract, ok) = validate_json(WORKLOG, true);
    assert!(ok, "{contract:#}");
    assert_eq!(contract["details"]["files"][0]["kind"], "worklog entry");
    for (broken, pointer) in [
        (WORKLOG.replace(r#""actor": "coder", "#, ""), "/actor"),
        (WORKLOG.replace(r#""decision": "d", "#, ""), "/decision"),
        (
            WORKLOG.replace("2026-05-01T12:00:00Z", "last tuesday"),
            "/timestamp",
        ),
        (
            WORKLOG.replace(
                r#""next_step": "n""#,
                r#""next_step": "n", "code": "BANANA""#,
            ),
            "/code",
        ),
    ] {
        let (contract, ok) = validate_json(&broken, false);
        assert!(!ok, "{broken}");
        assert_eq!(contract["code"], "VALIDATION_FAILED", "{contract:#}");
        let file = &contract["details"]["files"][0];
        assert_eq!(file["kind"], "worklog entry", "{contract:#}");
        let findings = contract["details"]["findings"].as_array().unwrap();
        assert!(
            findings
                .iter()
                .any(|f| f["path"] == pointer && f["code"] == "RESULT_INVALID"),
            "{pointer}: {contract:#}"
        );
        assert!(
            findings
                .iter()
                .all(|f| !f["code"].as_str().unwrap().starts_with("PB")),
            "not reported as a broken playbook: {contract:#}"
        );
    }
}

#[test]
fn a_blocker_with_an_undocumented_code_is_refused() {
    let output = r#"{"schema_version": "1.0.0", "run_id": "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4", "ledger_delta": [], "assignments": [], "active_locks": [], "blockers": [{"task_id": "T-1", "code": "BANANA", "reason": "r"}], "next_actions": []}"#;
    let (contract, ok) = validate_json(output, true);
    assert!(!ok);
    assert_eq!(
        contract["details"]["files"][0]["kind"],
        "orchestrator output"
    );
    let finding = &contract["details"]["findings"][0];
    assert_eq!(finding["path"], "/blockers/0/code", "{contract:#}");
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("docs/error-codes.md"),
        "{contract:#}"
    );
    let (contract, ok) = validate_json(&output.replace("BANANA", "AGENT_BLOCKED"), true);
    assert!(ok, "{contract:#}");
}

#[test]
fn the_validator_output_of_validate_is_itself_a_valid_envelope() {
    let contract = check_contract(
        &["validate", "--format", "json", "playbooks/tdd.yaml"],
        true,
        "OK",
    );
    let (checked, ok) = validate_json(&contract.to_string(), true);
    assert!(ok, "{checked:#}");
    assert_eq!(checked["details"]["files"][0]["kind"], "validator output");
}
