//! Every timestamp of every envelope is ISO-8601 UTC, by one rule.

use playbook_contracts::{
    self as contracts, AssignmentPacket, EnvelopeKind, HandoffBundle, OrchestratorOutput,
    SubagentResult, WorklogEntry, is_utc_timestamp,
};
use serde_json::{Value, json};

use crate::{fixture, schema};

pub const RUN_ID: &str = "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4";

/// A valid worklog entry.
pub fn worklog_entry() -> Value {
    json!({
        "timestamp": "2026-05-01T12:00:00Z",
        "run_id": RUN_ID,
        "task_id": "T-1",
        "actor": "coder",
        "action": "edit",
        "files_touched": ["src/api.py"],
        "decision": "add the endpoint",
        "result": "done",
        "next_step": "review"
    })
}

/// A valid orchestrator output with one delta and one blocker.
pub fn orchestrator_output() -> Value {
    json!({
        "schema_version": "1.0.0",
        "run_id": RUN_ID,
        "generated_at": "2026-05-01T12:00:00.250Z",
        "ledger_delta": [{
            "task_id": "T-1", "status": "blocked", "owner": "coder", "reason": "waiting",
            "delta_id": "d-1", "last_heartbeat_at": "2026-05-01T11:59:00Z"
        }],
        "assignments": [],
        "active_locks": [{"task_id": "T-1", "resource": "src/", "active": true}],
        "blockers": [{"task_id": "T-1", "code": "AGENT_BLOCKED", "reason": "needs a key"}],
        "next_actions": []
    })
}

/// A valid handoff bundle with one ledger row and one open blocker.
pub fn handoff_bundle() -> Value {
    json!({
        "schema_version": "1.0.0",
        "run_id": RUN_ID,
        "objective": "ship",
        "constraints": [],
        "ledger": [{
            "task_id": "T-1", "title": "t", "status": "blocked", "owner": "coder",
            "lock_scope": ["src/"], "timeout_seconds": 600, "heartbeat_interval_seconds": 60,
            "priority": "normal", "last_heartbeat_at": "2026-05-01T11:59:00Z"
        }],
        "active_locks": [],
        "dependencies": {},
        "open_blockers": [{"task_id": "T-1", "code": "WAIT_TIMEOUT", "reason": "lock"}],
        "acceptance_targets": []
    })
}

const GOOD: &[&str] = &[
    "2026-05-01T12:00:00Z",
    "2026-05-01T12:00:00.5Z",
    "2026-05-01T12:00:00.123456789Z",
    "2024-02-29T23:59:59Z",
    "0001-01-01T00:00:00Z",
];

const BAD: &[&str] = &[
    "last tuesday",
    "",
    "2026-05-01",
    "12:00:00Z",
    "2026-05-01T12:00:00",
    "2026-05-01T12:00:00+02:00",
    "2026-05-01T12:00:00+00:00",
    "2026-05-01T12:00:00z",
    "2026-05-01t12:00:00Z",
    "2026-05-01 12:00:00Z",
    "2026-13-01T12:00:00Z",
    "2026-02-30T12:00:00Z",
    "2025-02-29T12:00:00Z",
    "2026-04-31T12:00:00Z",
    "2026-05-01T24:00:00Z",
    "2026-05-01T12:60:00Z",
    "2026-05-01T12:00:00.Z",
    "2026-05-01T12:00:00Z\n",
    " 2026-05-01T12:00:00Z",
    "２０２６-05-01T12:00:00Z",
    "+2026-05-01T12:00:00Z",
    "1714564800",
];

#[test]
fn the_one_timestamp_rule_accepts_utc_and_refuses_everything_else() {
    for good in GOOD {
        assert!(is_utc_timestamp(good), "{good:?} is a UTC timestamp");
    }
    for bad in BAD {
        assert!(!is_utc_timestamp(bad), "{bad:?} is not");
    }
}

