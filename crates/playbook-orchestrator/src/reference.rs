//! The reference flow of the preview benchmark (`BENCHMARK-FLOW.md` of the
//! product brief): plan → build → test, a worker/reviewer loop with
//! `max_iterations: 3`, and N tasks where task *i* fails review twice when
//! `i % 3 == 0`, once when `i % 3 == 1`, and passes at once otherwise.
//! Every task passes; none escalates; 10 000 tasks cost 60 002 agent calls.
//!
//! Shared by the criterion benchmark, the `bench_flow` example that prints
//! the figures, and the tests that pin the step count.

use indexmap::IndexMap;
use serde_json::{Map, json};

use crate::scenario::{RoleScript, RunInput, Scenario, TaskInput, TaskScript, Turn};

/// The reference playbook.
pub const PLAYBOOK: &str = r#"schema_version: "1.0.0"
id: reference-flow
name: Reference preview flow
description: plan → build (worker ⇄ reviewer, at most 3 rounds) → test
workflow:
  plan:
    roles:
      - name: planner
        mode: planner
        allowed_agents: [scripted]
        inputs_required: [goal]
        outputs_contract: { type: plan_result, required: [spec_path, tasks] }
        actions_allowed: [read_file]
        gates: { pass_condition: plan_ready }
        handoff_to: []
  build:
    stage_policy: { exit_gate: review_passed, max_parallel_worktrees: 4 }
    roles:
      - name: worker
        mode: worker
        allowed_agents: [scripted]
        inputs_required: [task, spec_path]
        outputs_contract: { type: work_result, required: [commit_sha, summary] }
        actions_allowed: [read_file, run_tests]
        gates: { pass_condition: size(commit_sha) > 0 }
        handoff_to: [reviewer]
      - name: reviewer
        mode: reviewer
        allowed_agents: [scripted]
        inputs_required: [spec_path, commit_sha]
        outputs_contract: { type: review_result, required: [verdict, issues] }
        actions_allowed: [read_file, git_diff]
        gates: { pass_condition: review_passed }
        handoff_to: [worker]
        retry_policy: { max_iterations: 3, escalate_on: [retry_limit] }
  test:
    stage_policy: { exit_gate: tests_green }
    roles:
      - name: tester
        mode: tester
        allowed_agents: [scripted]
        inputs_required: [commit_sha]
        outputs_contract: { type: test_result, required: [failed_cases, report] }
        actions_allowed: [read_file, run_tests]
        gates: { pass_condition: tests_green }
        handoff_to: []
"#;

/// Agent calls the reference flow costs for `tasks` tasks: 8, 6 or 4 each.
pub fn expected_steps(tasks: usize) -> u64 {
    (0..tasks).map(|i| [8u64, 6, 4][i % 3]).sum()
}

/// The scenario of the reference flow for `tasks` tasks.
pub fn scenario(tasks: usize) -> Scenario {
    let fail = || {
        let mut output = Map::new();
        output.insert("verdict".into(), json!("fail"));
        output.insert("issues".into(), json!(["needs another round"]));
        Turn {
            output: Some(output),
            duration_ms: Some(crate::scenario::DurationSpec::Fixed(1000)),
            ..Default::default()
        }
    };
    let mut overrides = IndexMap::new();
    for i in 0..tasks {
        let failures = match i % 3 {
            0 => 2,
            1 => 1,
            _ => 0,
        };
        if failures > 0 {
            overrides.insert(
                format!("T-{}", i + 1),
                TaskScript {
                    default: None,
                    iterations: (0..failures).map(|_| fail()).collect(),
                },
            );
        }
    }
    let mut roles = IndexMap::new();
    roles.insert(
        "reviewer".to_string(),
        RoleScript {
            default: None,
            iterations: Vec::new(),
            tasks: overrides,
        },
    );
    Scenario {
        name: Some("reference-flow".into()),
        input: RunInput {
            goal: "Reference flow".into(),
            tasks: (0..tasks)
                .map(|i| TaskInput {
                    id: Some(format!("T-{}", i + 1)),
                    title: format!("Task {}", i + 1),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        },
        roles,
        ..Default::default()
    }
}
