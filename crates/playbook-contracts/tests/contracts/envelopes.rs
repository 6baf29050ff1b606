//! Published schemas are fresh, the spec examples pass both faces, and the
//! typed checks catch what the contracts forbid.

use std::path::Path;

use playbook_contracts::{
    self as contracts, AssignmentPacket, AssociateResult, DirectorTask, Envelope, ErrorCode,
    RoleAssignmentRequest, RoleAssignmentResponse, SubagentResult, WorklogEntry,
};
use serde_json::{Value, json};

use crate::{fixture, repo_dir, schema};

/// Writes the schemas when `UPDATE_SCHEMAS=1`; otherwise fails when a file differs.
#[test]
fn published_envelope_schemas_are_up_to_date() {
    let dir = repo_dir().join("schemas");
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    for published in contracts::published() {
        let path = dir.join(published.file);
        let text = serde_json::to_string_pretty(&published.schema).unwrap() + "\n";
        if update {
            std::fs::write(&path, &text).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == text,
            "{} is stale; run `UPDATE_SCHEMAS=1 cargo test -p playbook-contracts --test contracts published`",
            Path::new(published.file).display()
        );
    }
}

const EXAMPLES: [(&str, &str); 6] = [
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
];

#[test]
fn the_spec_examples_validate_against_the_published_schemas() {
    for (example, file) in EXAMPLES {
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
    for kind in contracts::EnvelopeKind::ALL {
        let Some((example, _)) = EXAMPLES.iter().find(|(_, f)| *f == kind.schema_file()) else {
            continue;
        };
        let violations = kind.check(&fixture(example), true);
        assert!(violations.is_empty(), "{example}: {violations:?}");
    }
}

/// Mutates the spec's assignment example and expects both the schema and the
/// typed check to refuse it (or only the typed check, for cross-field rules).
#[track_caller]
fn refused(mutate: impl Fn(&mut Value), schema_too: bool, code: ErrorCode) {
    let mut value = fixture("assignment-packet");
    mutate(&mut value);
    let err =
        contracts::parse::<AssignmentPacket>(&value, true).expect_err("the typed check refuses it");
    assert!(err.iter().any(|v| v.code == code), "{err:?}");
    assert_eq!(
        !schema(AssignmentPacket::SCHEMA_FILE).is_valid(&value),
        schema_too,
        "the schema's verdict"
    );
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
    refused(
        |v| v["task"]["surprise"] = json!(1),
        true,
        ErrorCode::ResultInvalid,
    );
    refused(
        |v| v["generated_at"] = json!("yesterday"),
        true,
        ErrorCode::ResultInvalid,
    );
}

#[test]
fn x_fields_are_allowed_and_unknown_fields_only_fail_in_strict_mode() {
    let mut value = fixture("assignment-packet");
    value["x_team"] = json!("studio");
    assert!(contracts::parse::<AssignmentPacket>(&value, true).is_ok());
    assert!(schema(AssignmentPacket::SCHEMA_FILE).is_valid(&value));
    value["surprise"] = json!(1);
    assert!(
        contracts::parse::<AssignmentPacket>(&value, false).is_ok(),
        "lenient mode ignores it"
    );
    let err = contracts::parse::<AssignmentPacket>(&value, true).unwrap_err();
    assert_eq!(err.len(), 1, "{err:?}");
    assert_eq!(err[0].path, "/surprise");
}

#[test]
fn unknown_fields_are_refused_in_strict_mode_even_where_the_type_keeps_none() {
    let entry = crate::timestamps::worklog_entry();
    let mut value = entry.clone();
    value["surprise"] = json!(1);
    assert!(contracts::parse::<WorklogEntry>(&value, false).is_ok());
    let err = contracts::parse::<WorklogEntry>(&value, true).unwrap_err();
    assert_eq!(err[0].path, "/surprise", "{err:?}");
    assert!(err[0].message.contains("x_"), "{err:?}");
}

#[test]
fn a_done_result_needs_passing_checks_with_evidence() {
    let mut value = fixture("subagent-result");
    value["acceptance_check"][0]["status"] = json!("fail");
    let err = contracts::parse::<SubagentResult>(&value, true).unwrap_err();
    assert_eq!(err[0].code, ErrorCode::ResultInconsistent);
    value["acceptance_check"] = json!([]);
    assert_eq!(
        contracts::parse::<SubagentResult>(&value, true).unwrap_err()[0].code,
        ErrorCode::ResultInconsistent
    );
    let mut value = fixture("subagent-result");
    value["acceptance_check"][0]["evidence"] = json!(" ");
    assert_eq!(
        contracts::parse::<SubagentResult>(&value, true).unwrap_err()[0].code,
        ErrorCode::ResultInconsistent
    );
}

#[test]
fn associate_results_follow_their_invariants() {
    let mut value = fixture("associate-result");
    value["verify"]["status"] = json!("fail");
    assert!(
        contracts::parse::<AssociateResult>(&value, true).is_err(),
        "failed verification requires status failed"
    );
    let mut value = fixture("associate-result");
    value["status"] = json!("needs_input");
    assert!(
        contracts::parse::<AssociateResult>(&value, true).is_err(),
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
    assert!(contracts::parse::<AssociateResult>(&value, true).is_ok());
}

#[test]
fn a_missing_field_is_one_violation_at_its_own_pointer() {
    let mut value = crate::timestamps::worklog_entry();
    value.as_object_mut().unwrap().remove("actor");
    value.as_object_mut().unwrap().remove("next_step");
    let err = contracts::parse::<WorklogEntry>(&value, false).unwrap_err();
    let paths: Vec<&str> = err.iter().map(|v| v.path.as_str()).collect();
    assert!(paths.contains(&"/actor"), "{err:?}");
    assert!(paths.contains(&"/next_step"), "{err:?}");
    assert!(err.iter().all(|v| v.code == ErrorCode::ResultInvalid));
    assert!(
        err.iter()
            .any(|v| v.message == "missing required field `actor`")
    );
}

#[test]
fn a_payload_with_many_problems_gets_a_bounded_answer() {
    let mut value = fixture("subagent-result");
    value["changes"] = Value::Array(vec![json!({"resource": 1}); 10_000]);
    let err = contracts::parse::<SubagentResult>(&value, true).unwrap_err();
    assert!(err.len() <= 101, "{} violations", err.len());
    assert!(err.last().unwrap().message.contains("more violation"));
}

#[test]
fn messages_quoting_a_huge_value_are_clipped() {
    let mut value = fixture("subagent-result");
    value["status"] = json!("x".repeat(100_000));
    let err = contracts::parse::<SubagentResult>(&value, true).unwrap_err();
    assert!(
        err.iter().all(|v| v.message.chars().count() <= 301),
        "{err:?}"
    );
}
