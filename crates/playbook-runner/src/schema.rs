//! The JSON Schemas a real run publishes in `schemas/`: what an agent
//! process answers (docs/agent-protocol.md), agent definitions
//! (docs/agents.md) and `policy/role-permissions.json`.

use playbook_core::schema::Published;
use serde_json::Value;

/// Every schema this crate publishes.
pub fn published() -> Vec<Published> {
    let mut answer = serde_json::to_value(schemars::schema_for!(crate::process::AgentAnswer))
        .unwrap_or(Value::Null);
    if let Value::Object(map) = &mut answer {
        map.insert(
            "$id".into(),
            "https://playbook.studio/schemas/agent-answer.schema.json".into(),
        );
        // Exactly one of the three answers; the typed reader says the same.
        map.insert(
            "oneOf".into(),
            serde_json::json!([
                {"required": ["output"], "not": {"anyOf": [{"required": ["needs_input"]}, {"required": ["error"]}]}},
                {"required": ["needs_input"], "not": {"anyOf": [{"required": ["output"]}, {"required": ["error"]}, {"required": ["result"]}]}},
                {"required": ["error"], "not": {"anyOf": [{"required": ["output"]}, {"required": ["needs_input"]}, {"required": ["result"]}]}},
            ]),
        );
    }
    vec![
        Published {
            file: "agent-answer.schema.json",
            schema: answer,
        },
        Published {
            file: "agents.schema.json",
            schema: crate::agents::schema(),
        },
        Published {
            file: "role-permissions.schema.json",
            schema: crate::context::role_permissions_schema(),
        },
    ]
}
