//! Gates that match a regular expression (`matches`): the simulated agent
//! answers a text the pattern matches or one it does not, so the model's
//! shares hold; a pattern no text can answer, or one `matches` refuses, is
//! said in a note, and neither hangs nor panics.

use crate::gates::{CLEAN, review_loop, worker};
use crate::{assert_closed_form, run};

/// Notes about a role's gate.
fn gate_notes(report: &playbook_whatif::Report) -> Vec<&String> {
    report
        .notes
        .iter()
        .filter(|n| n.contains("pass_condition"))
        .collect()
}

#[test]
fn a_loop_with_a_matches_gate_has_the_closed_form_figures() {
    // A reviewer must answer a verdict (PB207); the nested gate ignores it.
    // The first gate held before `matches` was read only because the
    // default verdict, `pass`, matches it and the plain search's `fail` does
    // not; the others take a text made from the pattern.
    for (gate, required) in [
        (r#"verdict.matches("^(pass|lgtm)$")"#, "verdict"),
        (
            r#"verdict.matches("^(lgtm|approved)( v[0-9]+)?$")"#,
            "verdict",
        ),
        (r#"!verdict.matches("^(rework|reject)")"#, "verdict"),
        (
            r#"matches(verdict, "^(lgtm|approved)$") && size(issues) == 0"#,
            "verdict, issues",
        ),
        (r#"meta.tag.matches("^v[0-9]+\\.[0-9]+$")"#, "verdict, meta"),
    ] {
        for (p, n) in [(0.6, 3), (0.3, 2)] {
            let model = format!("{CLEAN}roles:\n  reviewer: {{pass: {p}}}\n");
            let report = run(&review_loop(n, gate, required), &model, 3000, 7);
            assert_closed_form(&report, p, n, gate);
            assert!(gate_notes(&report).is_empty(), "{gate}: {:?}", report.notes);
        }
    }
}

#[test]
fn a_worker_with_a_matches_gate_passes_its_share() {
    for gate in [
        r#"s.matches("^[A-Z]{3}-\\d{4}$") || size(s) > 5000"#,
        r#"s.matches("^a{1000}$")"#,
        r#"!s.matches("TODO|FIXME")"#,
    ] {
        let model = format!("{CLEAN}roles:\n  coder: {{pass: 0.6}}\n");
        let report = run(&worker(gate, "s"), &model, 1000, 3);
        let passing = &report.tasks_passing;
        assert!(
            passing.ci[0] <= 0.6 && 0.6 <= passing.ci[1],
            "{gate}: passing {passing:?}, notes {:?}",
            report.notes
        );
        assert!(gate_notes(&report).is_empty(), "{gate}: {:?}", report.notes);
    }
}

#[test]
fn a_pattern_no_answer_matches_is_said_and_fails_the_pass_share() {
    for (gate, why) in [
        (r#"s.matches("[^\\s\\S]")"#, "no text matches the pattern"),
        (
            r#"s.matches("^a{100000}$")"#,
            "is 100000 bytes long, more than a simulated output field holds",
        ),
    ] {
        let model = format!("{CLEAN}roles:\n  coder: {{pass: 0.6}}\n");
        let report = run(&worker(gate, "s"), &model, 300, 1);
        assert_eq!(report.tasks_passing.count, 0, "{gate}");
        let notes = gate_notes(&report);
        assert!(
            notes
                .iter()
                .any(|n| n.contains(why) && n.contains("`coder`")),
            "{gate}: {notes:?}"
        );
        assert!(
            notes
                .iter()
                .any(|n| n.contains("no output makes its pass_condition")),
            "{gate}: {notes:?}"
        );
    }
}

#[test]
fn a_pattern_matches_refuses_fails_every_call_and_is_said() {
    let gate = r#"s.matches("(unclosed")"#;
    let model = format!("{CLEAN}roles:\n  coder: {{pass: 0.6}}\n");
    let report = run(&worker(gate, "s"), &model, 300, 1);
    assert_eq!(report.tasks_passing.count, 0);
    let notes = gate_notes(&report);
    assert!(
        notes.iter().any(|n| n.contains(
            "`matches` refuses the pattern `(unclosed` (unclosed group): the gate cannot be evaluated"
        )),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("could not be evaluated over the output of 300 of 300 calls")),
        "{notes:?}"
    );
    // The engine fails a gate it cannot evaluate: no call drawn to fail
    // passed, whatever the draw.
    assert!(
        !notes.iter().any(|n| n.contains("passed instead")),
        "{notes:?}"
    );
    let failed = report.ended_without_passing.get("failed GATE_FAILED");
    assert_eq!(failed.map_or(0, |r| r.count), 300, "{report:?}");
}
