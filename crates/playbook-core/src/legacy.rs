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
//! Only what agenterm's loader itself decoded or normalised is rewritten
//! here (it also saved the normalised form back): values as its Go types
//! decoded them (`decode.rs`), an `id` taken from the file name, numbers
//! that meant "not set", and a workflow built from `phases` (`phases.rs`).
//! What it refused becomes errors at the field, among the lints
//! (`refused.rs`). Named gates and the author's own escalation triggers need
//! no rewrite: they are read by `gate::compile_in` and the lints, which know
//! a legacy playbook from its missing version.

mod decode;
mod migrate;
mod phases;
mod refused;

use serde_json::{Map, Value};

pub use migrate::{MigrateError, Migration, migrate, migrate_value};
pub(crate) use refused::refuse;

use crate::finding::{Code, Finding, Severity, escape_pointer};

/// What reading a legacy document changed, for the findings.
#[derive(Debug, Default)]
pub(crate) struct LegacyReading {
    /// Info findings that say what was read differently from 1.0.0, and
    /// how `playbook migrate` writes each out.
    pub notes: Vec<(Finding, Written)>,
    /// Pointers of the rewritten document → pointers in the source text
    /// (`/workflow/build/roles/0` → `/phases/1`), so findings land where the
    /// author wrote the thing.
    pub moved: Vec<(String, String)>,
    /// The file has no `id` and no file name was given to take one from.
    pub id_unknown: bool,
}

/// How `playbook migrate` writes out what a note says was read differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Written {
    /// The value is left out (it meant "not set").
    Removed,
    /// The value is written as it was read (`true` for `yes`, "2024" quoted).
    AsRead,
    /// The phases are written out as the workflow.
    Workflow,
}

impl LegacyReading {
    fn note(&mut self, finding: Finding, written: Written) {
        self.notes.push((finding, written));
    }

