//! Malformed, huge or lying input is caught with a code; never a panic or a hang.

use playbook_orchestrator::event::Outcome;
use playbook_orchestrator::scenario::{MAX_SCENARIO_BYTES, Scenario};
use playbook_orchestrator::{Approval, ErrorCode, PreviewError, preview};

use crate::{fixture_playbook, run};

fn one_task(extra: &str) -> String {
    format!(
        "input:\n  goal: g\n  tasks:\n    - id: T-1\n      title: t\n      acceptance_criteria: [it works]\n{extra}"
    )
}

#[test]
fn a_malformed_scenario_is_refused_with_scenario_invalid() {
    let err = preview(
        &fixture_playbook("tdd"),
        "roles: [unclosed",
        0,
        Approval::Auto,
    )
    .unwrap_err();
    let PreviewError::Scenario(e) = err else {
        panic!("expected a scenario error")
    };
    assert_eq!(e.code, ErrorCode::ScenarioInvalid);
}

#[test]
fn a_huge_scenario_is_refused_before_parsing() {
    let huge = "#".repeat(MAX_SCENARIO_BYTES + 1);
    assert_eq!(
        Scenario::parse(&huge).unwrap_err().code,
        ErrorCode::ScenarioInvalid
    );
}

#[test]
fn a_scenario_for_a_role_the_playbook_lacks_is_refused() {
    let preview = run(
        &fixture_playbook("pairing"),
        "roles:\n  architect:\n    default: {}\n",
        0,
    );
    assert_eq!(preview.report.outcome, Some(Outcome::Refused));
    assert!(preview.jsonl.contains("SCENARIO_INVALID"));
}

#[test]
fn an_explicit_unknown_role_stops_the_run_with_a_validation_failure() {
    let scenario = "input:\n  tasks:\n    - title: t\n      role: architect\n";
    let preview = run(&fixture_playbook("pairing"), scenario, 0);
    assert_eq!(preview.report.outcome, Some(Outcome::Refused));
    assert!(
        preview.jsonl.contains("ROLE_UNKNOWN"),
        "roles are never inferred"
    );
}

#[test]
fn an_explicit_role_is_used_without_asking_the_assigner() {
    let scenario = "input:\n  tasks:\n    - title: t\n      role: worker\nrole_assignment:\n  default: 'garbage'\n";
    let preview = run(&fixture_playbook("pairing"), scenario, 0);
    assert!(
        preview
            .jsonl
            .contains("\"stage\":\"build\",\"role\":\"worker\",\"source\":\"explicit\"")
    );
}

#[test]
fn a_playbook_with_errors_is_not_run() {
    let playbook = "id: x\nname: X\nworkflow:\n  build:\n    roles:\n      - name: a\n        handoff_to: [nobody]\n";
    let preview = run(playbook, "", 0);
    assert_eq!(preview.report.outcome, Some(Outcome::Refused));
    assert!(preview.jsonl.contains("PLAYBOOK_INVALID") && preview.jsonl.contains("PB301"));
    assert_eq!(
        preview.report.steps, 0,
        "no agent runs for an invalid playbook"
    );
}

#[test]
fn output_that_is_not_json_is_a_contract_violation() {
    let scenario = one_task("roles:\n  reviewer:\n    default:\n      output_text: 'LGTM!'\n");
    let preview = run(&fixture_playbook("pairing"), &scenario, 0);
    assert!(preview.jsonl.contains("OUTPUT_NOT_JSON"));
}

#[test]
fn a_result_that_claims_done_with_failing_checks_is_caught() {
    let scenario = one_task(
        "roles:\n  worker:\n    default:\n      status: done\n      acceptance_check:\n        - {criterion: it works, status: fail, evidence: 'tests fail'}\n",
    );
    let preview = run(&fixture_playbook("pairing"), &scenario, 0);
    assert!(
        preview.jsonl.contains("RESULT_INCONSISTENT"),
        "a lie about completion is a contract violation"
    );
    assert_ne!(preview.report.outcome, Some(Outcome::Passed));
}

