//! `playbook migrate`: a legacy (agenterm) playbook rewritten as a 1.0.0 one.
//!
//! What agenterm's meanings made implicit becomes explicit: numbers that
//! meant "not set" are removed, a workflow made from `phases` is written
//! out, each named gate becomes an entry of `policies:` (an expression over
//! output fields where the name and the promised fields make one evident,
//! else an explicit manual gate), and escalation triggers the orchestrator
//! never raises are mapped where their meaning is evident or kept as
//! `x_escalate_on`. Every such choice is a finding a person should confirm.

use std::collections::HashSet;

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::document::{self, Format};
use crate::finding::{Code, Finding, Severity, escape_pointer};
use crate::gate::{self, BUILTIN_POLICIES};
use crate::validate::ESCALATION_TRIGGERS;

use super::Written;

/// A migrated document and the choices made on the way.
#[derive(Debug, Clone)]
pub struct Migration {
    /// The 1.0.0 document (with `schema_version`).
    pub document: Value,
    /// One info finding per choice, pointing into `document`.
    pub choices: Vec<Finding>,
}

/// Why a file was not migrated.
#[derive(Debug, Clone, thiserror::Error)]
pub enum MigrateError {
    #[error("the file already declares schema_version {0}; there is nothing to migrate")]
    NotLegacy(String),
    #[error("the file has errors even as a legacy file; fix them first")]
    Invalid(Vec<Finding>),
}

fn choice(path: String, message: String) -> Finding {
    let mut finding = Finding::new(
        Code::LegacyReading,
        path,
        message,
        "confirm it, or edit the migrated playbook",
    );
    finding.severity = Severity::Info;
    finding
}

/// Triggers whose meaning is evident from their name, and the trigger the
/// orchestrator raises for it.
const TRIGGER_MAP: &[(&str, &str)] = &[
    ("test_failure", "gate_failed"),
    ("tests_failed", "gate_failed"),
    ("test_error", "gate_failed"),
    ("build_error", "agent_error"),
    ("agent_crash", "agent_error"),
    ("spec_missing", "needs_input"),
    ("unclear_scope", "needs_input"),
    ("needs_clarification", "needs_input"),
    ("blocked", "needs_input"),
    ("no_progress", "retry_limit"),
    ("same_issue_repeated", "retry_limit"),
    ("stuck", "retry_limit"),
    ("timed_out", "timeout"),
];

/// Migrates legacy playbook text to a 1.0.0 document. `file_name` is the
/// name of the file the text came from, when there is one: a file without
/// `id` takes its id from it, as agenterm did.
pub fn migrate(
    text: &str,
    format: Format,
    file_name: Option<&str>,
) -> Result<Migration, MigrateError> {
    let (value, _) = document::parse_playbook(text, format).map_err(MigrateError::Invalid)?;
    migrate_named(value, file_name).map_err(|error| match error {
        // The errors were found on the value; they are placed in the text it
        // came from, as `validate_source` places them, so a refusal says the
        // line and column of each.
        MigrateError::Invalid(mut findings) if !findings.is_empty() => {
            crate::validate::place(&mut findings, &crate::locate::SourceMap::new(text));
            MigrateError::Invalid(findings)
        }
        other => other,
    })
}

/// Migrates a parsed legacy playbook (the app's open document) to 1.0.0.
pub fn migrate_value(value: Value) -> Result<Migration, MigrateError> {
    migrate_named(value, None)
}

