//! Envelopes: published schemas are fresh, the spec examples validate
//! against them with an independent validator, and the typed checks catch
//! what the contracts forbid.

use std::path::Path;

use playbook_orchestrator::ErrorCode;
use playbook_orchestrator::envelope::{
    self, AssignmentPacket, AssociateResult, DirectorTask, Envelope, RoleAssignmentRequest,
    RoleAssignmentResponse, SubagentResult,
};
use serde_json::{Value, json};

use crate::{crate_dir, read, repo_dir};

fn fixture(name: &str) -> Value {
    serde_json::from_str(&read(
        &crate_dir().join(format!("tests/fixtures/spec/{name}.json")),
    ))
    .unwrap()
}

fn schema(file: &str) -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_str(&read(&repo_dir().join("schemas").join(file))).unwrap();
    jsonschema::validator_for(&schema).expect("the published schema compiles")
}

/// Writes the schemas when `UPDATE_SCHEMAS=1`; otherwise fails when a file differs.
#[test]
fn published_envelope_schemas_are_up_to_date() {
    let dir = repo_dir().join("schemas");
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    for published in envelope::published() {
        let path = dir.join(published.file);
        let text = serde_json::to_string_pretty(&published.schema).unwrap() + "\n";
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == text,
            "{} is stale; run `UPDATE_SCHEMAS=1 cargo test -p playbook-orchestrator --test orchestrator published`",
            Path::new(published.file).display()
        );
    }
}

#[test]
fn the_spec_examples_validate_against_the_published_schemas() {
    for (example, file) in [
        ("assignment-packet", AssignmentPacket::SCHEMA_FILE),
        ("subagent-result", SubagentResult::SCHEMA_FILE),
        ("director-task", DirectorTask::SCHEMA_FILE),
        ("associate-result", AssociateResult::SCHEMA_FILE),
        (
            "role-assignment-request",
            RoleAssignmentRequest::SCHEMA_FILE,
        ),
        (
            "role-assignment-response",
            RoleAssignmentResponse::SCHEMA_FILE,
        ),
    ] {
        let value = fixture(example);
        let errors: Vec<String> = schema(file)
            .iter_errors(&value)
            .map(|e| format!("{} {e}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{example} against {file}: {errors:?}");
    }
}

#[test]
fn the_spec_examples_pass_the_typed_checks_in_strict_mode() {
    assert!(envelope::parse::<AssignmentPacket>(&fixture("assignment-packet"), true).is_ok());
    assert!(envelope::parse::<SubagentResult>(&fixture("subagent-result"), true).is_ok());
    assert!(envelope::parse::<DirectorTask>(&fixture("director-task"), true).is_ok());
    assert!(envelope::parse::<AssociateResult>(&fixture("associate-result"), true).is_ok());
    assert!(
        envelope::parse::<RoleAssignmentRequest>(&fixture("role-assignment-request"), true).is_ok()
    );
    assert!(
        envelope::parse::<RoleAssignmentResponse>(&fixture("role-assignment-response"), true)
            .is_ok()
    );
}

/// Mutates the spec's assignment example and expects both the schema and the
/// typed check to refuse it (or only the typed check, for cross-field rules).
#[track_caller]
fn refused(mutate: impl Fn(&mut Value), schema_too: bool, code: ErrorCode) {
    let mut value = fixture("assignment-packet");
    mutate(&mut value);
    let err =
        envelope::parse::<AssignmentPacket>(&value, true).expect_err("the typed check refuses it");
    assert!(err.iter().any(|v| v.code == code), "{err:?}");
    if schema_too {
        assert!(
            !schema(AssignmentPacket::SCHEMA_FILE).is_valid(&value),
            "the schema refuses it too"
        );
    }
}

#[test]
fn assignment_packets_enforce_ids_ranges_and_invariants() {
    refused(
        |v| v["run_id"] = json!("not-a-uuid"),
        true,
        ErrorCode::ResultInvalid,
    );
    refused(
        |v| v["task"]["task_id"] = json!("task-12"),
        true,
        ErrorCode::ResultInvalid,
    );
    refused(
        |v| v["task"]["timeout_seconds"] = json!(10),
        true,
        ErrorCode::ResultInvalid,
    );
    refused(
        |v| v["task"]["lock_scope"] = json!([]),
        true,
        ErrorCode::ResultInvalid,
    );
    refused(
        |v| v["task"]["acceptance_criteria"] = json!([]),
        true,
        ErrorCode::ResultInvalid,
    );
    // heartbeat < timeout cannot be said in JSON Schema; the typed check says it.
    refused(
        |v| v["task"]["heartbeat_interval_seconds"] = json!(1200),
        false,
        ErrorCode::ResultInvalid,
    );
    refused(
        |v| v["schema_version"] = json!("2.0.0"),
        true,
        ErrorCode::UnsupportedVersion,
    );
    refused(|v| v["surprise"] = json!(1), true, ErrorCode::ResultInvalid);
}

#[test]
fn x_fields_are_allowed_and_unknown_fields_only_fail_in_strict_mode() {
    let mut value = fixture("assignment-packet");
    value["x_team"] = json!("studio");
    assert!(envelope::parse::<AssignmentPacket>(&value, true).is_ok());
    assert!(schema(AssignmentPacket::SCHEMA_FILE).is_valid(&value));
    value["surprise"] = json!(1);
    assert!(
        envelope::parse::<AssignmentPacket>(&value, false).is_ok(),
        "lenient mode ignores it"
    );
}

#[test]
fn a_done_result_needs_passing_checks_with_evidence() {
    let mut value = fixture("subagent-result");
    value["acceptance_check"][0]["status"] = json!("fail");
    let err = envelope::parse::<SubagentResult>(&value, true).unwrap_err();
    assert_eq!(err[0].code, ErrorCode::ResultInconsistent);
    value["acceptance_check"] = json!([]);
    assert_eq!(
        envelope::parse::<SubagentResult>(&value, true).unwrap_err()[0].code,
        ErrorCode::ResultInconsistent
    );
    let mut value = fixture("subagent-result");
    value["acceptance_check"][0]["evidence"] = json!(" ");
    assert_eq!(
        envelope::parse::<SubagentResult>(&value, true).unwrap_err()[0].code,
        ErrorCode::ResultInconsistent
    );
}

#[test]
fn associate_results_follow_their_invariants() {
    let mut value = fixture("associate-result");
    value["verify"]["status"] = json!("fail");
    assert!(
        envelope::parse::<AssociateResult>(&value, true).is_err(),
        "failed verification requires status failed"
    );
    let mut value = fixture("associate-result");
    value["status"] = json!("needs_input");
    assert!(
        envelope::parse::<AssociateResult>(&value, true).is_err(),
        "needs_input requires questions"
    );
}

#[test]
fn a_null_diff_is_a_valid_associate_result() {
    let mut value = fixture("associate-result");
    value["diff"] = Value::Null;
    assert!(
        schema(AssociateResult::SCHEMA_FILE).is_valid(&value),
        "the contract says: unified diff or null"
    );
    assert!(envelope::parse::<AssociateResult>(&value, true).is_ok());
}