#[test]
fn a_result_with_too_many_notes_or_unknown_fields_is_invalid() {
    let scenario = one_task("roles:\n  worker:\n    default:\n      notes: [a, b, c, d, e, f]\n");
    let preview = run(&fixture_playbook("pairing"), &scenario, 0);
    assert!(
        preview.jsonl.contains("RESULT_INVALID"),
        "notes_for_orchestrator holds at most 5"
    );
}

#[test]
fn an_agent_that_calls_tools_forever_is_stopped_by_the_tool_call_limit() {
    let calls = vec!["read_file"; 100].join(", ");
    let scenario = one_task(&format!(
        "limits: {{max_tool_calls: 10}}\nroles:\n  worker:\n    default:\n      tool_calls: [{calls}]\n"
    ));
    let preview = run(&fixture_playbook("pairing"), &scenario, 0);
    assert!(preview.jsonl.contains("TOOL_CALL_LIMIT"));
}

#[test]
fn a_slow_agent_times_out_in_virtual_time() {
    let scenario = one_task("roles:\n  worker:\n    default:\n      duration_ms: 99999999\n");
    let preview = run(&fixture_playbook("pairing"), &scenario, 0);
    assert!(preview.jsonl.contains("AGENT_TIMEOUT"));
}

#[test]
fn an_agent_that_needs_input_escalates_where_the_loop_lists_needs_input() {
    let scenario =
        one_task("roles:\n  worker:\n    default:\n      needs_input: [Which database?]\n");
    let preview = run(&fixture_playbook("pairing"), &scenario, 0);
    assert!(
        preview.jsonl.contains("\"trigger\":\"needs_input\""),
        "pairing's review loop escalates needs_input"
    );
    assert_eq!(preview.report.outcome, Some(Outcome::Blocked));
}

#[test]
fn denied_approval_blocks_the_mutating_call_before_it_runs() {
    let scenario = one_task("roles:\n  worker:\n    default:\n      tool_calls: [edit_file]\n");
    let preview = preview(&fixture_playbook("pairing"), &scenario, 0, Approval::Deny).unwrap();
    assert!(preview.jsonl.contains("\"type\":\"approval_denied\""));
    assert!(
        !preview.jsonl.contains("\"type\":\"tool_call_allowed\",\"task_id\":\"T-1\",\"role\":\"worker\",\"tool\":\"edit_file\""),
        "a denied mutating call never runs"
    );
}

#[test]
fn the_stop_policy_ends_the_run_cleanly_after_a_violation() {
    let scenario = format!(
        "on_violation: stop\n{}",
        "input:\n  tasks:\n    - {id: T-1, title: a}\n    - {id: T-2, title: b}\nroles:\n  planner:\n    default: {output_text: 'nope'}\n"
    );
    let preview = run(&fixture_playbook("pairing"), &scenario, 0);
    assert_eq!(preview.report.outcome, Some(Outcome::Stopped));
    assert!(
        preview.jsonl.contains("RUN_STOPPED"),
        "the remaining task is canceled"
    );
}

#[test]
fn a_failed_preflight_stops_the_run_with_a_report() {
    let scenario =
        "preflight:\n  - {name: issue template, path: .github/ISSUE_TEMPLATE/milestone-task.yml}\n";
    let preview = run(&fixture_playbook("pairing"), scenario, 0);
    assert_eq!(preview.report.outcome, Some(Outcome::Refused));
    assert!(preview.jsonl.contains("PREFLIGHT_FAILED") && preview.jsonl.contains("does not exist"));
}