fn migrate_named(mut value: Value, file_name: Option<&str>) -> Result<Migration, MigrateError> {
    if let Some(version) = value.get("schema_version") {
        return Err(MigrateError::NotLegacy(version.to_string()));
    }
    let options = crate::Options {
        file_name: file_name.map(str::to_string),
        ..crate::Options::default()
    };
    let as_legacy = crate::validate::validate_value(value.clone(), &options);
    let errors: Vec<Finding> = as_legacy
        .findings
        .into_iter()
        .filter(Finding::is_error)
        .collect();
    if !errors.is_empty() {
        return Err(MigrateError::Invalid(errors));
    }
    let reading = super::read(&mut value, file_name);
    let mut choices = Vec::new();
    let Some(root) = value.as_object_mut() else {
        return Err(MigrateError::Invalid(Vec::new()));
    };
    if !reading.moved.is_empty() {
        root.remove("phases");
        choices.push(choice(
            "/workflow".into(),
            "the phases became this workflow, one role per phase; add each role's contract".into(),
        ));
    }
    for (note, written) in &reading.notes {
        let said = match written {
            Written::Removed => "removed",
            Written::AsRead => "written as read",
            Written::Workflow => continue,
        };
        // The phases are gone once they are the workflow: what was said of
        // their fields is said by the workflow's choice.
        if !reading.moved.is_empty() && note.path.starts_with("/phases/") {
            continue;
        }
        choices.push(choice(
            note.path.clone(),
            format!("{said}: {}", note.message),
        ));
    }
    let mut policies: IndexMap<String, String> = root
        .get("policies")
        .and_then(|p| serde_json::from_value(p.clone()).ok())
        .unwrap_or_default();
    name_gates(root, &mut policies, &mut choices);
    if !policies.is_empty() {
        root.insert("policies".into(), json!(policies));
    }
    map_triggers(root, &mut choices);
    let mut versioned = Map::new();
    versioned.insert("schema_version".into(), json!(crate::model::SCHEMA_VERSION));
    versioned.extend(std::mem::take(root));
    Ok(Migration {
        document: Value::Object(versioned),
        choices,
    })
}

/// A gate written in one place: its pointer and the output fields readable there.
struct GateSite {
    pointer: String,
    text: String,
    readable: Vec<String>,
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Every gate of the workflow with the fields it may read: a role's gate its
/// own outputs, a stage's enter gate what earlier stages promise, its exit
/// gate also what the stage's roles promise.
fn gate_sites(root: &Map<String, Value>) -> Vec<GateSite> {
    let mut sites = Vec::new();
    let mut upstream: Vec<String> = Vec::new();
    let Some(workflow) = root.get("workflow").and_then(Value::as_object) else {
        return sites;
    };
    for (stage_name, stage) in workflow {
        let stage_path = format!("/workflow/{}", escape_pointer(stage_name));
        let roles = stage
            .get("roles")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let policy = stage.get("stage_policy");
        if let Some(text) = policy
            .and_then(|p| p.get("enter_gate"))
            .and_then(Value::as_str)
        {
            sites.push(GateSite {
                pointer: format!("{stage_path}/stage_policy/enter_gate"),
                text: text.to_string(),
                readable: upstream.clone(),
            });
        }
        for (i, role) in roles.iter().enumerate() {
            let outputs = strings(role.get("outputs_contract").and_then(|o| o.get("required")));
            if let Some(text) = role
                .get("gates")
                .and_then(|g| g.get("pass_condition"))
                .and_then(Value::as_str)
            {
                sites.push(GateSite {
                    pointer: format!("{stage_path}/roles/{i}/gates/pass_condition"),
                    text: text.to_string(),
                    readable: outputs.clone(),
                });
            }
            upstream.extend(outputs);
        }
        if let Some(text) = policy
            .and_then(|p| p.get("exit_gate"))
            .and_then(Value::as_str)
        {
            sites.push(GateSite {
                pointer: format!("{stage_path}/stage_policy/exit_gate"),
                text: text.to_string(),
                readable: upstream.clone(),
            });
        }
    }
    sites
}

/// The expression a named condition evidently means, given the fields its
/// gates can read; `None` when nothing is evident.
fn evident_expression(name: &str, readable: &[&[String]]) -> Option<&'static str> {
    let all_read = |field: &str| readable.iter().all(|r| r.iter().any(|f| f == field));
    let words = |ws: &[&str]| ws.iter().any(|w| name.contains(w));
    if all_read("verdict") && words(&["pass", "approved", "verdict", "review"]) {
        Some("verdict == \"pass\"")
    } else if all_read("failed_cases") && words(&["test", "green", "pass"]) {
        Some("failed_cases == 0")
    } else {
        None
    }
}

