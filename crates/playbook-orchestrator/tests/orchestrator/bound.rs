//! The static worst case is a real worst case: random playbooks, run with
//! adversarial scenarios (agents that fail, err or break their contract,
//! role assignment sending tasks to every role of every stage), never make
//! more agent calls for a task in a stage than the bound says.

use std::collections::HashMap;

use proptest::prelude::*;
use serde_json::Value;

use playbook_orchestrator::bound::stage_bounds;
use playbook_orchestrator::{Approval, load_playbook, preview};

#[derive(Debug, Clone, Copy)]
enum Turn {
    Pass,
    FailGate,
    AgentError,
    OmitOutput,
}

#[derive(Debug, Clone)]
struct RoleSpec {
    /// Indices into the flattened role list; `None` keeps the stage order.
    handoff: Option<Vec<usize>>,
    max_iterations: Option<u32>,
    turns: Vec<Turn>,
    default_turn: Turn,
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        1 => Just(Turn::Pass),
        6 => Just(Turn::FailGate),
        1 => Just(Turn::AgentError),
        1 => Just(Turn::OmitOutput),
    ]
}

fn role() -> impl Strategy<Value = RoleSpec> {
    (
        prop::option::weighted(0.7, prop::collection::vec(0usize..12, 0..3)),
        prop::option::weighted(0.8, 1u32..5),
        prop::collection::vec(turn(), 0..5),
        turn(),
    )
        .prop_map(|(handoff, max_iterations, turns, default_turn)| RoleSpec {
            handoff,
            max_iterations,
            turns,
            default_turn,
        })
}

fn stages() -> impl Strategy<Value = Vec<Vec<RoleSpec>>> {
    prop::collection::vec(prop::collection::vec(role(), 1..5), 1..4)
}

fn turn_yaml(turn: Turn) -> &'static str {
    match turn {
        Turn::Pass => "{output: {verdict: pass}}",
        Turn::FailGate => "{output: {verdict: fail}}",
        Turn::AgentError => "{error: the model call failed}",
        Turn::OmitOutput => "{omit: [verdict]}",
    }
}

/// The playbook and the scenario of one case.
fn texts(stages: &[Vec<RoleSpec>], parallel: u32) -> (String, String) {
    let count: usize = stages.iter().map(Vec::len).sum();
    let mut playbook = String::from("schema_version: \"1.0.0\"\nid: prop\nname: Prop\nworkflow:\n");
    let mut scenario = String::from("input:\n  goal: g\n  tasks:\n");
    let mut assignment = String::from("role_assignment:\n  tasks:\n");
    let mut scripts = String::from("roles:\n");
    let mut index = 0;
    for (s, roles) in stages.iter().enumerate() {
        playbook.push_str(&format!(
            "  s{s}:\n    stage_policy: {{ max_parallel_worktrees: {parallel} }}\n    roles:\n"
        ));
        for spec in roles {
            let name = format!("r{index}");
            playbook.push_str(&format!(
                "      - name: {name}\n        mode: worker\n        allowed_agents: [scripted]\n        \
                 inputs_required: [task]\n        outputs_contract: {{ type: r, required: [verdict] }}\n        \
                 actions_allowed: [read_file]\n        gates: {{ pass_condition: \"verdict == 'pass'\" }}\n"
            ));
            if let Some(targets) = &spec.handoff {
                let names: Vec<String> =
                    targets.iter().map(|t| format!("r{}", t % count)).collect();
                playbook.push_str(&format!("        handoff_to: [{}]\n", names.join(", ")));
            }
            if let Some(n) = spec.max_iterations {
                playbook.push_str(&format!(
                    "        retry_policy: {{ max_iterations: {n}, escalate_on: [retry_limit] }}\n"
                ));
            }
            // One task per role, assigned straight to it: every entry of
            // every stage is tried.
            let task = index + 1;
            scenario.push_str(&format!("    - {{id: T-{task}, title: t{task}}}\n"));
            assignment.push_str(&format!(
                "    T-{task}: '{{\"role\": \"{name}\", \"rationale\": \"worst case\"}}'\n"
            ));
            let turns: Vec<&str> = spec.turns.iter().map(|t| turn_yaml(*t)).collect();
            scripts.push_str(&format!(
                "  {name}:\n    iterations: [{}]\n    default: {}\n",
                turns.join(", "),
                turn_yaml(spec.default_turn)
            ));
            index += 1;
        }
    }
    scenario.push_str(&assignment);
    scenario.push_str(&scripts);
    (playbook, scenario)
}