#[test]
fn a_wrong_value_in_a_scenario_is_refused_at_its_place_with_its_fix() {
    // Each wrong value, whatever serde makes of it (an untagged enum says only
    // that no variant matched), is named by pointer, line and a fix.
    for (value, says) in [
        ("\"abc\"", "integer"),
        ("-5", "minimum"),
        ("1e300", "fits none of the forms"),
        ("{min: 5}", "max"),
        ("[1, 2]", "integer"),
    ] {
        let text = format!("roles:\n  worker:\n    default:\n      duration_ms: {value}\n");
        let e = Scenario::parse(&text).unwrap_err();
        assert_eq!(e.code, ErrorCode::ScenarioInvalid);
        assert!(
            e.message.contains("/roles/worker/default/duration_ms") && e.message.contains("line 4"),
            "{value}: {}",
            e.message
        );
        assert!(e.message.contains(says), "{value}: {}", e.message);
        assert!(!e.message.contains("untagged enum"), "{}", e.message);
    }
    let e = Scenario::parse(&one_task(
        "roles:\n  worker:\n    default:\n      tool_calls: 7\n",
    ))
    .unwrap_err();
    assert!(
        e.message.contains("/roles/worker/default/tool_calls") && e.message.contains("line 10"),
        "{}",
        e.message
    );
}

#[test]
fn a_huge_wrong_value_is_not_echoed_whole() {
    let big: Vec<String> = (0..2_000).map(|i| format!("k{i}: {i}")).collect();
    let text = format!(
        "roles:\n  worker:\n    default:\n      duration_ms: {{{}}}\n",
        big.join(", ")
    );
    let e = Scenario::parse(&text).unwrap_err();
    assert!(
        e.message.contains("/roles/worker/default/duration_ms"),
        "{}",
        e.message
    );
    assert!(
        e.message.len() < 1_000,
        "{} bytes: {}",
        e.message.len(),
        e.message
    );
    let check = playbook_orchestrator::scenario::check::check_text(&text, None);
    assert!(!check.problems.is_empty());
    for p in &check.problems {
        assert!(
            p.message.len() < 1_000,
            "{} bytes: {}",
            p.message.len(),
            p.message
        );
    }
}

#[test]
fn run_inputs_are_read_as_a_scenario_input_and_refused_at_their_place() {
    use playbook_orchestrator::scenario::RunInput;
    let input = RunInput::parse("goal: g\ntasks:\n  - id: T-1\n    title: t\n").unwrap();
    assert_eq!((input.goal.as_str(), input.tasks.len()), ("g", 1));
    assert_eq!(RunInput::parse("").unwrap(), RunInput::default());
    let e = RunInput::parse("goal: g\ntasks:\n  - id: T-1\n    title: [t]\n").unwrap_err();
    assert!(
        e.message.contains("/tasks/0/title") && e.message.contains("line 4"),
        "{}",
        e.message
    );
    let e = RunInput::parse("goal: g\nsurprise: 1\n").unwrap_err();
    assert!(e.message.contains("surprise"), "{}", e.message);
    let e =
        RunInput::parse("tasks:\n  - id: T-1\n    title: t\n    timeout_seconds: 99999999999\n")
            .unwrap_err();
    assert!(e.message.contains("timeout_seconds"), "{}", e.message);
    let e = RunInput::parse(&"#".repeat(MAX_SCENARIO_BYTES + 1)).unwrap_err();
    assert_eq!(e.code, ErrorCode::ScenarioInvalid);
}

