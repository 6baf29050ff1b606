//! A document is recognised as the envelope it most looks like, even with a
//! field missing, and checked against that envelope's contract.

use playbook_contracts::EnvelopeKind;
use serde_json::json;

use crate::fixture;
use crate::timestamps::{handoff_bundle, orchestrator_output, worklog_entry};

#[test]
fn every_example_is_recognised_as_its_own_kind() {
    for (kind, value) in [
        (EnvelopeKind::AssignmentPacket, fixture("assignment-packet")),
        (EnvelopeKind::SubagentResult, fixture("subagent-result")),
        (EnvelopeKind::DirectorTask, fixture("director-task")),
        (EnvelopeKind::AssociateResult, fixture("associate-result")),
        (
            EnvelopeKind::RoleAssignmentRequest,
            fixture("role-assignment-request"),
        ),
        (
            EnvelopeKind::RoleAssignmentResponse,
            fixture("role-assignment-response"),
        ),
        (EnvelopeKind::WorklogEntry, worklog_entry()),
        (EnvelopeKind::OrchestratorOutput, orchestrator_output()),
        (EnvelopeKind::HandoffBundle, handoff_bundle()),
        (
            EnvelopeKind::ValidatorOutput,
            json!({"allow": true, "code": "OK", "reason": "fine"}),
        ),
    ] {
        assert_eq!(EnvelopeKind::recognise(&value).map(|(k, _)| k), Some(kind));
    }
}

#[test]
fn an_envelope_missing_any_one_field_is_still_recognised_and_the_field_reported() {
    for value in [
        worklog_entry(),
        orchestrator_output(),
        handoff_bundle(),
        fixture("subagent-result"),
        fixture("associate-result"),
        fixture("director-task"),
    ] {
        let (kind, _) = EnvelopeKind::recognise(&value).unwrap();
        for field in value.as_object().unwrap().keys() {
            let mut broken = value.clone();
            broken.as_object_mut().unwrap().remove(field);
            let Some((found, _)) = EnvelopeKind::recognise(&broken) else {
                panic!("{} without {field} is not recognised", kind.name());
            };
            assert_eq!(found, kind, "{} without {field}", kind.name());
            let violations = found.check(&broken, true);
            let required = kind.fields().contains(field)
                && !matches!(
                    field.as_str(),
                    "generated_at"
                        | "code"
                        | "evidence"
                        | "base_ref"
                        | "commands"
                        | "time_budget_s"
                        | "suggested_next"
                        | "diff"
                );
            if required {
                assert!(
                    violations.iter().any(|v| v.path == format!("/{field}")),
                    "{} without {field}: {violations:?}",
                    kind.name()
                );
            }
        }
    }
}

#[test]
fn documents_sharing_one_field_or_none_are_not_envelopes() {
    for value in [
        json!({}),
        json!([]),
        json!("text"),
        json!({"run_id": "x"}),
        json!({"id": "demo", "name": "Demo"}),
    ] {
        assert_eq!(EnvelopeKind::recognise(&value), None, "{value}");
    }
}
