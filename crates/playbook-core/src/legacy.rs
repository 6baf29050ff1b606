//! Reading a legacy playbook (no `schema_version`) as its format meant it.
//!
//! Legacy files are agenterm's playbooks, the format ours grew from. Its
//! loader (Go structs read with `yaml.v3`, then `normalizeAndValidate`)
//! gave some constructs meanings our 1.0.0 format does not, and reading
//! them with 1.0.0 semantics refused files their authors considered fine.
//! This module applies agenterm's meaning to the parsed document before it
//! is checked, so a legacy file is judged by its own format; the decisions,
//! construct by construct, are in docs/lints.md ("Legacy files").
//!
//! Only what agenterm's loader itself normalised is rewritten here (it also
//! saved the normalised form back): numbers that meant "not set", and a
//! workflow built from `phases`. Named gates and the author's own
//! escalation triggers need no rewrite: they are read by `gate::compile_in`
//! and the lints, which know a legacy playbook from its missing version.

mod migrate;

use serde_json::{Map, Value, json};

pub use migrate::{MigrateError, Migration, migrate, migrate_value};

use crate::finding::{Code, Finding, Severity, escape_pointer};

/// The stages agenterm's workflow had, in its order.
const AGENTERM_STAGES: &[&str] = &["brainstorm", "plan", "build", "test", "summarize"];

/// What reading a legacy document changed, for the findings.
#[derive(Debug, Default)]
pub(crate) struct LegacyReading {
    /// Info findings that say what was read differently from 1.0.0.
    pub notes: Vec<Finding>,
    /// Pointers of the rewritten document → pointers in the source text
    /// (`/workflow/build/roles/0` → `/phases/1`), so findings land where the
    /// author wrote the thing.
    pub moved: Vec<(String, String)>,
}

impl LegacyReading {
    /// The source pointer of a finding's pointer.
    pub fn source_pointer(&self, path: &str) -> Option<String> {
        self.moved.iter().find_map(|(to, from)| {
            (path == to || path.starts_with(&format!("{to}/"))).then(|| from.clone())
        })
    }
}

/// Lint errors agenterm's format did not have: in a legacy file they are
/// kept as warnings (real mistakes stay visible; the file still opens and
/// previews). What stays an error is what agenterm refused too (syntax,
/// types, required fields) and what leaves a run undefined for any
/// orchestrator: two roles of one name, a handoff to no role, a loop with
/// no limit anywhere.
const KEPT_ERRORS: &[Code] = &[
    Code::DuplicateRole,
    Code::UnknownHandoff,
    Code::UnboundedLoop,
];

/// Judges the lint findings of a legacy playbook by its own format: lint
/// errors agenterm had no notion of become warnings, and the author's own
/// escalation triggers are noted rather than warned about.
pub(crate) fn judge(findings: &mut [Finding]) {
    for finding in findings.iter_mut() {
        let lint = finding.code.as_str().get(2..3).is_some_and(|d| d != "0");
        if lint && finding.severity == Severity::Error && !KEPT_ERRORS.contains(&finding.code) {
            finding.severity = Severity::Warning;
            finding
                .message
                .push_str(" (an error in 1.0.0; a warning in a legacy file)");
        }
        if finding.code == Code::UnknownField
            && AGENTERM_OLD_FIELDS.contains(&finding.path.as_str())
        {
            finding.severity = Severity::Info;
            finding.message = format!(
                "`{}` is a field of early agenterm playbooks; kept as written, not used",
                &finding.path[1..]
            );
        }
        if finding.code == Code::UnknownEscalation {
            finding.severity = Severity::Info;
            finding.message.push_str(
                "; in a legacy (agenterm) file it is the author's own trigger, kept as written",
            );
        }
    }
}

/// Moves findings to where the author wrote the thing, and adds the notes
/// of what was read differently.
pub(crate) fn place(findings: &mut Vec<Finding>, reading: LegacyReading) {
    for finding in findings.iter_mut() {
        if let Some(source) = reading.source_pointer(&finding.path) {
            finding.path = source;
        }
    }
    findings.extend(reading.notes);
}

/// Inputs agenterm's orchestrator gave every role of a task (`spec_path`
/// is the spec its planner's `write_task_spec` wrote for the task); a legacy
/// role that requires them is not missing anything.
pub const AGENTERM_RUN_INPUTS: &[&str] = &[
    "project_id",
    "spec_path",
    "worktree_id",
    "worktree_path",
    "branch_name",
    "task_title",
    "session_id",
];

/// Top-level fields of agenterm versions before its workflow: read (and
/// ignored) by agenterm's loader, kept here as they are.
const AGENTERM_OLD_FIELDS: &[&str] = &["/parallelism_strategy", "/match"];

/// Whether a parsed document is a legacy playbook.
pub(crate) fn is_legacy(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|m| !m.contains_key("schema_version"))
}

fn note(path: String, message: String, hint: &str) -> Finding {
    let mut finding = Finding::new(Code::LegacyReading, path, message, hint);
    finding.severity = Severity::Info;
    finding
}

