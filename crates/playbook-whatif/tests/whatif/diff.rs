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

/// The reproduction: a retry limit of 2 against 5, one run of each (and
/// two, and three). Before, every mean had a zero-width interval and seven
/// changes were flagged from a single run.
#[test]
fn a_handful_of_runs_flags_nothing_significant() {
    let model = SimModel::parse(MODEL).unwrap();
    for runs in [1, 2, 3] {
        let options = Options {
            runs,
            seed: 3,
            ..Options::default()
        };
        let d = behaviour(
            &review_loop(2),
            &review_loop(5),
            &model,
            &options,
            &AtomicBool::new(false),
            &|_| {},
        )
        .unwrap();
        assert!(!d.changes.is_empty(), "{runs} run(s)");
        let flagged: Vec<&str> = d
            .changes
            .iter()
            .filter(|c| c.significant)
            .map(|c| c.sentence.as_str())
            .collect();
        assert!(flagged.is_empty(), "{runs} run(s): {flagged:?}");
        if runs == 1 {
            assert!(
                d.to_text().contains("(no 95 % CI: fewer than 2 values)"),
                "{}",
                d.to_text()
            );
        }
    }
}

/// A side whose values are all equal still has an interval, narrow for
/// many runs: a real change against it stays significant.
#[test]
fn a_change_from_a_constant_figure_is_still_significant_over_many_runs() {
    // With a retry limit of 1 the reviewer is called exactly once per task.
    let d = diff(3, 1);
    let reviewer = d
        .changes
        .iter()
        .find(|c| c.metric == "mean calls of `reviewer` per task")
        .unwrap();
    assert_eq!(reviewer.after, 1.0);
    let [lo, hi] = reviewer.after_ci.unwrap();
    assert!(lo < 1.0 && 1.0 < hi && hi - lo < 0.02, "{lo}–{hi}");
    assert!(reviewer.significant, "{reviewer:?}");
}

/// A change that moves tasks from one ending to another is listed by the
/// ending: review rounds running out is the way the failing tasks end, and
/// a lower limit makes more of them end that way.
#[test]
fn how_tasks_that_did_not_pass_ended_is_compared() {
    let d = diff(3, 1);
    let ended: Vec<_> = d
        .changes
        .iter()
        .filter(|c| c.metric.starts_with("tasks ending "))
        .collect();
    assert!(!ended.is_empty(), "{:?}", d.changes);
    let rounds = ended
        .iter()
        .find(|c| c.metric.contains("RETRY_LIMIT"))
        .unwrap_or_else(|| panic!("{ended:?}"));
    // (1/2)^3 → (1/2)^1 of the tasks.
    assert!(rounds.before < 0.2 && rounds.after > 0.4, "{rounds:?}");
    assert!(rounds.significant, "{rounds:?}");
    assert!(diff(3, 3).changes.is_empty());
}
