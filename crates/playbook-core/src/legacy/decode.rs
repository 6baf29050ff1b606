//! Values as agenterm's loader decoded them into its Go types.
//!
//! agenterm read a playbook with `yaml.v3` into typed Go structs
//! (`internal/playbook/types.go`), and a typed field decodes more than the
//! YAML 1.2 core schema says the value is:
//! - a string field takes any scalar as its text (`name: 2024` is the name
//!   "2024", `yaml.v3` `decode.go`: `out.SetString(n.Value)`);
//! - a bool field also takes YAML 1.1's `y`/`yes`/`on` and `n`/`no`/`off`
//!   (and their `Yes`/`YES`... spellings), quoted or not;
//! - `normalizeStage` lowercased and trimmed a role's `mode`.
//!
//! So a legacy file is read the same way, each such value rewritten with a
//! PB009 note saying what it became. A number is read as its value's text
//! (`1.50` becomes "1.5", `0x1F` "31": the text as written is gone once
//! parsed), which the note shows; quoting keeps a value exactly as written.
//! A 1.0.0 file keeps YAML 1.2's meanings: there, `yes` is text.

use serde_json::{Map, Value};

use super::{LegacyReading, Written, note};
use crate::finding::escape_pointer;

/// What `yaml.v3` decodes into a Go `bool` besides `true` and `false`.
const TRUE_WORDS: &[&str] = &["y", "Y", "yes", "Yes", "YES", "on", "On", "ON"];
const FALSE_WORDS: &[&str] = &["n", "N", "no", "No", "NO", "off", "Off", "OFF"];

/// The text fields of agenterm's `Playbook`, `Phase`, `StageRole`,
/// `StagePolicy`, `OutputsContract` and `RoleGates`.
const PLAYBOOK_TEXT: &[&str] = &["id", "name", "description"];
const PHASE_TEXT: &[&str] = &["name", "agent", "role", "description"];
const ROLE_TEXT: &[&str] = &["name", "responsibilities", "suggested_prompt", "mode"];
const ROLE_LISTS: &[&str] = &[
    "allowed_agents",
    "inputs_required",
    "actions_allowed",
    "handoff_to",
    "completion_criteria",
];
const STAGE_POLICY_TEXT: &[&str] = &["enter_gate", "exit_gate"];

/// Rewrites the values of `root` as agenterm's types decoded them.
pub(super) fn decode(root: &mut Map<String, Value>, reading: &mut LegacyReading) {
    texts(root, "", PLAYBOOK_TEXT, reading);
    if let Some(Value::Array(phases)) = root.get_mut("phases") {
        for (i, phase) in phases.iter_mut().enumerate() {
            if let Value::Object(phase) = phase {
                texts(phase, &format!("/phases/{i}"), PHASE_TEXT, reading);
            }
        }
    }
    let Some(Value::Object(workflow)) = root.get_mut("workflow") else {
        return;
    };
    for (stage_name, stage) in workflow.iter_mut() {
        let Value::Object(stage) = stage else {
            continue;
        };
        let stage_path = format!("/workflow/{}", escape_pointer(stage_name));
        flag(stage, "enabled", &stage_path, reading);
        if let Some(Value::Object(policy)) = stage.get_mut("stage_policy") {
            let path = format!("{stage_path}/stage_policy");
            texts(policy, &path, STAGE_POLICY_TEXT, reading);
        }
        let Some(Value::Array(roles)) = stage.get_mut("roles") else {
            continue;
        };
        for (i, role) in roles.iter_mut().enumerate() {
            if let Value::Object(role) = role {
                decode_role(role, &format!("{stage_path}/roles/{i}"), reading);
            }
        }
    }
}

fn decode_role(role: &mut Map<String, Value>, path: &str, reading: &mut LegacyReading) {
    texts(role, path, ROLE_TEXT, reading);
    for key in ROLE_LISTS {
        text_list(role, key, path, reading);
    }
    mode(role, path, reading);
    if let Some(Value::Object(contract)) = role.get_mut("outputs_contract") {
        let path = format!("{path}/outputs_contract");
        texts(contract, &path, &["type"], reading);
        text_list(contract, "required", &path, reading);
    }
    if let Some(Value::Object(gates)) = role.get_mut("gates") {
        let path = format!("{path}/gates");
        texts(gates, &path, &["pass_condition"], reading);
        flag(gates, "requires_user_approval", &path, reading);
    }
    if let Some(Value::Object(policy)) = role.get_mut("retry_policy") {
        text_list(
            policy,
            "escalate_on",
            &format!("{path}/retry_policy"),
            reading,
        );
    }
}

