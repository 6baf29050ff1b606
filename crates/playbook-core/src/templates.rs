//! Built-in role templates: one complete, clean contract per mode.
//!
//! A template is the fastest way to a role that validates without findings;
//! the editor's one-click templates and `playbook template <mode>` use them.
//! [`check_template`] checks a template (built-in or the team's) on its own.

use serde_json::{Value, json};

use crate::finding::{Code, Finding, Severity};
use crate::model::{Gates, OutputsContract, RetryPolicy, Role, RoleMode, SCHEMA_VERSION};
use crate::validate::{Options, validate_parsed};

fn strings(items: &[&str]) -> Option<Vec<String>> {
    Some(items.iter().map(|s| s.to_string()).collect())
}

/// The built-in template for `mode`, with its conventional role name.
pub fn role_template(mode: RoleMode) -> Role {
    match mode {
        RoleMode::Planner => Role {
            name: "planner".into(),
            responsibilities: Some(
                "Turn the goal into a written spec and a list of small, testable tasks.".into(),
            ),
            allowed_agents: strings(&["claude", "codex"]),
            suggested_prompt: Some(
                "Plan how to reach this goal: {goal}. Write the spec to a file and list the tasks.".into(),
            ),
            mode: Some(RoleMode::Planner),
            inputs_required: strings(&["goal"]),
            outputs_contract: Some(OutputsContract {
                kind: Some("plan_result".into()),
                required: strings(&["spec_path", "tasks"]),
                ..Default::default()
            }),
            actions_allowed: strings(&["read_file", "search_code", "write_file"]),
            gates: Some(Gates {
                requires_user_approval: Some(true),
                pass_condition: Some("plan_ready".into()),
                ..Default::default()
            }),
            handoff_to: strings(&["worker"]),
            completion_criteria: strings(&[
                "The spec is written and names its acceptance criteria",
                "Every task is small enough for one review round",
            ]),
            ..Default::default()
        },
        RoleMode::Worker => Role {
            name: "worker".into(),
            responsibilities: Some(
                "Implement one task against the spec and commit the change.".into(),
            ),
            allowed_agents: strings(&["claude", "codex"]),
            suggested_prompt: Some(
                "Implement task {task} as the spec at {spec_path} describes. Commit when done.".into(),
            ),
            mode: Some(RoleMode::Worker),
            inputs_required: strings(&["task", "spec_path"]),
            outputs_contract: Some(OutputsContract {
                kind: Some("work_result".into()),
                required: strings(&["commit_sha", "summary"]),
                ..Default::default()
            }),
            actions_allowed: strings(&["read_file", "write_file", "edit_file", "run_tests", "git_commit"]),
            gates: Some(Gates {
                requires_user_approval: Some(true),
                pass_condition: Some("size(commit_sha) > 0".into()),
                ..Default::default()
            }),
            handoff_to: strings(&["reviewer"]),
            completion_criteria: strings(&["The change is committed", "Existing tests still pass"]),
            ..Default::default()
        },
        RoleMode::Reviewer => Role {
            name: "reviewer".into(),
            responsibilities: Some(
                "Review the commit against the spec; pass it or send it back with actionable issues.".into(),
            ),
            allowed_agents: strings(&["claude"]),
            suggested_prompt: Some(
                "Review commit {commit_sha} against the spec at {spec_path}. Return a verdict and issues.".into(),
            ),
            mode: Some(RoleMode::Reviewer),
            inputs_required: strings(&["spec_path", "commit_sha"]),
            outputs_contract: Some(OutputsContract {
                kind: Some("review_result".into()),
                required: strings(&["verdict", "issues"]),
                ..Default::default()
            }),
            actions_allowed: strings(&["read_file", "search_code", "git_diff"]),
            gates: Some(Gates {
                requires_user_approval: Some(false),
                pass_condition: Some("review_passed".into()),
                ..Default::default()
            }),
            handoff_to: strings(&["worker"]),
            retry_policy: Some(RetryPolicy {
                max_iterations: Some(3),
                escalate_on: strings(&["retry_limit"]),
                ..Default::default()
            }),
            completion_criteria: strings(&[
                "Every acceptance criterion of the spec is checked",
                "The verdict is pass, or every issue is actionable",
            ]),
            ..Default::default()
        },
        RoleMode::Tester => Role {
            name: "tester".into(),
            responsibilities: Some("Run the test suite on the reviewed commit and report failures.".into()),
            allowed_agents: strings(&["codex"]),
            suggested_prompt: Some("Run the tests for commit {commit_sha} and report every failing case.".into()),
            mode: Some(RoleMode::Tester),
            inputs_required: strings(&["commit_sha"]),
            outputs_contract: Some(OutputsContract {
                kind: Some("test_result".into()),
                required: strings(&["failed_cases", "report"]),
                ..Default::default()
            }),
            actions_allowed: strings(&["read_file", "run_tests"]),
            gates: Some(Gates {
                requires_user_approval: Some(false),
                pass_condition: Some("tests_green".into()),
                ..Default::default()
            }),
            handoff_to: Some(Vec::new()),
            completion_criteria: strings(&["The whole suite ran", "failed_cases is 0"]),
            ..Default::default()
        },
    }
}

