//! Role templates checked on their own: the role's rules apply, pointers are
//! relative to the role, and what depends on the playbook is only an info.

use playbook_core::templates::{check_template, role_template};
use playbook_core::{Options, RoleMode, Severity};
use serde_json::{Value, json};

fn check(role: Value) -> playbook_core::templates::TemplateReport {
    check_template(role, &Options::default())
}

#[test]
fn every_built_in_template_checks_clean() {
    for mode in RoleMode::ALL {
        let role = serde_json::to_value(role_template(mode)).unwrap();
        let report = check(role);
        let serious: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.severity != Severity::Info)
            .collect();
        assert!(serious.is_empty(), "{mode:?}: {serious:#?}");
        assert_eq!(report.role.unwrap(), role_template(mode));
    }
}

#[test]
fn a_role_rule_is_reported_at_a_pointer_into_the_role() {
    let mut reviewer = serde_json::to_value(role_template(RoleMode::Reviewer)).unwrap();
    reviewer["outputs_contract"]["required"] = json!(["issues"]);
    let report = check(reviewer);
    let verdict = report
        .findings
        .iter()
        .find(|f| f.code.as_str() == "PB207")
        .expect("a reviewer without verdict is an error");
    assert_eq!(verdict.severity, Severity::Error);
    assert!(
        verdict.path.starts_with("/outputs_contract"),
        "{}",
        verdict.path
    );
    assert!(!report.allow());
}

#[test]
fn handoffs_to_roles_of_the_future_playbook_are_infos() {
    let mut reviewer = serde_json::to_value(role_template(RoleMode::Reviewer)).unwrap();
    reviewer["handoff_to"] = json!(["implementer"]);
    let report = check(reviewer);
    let handoff = report
        .findings
        .iter()
        .find(|f| f.code.as_str() == "PB301")
        .expect("the unknown target is still named");
    assert_eq!(handoff.severity, Severity::Info);
    assert_eq!(handoff.path, "/handoff_to/0");
    assert!(
        handoff.message.contains("needs a role named `implementer`"),
        "{}",
        handoff.message
    );
    assert!(report.allow(), "{:#?}", report.findings);
}

#[test]
fn a_template_that_hands_off_to_itself_is_told_the_handoff_is_never_followed() {
    // The orchestrator never routes a task back to the role that just ran:
    // no loop (so no PB302), but a handoff that does nothing.
    let report = check(json!({
        "name": "looper",
        "mode": "worker",
        "handoff_to": ["looper"],
    }));
    let codes: Vec<&str> = report.findings.iter().map(|f| f.code.as_str()).collect();
    assert!(
        codes.contains(&"PB306") && !codes.contains(&"PB302"),
        "{:#?}",
        report.findings
    );
}

#[test]
fn a_value_that_is_not_a_role_is_a_schema_error_on_the_role() {
    let report = check(json!("just text"));
    assert!(report.role.is_none());
    let finding = &report.findings[0];
    assert_eq!(finding.code.as_str(), "PB002");
    assert_eq!(finding.path, "");
    let report = check(json!({"name": "x", "retry_policy": {"max_iterations": "three"}}));
    assert!(report.role.is_none());
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.code.as_str() == "PB002" && f.path == "/retry_policy/max_iterations"),
        "{:#?}",
        report.findings
    );
}