/// A policy key for gate text that is not one (letters, digits, `_`).
fn key_for(text: &str) -> String {
    let mut key: String = text
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    while key.contains("__") {
        key = key.replace("__", "_");
    }
    let key = key.trim_matches('_').chars().take(60).collect::<String>();
    if key.is_empty() || key.starts_with(|c: char| c.is_ascii_digit()) {
        format!("gate_{key}")
    } else {
        key
    }
}

/// `key`, or `key_gate`, `key_gate_2`... : the first not `taken`, then taken.
fn unique_key(key: &str, taken: &mut HashSet<String>) -> String {
    let mut candidate = key.to_string();
    let mut n = 1;
    while taken.contains(&candidate) {
        candidate = match n {
            1 => format!("{key}_gate"),
            _ => format!("{key}_gate_{n}"),
        };
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

fn name_gates(
    root: &mut Map<String, Value>,
    policies: &mut IndexMap<String, String>,
    choices: &mut Vec<Finding>,
) {
    let sites = gate_sites(root);
    // Group the sites by the condition they name, in order of first use.
    let mut names: IndexMap<String, Vec<&GateSite>> = IndexMap::new();
    for site in &sites {
        let snapshot = policies.clone();
        let compiled = gate::compile(&site.text, |k| snapshot.get(k).map(String::as_str));
        match compiled {
            Ok(_) => {}
            Err(gate::GateError::UnknownPolicy { key }) => names.entry(key).or_default().push(site),
            Err(_) => names
                .entry(format!("\u{0}{}", site.text.trim()))
                .or_default()
                .push(site),
        }
    }
    // A named condition keeps its name (its gates say it); the key made for
    // free text must differ from every key in use, or two different gates
    // would become one policy.
    let mut taken: HashSet<String> = policies.keys().cloned().collect();
    taken.extend(BUILTIN_POLICIES.iter().map(|b| b.key.to_string()));
    taken.extend(names.keys().filter(|n| !n.starts_with('\u{0}')).cloned());
    for (name, uses) in names {
        let (key, rewrite) = match name.strip_prefix('\u{0}') {
            Some(text) => (unique_key(&key_for(text), &mut taken), true),
            None => (name.clone(), false),
        };
        let readable: Vec<&[String]> = uses.iter().map(|s| s.readable.as_slice()).collect();
        let (expression, said) = match evident_expression(&key, &readable) {
            Some(expression) => (
                expression.to_string(),
                format!(
                    "the named condition `{key}` became the policy `{expression}`, from the fields its gates can read"
                ),
            ),
            None => (
                "user_approved".to_string(),
                format!(
                    "the named condition `{key}` became a manual policy (`user_approved`): a person confirms it; write an expression over output fields to automate it"
                ),
            ),
        };
        policies.insert(key.clone(), expression);
        choices.push(choice(format!("/policies/{}", escape_pointer(&key)), said));
        if rewrite {
            for site in uses {
                if let Some(slot) = root_pointer_mut(root, &site.pointer) {
                    *slot = Value::String(key.clone());
                }
            }
        }
    }
}

fn root_pointer_mut<'a>(root: &'a mut Map<String, Value>, pointer: &str) -> Option<&'a mut Value> {
    let (first, rest) = pointer.strip_prefix('/')?.split_once('/')?;
    root.get_mut(first)?.pointer_mut(&format!("/{rest}"))
}

