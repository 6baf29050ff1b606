//! Scenarios address roles by name, mode and position; keys are resolved
//! once against the playbook, and a key matching nothing is refused with a
//! short, actionable message.

use playbook_orchestrator::event::Outcome;
use playbook_orchestrator::scenario::{RoleMapping, Scenario};
use playbook_orchestrator::{ErrorCode, load_playbook};

use crate::{read, repo_dir, run, scenario};

const SHIPPED: &[&str] = &[
    "happy-path",
    "review-fails-twice",
    "retry-exhausted-escalates",
    "disallowed-tool",
    "missing-output-field",
    "invalid-role-assignment-json",
    "lock-conflict",
];

fn example(name: &str) -> String {
    read(&repo_dir().join(format!("playbooks/{name}.yaml")))
}

/// Renames a role everywhere it is referenced (name and handoffs).
fn rename(playbook: &str, from: &str, to: &str) -> String {
    playbook
        .lines()
        .map(|line| {
            let trimmed = line.trim_start();
            if trimmed == format!("- name: {from}") {
                line.replace(from, to)
            } else if trimmed.starts_with("handoff_to:") {
                let (head, list) = line.split_once(':').unwrap();
                let list = list
                    .replace(&format!("[{from}]"), &format!("[{to}]"))
                    .replace(&format!("[{from},"), &format!("[{to},"))
                    .replace(&format!(" {from}]"), &format!(" {to}]"))
                    .replace(&format!(" {from},"), &format!(" {to},"));
                format!("{head}:{list}")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn refusal(jsonl: &str) -> Option<String> {
    jsonl
        .lines()
        .find(|l| l.contains("\"type\":\"run_refused\""))
        .map(str::to_string)
}

#[test]
fn every_shipped_scenario_previews_a_playbook_whose_worker_is_renamed() {
    let tdd = rename(&example("tdd"), "worker", "coder");
    assert!(tdd.contains("- name: coder") && !tdd.contains("- name: worker"));
    for name in SHIPPED {
        let preview = run(&tdd, &scenario(name), 0);
        assert!(
            refusal(&preview.jsonl).is_none(),
            "{name} is refused on tdd with coder: {:?}",
            refusal(&preview.jsonl)
        );
    }
    // The stories still happen under the new names.
    let looped = run(&tdd, &scenario("review-fails-twice"), 0);
    assert_eq!(looped.report.outcome, Some(Outcome::Passed));
    assert_eq!(looped.report.tasks[0].iterations.get("coder"), Some(&3));
    let missing = run(&tdd, &scenario("missing-output-field"), 0);
    assert!(missing.jsonl.contains("OUTPUT_MISSING_FIELD"));
}

#[test]
fn every_shipped_scenario_fits_every_example_with_every_role_renamed() {
    for playbook in ["tdd", "pairing", "compound-engineering"] {
        let mut text = example(playbook);
        for role in ["planner", "worker", "reviewer", "tester"] {
            text = rename(&text, role, &format!("my_{role}"));
        }
        for name in SHIPPED {
            let preview = run(&text, &scenario(name), 0);
            assert!(
                refusal(&preview.jsonl).is_none(),
                "{name} is refused on renamed {playbook}: {:?}",
                refusal(&preview.jsonl)
            );
        }
    }
}

const TWO_WORKERS: &str = "schema_version: \"1.0.0\"\nid: sel\nname: Sel\nworkflow:
  build:
    roles:
      - name: a
        mode: worker
        outputs_contract: {required: [summary]}
        handoff_to: [r]
      - name: b
        mode: worker
        outputs_contract: {required: [summary]}
        handoff_to: [r]
      - name: r
        mode: reviewer
        outputs_contract: {required: [verdict, issues]}
        gates: {pass_condition: review_passed}
        handoff_to: [a]
        retry_policy: {max_iterations: 2}
";

fn resolved(scenario: &str) -> Result<Vec<(String, String)>, String> {
    let playbook = load_playbook(TWO_WORKERS).expect("valid");
    let scenario = Scenario::parse(scenario).expect("parses");
    scenario
        .resolution(&playbook)
        .map(|r| r.roles.into_iter().collect())
        .map_err(|e| {
            assert_eq!(e.code, ErrorCode::ScenarioInvalid);
            e.message
        })
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn selectors_resolve_by_name_position_and_mode() {
    assert_eq!(
        resolved("roles: {mode:worker: {}}").unwrap(),
        pairs(&[("a", "mode:worker"), ("b", "mode:worker")])
    );
    assert_eq!(
        resolved("roles: {mode:worker#2: {}}").unwrap(),
        pairs(&[("b", "mode:worker#2")])
    );
    assert_eq!(
        resolved("roles: {stage:build#3: {}}").unwrap(),
        pairs(&[("r", "stage:build#3")])
    );
    assert_eq!(
        resolved("roles: {stage:build: {}}").unwrap(),
        pairs(&[
            ("a", "stage:build"),
            ("b", "stage:build"),
            ("r", "stage:build")
        ])
    );
}

#[test]
fn the_most_precise_key_wins_whatever_the_order() {
    // name > position > group, in either order of the keys.
    for text in [
        "roles: {mode:worker: {}, stage:build#2: {}, a: {}}",
        "roles: {a: {}, stage:build#2: {}, mode:worker: {}}",
    ] {
        assert_eq!(
            resolved(text).unwrap(),
            pairs(&[("a", "a"), ("b", "stage:build#2")]),
            "{text}"
        );
    }
}

#[test]
fn keys_of_equal_precision_on_one_role_are_ambiguous() {
    let message = resolved("roles: {mode:worker#1: {}, stage:build#1: {}}").unwrap_err();
    assert!(message.contains("ambiguous"), "{message}");
    assert!(message.contains("`mode:worker#1`") && message.contains("`stage:build#1`"));
    assert!(message.contains("role `a`"), "{message}");
    let message = resolved("roles: {mode:worker: {}, stage:build: {}}").unwrap_err();
    assert!(message.contains("same precedence (group)"), "{message}");
}

#[test]
fn unmatched_selectors_say_what_would_match() {
    let cases: &[(&str, &[&str])] = &[
        (
            "mode:tester",
            &["`mode:tester`", "worker: 2", "reviewer: 1"],
        ),
        (
            "mode:worker#3",
            &["only 2 role(s) of mode worker", "a, b", "1 to 2"],
        ),
        ("mode:worker#0", &["count from 1"]),
        ("mode:worker#x", &["not a position"]),
        (
            "mode:revewer",
            &["did you mean `mode:reviewer`", "not a mode"],
        ),
        ("stage:biuld", &["did you mean `stage:build`"]),
        ("stage:build#9", &["only 3 role(s) in stage build"]),
        ("mode:", &["names no mode"]),
        ("worker", &["no role `worker`", "`a` or `b`", "mode:worker"]),
    ];
    for (key, needles) in cases {
        let message = resolved(&format!("roles: {{'{key}': {{}}}}")).unwrap_err();
        for needle in *needles {
            assert!(message.contains(needle), "{key}: {message} lacks {needle}");
        }
    }
}

/// A playbook with many roles: a refusal names a few candidates and the
/// count, never every role.
#[test]
fn a_refusal_on_a_large_playbook_stays_short() {
    let mut text = String::from(
        "schema_version: \"1.0.0\"\nid: big\nname: Big\nworkflow:\n  build:\n    roles:\n",
    );
    for i in 0..150 {
        text.push_str(&format!(
            "      - name: role_{i:03}\n        mode: worker\n"
        ));
    }
    let playbook = load_playbook(&text).expect("valid");
    for key in ["worker", "role_1000", "mode:worker#151", "stage:build#200"] {
        let scenario = Scenario::parse(&format!("roles: {{'{key}': {{}}}}")).unwrap();
        let message = scenario.resolution(&playbook).unwrap_err().message;
        let named = (0..150)
            .filter(|i| message.contains(&format!("role_{i:03}")))
            .count();
        assert!(named <= 3, "{key}: names {named} roles: {message}");
        assert!(
            message.len() < 700,
            "{key}: {} bytes: {message}",
            message.len()
        );
    }
    let message = Scenario::parse("roles: {worker: {}}")
        .unwrap()
        .resolution(&playbook)
        .unwrap_err()
        .message;
    assert!(message.contains("150 role(s)"), "the count: {message}");
    // Many bad keys: the first few explained, the rest counted.
    let keys: Vec<String> = (0..40).map(|i| format!("ghost_{i}: {{}}")).collect();
    let scenario = Scenario::parse(&format!("roles: {{{}}}", keys.join(", "))).unwrap();
    let message = scenario.resolution(&playbook).unwrap_err().message;
    assert!(message.contains("35 more key(s)"), "{message}");
    assert!(message.len() < 2000, "{}", message.len());
}

#[test]
fn a_long_key_is_cut_in_messages() {
    let key = "k".repeat(100_000);
    let message = resolved(&format!("roles: {{{key}: {{}}}}")).unwrap_err();
    assert!(message.len() < 1000, "{}", message.len());
}

#[test]
fn a_role_named_like_a_selector_is_still_its_name() {
    let text = TWO_WORKERS.replace("- name: b", "- name: 'mode:reviewer'");
    let playbook = load_playbook(&text);
    // Whether such a name is valid is the playbook's business; when it is,
    // the key addresses the role itself.
    if let Ok(playbook) = playbook {
        let scenario = Scenario::parse("roles: {'mode:reviewer': {}}").unwrap();
        let roles = scenario.resolution(&playbook).unwrap().roles;
        assert_eq!(roles.keys().collect::<Vec<_>>(), ["mode:reviewer"]);
    }
}

#[test]
fn the_engine_refuses_an_unresolved_scenario_before_any_role_runs() {
    let preview = run(TWO_WORKERS, "roles: {mode:tester: {}}", 0);
    assert_eq!(preview.report.outcome, Some(Outcome::Refused));
    let line = refusal(&preview.jsonl).expect("refused");
    assert!(
        line.contains("SCENARIO_INVALID") && line.contains("mode:tester"),
        "{line}"
    );
}

#[test]
fn a_mode_script_plays_every_role_of_the_mode() {
    let preview = run(
        TWO_WORKERS,
        "input: {tasks: [{id: T-1, title: t}]}\nroles: {mode:reviewer: {default: {output: {verdict: fail, issues: [x]}}}}",
        0,
    );
    assert!(
        preview.jsonl.contains("RETRY_LIMIT") || preview.report.outcome != Some(Outcome::Passed)
    );
}

#[test]
fn unmatched_keys_come_with_candidates_best_first() {
    let tdd = load_playbook(&rename(&example("tdd"), "worker", "coder")).unwrap();
    let scenario = Scenario::parse("roles: {worker: {}, reviewer: {}, ghost: {}}").unwrap();
    let unmatched = scenario.unmatched(&tdd);
    assert_eq!(unmatched.len(), 2, "{unmatched:?}");
    assert_eq!(unmatched[0].selector, "worker");
    assert_eq!(
        unmatched[0].candidates.first().map(String::as_str),
        Some("coder")
    );
    assert!(unmatched[0].candidates.contains(&"test_author".to_string()));
    assert_eq!(unmatched[1].selector, "ghost");
}

#[test]
fn a_mapping_re_keys_the_scenario() {
    let tdd = load_playbook(&rename(&example("tdd"), "worker", "coder")).unwrap();
    let mut scenario = Scenario::parse(&read(
        &repo_dir().join("crates/playbook-orchestrator/tests/fixtures/scenarios/named-worker.yaml"),
    ))
    .unwrap();
    assert!(scenario.check_against(&tdd).is_err());
    scenario
        .map_roles(&[RoleMapping::parse("worker=coder").unwrap()], &tdd)
        .unwrap();
    scenario.check_against(&tdd).expect("mapped");
    let mut again = scenario.clone();
    let err = again
        .map_roles(&[RoleMapping::parse("ghost=coder").unwrap()], &tdd)
        .unwrap_err();
    assert!(err.message.contains("no role `ghost`"), "{}", err.message);
    let err = again
        .map_roles(&[RoleMapping::parse("reviewer=coder").unwrap()], &tdd)
        .unwrap_err();
    assert!(
        err.message.contains("both be keyed `coder`"),
        "{}",
        err.message
    );
    for bad in ["", "=", "worker", "=coder", "worker="] {
        assert!(RoleMapping::parse(bad).is_err(), "{bad}");
    }
}

/// Resolving is linear in keys plus roles, and explaining misses has a
/// bounded cost, whatever the sizes: a refusal never hangs the editor. No
/// clock is asserted (tests never time the machine); a quadratic
/// explanation here would take hours, which the test run does not survive.
#[test]
fn resolving_many_keys_against_many_long_named_roles_is_fast() {
    let mut text = String::from(
        "schema_version: \"1.0.0\"\nid: big\nname: Big\nworkflow:\n  build:\n    roles:\n",
    );
    for i in 0..5000 {
        text.push_str(&format!(
            "      - name: {}_{i:05}\n        mode: worker\n",
            "r".repeat(150)
        ));
    }
    let playbook = load_playbook(&text).expect("valid");
    let mut keys = String::from("roles:\n");
    for i in 0..3000 {
        keys.push_str(&format!("  mode:worker#{}: {{}}\n", i + 1));
        keys.push_str(&format!("  {}_{i:05}x: {{}}\n", "q".repeat(150)));
    }
    let scenario = Scenario::parse(&keys).unwrap();
    let message = scenario.resolution(&playbook).unwrap_err().message;
    let unmatched = scenario.unmatched(&playbook);
    let checked = playbook_orchestrator::scenario::check::check_text(&keys, Some(&playbook));
    assert!(message.contains("more key(s)"), "{}", message.len());
    assert!(unmatched.len() <= 50 && checked.problems.len() <= 51);
}

/// Regression (sweep B, repro 9): `--map worker=nobody` onto a role the
/// playbook lacks blamed the scenario and advised `--map nobody=ROLE`,
/// which fails. The refusal names the target and the roles for `worker`.
#[test]
fn a_mapping_onto_a_role_the_playbook_lacks_names_the_target_and_candidates_for_the_key() {
    let tdd = load_playbook(&rename(&example("tdd"), "worker", "coder")).unwrap();
    let mut scenario = Scenario::parse(&read(
        &repo_dir().join("crates/playbook-orchestrator/tests/fixtures/scenarios/named-worker.yaml"),
    ))
    .unwrap();
    let err = scenario
        .map_roles(&[RoleMapping::parse("worker=nobody").unwrap()], &tdd)
        .unwrap_err();
    assert!(
        err.message
            .contains("the target `nobody` is not a role of the playbook"),
        "{}",
        err.message
    );
    assert!(err.message.contains("`worker=coder`"), "{}", err.message);
    assert!(!err.message.contains("nobody=ROLE"), "{}", err.message);
    // A selector that matches a role is a target too.
    let mut scenario = Scenario::parse(&read(
        &repo_dir().join("crates/playbook-orchestrator/tests/fixtures/scenarios/named-worker.yaml"),
    ))
    .unwrap();
    scenario
        .map_roles(&[RoleMapping::parse("worker=mode:worker#2").unwrap()], &tdd)
        .expect("a position selector");
}
