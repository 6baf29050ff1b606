//! Every record a run produces honours the wire contracts it claims:
//! orchestrator outputs, the handoff bundle and every worklog entry pass the
//! typed checks of `playbook-contracts` in strict mode (codes from
//! docs/error-codes.md, ISO-8601 UTC timestamps, ids, unknown fields).

use playbook_contracts::EnvelopeKind;
use serde::Serialize;

use crate::{fixture_playbook, run, scenario};

const SCENARIOS: &[&str] = &[
    "happy-path",
    "review-fails-twice",
    "retry-exhausted-escalates",
    "disallowed-tool",
    "missing-output-field",
    "invalid-role-assignment-json",
    "lock-conflict",
];

#[track_caller]
fn conforms<T: Serialize>(kind: EnvelopeKind, what: &str, record: &T) {
    let value = serde_json::to_value(record).unwrap();
    let violations = kind.check(&value, true);
    assert!(
        violations.is_empty(),
        "{what} ({}): {violations:?}",
        kind.name()
    );
}

#[test]
fn every_record_of_every_shipped_scenario_honours_its_contract() {
    for playbook in ["tdd", "pairing", "compound-engineering"] {
        for name in SCENARIOS {
            let preview = run(&fixture_playbook(playbook), &scenario(name), 0);
            let report = &preview.report;
            let what = format!("{playbook} × {name}");
            for output in &report.outputs {
                conforms(EnvelopeKind::OrchestratorOutput, &what, output);
            }
            if let Some(bundle) = &report.handoff {
                conforms(EnvelopeKind::HandoffBundle, &what, bundle);
            }
            let mut entries = 0;
            for (_, log) in report.worklogs.tasks() {
                for entry in log {
                    conforms(EnvelopeKind::WorklogEntry, &what, entry);
                    entries += 1;
                }
            }
            assert!(entries > 0, "{what} writes worklogs");
        }
    }
}

/// The scripted agent hands its result envelope over typed, not as JSON; a
/// faulty one must be refused with the same code as the same envelope sent
/// as JSON (which is parsed and schema-checked).
#[test]
fn a_typed_result_is_refused_exactly_as_the_same_json_result() {
    use serde_json::{Value, json};
    let faults: Vec<(&str, Value)> = vec![
        (
            "unknown field in a check",
            json!({ "acceptance_check": [{ "criterion": "c", "status": "pass", "evidence": "e", "bogus": 1 }] }),
        ),
        (
            "unknown field in a change",
            json!({ "changes": [{ "resource": "src/a.rs", "action": "modified", "bogus": 1 }] }),
        ),
        (
            "six notes",
            json!({ "notes": ["a", "b", "c", "d", "e", "f"] }),
        ),
        ("a blank note", json!({ "notes": ["  "] })),
        ("done without checks", json!({ "acceptance_check": [] })),
        (
            "done with a failing check",
            json!({ "acceptance_check": [{ "criterion": "c", "status": "fail", "evidence": "e" }] }),
        ),
        (
            "done with blank evidence",
            json!({ "acceptance_check": [{ "criterion": "c", "status": "pass", "evidence": " " }] }),
        ),
    ];
    let violation_codes = |preview: &playbook_orchestrator::Preview| -> Vec<String> {
        crate::events(preview)
            .iter()
            .filter_map(|e| match &e.event {
                playbook_orchestrator::Event::ContractViolation { code, .. } => {
                    Some(code.as_str().to_string())
                }
                _ => None,
            })
            .collect()
    };
    for (what, turn) in faults {
        let scenario = |turn: Value| {
            json!({
                "input": { "goal": "g", "tasks": [{ "id": "T-1", "title": "one", "acceptance_criteria": ["c"] }] },
                "roles": { "test_author": { "default": turn } },
            })
            .to_string()
        };
        let typed = run(&fixture_playbook("tdd"), &scenario(turn.clone()), 4);
        let typed_codes = violation_codes(&typed);
        assert!(!typed_codes.is_empty(), "{what}: refused");
        // The same envelope, as JSON text the engine parses.
        let result = json!({
            "schema_version": "1.0.0",
            "run_id": typed.report.run_id,
            "task_id": "T-1",
            "status": "done",
            "changes": turn.get("changes").cloned().unwrap_or(json!([])),
            "acceptance_check": turn.get("acceptance_check").cloned().unwrap_or(
                json!([{ "criterion": "c", "status": "pass", "evidence": "checked by test_author (scripted)" }])
            ),
            "worklog_path": "worklogs/T-1.jsonl",
            "notes_for_orchestrator": turn.get("notes").cloned().unwrap_or(json!([])),
        });
        let json_run = run(
            &fixture_playbook("tdd"),
            &scenario(json!({ "result": result })),
            4,
        );
        assert_eq!(typed_codes, violation_codes(&json_run), "{what}");
    }
}