fn map_triggers(root: &mut Map<String, Value>, choices: &mut Vec<Finding>) {
    let Some(Value::Object(workflow)) = root.get_mut("workflow") else {
        return;
    };
    for (stage_name, stage) in workflow.iter_mut() {
        let Some(Value::Array(roles)) = stage.get_mut("roles") else {
            continue;
        };
        for (i, role) in roles.iter_mut().enumerate() {
            let Some(Value::Object(policy)) = role.get_mut("retry_policy") else {
                continue;
            };
            let path = format!(
                "/workflow/{}/roles/{i}/retry_policy",
                escape_pointer(stage_name)
            );
            let triggers = strings(policy.get("escalate_on"));
            let mut kept: Vec<String> = Vec::new();
            let mut own: Vec<String> = Vec::new();
            for trigger in triggers {
                if ESCALATION_TRIGGERS.contains(&trigger.as_str()) {
                    if !kept.contains(&trigger) {
                        kept.push(trigger);
                    }
                } else if let Some((_, to)) = TRIGGER_MAP.iter().find(|(from, _)| *from == trigger)
                {
                    choices.push(choice(
                        format!("{path}/escalate_on"),
                        format!("`{trigger}` is read as `{to}`, the trigger the orchestrator raises for it"),
                    ));
                    if !kept.iter().any(|k| k == to) {
                        kept.push((*to).to_string());
                    }
                } else {
                    choices.push(choice(
                        format!("{path}/x_escalate_on"),
                        format!("`{trigger}` is not raised by the orchestrator; kept in x_escalate_on — map it to one of {} if it meant one", ESCALATION_TRIGGERS.join(", ")),
                    ));
                    own.push(trigger);
                }
            }
            if policy.contains_key("escalate_on") {
                policy.insert("escalate_on".into(), json!(kept));
            }
            if !own.is_empty() {
                policy.insert("x_escalate_on".into(), json!(own));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_for_free_text_are_identifiers() {
        assert_eq!(
            key_for("Tests pass && lint clean!"),
            "tests_pass_lint_clean"
        );
        assert_eq!(key_for("1st review"), "gate_1st_review");
        assert_eq!(key_for("!!!"), "gate_");
    }

    #[test]
    fn a_key_made_for_free_text_differs_from_every_key_in_use() {
        // "Always!" clashes with the built-in `always`; `always_gate` is
        // the name of another gate in the same file: two gates, two policies.
        let mut root = json!({"workflow": {"build": {"roles": [
            {"name": "a", "gates": {"pass_condition": "Always!"}},
            {"name": "b", "gates": {"pass_condition": "always_gate"}},
            {"name": "c", "gates": {"pass_condition": "ALWAYS!"}}
        ]}}});
        let root = root.as_object_mut().unwrap();
        let mut policies = IndexMap::new();
        let mut choices = Vec::new();
        name_gates(root, &mut policies, &mut choices);
        let keys: Vec<&str> = policies.keys().map(String::as_str).collect();
        assert_eq!(keys, ["always_gate_2", "always_gate", "always_gate_3"]);
        let roles = &root["workflow"]["build"]["roles"];
        assert_eq!(roles[0]["gates"]["pass_condition"], "always_gate_2");
        assert_eq!(roles[1]["gates"]["pass_condition"], "always_gate");
        assert_eq!(roles[2]["gates"]["pass_condition"], "always_gate_3");
        let paths: HashSet<&str> = choices.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths.len(), choices.len(), "each choice is said once");
    }

    #[test]
    fn evident_expressions_need_the_field_everywhere_the_name_is_used() {
        let verdict = vec!["verdict".to_string()];
        let none: Vec<String> = Vec::new();
        assert_eq!(
            evident_expression("qa_verdict_pass", &[&verdict]),
            Some("verdict == \"pass\"")
        );
        assert_eq!(
            evident_expression("qa_verdict_pass", &[&verdict, &none]),
            None
        );
        assert_eq!(evident_expression("user_plan_approved", &[&none]), None);
    }
}
