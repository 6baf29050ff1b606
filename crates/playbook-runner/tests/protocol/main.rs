//! The published agent protocol: its schemas are fresh, and the schema and
//! the typed reader agree on every answer.

use std::path::PathBuf;

use playbook_orchestrator::agent::AgentOutcome;
use playbook_runner::process::{OutputForm, read_answer};
use serde_json::{Value, json};

fn schemas_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas")
}

/// Writes the schemas when `UPDATE_SCHEMAS=1`; otherwise fails when a file differs.
#[test]
fn published_schemas_are_up_to_date() {
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    for p in playbook_runner::schema::published() {
        let path = schemas_dir().join(p.file);
        let text = serde_json::to_string_pretty(&p.schema).unwrap() + "\n";
        if update {
            std::fs::write(&path, &text).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == text,
            "{} is stale; run `UPDATE_SCHEMAS=1 cargo test -p playbook-runner --test protocol`",
            p.file
        );
    }
}

#[test]
fn the_answer_schema_and_the_reader_agree() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(schemas_dir().join("agent-answer.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let table = [
        (json!({"output": {"a": 1}}), true),
        (json!({"output": {"a": 1}, "result": {"x": 1}}), true),
        (json!({"needs_input": ["Which?"]}), true),
        (json!({"error": "no model"}), true),
        (json!({"output": {}, "error": "x"}), false),
        (json!({"needs_input": []}), false),
        (json!({"error": ""}), false),
        (json!({"output": 3}), false),
        (json!({"output": {}, "unknown": 1}), false),
        (json!({"needs_input": ["q"], "result": {}}), false),
    ];
    for (answer, valid) in table {
        assert_eq!(validator.is_valid(&answer), valid, "schema on {answer}");
        let read = read_answer(OutputForm::Protocol, &answer.to_string(), None);
        let accepted = !matches!(read, AgentOutcome::Error { ref message } if message.contains("could not be read"));
        assert_eq!(accepted, valid, "reader on {answer}: {read:?}");
    }
}
