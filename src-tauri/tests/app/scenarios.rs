//! Scenarios in the app: checked live against the open playbook, mapped
//! onto a playbook named differently, kept with a library playbook, and run.

use playbook_orchestrator::Outcome;
use playbook_orchestrator::scenario::RoleMapping;
use playbook_studio::api::{ApprovalMode, ApprovalPrompt, PreviewRequest};
use playbook_studio::approvals::AskTheUser;
use playbook_studio::library::Library;
use playbook_studio::{preview, scenarios};
use serde_json::Value;

const TDD: &str = include_str!("../../../playbooks/tdd.yaml");
const NAMED: &str = "input: {tasks: [{id: T-1, title: Fix it}]}\nroles:\n  worker:\n    default: {tool_calls: [read_file]}\n  reviewer:\n    iterations:\n      - output: {verdict: fail, issues: [Not yet]}\n";

/// tdd.yaml with `worker` renamed to `coder`, as a document.
fn coder() -> Value {
    let text = TDD
        .replace("- name: worker", "- name: coder")
        .replace("handoff_to: [worker]", "handoff_to: [coder]");
    yaml_serde::from_str(&text).unwrap()
}

fn nobody() -> Option<AskTheUser<fn(&ApprovalPrompt)>> {
    None
}

fn request(
    scenario: &str,
    source: Option<&str>,
    mapping: Option<Vec<RoleMapping>>,
) -> PreviewRequest {
    PreviewRequest {
        scenario: scenario.into(),
        seed: 7,
        approvals: ApprovalMode::Scenario,
        playbook: None,
        base: None,
        scenario_source: source.map(str::to_string),
        mapping,
    }
}

#[test]
fn a_check_puts_each_problem_at_its_place_and_lists_unmatched_keys() {
    let checked = scenarios::check(&coder(), NAMED);
    assert_eq!(checked.unmatched.len(), 1);
    assert_eq!(checked.unmatched[0].selector, "worker");
    assert_eq!(checked.unmatched[0].candidates[0], "coder");
    let at_key = checked
        .problems
        .iter()
        .find(|p| p.path == "/roles/worker")
        .expect("a problem at the key");
    assert_eq!(at_key.location.map(|l| l.line), Some(3), "{at_key:?}");
    assert!(checked.scenario.is_some(), "a valid scenario all the same");

    let typo = scenarios::check(
        &coder(),
        "roles:\n  mode:reviewer:\n    default:\n      verdict: fail\n",
    );
    let problem = typo.problems.first().expect("an unknown field");
    assert!(
        problem.path.starts_with("/roles/mode:reviewer/default"),
        "{problem:?}"
    );
    assert!(problem.location.is_some(), "{problem:?}");
    assert!(typo.scenario.is_none());

    let broken = scenarios::check(&coder(), "roles: [\n");
    assert!(
        broken.problems[0].location.is_some(),
        "{:?}",
        broken.problems
    );

    // A document that is not a playbook yet: the text is still checked.
    let alone = scenarios::check(&Value::Null, NAMED);
    assert!(alone.problems.is_empty() && alone.unmatched.is_empty());
}

#[test]
fn the_form_s_scenario_renders_as_yaml_that_checks_back_to_itself() {
    let checked = scenarios::check(
        &coder(),
        "roles:\n  mode:worker#1:\n    default: {tool_calls: [read_file]}\n",
    );
    let value = checked.scenario.unwrap();
    let text = scenarios::render(value.clone()).unwrap();
    assert!(text.contains("mode:worker#1"), "{text}");
    assert_eq!(scenarios::check(&coder(), &text).scenario, Some(value));
    assert!(scenarios::render(serde_json::json!({"roles": 3})).is_err());
}

#[test]
fn a_mapped_scenario_previews_a_renamed_playbook() {
    let refused = preview::run(
        coder(),
        &request("mine", Some(NAMED), None),
        None,
        nobody(),
        |_| {},
    )
    .unwrap();
    assert_eq!(refused.outcome, Some(Outcome::Refused));
    let mapping = vec![RoleMapping::parse("worker=coder").unwrap()];
    let mapped = preview::run(
        coder(),
        &request("mine", Some(NAMED), Some(mapping)),
        None,
        nobody(),
        |_| {},
    )
    .unwrap();
    assert_eq!(mapped.outcome, Some(Outcome::Passed));
    let wrong = vec![RoleMapping::parse("ghost=coder").unwrap()];
    assert!(
        preview::run(
            coder(),
            &request("mine", Some(NAMED), Some(wrong)),
            None,
            nobody(),
            |_| {}
        )
        .is_err()
    );
    // Every shipped scenario runs unmapped.
    for shipped in preview::scenarios() {
        let run = preview::run(
            coder(),
            &request(&shipped.id, None, None),
            None,
            nobody(),
            |_| {},
        )
        .unwrap();
        assert_ne!(run.outcome, Some(Outcome::Refused), "{}", shipped.id);
    }
}

#[test]
fn a_library_playbook_keeps_its_own_scenarios() {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::open(dir.path().join("library.db"));
    // The new library is seeded with the examples, tdd among them.
    assert!(library.scenarios("tdd").unwrap().is_empty());
    library.save_scenario("tdd", "slow review", NAMED).unwrap();
    let err = library
        .save_scenario("tdd", "broken", "roles: [")
        .unwrap_err();
    assert!(err.message.contains("not saved"), "{}", err.message);
    let listed = library.scenarios("tdd").unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].content, NAMED);
    assert!(library.delete_scenario("tdd", "slow review").unwrap());
    assert!(library.scenarios("tdd").unwrap().is_empty());
}
