//! A legacy (agenterm) playbook previews as its format meant it: named
//! gates ask a person, agenterm's run inputs are there, 0 is "not set".

use playbook_orchestrator::{Approval, preview};

use crate::{events, read, repo_dir};

fn legacy(path: &str) -> String {
    read(&repo_dir().join(path))
}

const GOAL: &str = "input: {goal: Write the guide}\n";

#[test]
fn named_gates_are_manual_approvals_and_the_run_passes() {
    let text = legacy("tests/fixtures/lints/pb009-legacy-agenterm.yaml");
    let run = preview(&text, GOAL, 0, Approval::Auto).expect("a legacy playbook previews");
    let events = events(&run);
    let asked: Vec<String> = events
        .iter()
        .filter_map(|e| serde_json::to_value(e).ok())
        .filter(|e| e["type"] == "approval_requested")
        .map(|e| e["subject"].as_str().unwrap_or_default().to_string())
        .collect();
    for gate in [
        "user_approval",
        "outline_signed_off",
        "draft_committed",
        "draft_approved",
    ] {
        assert!(
            asked.iter().any(|s| s.contains(gate)),
            "no approval asked for `{gate}`: {asked:?}"
        );
    }
    assert_eq!(
        run.report.outcome,
        Some(playbook_orchestrator::event::Outcome::Passed),
        "{}",
        run.jsonl
    );

    // Denied, a named gate stops the task like any manual gate.
    let denied = preview(&text, GOAL, 0, Approval::Deny).unwrap();
    assert_ne!(
        denied.report.outcome,
        Some(playbook_orchestrator::event::Outcome::Passed)
    );
}

#[test]
fn every_legacy_fixture_previews() {
    for path in [
        "tests/fixtures/legacy/agenterm-phases.yaml",
        "tests/fixtures/legacy/agenterm-two-documents.yaml",
    ] {
        let run = preview(&legacy(path), GOAL, 0, Approval::Auto)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(
            run.report.outcome,
            Some(playbook_orchestrator::event::Outcome::Passed),
            "{path}: {}",
            run.jsonl
        );
    }
}