/// Agent calls per (stage, worktree): the calls one worktree ran one after
/// another.
fn calls_per_worktree(jsonl: &str) -> HashMap<(String, u64), u64> {
    let mut worktree_of = HashMap::new();
    let mut calls = HashMap::new();
    for line in jsonl.lines() {
        let event: Value = serde_json::from_str(line).expect("each event is JSON");
        let task = event["task_id"].as_str().unwrap_or_default().to_string();
        let stage = event["stage"].as_str().unwrap_or_default().to_string();
        match event["type"].as_str() {
            Some("task_assigned") => {
                let worktree = event["worktree"].as_u64().expect("a worktree number");
                worktree_of.insert((task, stage), worktree);
            }
            Some("agent_invoked") => {
                let worktree = worktree_of[&(task, stage.clone())];
                *calls.entry((stage, worktree)).or_insert(0) += 1;
            }
            _ => {}
        }
    }
    calls
}

fn calls_per_task_and_stage(jsonl: &str) -> HashMap<(String, String), u32> {
    let mut calls = HashMap::new();
    for line in jsonl.lines() {
        let event: Value = serde_json::from_str(line).expect("each event is JSON");
        if event["type"] == "agent_invoked" {
            let key = (
                event["task_id"].as_str().unwrap_or_default().to_string(),
                event["stage"].as_str().unwrap_or_default().to_string(),
            );
            *calls.entry(key).or_insert(0) += 1;
        }
    }
    calls
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn no_run_exceeds_its_static_bound(stages in stages(), parallel in 1u32..4, seed in any::<u64>()) {
        let (playbook_text, scenario) = texts(&stages, parallel);
        // Random flows may be invalid (an unbounded loop, say): those are
        // refused before they run, so they have no bound to keep.
        let Ok(playbook) = load_playbook(&playbook_text) else {
            return Ok(());
        };
        let run = preview(&playbook_text, &scenario, seed, Approval::Auto).expect("the scenario parses");
        if run.jsonl.contains("\"type\":\"run_refused\"") {
            return Ok(());
        }
        let tasks = run.report.tasks.len() as u32;
        let bounds = stage_bounds(&playbook, Some(tasks));
        let per_stage: HashMap<&str, u32> =
            bounds.iter().map(|b| (b.stage.as_str(), b.per_task)).collect();
        let calls = calls_per_task_and_stage(&run.jsonl);
        for ((task, stage), n) in &calls {
            let bound = per_stage[stage.as_str()];
            prop_assert!(
                *n <= bound,
                "task {task} made {n} calls in stage {stage}; the bound is {bound}\n{playbook_text}\n{scenario}"
            );
        }
        let sequential: HashMap<&str, u64> = bounds
            .iter()
            .map(|b| (b.stage.as_str(), b.sequential.expect("the tasks are known")))
            .collect();
        for ((stage, worktree), n) in calls_per_worktree(&run.jsonl) {
            let bound = sequential[stage.as_str()];
            prop_assert!(
                n <= bound,
                "worktree {worktree} ran {n} calls in stage {stage}; the sequential bound is {bound}\n{playbook_text}\n{scenario}"
            );
        }
        let total: u64 = calls.values().map(|&n| u64::from(n)).sum();
        let bound_total: u64 = bounds.iter().filter_map(|b| b.total).sum();
        prop_assert!(total <= bound_total, "{total} calls; the run's bound is {bound_total}");
        prop_assert_eq!(total, run.report.steps);
    }
}

/// `roles` roles of one stage handing off in a chain, `w0 → w1 → …`, the
/// last handing back to `w0`: one loop through every role, which `w0`
/// limits to 3 rounds.
fn handoff_loop(roles: usize) -> String {
    use std::fmt::Write as _;
    let mut text = String::from(
        "schema_version: 1.0.0\nid: chain\nname: Chain\nworkflow:\n  build:\n    roles:\n",
    );
    for i in 0..roles {
        let _ = write!(
            text,
            "      - name: w{i}\n        mode: worker\n        allowed_agents: [scripted]\n        \
             inputs_required: [task]\n        outputs_contract: {{type: r, required: [verdict]}}\n        \
             actions_allowed: [read_file]\n        handoff_to: [w{}]\n",
            (i + 1) % roles
        );
        if i == 0 {
            text.push_str(
                "        retry_policy: {max_iterations: 3, escalate_on: [retry_limit]}\n",
            );
        }
    }
    text
}

