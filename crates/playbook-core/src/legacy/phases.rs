//! agenterm's oldest shape: a file with `phases` and no workflow roles,
//! which its loader (`workflowFromLegacyPhases`) turned into a workflow.

use serde_json::{Map, Value, json};

use super::{LegacyReading, Written, note};

/// The stages agenterm's workflow had, in its order.
const AGENTERM_STAGES: &[&str] = &["brainstorm", "plan", "build", "test", "summarize"];

/// agenterm turned a file with `phases` and no workflow roles into a
/// workflow: each phase one role (its `role`, or its `name`), the phase's
/// `description` its responsibilities, its `agent` the one allowed agent,
/// in the stage its words point to.
pub(super) fn from_phases(root: &mut Map<String, Value>, reading: &mut LegacyReading) {
    let Some(Value::Array(phases)) = root.get("phases").cloned() else {
        return;
    };
    let has_roles = root
        .get("workflow")
        .and_then(Value::as_object)
        .is_some_and(|w| {
            w.values().any(|s| {
                s.get("roles")
                    .and_then(Value::as_array)
                    .is_some_and(|r| !r.is_empty())
            })
        });
    if has_roles || phases.is_empty() {
        return;
    }
    let mut stages: Map<String, Value> = Map::new();
    let mut made = 0;
    for (i, phase) in phases.iter().enumerate() {
        // A scalar of any kind is its text, as agenterm's Go strings took it
        // (`decode.rs` has already made numbers text; this stays total).
        let text = |key: &str| match phase.get(key) {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(v @ (Value::Number(_) | Value::Bool(_))) => v.to_string(),
            _ => String::new(),
        };
        let (name, role, description, agent) = (
            text("name"),
            text("role"),
            text("description"),
            text("agent"),
        );
        let role_name = if role.is_empty() {
            name.clone()
        } else {
            role.clone()
        };
        // A phase naming no role at all makes none: agenterm refused it, and
        // `refused.rs` says so at its fields.
        if role_name.is_empty() {
            continue;
        }
        let responsibilities = if description.is_empty() {
            format!("Run legacy phase \"{name}\"")
        } else {
            description
        };
        let mut entry = Map::new();
        entry.insert("name".into(), Value::String(role_name));
        entry.insert("responsibilities".into(), Value::String(responsibilities));
        if !agent.is_empty() {
            entry.insert("allowed_agents".into(), json!([agent]));
        }
        let stage = stage_of_phase(&role, &name);
        let roles = stages
            .entry(stage)
            .or_insert_with(|| json!({"enabled": true, "roles": []}));
        if let Some(Value::Array(list)) = roles.get_mut("roles") {
            reading.moved.push((
                format!("/workflow/{stage}/roles/{}", list.len()),
                format!("/phases/{i}"),
            ));
            list.push(Value::Object(entry));
            made += 1;
        }
    }
    // In agenterm's stage order, whatever order the phases came in.
    let mut workflow = Map::new();
    for stage in AGENTERM_STAGES {
        if let Some(s) = stages.remove(*stage) {
            workflow.insert((*stage).to_string(), s);
        }
    }
    root.insert("workflow".into(), Value::Object(workflow));
    reading.note(
        note(
            "/phases".into(),
            format!(
                "this legacy (agenterm) file has only `phases`: read as a workflow of {made} role(s), one per phase, as agenterm did"
            ),
            "run `playbook migrate` to write the workflow into the file and add contracts to its roles",
        ),
        Written::Workflow,
    );
}

/// agenterm's `stageForLegacyPhase`: planning words go to `plan`, checking
/// words to `test`, everything else to `build`.
fn stage_of_phase(role: &str, name: &str) -> &'static str {
    let (role, name) = (role.to_lowercase(), name.to_lowercase());
    let any = |text: &str, words: &[&str]| words.iter().any(|w| text.contains(w));
    if any(&role, &["plan", "architect", "research"]) || any(&name, &["discover", "plan"]) {
        "plan"
    } else if any(&role, &["test", "review", "qa"]) || any(&name, &["verify", "review", "test"]) {
        "test"
    } else {
        "build"
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::read;

    #[test]
    fn phases_become_a_workflow_in_stage_order() {
        let mut v = json!({"phases": [
            {"name": "Implement", "agent": "codex", "role": "implementer", "description": "Build it."},
            {"name": "Discover", "agent": "codex", "role": "planner", "description": ""},
            {"name": "Review", "agent": "claude-code", "role": "reviewer"}
        ]});
        let r = read(&mut v, None);
        let w = &v["workflow"];
        assert_eq!(
            w.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["plan", "build", "test"]
        );
        assert_eq!(
            w["plan"]["roles"][0]["responsibilities"],
            "Run legacy phase \"Discover\""
        );
        assert_eq!(w["build"]["roles"][0]["allowed_agents"], json!(["codex"]));
        assert_eq!(w["test"]["roles"][0]["name"], "reviewer");
        assert_eq!(
            r.source_pointer("/workflow/test/roles/0/name").as_deref(),
            Some("/phases/2")
        );
        assert_eq!(r.source_pointer("/workflow/test/roles/00"), None);
        // A role without agents is a phase without `agent`.
        assert_eq!(
            r.source_pointer("/workflow/test/roles/0/allowed_agents")
                .as_deref(),
            Some("/phases/2/agent")
        );
    }

    #[test]
    fn a_phase_naming_no_role_makes_none() {
        // agenterm refused it (`refused.rs` says so at its fields); a role
        // with an empty name would only say `"" is shorter than 1 character`.
        let mut v = json!({"phases": [{"agent": "codex"}, {"name": "Build", "agent": "codex"}]});
        let r = read(&mut v, None);
        assert_eq!(
            v["workflow"]["build"]["roles"],
            json!([
                {"name": "Build", "responsibilities": "Run legacy phase \"Build\"", "allowed_agents": ["codex"]}
            ])
        );
        assert_eq!(
            r.source_pointer("/workflow/build/roles/0").as_deref(),
            Some("/phases/1")
        );
    }
}