/// The text a Go string field took from a number or a boolean.
fn as_text(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn texts(holder: &mut Map<String, Value>, path: &str, keys: &[&str], reading: &mut LegacyReading) {
    for key in keys {
        let Some(slot) = holder.get_mut(*key) else {
            continue;
        };
        if let Some(text) = as_text(slot) {
            let was = std::mem::replace(slot, Value::String(text.clone()));
            said_as_text(format!("{path}/{key}"), key, &was, &text, reading);
        }
    }
}

fn text_list(holder: &mut Map<String, Value>, key: &str, path: &str, reading: &mut LegacyReading) {
    let Some(Value::Array(items)) = holder.get_mut(key) else {
        return;
    };
    for (i, item) in items.iter_mut().enumerate() {
        if let Some(text) = as_text(item) {
            let was = std::mem::replace(item, Value::String(text.clone()));
            said_as_text(format!("{path}/{key}/{i}"), key, &was, &text, reading);
        }
    }
}

fn said_as_text(path: String, key: &str, was: &Value, text: &str, reading: &mut LegacyReading) {
    reading.note(
        note(
            path,
            format!(
                "`{key}: {was}` is the text \"{text}\" in a legacy (agenterm) file: its YAML reader took any value of a text field as text"
            ),
            "quote the value to keep it exactly as written, or run `playbook migrate` to write it as text",
        ),
        Written::AsRead,
    );
}

/// A YAML 1.1 boolean word in a bool field, as `yaml.v3` decoded it.
fn flag(holder: &mut Map<String, Value>, key: &str, path: &str, reading: &mut LegacyReading) {
    let Some(slot) = holder.get_mut(key) else {
        return;
    };
    let Some(word) = slot.as_str() else {
        return;
    };
    let read = if TRUE_WORDS.contains(&word) {
        true
    } else if FALSE_WORDS.contains(&word) {
        false
    } else {
        return;
    };
    let message = format!(
        "`{key}: {word}` is `{read}` in a legacy (agenterm) file, as its YAML reader took YAML 1.1's booleans"
    );
    *slot = Value::Bool(read);
    reading.note(
        note(
            format!("{path}/{key}"),
            message,
            "write `true` or `false` (in a 1.0.0 file `yes` and `on` are text), or run `playbook migrate`",
        ),
        Written::AsRead,
    );
}

/// `normalizeStage`: `strings.ToLower(strings.TrimSpace(mode))`.
fn mode(role: &mut Map<String, Value>, path: &str, reading: &mut LegacyReading) {
    let Some(Value::String(mode)) = role.get_mut("mode") else {
        return;
    };
    let normal = mode.trim().to_lowercase();
    if normal == *mode {
        return;
    }
    let message = format!(
        "`mode: {mode}` is read as `{normal}`, as agenterm's loader lowercased and trimmed it"
    );
    *mode = normal;
    reading.note(
        note(
            format!("{path}/mode"),
            message,
            "write the mode in lowercase, or run `playbook migrate`",
        ),
        Written::AsRead,
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn decoded(mut value: Value) -> (Value, LegacyReading) {
        let mut reading = LegacyReading::default();
        decode(value.as_object_mut().unwrap(), &mut reading);
        (value, reading)
    }

    #[test]
    fn every_spelling_yaml_v3_took_for_a_bool_is_one_in_bool_fields_only() {
        for (word, read) in [
            ("y", true),
            ("Yes", true),
            ("ON", true),
            ("n", false),
            ("NO", false),
            ("Off", false),
        ] {
            let (v, r) = decoded(json!({"workflow": {"build": {"enabled": word,
                "roles": [{"name": "a", "gates": {"requires_user_approval": word}}]}}}));
            assert_eq!(v["workflow"]["build"]["enabled"], read, "{word}");
            let gates = &v["workflow"]["build"]["roles"][0]["gates"];
            assert_eq!(gates["requires_user_approval"], read, "{word}");
            assert_eq!(r.notes.len(), 2);
        }
        // Not a YAML 1.1 word yaml.v3 knows, or not a bool field: as written.
        let (v, r) = decoded(json!({"name": "yes", "workflow": {"build": {"enabled": "yEs"}}}));
        assert_eq!(v["workflow"]["build"]["enabled"], "yEs");
        assert_eq!(v["name"], "yes");
        assert!(r.notes.is_empty());
    }

    #[test]
    fn scalars_in_text_fields_are_their_text_and_the_mode_is_lowercased() {
        let (v, r) = decoded(
            json!({"id": 7, "name": 2024, "phases": [{"name": 1, "role": true}],
            "workflow": {"build": {"stage_policy": {"exit_gate": 3},
            "roles": [{"name": 42, "mode": " Worker ", "allowed_agents": ["codex", 5],
                "outputs_contract": {"required": [1.5]}}]}}}),
        );
        assert_eq!(v["id"], "7");
        assert_eq!(v["name"], "2024");
        assert_eq!(v["phases"][0], json!({"name": "1", "role": "true"}));
        let build = &v["workflow"]["build"];
        assert_eq!(build["stage_policy"]["exit_gate"], "3");
        let role = &build["roles"][0];
        assert_eq!(role["name"], "42");
        assert_eq!(role["mode"], "worker");
        assert_eq!(role["allowed_agents"], json!(["codex", "5"]));
        assert_eq!(role["outputs_contract"]["required"], json!(["1.5"]));
        let paths: Vec<&str> = r.notes.iter().map(|(n, _)| n.path.as_str()).collect();
        assert!(paths.contains(&"/workflow/build/roles/0/allowed_agents/1"));
        assert!(paths.contains(&"/workflow/build/roles/0/mode"));
    }
}
