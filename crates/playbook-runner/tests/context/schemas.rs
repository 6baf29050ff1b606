//! The schemas of this part of a run are fresh, and the typed readers and
//! the schemas agree.

use serde_json::json;

// The files themselves are checked where every schema of the crate is
// (tests/protocol: `published_schemas_are_up_to_date`).

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
