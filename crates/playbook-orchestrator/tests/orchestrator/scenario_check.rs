//! Checking scenario text for an editor: every problem at its place, never
//! a panic, and the unmatched keys with candidates for the mapping step.

use playbook_orchestrator::load_playbook;
use playbook_orchestrator::scenario::check::check_text;

use crate::{read, repo_dir};

fn tdd() -> playbook_core::Playbook {
    load_playbook(&read(&repo_dir().join("playbooks/tdd.yaml"))).unwrap()
}

#[test]
fn every_schema_problem_is_reported_at_its_path_and_line() {
    let text = "input:\n  goal: g\n  tasks:\n    - title: a\n      colour: red\nroles:\n  worker:\n    default:\n      verdict: fail\n";
    let checked = check_text(text, Some(&tdd()));
    let paths: Vec<&str> = checked.problems.iter().map(|p| p.path.as_str()).collect();
    assert!(paths.contains(&"/input/tasks/0"), "{paths:?}");
    assert!(paths.contains(&"/roles/worker/default"), "{paths:?}");
    for p in &checked.problems {
        assert!(p.location.is_some(), "{p:?}");
    }
    assert!(checked.scenario.is_none());
}

#[test]
fn a_valid_scenario_with_an_unknown_role_is_parsed_and_its_key_flagged() {
    let checked = check_text("roles:\n  ghost: {}\n  mode:reviewer: {}\n", Some(&tdd()));
    assert!(checked.scenario.is_some());
    assert_eq!(checked.problems.len(), 1, "{:?}", checked.problems);
    assert_eq!(checked.problems[0].path, "/roles/ghost");
    assert_eq!(checked.problems[0].location.map(|l| l.line), Some(2));
    assert_eq!(checked.unmatched.len(), 1);
    // Without a playbook only the text is checked.
    assert!(check_text("roles:\n  ghost: {}\n", None).is_ok());
}

#[test]
fn hostile_texts_give_problems_not_panics() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let big = "a".repeat(5 * 1024 * 1024);
    let keys: String = (0..2000).map(|i| format!("  r{i}: {{}}\n")).collect();
    let many = format!("roles:\n{keys}");
    for text in [
        "roles: [",
        "\u{feff}",
        "",
        "a: &a [*a]",
        "limits: {max_steps: 99999999999}",
        "roles: {'': {}}",
        "roles: {'mode:': {}, 'stage:#1': {}, 'mode:worker#99999999999999999999': {}}",
        deep.as_str(),
        big.as_str(),
        many.as_str(),
        "seed: -1",
        "input: {tasks: [{title: t, id: 'T-1'}, {title: u, id: 'T-1'}]}",
    ] {
        let checked = check_text(text, Some(&tdd()));
        let total: usize = checked.problems.iter().map(|p| p.message.len()).sum();
        assert!(
            total < 20_000,
            "{} bytes of problems for {:.40}",
            total,
            text
        );
    }
    let checked = check_text(&many, Some(&tdd()));
    assert!(checked.problems.len() <= 51, "{}", checked.problems.len());
    assert!(checked.unmatched.len() <= 50);
}

#[test]
fn names_that_point_at_nothing_are_flagged_at_their_place() {
    let text = "input:\n  tasks:\n    - {id: T-1, title: a, dependencies: [T-9]}\nrole_assignment:\n  stages: {deploy: x}\ncaps:\n  roles: {ghost: 1}\n";
    let checked = check_text(text, Some(&tdd()));
    let at: Vec<(&str, Option<usize>)> = checked
        .problems
        .iter()
        .map(|p| (p.path.as_str(), p.location.map(|l| l.line)))
        .collect();
    assert_eq!(
        at,
        [
            ("/input/tasks/0/dependencies/0", Some(3)),
            ("/role_assignment/stages/deploy", Some(5)),
            ("/caps/roles/ghost", Some(7)),
        ],
        "{:?}",
        checked.problems
    );
    // Without a playbook, what the input says of itself still counts.
    let alone = check_text(text, None);
    assert_eq!(alone.problems.len(), 1, "{:?}", alone.problems);
}