/// Applies agenterm's meaning to a legacy document in place.
pub(crate) fn read(value: &mut Value) -> LegacyReading {
    let mut reading = LegacyReading::default();
    let Some(root) = value.as_object_mut() else {
        return reading;
    };
    from_phases(root, &mut reading);
    if let Some(Value::Object(workflow)) = root.get_mut("workflow") {
        for (stage_name, stage) in workflow.iter_mut() {
            let Some(stage) = stage.as_object_mut() else {
                continue;
            };
            let stage_path = format!("/workflow/{}", escape_pointer(stage_name));
            // A negative count was an error to agenterm too: left to the schema.
            unset_zero(
                stage.get_mut("stage_policy"),
                "max_parallel_worktrees",
                false,
                &format!("{stage_path}/stage_policy"),
                "the stage runs with the default of 1 task at a time",
                &mut reading,
            );
            let Some(Value::Array(roles)) = stage.get_mut("roles") else {
                continue;
            };
            for (i, role) in roles.iter_mut().enumerate() {
                let Some(role) = role.as_object_mut() else {
                    continue;
                };
                // agenterm turned a negative limit into 0, "not set".
                unset_zero(
                    role.get_mut("retry_policy"),
                    "max_iterations",
                    true,
                    &format!("{stage_path}/roles/{i}/retry_policy"),
                    "the role has no retry limit of its own",
                    &mut reading,
                );
            }
        }
    }
    reading
}

/// agenterm's numbers were Go `int`s with `omitempty`: 0 meant "not set"
/// (and, where its normalisation clamped them, so did negative numbers).
/// 1.0.0 reads 0 as a real value ("no task can run"), so the key is removed.
fn unset_zero(
    holder: Option<&mut Value>,
    key: &str,
    negatives_unset: bool,
    path: &str,
    meaning: &str,
    reading: &mut LegacyReading,
) {
    let Some(Value::Object(holder)) = holder else {
        return;
    };
    let unset = holder
        .get(key)
        .and_then(Value::as_i64)
        .is_some_and(|n| n == 0 || (negatives_unset && n < 0));
    if !unset {
        return;
    }
    holder.remove(key);
    reading.notes.push(note(
        format!("{path}/{key}"),
        format!("`{key}: 0` means \"not set\" in a legacy (agenterm) file: {meaning}"),
        "remove the line, or run `playbook migrate` to upgrade the file to 1.0.0",
    ));
}

/// agenterm turned a file with `phases` and no workflow roles into a
/// workflow: each phase one role (its `role`, or its `name`), the phase's
/// `description` its responsibilities, its `agent` the one allowed agent,
/// in the stage its words point to.
fn from_phases(root: &mut Map<String, Value>, reading: &mut LegacyReading) {
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
    for (i, phase) in phases.iter().enumerate() {
        let text = |key: &str| {
            phase
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .unwrap_or_default()
                .to_string()
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
    reading.notes.push(note(
        "/phases".into(),
        format!(
            "this legacy (agenterm) file has only `phases`: read as a workflow of {} role(s), one per phase, as agenterm did",
            phases.len()
        ),
        "run `playbook migrate` to write the workflow into the file and add contracts to its roles",
    ));
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
    use super::*;

    #[test]
    fn zero_means_not_set() {
        let mut v = json!({"workflow": {"plan": {"stage_policy": {"max_parallel_worktrees": 0},
            "roles": [{"name": "a", "retry_policy": {"max_iterations": 0, "escalate_on": []}}]}}});
        let r = read(&mut v);
        assert_eq!(v["workflow"]["plan"]["stage_policy"], json!({}));
        assert_eq!(
            v["workflow"]["plan"]["roles"][0]["retry_policy"],
            json!({"escalate_on": []})
        );
        assert_eq!(r.notes.len(), 2);
        assert_eq!(
            r.notes[0].path,
            "/workflow/plan/stage_policy/max_parallel_worktrees"
        );
    }

    #[test]
    fn phases_become_a_workflow_in_stage_order() {
        let mut v = json!({"phases": [
            {"name": "Implement", "agent": "codex", "role": "implementer", "description": "Build it."},
            {"name": "Discover", "agent": "codex", "role": "planner", "description": ""},
            {"name": "Review", "agent": "claude-code", "role": "reviewer"}
        ]});
        let r = read(&mut v);
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
    }

    #[test]
    fn a_workflow_with_roles_wins_over_phases_and_junk_is_left_to_the_schema() {
        let mut v =
            json!({"phases": [{"name": "x"}], "workflow": {"build": {"roles": [{"name": "a"}]}}});
        let before = v.clone();
        read(&mut v);
        assert_eq!(v, before);
        for mut junk in [
            json!([1]),
            json!({"phases": "x"}),
            json!({"workflow": {"a": 1, "b": {"roles": [1, "x"]}}}),
        ] {
            let before = junk.clone();
            read(&mut junk);
            assert_eq!(junk, before);
        }
    }
}
