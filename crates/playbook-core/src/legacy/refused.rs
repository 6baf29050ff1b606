//! What agenterm's loader refused, as findings at the field.
//!
//! `normalizeAndValidate` (agenterm's `internal/playbook/playbook.go`)
//! refused a file whose phases lack a `name`, `agent` or `role`, whose
//! `plan`, `build` or `test` stage is enabled with no role, whose roles in
//! those stages lack `responsibilities` or `allowed_agents` (after trimming
//! and dropping blank entries), or that has no role at all. 1.0.0 requires
//! none of these, so without this a legacy file agenterm refused opened with
//! infos only and previewed roles no agent may play. Each is an error here,
//! at the field, with the fix. agenterm did not check its other stages
//! (`brainstorm`, `summarize`): a role there without agents is a warning.
//!
//! Checked on the typed playbook (as read, phases made a workflow), among
//! the lints, so whatever runs a playbook refuses these as it refuses a
//! lint error; `place` moves a finding about a role made from a phase to
//! the phase's field.

use serde_json::Value;

use crate::finding::{Code, Finding, Severity, escape_pointer};
use crate::model::Playbook;

/// The stages `normalizeWorkflow` checked, role by role.
const CHECKED_STAGES: &[&str] = &["plan", "build", "test"];

/// Adds what agenterm refused in a legacy `playbook` to its lint findings;
/// a refusal replaces the lint of the same code at the same place (it says
/// the same, with agenterm's verdict).
pub(crate) fn refuse(playbook: &Playbook, findings: &mut Vec<Finding>) {
    let refusals = refusals(playbook);
    findings.retain(|f| {
        !refusals
            .iter()
            .any(|r| r.code == f.code && r.path == f.path)
    });
    findings.extend(refusals);
}

fn refusals(playbook: &Playbook) -> Vec<Finding> {
    let mut out = Vec::new();
    let phases = playbook.phases.as_deref().unwrap_or_default();
    for (i, phase) in phases.iter().enumerate() {
        phase_fields(phase, i, &mut out);
    }
    if playbook.roles().next().is_none() && phases.is_empty() {
        out.push(error(
            Code::Schema,
            "/workflow".into(),
            "the workflow has no role, and there are no phases to make one from: agenterm refused such a file".into(),
            "add a role under a stage (`playbook template worker` shows one)",
        ));
    }
    for (stage_name, stage) in playbook.stages() {
        let checked = CHECKED_STAGES.contains(&stage_name);
        let stage_path = format!("/workflow/{}", escape_pointer(stage_name));
        if checked && stage.roles().is_empty() && stage.enabled == Some(true) {
            out.push(error(
                Code::StageWithoutRoles,
                format!("{stage_path}/roles"),
                format!("stage `{stage_name}` is enabled but has no roles: agenterm refused this"),
                "add a role to the stage, or set `enabled: false`",
            ));
        }
        for (i, role) in stage.roles().iter().enumerate() {
            let path = format!("{stage_path}/roles/{i}");
            let name = &role.name;
            if role.allowed_agents().iter().all(|a| a.trim().is_empty()) {
                let mut finding = error(
                    Code::NoAgents,
                    format!("{path}/allowed_agents"),
                    format!("no agent may play role `{name}`"),
                    "list at least one agent in `allowed_agents`, e.g. `allowed_agents: [codex]`",
                );
                if checked {
                    finding
                        .message
                        .push_str(": agenterm refused a role without `allowed_agents`");
                } else {
                    // agenterm left this stage unchecked; a run would still
                    // find no agent to play the role.
                    finding.severity = Severity::Warning;
                }
                out.push(finding);
            }
            let blank = role
                .responsibilities
                .as_deref()
                .is_none_or(|r| r.trim().is_empty());
            if checked && blank {
                out.push(error(
                    Code::Schema,
                    format!("{path}/responsibilities"),
                    format!(
                        "role `{name}` has no `responsibilities`: agenterm refused a role without them"
                    ),
                    "say what the role does in `responsibilities:`",
                ));
            }
        }
    }
    out
}

/// A text field of a phase agenterm trimmed and then required.
fn blank(phase: &Value, key: &str) -> bool {
    phase
        .get(key)
        .and_then(Value::as_str)
        .is_none_or(|s| s.trim().is_empty())
}

fn phase_fields(phase: &Value, i: usize, out: &mut Vec<Finding>) {
    if !phase.is_object() {
        // Not a phase at all: the schema says so.
        return;
    }
    let path = |key: &str| format!("/phases/{i}/{key}");
    for (key, what) in [
        ("name", "the phase's name"),
        ("role", "the role that plays it"),
    ] {
        if blank(phase, key) {
            out.push(error(
                Code::Schema,
                path(key),
                format!("phase {i} has no `{key}` ({what}): agenterm refused a phase without one"),
                &format!("add `{key}:` to the phase"),
            ));
        }
    }
    if blank(phase, "agent") {
        out.push(error(
            Code::NoAgents,
            path("agent"),
            format!("phase {i} has no `agent`, so no agent may play it: agenterm refused a phase without one"),
            "add `agent:` with the agent that plays the phase, e.g. `agent: codex`",
        ));
    }
}

fn error(code: Code, path: String, message: String, hint: &str) -> Finding {
    let mut finding = Finding::new(code, path, message, hint);
    finding.severity = Severity::Error;
    finding
}
