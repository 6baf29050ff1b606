//! Every shipped scenario against the example playbooks: expected events out.

use playbook_orchestrator::event::Outcome;

use crate::{fixture_playbook, read, repo_dir, run, scenario, trace};

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
fn check(playbook: &str, name: &str) {
    let preview = run(&fixture_playbook(playbook), &scenario(name), 0);
    insta::assert_snapshot!(format!("{playbook}__{name}"), trace(&preview));
}

#[test]
fn tdd_scenarios_give_the_expected_events() {
    for name in SCENARIOS {
        check("tdd", name);
    }
}

#[test]
fn pairing_scenarios_give_the_expected_events() {
    for name in SCENARIOS {
        check("pairing", name);
    }
}

#[test]
fn compound_engineering_scenarios_give_the_expected_events() {
    for name in SCENARIOS {
        check("compound-engineering", name);
    }
}

/// The shipped example playbooks (which their authors may edit) and the
/// shipped scenarios keep their documented outcomes.
#[test]
fn shipped_scenarios_reach_their_documented_outcome_on_every_example_playbook() {
    for playbook in ["tdd", "pairing", "compound-engineering"] {
        let text = read(&repo_dir().join(format!("playbooks/{playbook}.yaml")));
        for name in SCENARIOS {
            let preview = run(&text, &scenario(name), 0);
            let outcome = preview.report.outcome;
            let expected: &[Outcome] = match *name {
                "happy-path"
                | "review-fails-twice"
                | "disallowed-tool"
                | "invalid-role-assignment-json" => &[Outcome::Passed],
                "retry-exhausted-escalates" | "lock-conflict" => &[Outcome::Blocked],
                // Failed, or blocked where the loop escalates contract violations.
                "missing-output-field" => &[Outcome::Failed, Outcome::Blocked],
                _ => unreachable!(),
            };
            assert!(
                outcome.is_some_and(|o| expected.contains(&o)),
                "{name} on {playbook} ended {outcome:?}, expected one of {expected:?}"
            );
            let jsonl = &preview.jsonl;
            let must_contain: &[&str] = match *name {
                "review-fails-twice" => &["\"reason\":\"sent_back\""],
                "retry-exhausted-escalates" => {
                    &["\"type\":\"escalated\"", "\"code\":\"RETRY_LIMIT\""]
                }
                "disallowed-tool" => &["\"type\":\"tool_call_blocked\"", "TOOL_NOT_ALLOWED"],
                "missing-output-field" => &["OUTPUT_MISSING_FIELD"],
                "invalid-role-assignment-json" => {
                    &["\"source\":\"fallback\"", "ROLE_ASSIGNMENT_INVALID"]
                }
                "lock-conflict" => &["\"type\":\"task_waiting\"", "WAIT_TIMEOUT"],
                _ => &[],
            };
            for needle in must_contain {
                assert!(
                    jsonl.contains(needle),
                    "{name} on {playbook} must log {needle}"
                );
            }
        }
    }
}

#[test]
fn the_review_loop_passes_on_the_third_round_and_reports_its_loop_state() {
    let preview = run(&fixture_playbook("tdd"), &scenario("review-fails-twice"), 0);
    let task = &preview.report.tasks[0];
    assert_eq!(
        task.iterations.get("reviewer"),
        Some(&3),
        "two failing reviews, then a pass"
    );
    assert_eq!(
        task.iterations.get("worker"),
        Some(&3),
        "the worker fixes after each failing review"
    );
    assert_eq!(task.last_verdict.as_deref(), Some("pass"));
    assert!(
        preview.jsonl.contains(
            "\"type\":\"iteration\",\"task_id\":\"T-1\",\"role\":\"reviewer\",\"k\":3,\"n\":3"
        ),
        "the progress shows round 3 of 3"
    );
}

#[test]
fn a_planner_output_creates_the_build_tasks() {
    let preview = run(&fixture_playbook("tdd"), &scenario("happy-path"), 0);
    assert!(
        preview
            .jsonl
            .contains("\"type\":\"tasks_created\",\"by\":\"T-1\",\"task_ids\":[\"T-2\",\"T-3\"]")
    );
    assert_eq!(
        preview.report.tasks.len(),
        3,
        "the goal task and the two planned tasks"
    );
}