/// The stage a role template stands in while it is checked on its own.
pub const TEMPLATE_STAGE: &str = "template";

/// Codes about the playbook around a role, which a template alone does not
/// have: whether the role is reached, where its inputs come from, whether a
/// handoff target's stage is enabled. They are not reported on a template.
const ABOUT_THE_PLAYBOOK: &[Code] = &[
    Code::UnreachableRole,
    Code::InputNotProduced,
    Code::HandoffToDisabled,
];

/// A finding that depends on the playbook the template is added to, said
/// as what that playbook needs; `None` for every other finding.
fn needs_of_the_playbook(finding: &Finding, role: &Value) -> Option<(String, String)> {
    let later = "Nothing to fix in the template: the playbook editor checks it where the template is added.";
    match finding.code {
        Code::UnknownHandoff => {
            let target = role.pointer(&finding.path).and_then(Value::as_str)?;
            Some((
                format!(
                    "hands off to `{target}`: a playbook that adds this template needs a role named `{target}`"
                ),
                later.to_string(),
            ))
        }
        Code::UnknownPolicy => Some((
            format!(
                "{} (a playbook that adds this template must define it in its policies)",
                finding.message
            ),
            later.to_string(),
        )),
        _ => None,
    }
}

/// A role template checked on its own.
#[derive(Debug, Clone)]
pub struct TemplateReport {
    /// The typed role, when it is structurally valid.
    pub role: Option<Role>,
    /// Every finding, errors first; `path` is a JSON pointer into the role
    /// (empty for the role itself, e.g. `/retry_policy/max_iterations`).
    pub findings: Vec<Finding>,
}

impl TemplateReport {
    /// True when nothing of error severity was found.
    pub fn allow(&self) -> bool {
        !self.findings.iter().any(Finding::is_error)
    }
}

/// Checks a role template (a role as a JSON value) with every rule that
/// applies to a role, by placing it alone in a one-stage playbook.
pub fn check_template(role: Value, options: &Options) -> TemplateReport {
    let holder = json!({
        "schema_version": SCHEMA_VERSION,
        "id": "template",
        "name": "Template",
        "workflow": { TEMPLATE_STAGE: { "roles": [role] } },
    });
    let report = validate_parsed(&holder, options);
    let role = &holder["workflow"][TEMPLATE_STAGE]["roles"][0];
    let prefix = format!("/workflow/{TEMPLATE_STAGE}/roles/0");
    let mut findings: Vec<Finding> = report
        .findings
        .into_iter()
        .filter(|f| !ABOUT_THE_PLAYBOOK.contains(&f.code))
        .map(|mut f| {
            f.path = match f.path.strip_prefix(&prefix) {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => rest.to_string(),
                // Nothing outside the role is the template's; report it on the role.
                _ => String::new(),
            };
            if let Some((message, hint)) = needs_of_the_playbook(&f, role) {
                f.severity = Severity::Info;
                f.message = message;
                f.hint = hint;
            }
            f
        })
        .collect();
    findings.sort_by_key(|f| f.severity);
    let typed = report.playbook.and_then(|mut p| {
        p.workflow
            .shift_remove(TEMPLATE_STAGE)
            .and_then(|stage| stage.roles)
            .and_then(|roles| roles.into_iter().next())
    });
    TemplateReport {
        role: typed,
        findings,
    }
}