/// Tests run on threads with 2 MiB stacks: the loops under the bound and
/// the engine's setup were found by a walk that recursed once per role and
/// overflowed long before 20 000 of them, and the bound walked from every
/// role of the stage as an entry (quadratic). Both bounds are exact: a loop
/// through the chain costs each role its 3 rounds, the open chain each
/// role once.
#[test]
fn a_twenty_thousand_role_chain_has_its_bound_and_prepares_without_overflowing_the_stack() {
    use playbook_orchestrator::{Prepared, RunOptions, Scenario};
    const ROLES: usize = 20_000;
    let mut playbook = load_playbook(&handoff_loop(ROLES)).expect("a valid playbook");
    let bounds = stage_bounds(&playbook, Some(2));
    assert_eq!(bounds.len(), 1);
    assert_eq!(bounds[0].per_task, 3 * ROLES as u32);
    assert_eq!(bounds[0].total, Some(6 * ROLES as u64));

    // The engine's setup (validation, loops, escalation, bounds), which
    // every preview and what-if run starts from.
    let scenario = Scenario::default();
    let prepared = Prepared::new(&playbook, &scenario, &RunOptions::default().validation);
    assert_eq!(prepared.playbook().workflow.len(), 1);

    // Opened: the last role ends the stage.
    let roles = playbook.workflow[0].roles.as_mut().expect("roles");
    roles[ROLES - 1].handoff_to = None;
    let bounds = stage_bounds(&playbook, Some(2));
    assert_eq!(bounds[0].per_task, ROLES as u32);
}

/// One role, six tasks, two worktrees, the first task slow: while it holds
/// one worktree the other runs the five others back to back. The bound's
/// longest sequence must say five, not ⌈6 / 2⌉ = 3.
#[test]
fn one_worktree_can_run_every_task_the_others_do_not_hold() {
    let playbook = "schema_version: \"1.0.0\"\nid: seq\nname: Sequential\nworkflow:\n  build:\n    \
        stage_policy: { max_parallel_worktrees: 2 }\n    roles:\n      - name: worker\n        \
        mode: worker\n        allowed_agents: [scripted]\n        inputs_required: [task]\n        \
        outputs_contract: { type: r, required: [summary] }\n        actions_allowed: [read_file]\n";
    let tasks: String = (1..=6)
        .map(|i| format!("    - {{ id: T-{i}, title: t{i} }}\n"))
        .collect();
    let scenario = format!(
        "input:\n  goal: g\n  tasks:\n{tasks}roles:\n  worker:\n    default: {{ duration_ms: 1000 }}\n    \
         tasks:\n      T-1: {{ default: {{ duration_ms: 100000 }} }}\n"
    );
    let run = preview(playbook, &scenario, 0, Approval::Auto).expect("the scenario parses");
    let longest = calls_per_worktree(&run.jsonl).into_values().max();
    let bounds = stage_bounds(&load_playbook(playbook).unwrap(), Some(6));
    assert_eq!(longest, Some(5), "{}", run.jsonl);
    assert_eq!(bounds[0].sequential, Some(5));
}

/// The engine routes within a stage and never to the role that just ran: a
/// cycle through another stage and a role naming itself are no loops. Their
/// limits stay with their roles, and the bound counts each such role once.
#[test]
fn a_cycle_through_another_stage_or_a_role_naming_itself_is_no_loop() {
    let playbook = r#"schema_version: "1.0.0"
id: cross
name: Cross
workflow:
  plan:
    roles:
      - name: planner
        mode: planner
        handoff_to: [worker]
        retry_policy: { max_iterations: 1, escalate_on: [retry_limit] }
  build:
    roles:
      - name: worker
        mode: worker
        handoff_to: [reviewer, worker]
      - name: reviewer
        mode: reviewer
        handoff_to: [worker, planner]
        retry_policy: { max_iterations: 5, escalate_on: [retry_limit] }
  test:
    roles:
      - name: tester
        handoff_to: [tester]
        retry_policy: { max_iterations: 4 }
"#;
    let playbook = load_playbook(playbook).unwrap();
    let flow = playbook_core::flow::Flow::new(&playbook);
    assert_eq!(flow.loops(), vec![vec![1, 2]], "worker ⇄ reviewer only");
    let limits = playbook_orchestrator::bound::loop_bounds(&flow);
    assert_eq!(
        limits,
        [None, Some(5), Some(5), None],
        "the planner's 1 does not leak"
    );
    let per_task: Vec<u32> = stage_bounds(&playbook, None)
        .iter()
        .map(|b| b.per_task)
        .collect();
    assert_eq!(per_task, [1, 10, 1]);
}
