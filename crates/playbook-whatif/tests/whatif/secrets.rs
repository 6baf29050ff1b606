//! Names that read as credentials never come out of the what-if crate:
//! not in a report (text or JSON), a behavioural diff, a scenario's
//! outcome, nor a model's error. The simulation still runs on them.

use std::sync::atomic::AtomicBool;

use playbook_whatif::{Options, SimModel, behaviour, whatif};

use crate::review_loop;

const STAGE: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghij";
const ROLE: &str = "ghp_1234567890abcdefghijABCDEFGHIJ123456";

/// [`review_loop`] with its stage and reviewer named like credentials.
fn secretive() -> playbook_core::Playbook {
    let text = format!(
        r#"schema_version: "1.0.0"
id: loop
name: Loop
workflow:
  {STAGE}:
    roles:
      - name: worker
        mode: worker
        outputs_contract:
          required: [summary]
        handoff_to: [{ROLE}]
      - name: {ROLE}
        mode: reviewer
        outputs_contract:
          required: [verdict, issues]
        gates:
          pass_condition: review_passed
        handoff_to: [worker]
        retry_policy:
          max_iterations: 3
          escalate_on: [retry_limit]
"#
    );
    playbook_orchestrator::load_playbook(&text).expect("the playbook is valid")
}

fn assert_clean(what: &str, text: &str) {
    assert!(
        !text.contains("sk-ant-api03") && !text.contains("ghp_1234"),
        "{what} shows a secret:\n{text}"
    );
}

#[test]
fn a_report_names_credential_like_stages_and_roles_redacted() {
    let model = SimModel::parse(&format!(
        "defaults: {{pass: 1, violation: 0, blocked_tool: 0, needs_input: 0, error: 0}}\nroles:\n  {ROLE}: {{pass: 0.5, iterations: {{2: {{pass: 0.6}}}}}}\n"
    ))
    .unwrap();
    let options = Options {
        runs: 200,
        seed: 3,
        ..Options::default()
    };
    let report = whatif(
        &secretive(),
        &model,
        &options,
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap();
    let text = report.to_text();
    let json = serde_json::to_string(&report).unwrap();
    assert_clean("the text report", &text);
    assert_clean("the JSON report", &json);
    assert!(text.contains("[REDACTED]"), "{text}");
    // The reviewer's calls are counted under its redacted name: the
    // simulation ran on the name as written.
    let reviewer = report
        .roles
        .iter()
        .find(|r| r.role == "[REDACTED]")
        .unwrap();
    assert!(reviewer.calls.mean > 1.0, "{:?}", reviewer.calls);
    assert_eq!(report.stages[0].stage, "[REDACTED]");
}

#[test]
fn a_behavioural_diff_and_its_scenarios_name_them_redacted() {
    let model = SimModel::parse("roles:\n  mode:reviewer: {pass: 0.5}\n").unwrap();
    let options = Options {
        runs: 100,
        ..Options::default()
    };
    let diff = behaviour(
        &review_loop(3),
        &secretive(),
        &model,
        &options,
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap();
    assert!(
        diff.notes.iter().any(|n| n == "stage `[REDACTED]` is new"),
        "{:?}",
        diff.notes
    );
    assert_clean("the diff's text", &diff.to_text());
    assert_clean("the diff's JSON", &serde_json::to_string(&diff).unwrap());
    // A scenario that scripts the reviewer by name does not apply to the
    // other version: its outcome there quotes the role, redacted.
    let scenario = playbook_orchestrator::Scenario::parse(&format!(
        "schema_version: \"1.0.0\"\nname: secret\nroles:\n  {ROLE}:\n    default:\n      output: {{verdict: pass, issues: []}}\n"
    ))
    .unwrap();
    let change =
        playbook_whatif::diff::scenario_change(ROLE, &review_loop(3), &secretive(), &scenario, 1);
    assert!(change.before.starts_with("not applicable"), "{change:?}");
    assert!(change.before.contains("[REDACTED]"), "{change:?}");
    assert_eq!(change.scenario, "[REDACTED]");
    assert_clean("a scenario's outcome", &format!("{change:?}"));
}

#[test]
fn a_model_error_quotes_no_credential() {
    // A role key the playbook lacks: the pointer, the message and the
    // list of the playbook's roles all name it.
    let e = SimModel::parse_for(
        &format!("roles:\n  {STAGE}: {{pass: 0.5}}\n"),
        &[&secretive()],
    )
    .unwrap_err();
    let shown = e.to_string();
    assert_clean("the model error", &shown);
    assert!(shown.contains("/roles/[REDACTED] (line 2"), "{shown}");
    // A cost unit that reads as a credential is refused, not quoted.
    let e = SimModel::parse(&format!("cost_unit: {ROLE}\n"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("/cost_unit (line 1") && e.contains("reads as a credential"),
        "{e}"
    );
    assert_clean("the cost unit's refusal", &e);
}
