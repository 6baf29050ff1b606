//! `playbook migrate` through the real binary: a legacy (agenterm) file
//! becomes a 1.0.0 playbook whose choices are said, and nothing else is lost.

use std::path::Path;

use serde_json::Value;

use crate::{playbook, root};

fn validate(path: &Path) -> Value {
    let out = playbook(&["validate", "--format", "json", path.to_str().unwrap()]);
    serde_json::from_slice(&out.stdout).expect("the contract is JSON")
}

#[test]
fn a_phases_only_file_becomes_a_clean_1_0_0_playbook() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("migrated.yaml");
    let out = playbook(&[
        "migrate",
        "tests/fixtures/legacy/agenterm-phases.yaml",
        "--out",
        out_path.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("phases became this workflow"), "{stderr}");
    let text = std::fs::read_to_string(&out_path).unwrap();
    assert!(text.starts_with("schema_version: 1.0.0"), "{text}");
    assert!(!text.contains("phases:"), "{text}");
    assert_eq!(validate(&out_path)["allow"], true, "{text}");
}

#[test]
fn named_gates_become_policies_and_real_mistakes_are_still_named() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("migrated.yaml");
    let out = playbook(&[
        "migrate",
        "tests/fixtures/lints/pb009-legacy-agenterm.yaml",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The reviewer without a verdict is an error of 1.0.0: said, exit 1,
    // and the migrated file is still written for the person to finish.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("PB207"), "{stderr}");
    let text = std::fs::read_to_string(&out_path).unwrap();
    let migrated =
        playbook_core::document::parse_value(&text, playbook_core::Format::Yaml).unwrap();
    let policies = &migrated["policies"];
    for gate in [
        "outline_signed_off",
        "user_approval",
        "draft_committed",
        "draft_approved",
    ] {
        assert_eq!(policies[gate], "user_approved", "{gate}: {text}");
        assert!(stderr.contains(&format!("/policies/{gate}")), "{stderr}");
    }
    let writer = &migrated["workflow"]["build"]["roles"][0]["retry_policy"];
    assert_eq!(writer["escalate_on"], serde_json::json!(["agent_error"]));
    assert_eq!(writer["x_escalate_on"], serde_json::json!(["style_drift"]));
    let plan = &migrated["workflow"]["plan"];
    assert!(plan["stage_policy"].get("max_parallel_worktrees").is_none());
    let outliner = &plan["roles"][0]["retry_policy"];
    assert_eq!(outliner["escalate_on"], serde_json::json!(["agent_error"]));
    assert_eq!(
        outliner["x_escalate_on"],
        serde_json::json!(["outline_unclear"]),
        "not in the map: kept aside"
    );
    // Only real mistakes remain as errors.
    let contract = validate(&out_path);
    let codes: Vec<&str> = contract["details"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["PB207"], "{contract}");
}

#[test]
fn a_1_0_0_file_is_left_alone_and_in_place_replaces_the_file() {
    let out = playbook(&["migrate", "playbooks/tdd.yaml"]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to migrate"));

    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("legacy.yaml");
    std::fs::copy(
        root().join("tests/fixtures/legacy/agenterm-two-documents.yaml"),
        &copy,
    )
    .unwrap();
    let out = playbook(&["migrate", "--in-place", copy.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&copy).unwrap();
    assert!(
        text.starts_with("schema_version: 1.0.0") && !text.contains("second"),
        "{text}"
    );

    let broken = dir.path().join("broken.yaml");
    std::fs::write(
        &broken,
        "id: x\nname: X\nworkflow:\n  build:\n    roles:\n    - {name: w, mode: boss}\n",
    )
    .unwrap();
    let out = playbook(&["migrate", "--in-place", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fix its errors first"));
    assert!(
        std::fs::read_to_string(&broken).unwrap().contains("boss"),
        "a refused file is untouched"
    );
}

#[test]
fn an_existing_out_file_is_kept_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("mine.yaml");
    std::fs::write(&out_path, "# my notes\n").unwrap();
    let args = |force: bool| {
        let mut args = vec![
            "migrate",
            "tests/fixtures/legacy/agenterm-phases.yaml",
            "-o",
            out_path.to_str().unwrap(),
        ];
        if force {
            args.push("--force");
        }
        playbook(&args)
    };
    let out = args(false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("exists; pass --force to replace it"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&out_path).unwrap(), "# my notes\n");
    assert!(args(true).status.success());
    let text = std::fs::read_to_string(&out_path).unwrap();
    assert!(text.starts_with("schema_version: 1.0.0"), "{text}");
}

/// `playbook ARGS` with `input` on standard input.
fn with_stdin(args: &[&str], input: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_playbook"))
        .current_dir(root())
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

const NO_ID: &str = "name: No id\nworkflow:\n  build:\n    enabled: true\n    roles:\n    - name: coder\n      responsibilities: write the code\n      allowed_agents: [codex]\n";

#[test]
fn a_legacy_file_without_id_is_named_after_its_file_and_standard_input_says_it_has_none() {
    // agenterm's loadDir took the file name, lowercased, without `.yaml`.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("Pairing-Flow.yaml");
    std::fs::write(&file, NO_ID).unwrap();
    let report = validate(&file);
    assert_eq!(report["allow"], true, "{report}");
    let out = playbook(&["migrate", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("id: pairing-flow"), "{text}");

    let out = with_stdin(&["validate", "-"], NO_ID);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("file name"), "{said}");
}

#[test]
fn a_gate_shared_through_a_merge_key_is_migrated_written_out() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("merge.yaml");
    std::fs::write(
        &file,
        "id: merge-keys\nname: Merge keys\nx_guarded: &guarded\n  requires_user_approval: true\nworkflow:\n  build:\n    enabled: true\n    roles:\n    - name: coder\n      responsibilities: write the code\n      allowed_agents: [codex]\n      mode: worker\n      actions_allowed: [write_file]\n      outputs_contract: {type: work_result, required: [summary]}\n      gates:\n        <<: *guarded\n        pass_condition: always\n",
    )
    .unwrap();
    let report = validate(&file);
    let codes: Vec<&str> = report["details"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    assert!(
        !codes.contains(&"PB004") && !codes.contains(&"PB206"),
        "{report}"
    );
    let out = playbook(&["migrate", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let migrated =
        playbook_core::document::parse_value(&text, playbook_core::Format::Yaml).unwrap();
    let gates = &migrated["workflow"]["build"]["roles"][0]["gates"];
    assert_eq!(gates["requires_user_approval"], true, "{text}");
    assert!(gates.get("<<").is_none(), "{text}");
}

#[test]
fn a_free_text_gate_never_shares_a_policy_with_another_gate_and_notes_say_what_the_file_has() {
    // "Always!" needs a key; `always` is built in and `always_gate` is the
    // name of another gate: merging them would make two gates one policy.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gates.yaml");
    std::fs::write(
        &file,
        "id: gates\nname: Gates\nworkflow:\n  build:\n    enabled: true\n    roles:\n    - name: a\n      responsibilities: r\n      allowed_agents: [codex]\n      gates: {pass_condition: Always!}\n      retry_policy: {max_iterations: -3}\n    - name: b\n      responsibilities: r\n      allowed_agents: [codex]\n      gates: {pass_condition: always_gate}\n",
    )
    .unwrap();
    let out = playbook(&["migrate", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    let migrated =
        playbook_core::document::parse_value(&text, playbook_core::Format::Yaml).unwrap();
    let roles = &migrated["workflow"]["build"]["roles"];
    let (a, b) = (
        roles[0]["gates"]["pass_condition"].as_str().unwrap(),
        roles[1]["gates"]["pass_condition"].as_str().unwrap(),
    );
    assert_ne!(a, b, "{text}");
    assert!(migrated["policies"][a].is_string() && migrated["policies"][b].is_string());
    for key in [a, b] {
        let said = stderr.matches(&format!("/policies/{key} —")).count();
        assert_eq!(said, 1, "the choice for {key} is said once: {stderr}");
    }
    assert!(stderr.contains("`max_iterations: -3`"), "{stderr}");
    assert!(!stderr.contains("`max_iterations: 0`"), "{stderr}");
}
