//! Simulations checked against closed-form answers, determinism, the
//! static bound and hostile models.

mod closed_form;
mod diff;
mod gates;
mod hostile;
mod outcomes;
mod patterns;
mod report;
mod schema;
mod secrets;
mod timeouts;

use std::sync::atomic::AtomicBool;

use playbook_whatif::{Options, Report, SimModel, whatif};

/// A one-stage worker ⇄ reviewer loop with retry limit `n`.
pub fn review_loop(n: u32) -> playbook_core::Playbook {
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
        handoff_to: [reviewer]
      - name: reviewer
        mode: reviewer
        outputs_contract:
          required: [verdict, issues]
        gates:
          pass_condition: review_passed
        handoff_to: [worker]
        retry_policy:
          max_iterations: {n}
          escalate_on: [retry_limit]
"#
    );
    playbook_orchestrator::load_playbook(&text).expect("the loop playbook is valid")
}

pub fn run(playbook: &playbook_core::Playbook, model: &str, runs: u64, seed: u64) -> Report {
    let model = SimModel::parse(model).expect("model parses");
    let options = Options {
        runs,
        seed,
        ..Options::default()
    };
    whatif(playbook, &model, &options, &AtomicBool::new(false), &|_| {}).expect("simulates")
}

/// A review loop of pass probability `p` and limit `n` in closed form: the
/// reviewer's mean rounds `Σ (1-p)^k` for k < n and the escalation rate
/// `(1-p)^n` must lie in the report's 95 % intervals. Returns the expected
/// rounds.
pub fn assert_closed_form(report: &Report, p: f64, n: u32, what: &str) -> f64 {
    let q: f64 = 1.0 - p;
    let rounds: f64 = (0..n).map(|k| q.powi(k as i32)).sum();
    let escalation = q.powi(n as i32);
    let reviewer = report.roles.iter().find(|r| r.role == "reviewer").unwrap();
    let [lo, hi] = reviewer.calls.ci.expect("the runs have an interval");
    assert!(
        lo <= rounds && rounds <= hi,
        "{what} p {p} n {n}: expected {rounds} rounds, interval {lo}–{hi}"
    );
    let e = &report.escalation;
    assert!(
        e.ci[0] <= escalation && escalation <= e.ci[1],
        "{what} p {p} n {n}: expected escalation {escalation}, got {e:?}, notes {:?}",
        report.notes
    );
    rounds
}

/// Writes the model schema when `UPDATE_SCHEMAS=1`; otherwise fails when the
/// published file differs.
#[test]
fn published_model_schema_is_up_to_date() {
    let published = playbook_whatif::schema();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../schemas")
        .join(published.file);
    let text = serde_json::to_string_pretty(&published.schema).unwrap() + "\n";
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == text,
        "{} is stale; run `UPDATE_SCHEMAS=1 cargo test -p playbook-whatif --test whatif published`",
        published.file
    );
}