/// Every timestamp field of every envelope, as (kind, document, pointer).
fn timestamp_fields() -> Vec<(EnvelopeKind, Value, &'static str)> {
    let mut packet = fixture("assignment-packet");
    packet["generated_at"] = json!("2026-05-01T12:00:00Z");
    let mut result = fixture("subagent-result");
    result["generated_at"] = json!("2026-05-01T12:00:00Z");
    let mut nested = orchestrator_output();
    nested["assignments"] = json!([packet.clone()]);
    vec![
        (EnvelopeKind::WorklogEntry, worklog_entry(), "/timestamp"),
        (EnvelopeKind::AssignmentPacket, packet, "/generated_at"),
        (EnvelopeKind::SubagentResult, result, "/generated_at"),
        (
            EnvelopeKind::OrchestratorOutput,
            orchestrator_output(),
            "/generated_at",
        ),
        (
            EnvelopeKind::OrchestratorOutput,
            orchestrator_output(),
            "/ledger_delta/0/last_heartbeat_at",
        ),
        (
            EnvelopeKind::OrchestratorOutput,
            nested,
            "/assignments/0/generated_at",
        ),
        (
            EnvelopeKind::HandoffBundle,
            handoff_bundle(),
            "/ledger/0/last_heartbeat_at",
        ),
    ]
}

#[test]
fn every_timestamp_field_of_every_envelope_refuses_what_is_not_utc() {
    for (kind, document, pointer) in timestamp_fields() {
        assert!(
            kind.check(&document, true).is_empty(),
            "{} is valid to start with: {:?}",
            kind.name(),
            kind.check(&document, true)
        );
        assert!(schema(kind.schema_file()).is_valid(&document));
        for bad in BAD {
            let mut value = document.clone();
            *value.pointer_mut(pointer).unwrap() = json!(bad);
            let violations = kind.check(&value, true);
            assert!(
                violations.iter().any(|v| v.path == pointer),
                "{} {pointer} = {bad:?}: {violations:?}",
                kind.name()
            );
            assert!(
                !schema(kind.schema_file()).is_valid(&value),
                "the schema refuses {} {pointer} = {bad:?} too",
                kind.name()
            );
        }
    }
}

#[test]
fn a_worklog_timestamp_of_last_tuesday_is_refused_with_a_fix() {
    let mut value = worklog_entry();
    value["timestamp"] = json!("last tuesday");
    let err = contracts::parse::<WorklogEntry>(&value, true).unwrap_err();
    assert_eq!(err.len(), 1, "{err:?}");
    assert_eq!(err[0].path, "/timestamp");
    assert!(
        err[0].message.contains("ISO-8601 UTC"),
        "{}",
        err[0].message
    );
    assert!(
        err[0].message.contains("2026-05-01T12:00:00Z"),
        "{}",
        err[0].message
    );
}

#[test]
fn typed_values_the_engine_builds_are_checked_by_the_same_rule() {
    use playbook_contracts::Envelope;
    let mut output: OrchestratorOutput = serde_json::from_value(orchestrator_output()).unwrap();
    assert!(output.check(true).is_empty());
    output.generated_at = Some("now".into());
    assert_eq!(output.check(true)[0].path, "/generated_at");
    let mut bundle: HandoffBundle = serde_json::from_value(handoff_bundle()).unwrap();
    bundle.ledger[0].last_heartbeat_at = Some("2026-05-01T12:00:00+01:00".into());
    assert_eq!(bundle.check(true)[0].path, "/ledger/0/last_heartbeat_at");
    let mut packet: AssignmentPacket =
        serde_json::from_value(fixture("assignment-packet")).unwrap();
    packet.generated_at = Some("2026-05-01".into());
    assert!(!packet.check(true).is_empty());
    let mut result: SubagentResult = serde_json::from_value(fixture("subagent-result")).unwrap();
    result.generated_at = Some("soon".into());
    assert!(!result.check(true).is_empty());
}

#[test]
fn a_payload_that_does_not_parse_gets_the_same_messages_as_one_that_does() {
    let mut value = worklog_entry();
    value.as_object_mut().unwrap().remove("actor");
    value["timestamp"] = json!("last tuesday");
    value["code"] = json!("BANANA");
    value["run_id"] = json!("nope");
    let err = contracts::parse::<WorklogEntry>(&value, true).unwrap_err();
    let at = |path: &str| {
        let found: Vec<_> = err.iter().filter(|v| v.path == path).collect();
        assert_eq!(found.len(), 1, "one violation at {path}: {err:?}");
        found[0].message.clone()
    };
    assert_eq!(at("/actor"), "missing required field `actor`");
    assert!(at("/timestamp").contains("ISO-8601 UTC"), "{err:?}");
    assert!(at("/code").contains("docs/error-codes.md"), "{err:?}");
    assert!(at("/run_id").contains("UUID v4"), "{err:?}");
    assert_eq!(err.len(), 4, "{err:?}");
}
