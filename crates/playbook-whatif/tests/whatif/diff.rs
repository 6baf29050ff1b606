//! The behavioural diff: the same model and seeds on two versions.

use std::sync::atomic::AtomicBool;

use playbook_whatif::{Options, SimModel, behaviour};

use crate::review_loop;

const MODEL: &str = "defaults: {pass: 1, violation: 0, blocked_tool: 0, needs_input: 0, error: 0}\nroles:\n  reviewer: {pass: 0.5}\n";

fn diff(a: u32, b: u32) -> playbook_whatif::diff::BehaviourDiff {
    let model = SimModel::parse(MODEL).unwrap();
    let options = Options {
        runs: 600,
        seed: 5,
        ..Options::default()
    };
    behaviour(
        &review_loop(a),
        &review_loop(b),
        &model,
        &options,
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap()
}

#[test]
fn the_same_version_twice_changes_nothing() {
    let d = diff(3, 3);
    assert!(d.changes.is_empty(), "{:?}", d.changes);
    assert!(d.to_text().contains("no figure changed"));
}

#[test]
fn a_lower_retry_limit_raises_escalations_significantly() {
    let d = diff(3, 1);
    let esc = d
        .changes
        .iter()
        .find(|c| c.metric == "escalations")
        .unwrap();
    // (1/2)^3 → (1/2)^1.
    assert!(esc.before < 0.2 && esc.after > 0.4, "{esc:?}");
    assert!(esc.significant);
    assert!(
        esc.sentence.starts_with("escalations 1"),
        "{}",
        esc.sentence
    );
    let bound = d
        .changes
        .iter()
        .find(|c| c.metric == "worst-case calls per task in stage `build`")
        .unwrap();
    assert_eq!(
        bound.sentence,
        "worst-case calls per task in stage `build` 6 → 2"
    );
    assert!(
        !bound.significant,
        "a figure without an interval is never flagged"
    );
    // Significant changes come first.
    let first_plain = d.changes.iter().position(|c| !c.significant).unwrap();
    assert!(d.changes[first_plain..].iter().all(|c| !c.significant));
}

#[test]
fn a_model_role_of_only_one_version_is_accepted_in_a_diff() {
    let model = SimModel::parse("roles:\n  reviewer: {pass: 0.5}\n").unwrap();
    let text = "schema_version: \"1.0.0\"\nid: solo\nname: Solo\nworkflow:\n  build:\n    roles:\n      - name: worker\n";
    let solo = playbook_orchestrator::load_playbook(text).unwrap();
    let options = Options {
        runs: 20,
        ..Options::default()
    };
    let d = behaviour(
        &solo,
        &review_loop(2),
        &model,
        &options,
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap();
    assert!(
        d.notes.iter().any(|n| n.contains("role `reviewer` is new")),
        "{:?}",
        d.notes
    );
    let unknown = SimModel::parse("roles:\n  ghost: {pass: 0.5}\n").unwrap();
    assert!(
        behaviour(
            &solo,
            &review_loop(2),
            &unknown,
            &options,
            &AtomicBool::new(false),
            &|_| {}
        )
        .is_err()
    );
}
