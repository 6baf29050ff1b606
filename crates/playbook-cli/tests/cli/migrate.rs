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