/// Regression (sweep B, repro 8): names of a scenario that point at nothing
/// were ignored (a dependency on no task, a cap on no role, an assigner
/// answer for no task or stage, a script for no task), while an unknown
/// `roles` key is refused. Each is refused the same way, at its pointer,
/// with a fix; the run never starts an agent.
#[test]
fn names_a_scenario_makes_that_point_at_nothing_refuse_the_run() {
    let cases = [
        (
            "input:\n  tasks:\n    - {id: T-1, title: a, dependencies: [T-9]}\n",
            "/input/tasks/0/dependencies/0",
            "T-9",
        ),
        (
            "input:\n  tasks:\n    - {id: T-1, title: a}\ncaps:\n  roles: {ghost: 1}\n",
            "/caps/roles/ghost",
            "ghost",
        ),
        (
            "input:\n  tasks:\n    - {id: T-1, title: a}\nrole_assignment:\n  tasks: {T-99: '{\"role\": \"worker\"}'}\n",
            "/role_assignment/tasks/T-99",
            "T-99",
        ),
        (
            "input:\n  tasks:\n    - {id: T-1, title: a}\nrole_assignment:\n  stages: {deploy: '{\"role\": \"worker\"}'}\n",
            "/role_assignment/stages/deploy",
            "deploy",
        ),
        (
            "input:\n  tasks:\n    - {id: T-1, title: a}\nroles:\n  mode:reviewer:\n    tasks:\n      T-42: {default: {output: {verdict: fail}}}\n",
            "/roles/mode:reviewer/tasks/T-42",
            "T-42",
        ),
    ];
    for (scenario, pointer, name) in cases {
        let preview = run(&fixture_playbook("tdd"), scenario, 0);
        assert_eq!(preview.report.outcome, Some(Outcome::Refused), "{pointer}");
        assert!(preview.jsonl.contains("SCENARIO_INVALID"), "{pointer}");
        assert!(
            preview.jsonl.contains(pointer) && preview.jsonl.contains(name),
            "the refusal names {name} at {pointer}: {}",
            preview.jsonl.lines().next().unwrap_or_default()
        );
        assert_eq!(preview.report.steps, 0, "{pointer}: no agent ran");
    }
}

/// A circle of dependencies used to wait ten virtual minutes and end in
/// WAIT_TIMEOUT; no task of it could ever start, so it is refused at once.
#[test]
fn a_circle_of_dependencies_is_refused_before_the_run() {
    let scenario = "input:\n  tasks:\n    - {id: T-1, title: a, dependencies: [T-3]}\n    - {id: T-2, title: b, dependencies: [T-1]}\n    - {id: T-3, title: c, dependencies: [T-2]}\n    - {id: T-4, title: d, dependencies: [T-4]}\n";
    let preview = run(&fixture_playbook("tdd"), scenario, 0);
    assert_eq!(preview.report.outcome, Some(Outcome::Refused));
    assert!(preview.jsonl.contains("SCENARIO_INVALID"));
    assert!(
        preview.jsonl.contains("circle") && preview.jsonl.contains("depends on itself"),
        "{}",
        preview.jsonl.lines().next().unwrap_or_default()
    );
    assert!(!preview.jsonl.contains("WAIT_TIMEOUT"));
}

/// Only what cannot exist is refused: without input tasks, the goal is T-1
/// and a planner's tasks are T-2, T-3...; a scenario may script them.
#[test]
fn tasks_a_plan_may_create_can_be_named_before_they_exist() {
    let tdd = fixture_playbook("tdd");
    let planned = "role_assignment:\n  tasks: {T-3: '{\"role\": \"worker\"}'}\nroles:\n  mode:reviewer:\n    tasks:\n      T-2: {default: {output: {verdict: pass, issues: []}}}\n";
    let preview = run(&tdd, planned, 0);
    assert_ne!(
        preview.report.outcome,
        Some(Outcome::Refused),
        "{}",
        preview.jsonl.lines().next().unwrap_or_default()
    );
    for never in ["T-0", "T-02", "task-2"] {
        let scenario =
            format!("role_assignment:\n  tasks: {{{never}: '{{\"role\": \"worker\"}}'}}\n");
        let preview = run(&tdd, &scenario, 0);
        assert_eq!(preview.report.outcome, Some(Outcome::Refused), "{never}");
    }
    // A playbook whose planner never runs has only the goal task.
    let unplanned = tdd.replacen(
        "  plan:\n    enabled: true\n",
        "  plan:\n    enabled: false\n",
        1,
    );
    assert_ne!(unplanned, tdd);
    let preview = run(&unplanned, "role_assignment:\n  tasks: {T-2: '{}'}\n", 0);
    assert_eq!(preview.report.outcome, Some(Outcome::Refused));
}

