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
