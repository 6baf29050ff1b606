//! Each drawn outcome reaches the engine as the answer it stands for, and
//! iteration overrides and mode keys apply where they say.

use crate::run;

fn playbook(escalate_on: &str) -> playbook_core::Playbook {
    let text = format!(
        r#"schema_version: "1.0.0"
id: loop
name: Loop
workflow:
  build:
    roles:
      - name: worker
        mode: worker
        outputs_contract:
          required: [summary]
        actions_allowed: [read_file]
        handoff_to: [reviewer]
        retry_policy:
          max_iterations: 2
          escalate_on: [{escalate_on}]
      - name: reviewer
        mode: reviewer
        outputs_contract:
          required: [verdict, issues]
        gates:
          pass_condition: review_passed
        handoff_to: [worker]
        retry_policy:
          max_iterations: 2
          escalate_on: [retry_limit]
"#
    );
    playbook_orchestrator::load_playbook(&text).expect("valid")
}

const CLEAN: &str =
    "defaults: {pass: 1, violation: 0, blocked_tool: 0, needs_input: 0, error: 0}\n";

#[test]
fn every_outcome_reaches_the_engine_as_its_trigger() {
    for (field, trigger) in [
        ("violation", "contract_violation"),
        ("blocked_tool", "tool_blocked"),
        ("needs_input", "needs_input"),
        ("error", "agent_error"),
    ] {
        let model = format!("{CLEAN}roles:\n  worker: {{pass: 0, {field}: 1}}\n");
        let report = run(&playbook(trigger), &model, 30, 1);
        let rate = report.escalation_by_trigger.get(trigger);
        assert_eq!(
            rate.map(|r| r.rate),
            Some(1.0),
            "{field}: {:?}",
            report.escalation_by_trigger
        );
    }
}

#[test]
fn iteration_overrides_apply_to_the_kth_call() {
    // Reviewer passes with 0.2 on its first call and 0.9 on its second;
    // escalation (both fail) is 0.8 × 0.1 = 0.08.
    let model = format!(
        "{CLEAN}roles:\n  mode:reviewer: {{pass: 0.2, iterations: {{2: {{pass: 0.9}}}}}}\n"
    );
    let report = run(&playbook("retry_limit"), &model, 3000, 11);
    assert!(
        report.escalation.ci[0] <= 0.08 && 0.08 <= report.escalation.ci[1],
        "{:?}",
        report.escalation
    );
    let reviewer = report.model.iter().find(|m| m.role == "reviewer").unwrap();
    assert_eq!(reviewer.overrides[0].0, 2);
    assert_eq!(reviewer.overrides[0].1.values.pass, 0.9);
}

#[test]
fn costs_add_up_per_call_in_the_models_unit() {
    let model = format!(
        "{CLEAN}cost_unit: USD\nroles:\n  worker: {{cost: 0.5}}\n  reviewer: {{cost: 2}}\n"
    );
    let report = run(&playbook("retry_limit"), &model, 10, 1);
    // Every call passes: one worker and one reviewer call per run.
    assert_eq!(report.cost_unit, "USD");
    assert!((report.cost.mean - 2.5).abs() < 1e-9, "{:?}", report.cost);
    assert_eq!(report.costliest_loop.as_deref(), Some("worker ⇄ reviewer"));
}
