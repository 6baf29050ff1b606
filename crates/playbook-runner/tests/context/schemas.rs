//! The schemas of this part of a run are fresh, and the typed readers and
//! the schemas agree.

use serde_json::{Value, json};

use crate::repo_root;

fn published() -> Vec<(&'static str, Value)> {
    vec![
        ("agents.schema.json", playbook_runner::agents::schema()),
        (
            "role-permissions.schema.json",
            playbook_runner::context::role_permissions_schema(),
        ),
    ]
}

/// Writes the schemas when `UPDATE_SCHEMAS=1`; otherwise fails when a file differs.
#[test]
fn published_schemas_are_up_to_date() {
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    for (file, schema) in published() {
        let path = repo_root().join("schemas").join(file);
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        if update {
            std::fs::write(&path, &text).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == text,
            "{file} is stale; run `UPDATE_SCHEMAS=1 cargo test -p playbook-runner --test context published`"
        );
    }
}

#[test]
fn the_agents_schema_and_the_reader_agree() {
    let schema = playbook_runner::agents::schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let table = [
        json!({"agents": {"a": {"command": ["x", "{prompt_file}"], "output": "claude_json", "env": {"K": "v"}, "timeout_seconds": 5}}}),
        json!({"agents": {}, "x_meta": 1}),
        json!({"agents": {"a": {"command": ["x"], "x_note": "n"}}}),
        json!({"agents": {"a": {"command": []}}}),
        json!({"agents": {"a": {"command": ["x"], "extra": 1}}}),
        json!({"agents": {"a": {"command": ["x"], "output": "html"}}}),
        json!({"agents": {"a": {"command": ["x"], "timeout_seconds": 0}}}),
        json!({"nope": {}}),
    ];
    for value in table {
        let by_schema = validator.is_valid(&value);
        let by_reader =
            playbook_runner::agents::AgentsFile::parse("a.json", &value.to_string()).is_ok();
        assert_eq!(by_schema, by_reader, "{value}");
    }
}

#[test]
fn the_permissions_schema_and_the_reader_agree() {
    let schema = playbook_runner::context::role_permissions_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let table = [
        json!({"roles": {"A": {"allow": ["read_file"], "deny": ["git_push"]}}}),
        json!({"roles": {}, "x_note": 1}),
        json!({"roles": {"A": {"allow": [], "x_why": 1}}}),
        json!({"roles": {"A": {"deny": []}}}),
        json!({"roles": {"A": {"allow": "read_file"}}}),
        json!({"roles": {"A": {"allow": [], "extra": 1}}}),
        json!({"rules": {}}),
    ];
    for value in table {
        let by_schema = validator.is_valid(&value);
        let by_reader =
            playbook_runner::context::RolePermissions::from_value(value.clone()).is_ok();
        assert_eq!(by_schema, by_reader, "{value}");
    }
}