/// A real run's input (`playbook run --input`) is checked as it is read,
/// at the line of the dependency, before a repository is prepared.
#[test]
fn a_run_input_with_a_dangling_or_circular_dependency_is_refused_at_its_line() {
    use playbook_orchestrator::scenario::RunInput;
    let e = RunInput::parse("tasks:\n  - id: T-1\n    title: a\n    dependencies: [T-9]\n")
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ScenarioInvalid);
    assert!(
        e.message.contains("/tasks/0/dependencies/0") && e.message.contains("line 4"),
        "{}",
        e.message
    );
    let e = RunInput::parse(
        "tasks:\n  - {id: T-1, title: a, dependencies: [T-2]}\n  - {id: T-2, title: b, dependencies: [T-1]}\n",
    )
    .unwrap_err();
    assert!(e.message.contains("T-1 → T-2 → T-1"), "{}", e.message);
    RunInput::parse(
        "tasks:\n  - {id: T-1, title: a}\n  - {id: T-2, title: b, dependencies: [T-1]}\n",
    )
    .expect("a dependency on a task of the input");
}

/// Regression (schema sweep): the typed read proves no pattern of the
/// published schema, so a scenario the schema refuses was read and run:
/// `schema_version: 1.banana` (only a leading `1.` was checked) and a lock
/// held by task `zzz`. Both are refused as the schema refuses them, at
/// their place, in a scenario and in a run input file alike.
#[test]
fn what_the_schema_patterns_refuse_is_refused() {
    for (text, at) in [
        (
            "schema_version: \"1.banana\"\nname: s\n",
            "at /schema_version (line 1, column 1)",
        ),
        ("schema_version: \"1.0\"\n", "at /schema_version"),
        (
            "input:\n  goal: g\n  active_locks:\n    - {task_id: zzz, resource: src/, active: true}\n",
            "at /input/active_locks/0/task_id (line 4, ",
        ),
    ] {
        let error = Scenario::parse(text).unwrap_err();
        assert_eq!(error.code, ErrorCode::ScenarioInvalid, "{text}");
        assert!(error.message.contains(at), "{text}: {}", error.message);
        assert!(
            error.message.contains("does not match"),
            "{}",
            error.message
        );
    }
    let error = playbook_orchestrator::scenario::RunInput::parse(
        "goal: g\nactive_locks:\n  - {task_id: T-x, resource: src/, active: true}\n",
    )
    .unwrap_err();
    assert!(
        error
            .message
            .contains("at /active_locks/0/task_id (line 3, "),
        "{}",
        error.message
    );
    // What the patterns allow is still read.
    let ok = "schema_version: \"1.12.0\"\ninput:\n  goal: g\n  active_locks:\n    - {task_id: T-7, resource: src/, active: true}\n";
    Scenario::parse(ok).unwrap();
    // And these are every pattern the schema has: a new one must be added
    // to `check::unproven_pattern` too.
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(crate::repo_dir().join("schemas/scenario.schema.json")).unwrap(),
    )
    .unwrap();
    let mut patterns = Vec::new();
    let mut stack = vec![(String::new(), &schema)];
    while let Some((at, value)) = stack.pop() {
        match value {
            serde_json::Value::Object(map) => {
                if map.get("pattern").is_some_and(serde_json::Value::is_string) {
                    patterns.push(at.clone());
                }
                stack.extend(map.iter().map(|(k, v)| (format!("{at}/{k}"), v)));
            }
            serde_json::Value::Array(items) => {
                stack.extend(items.iter().map(|v| (at.clone(), v)));
            }
            _ => {}
        }
    }
    patterns.sort();
    assert_eq!(
        patterns,
        [
            "/$defs/ActiveLock/properties/task_id",
            "/properties/schema_version"
        ]
    );
}