    /// The source pointer of a finding's pointer: the phase a role was
    /// made from, or the phase's `agent` for the role's `allowed_agents`.
    pub fn source_pointer(&self, path: &str) -> Option<String> {
        self.moved.iter().find_map(|(to, from)| {
            let rest = path.strip_prefix(to.as_str())?;
            if rest.starts_with("/allowed_agents") {
                Some(format!("{from}/agent"))
            } else {
                (rest.is_empty() || rest.starts_with('/')).then(|| from.clone())
            }
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
    let mut moved = vec![false; findings.len()];
    for (finding, moved) in findings.iter_mut().zip(&mut moved) {
        if let Some(source) = reading.source_pointer(&finding.path) {
            finding.path = source;
            *moved = true;
        }
        if reading.id_unknown && is_missing_id(finding) {
            finding.message = "no `id`: agenterm took a legacy file's id from its file name, and this text came without one".into();
            finding.hint = "add `id:` with the playbook's name in lowercase letters, digits and `-` (agenterm's rule)".into();
        }
    }
    // A phase without `agent` is refused at the phase, and so is the role
    // made from it: once moved there, the second says it again.
    let mut index = 0;
    let kept: Vec<(Code, String)> = findings
        .iter()
        .zip(&moved)
        .filter(|(_, moved)| !**moved)
        .map(|(f, _)| (f.code, f.path.clone()))
        .collect();
    findings.retain(|f| {
        let again = moved[index] && kept.contains(&(f.code, f.path.clone()));
        index += 1;
        !again
    });
    findings.extend(reading.notes.into_iter().map(|(note, _)| note));
}

/// The schema's finding for a document without `id`.
fn is_missing_id(finding: &Finding) -> bool {
    finding.code == Code::Schema
        && finding.path == "/id"
        && finding.message.starts_with("\"id\" is a required property")
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

/// Applies agenterm's meaning to a legacy document in place. `file_name`
/// is the name of the file the document came from, when there is one.
pub(crate) fn read(value: &mut Value, file_name: Option<&str>) -> LegacyReading {
    let mut reading = LegacyReading::default();
    let Some(root) = value.as_object_mut() else {
        return reading;
    };
    decode::decode(root, &mut reading);
    id_from_file_name(root, file_name, &mut reading);
    phases::from_phases(root, &mut reading);
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

/// agenterm's `loadDir` named a playbook without `id` after its file: the
/// file name in lowercase without `.yaml`/`.yml`. Without a file name (a
/// text from standard input), the missing `id` stays the schema's error,
/// worded for a legacy file (`place`).
fn id_from_file_name(
    root: &mut Map<String, Value>,
    file_name: Option<&str>,
    reading: &mut LegacyReading,
) {
    // `pb.ID == ""`: absent, null and empty alike.
    match root.get("id") {
        None | Some(Value::Null) => {}
        Some(Value::String(id)) if id.is_empty() => {}
        Some(_) => return,
    }
    let lower = file_name.map(str::to_lowercase);
    let id = lower.as_deref().map(|name| {
        let name = name.rsplit(['/', '\\']).next().unwrap_or(name);
        name.strip_suffix(".yaml")
            .or_else(|| name.strip_suffix(".yml"))
            .unwrap_or(name)
            .to_string()
    });
    match id.filter(|id| !id.is_empty()) {
        Some(id) => {
            reading.note(
                note(
                    "/id".into(),
                    format!(
                        "no `id`: read as `{id}`, from the file name, as agenterm's loader did"
                    ),
                    "add `id:` to keep the id when the file is renamed, or run `playbook migrate`",
                ),
                Written::AsRead,
            );
            root.insert("id".into(), Value::String(id));
        }
        None => reading.id_unknown = true,
    }
}

/// A whole number as agenterm's Go `int` decoded it (`2.0` is 2).
fn whole(value: &Value) -> Option<i64> {
    let number = value.as_number()?;
    number.as_i64().or_else(|| {
        let n = number.as_f64()?;
        // Within ±2^53 every whole f64 is exact in an i64.
        (n.fract() == 0.0 && n.abs() <= 9_007_199_254_740_992.0).then_some(n as i64)
    })
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
    let Some(written) = holder.get(key) else {
        return;
    };
    let unset = whole(written).is_some_and(|n| n == 0 || (negatives_unset && n < 0));
    if !unset {
        return;
    }
    // Said as the file has it: `-3` is not set because agenterm clamped it to 0.
    let said = match whole(written) {
        Some(0) => format!("`{key}: {written}` means \"not set\""),
        _ => format!("`{key}: {written}` is clamped to 0, which means \"not set\","),
    };
    holder.remove(key);
    reading.note(
        note(
            format!("{path}/{key}"),
            format!("{said} in a legacy (agenterm) file: {meaning}"),
            "remove the line, or run `playbook migrate` to upgrade the file to 1.0.0",
        ),
        Written::Removed,
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn zero_means_not_set() {
        let mut v = json!({"workflow": {"plan": {"stage_policy": {"max_parallel_worktrees": 0},
            "roles": [{"name": "a", "retry_policy": {"max_iterations": 0, "escalate_on": []}}]}}});
        let r = read(&mut v, None);
        assert_eq!(v["workflow"]["plan"]["stage_policy"], json!({}));
        assert_eq!(
            v["workflow"]["plan"]["roles"][0]["retry_policy"],
            json!({"escalate_on": []})
        );
        assert_eq!(r.notes.len(), 2);
        assert_eq!(
            r.notes[0].0.path,
            "/workflow/plan/stage_policy/max_parallel_worktrees"
        );
    }

    #[test]
    fn a_note_says_the_number_the_file_has() {
        let mut v = json!({"workflow": {"plan": {"stage_policy": {"max_parallel_worktrees": 0.0},
            "roles": [{"name": "a", "retry_policy": {"max_iterations": -3}}]}}});
        let r = read(&mut v, None);
        let said: Vec<&str> = r.notes.iter().map(|(n, _)| n.message.as_str()).collect();
        assert!(
            said[0].starts_with("`max_parallel_worktrees: 0.0` means \"not set\""),
            "{said:?}"
        );
        assert!(
            said[1].starts_with("`max_iterations: -3` is clamped to 0"),
            "{said:?}"
        );
        assert!(said.iter().all(|s| !s.contains(": 0`")), "{said:?}");
    }

    #[test]
    fn a_missing_id_is_the_file_name_as_agenterm_took_it() {
        for (name, id) in [
            (Some("dir/Pairing-Coding.YAML"), Some("pairing-coding")),
            (Some("tdd.yml"), Some("tdd")),
            (Some("plain"), Some("plain")),
            (None, None),
        ] {
            let mut v = json!({"name": "N", "workflow": {}});
            let r = read(&mut v, name);
            assert_eq!(v.get("id").and_then(Value::as_str), id, "{name:?}");
            assert_eq!(r.id_unknown, id.is_none());
        }
        let mut v = json!({"id": "kept", "name": "N"});
        read(&mut v, Some("other.yaml"));
        assert_eq!(v["id"], "kept");
    }

    #[test]
    fn a_workflow_with_roles_wins_over_phases_and_junk_is_left_to_the_schema() {
        let mut v =
            json!({"phases": [{"name": "x"}], "workflow": {"build": {"roles": [{"name": "a"}]}}});
        let before = v.clone();
        read(&mut v, None);
        assert_eq!(v, before);
        for mut junk in [
            json!([1]),
            json!({"phases": "x"}),
            json!({"workflow": {"a": 1, "b": {"roles": [1, "x"]}}}),
        ] {
            let before = junk.clone();
            read(&mut junk, None);
            assert_eq!(junk, before);
        }
    }
}
