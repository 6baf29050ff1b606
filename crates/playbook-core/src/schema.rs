//! Published JSON Schemas, generated from the Rust types.
//!
//! The files in `schemas/` are the output of [`published`]; a test fails when
//! they are stale, so the schema editors see and the schema the validator
//! uses can never drift from the model.

use std::sync::LazyLock;

use schemars::JsonSchema;
use serde_json::Value;

use crate::finding::{Code, Finding};
use crate::model::Playbook;

mod explain;
pub(crate) mod residual;

/// Base URL under which the schemas are published; also their `$id`.
pub const SCHEMA_BASE: &str = "https://playbook.studio/schemas";

/// The JSON Schema of `T`, with `$id` set to the published location of `file`.
pub fn generate<T: JsonSchema>(file: &str) -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    unwrap_optional_refs(&mut schema);
    if let Some(object) = schema.as_object_mut() {
        object.insert("$id".into(), Value::String(format!("{SCHEMA_BASE}/{file}")));
    }
    schema
}

/// Rewrites `anyOf: [{$ref: X}, {type: null}]` (how an `Option` of a struct
/// is generated) to `$ref: X`, and `type: [T, null]` to `type: T`. Validation errors then point inside the
/// object (`/retry_policy/max_iterations`) instead of stopping at "not valid
/// under any of the schemas listed in anyOf"; an explicit `null` is reported
/// as a type error, which is what a user who wrote `gates:` with nothing
/// after it needs to hear.
fn unwrap_optional_refs(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            let inner = match object.get("anyOf").and_then(Value::as_array) {
                Some(options) if options.len() == 2 => {
                    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
                    match (is_null(&options[0]), is_null(&options[1])) {
                        (false, true) => Some(options[0].clone()),
                        (true, false) => Some(options[1].clone()),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(Value::Object(inner)) = inner {
                object.remove("anyOf");
                object.extend(inner);
            }
            // `type: [T, "null"]`, the same for a primitive `Option`.
            let single = match object.get("type").and_then(Value::as_array) {
                Some(types) if types.len() == 2 && types.iter().any(|t| t == "null") => {
                    types.iter().find(|t| *t != "null").cloned()
                }
                _ => None,
            };
            if let Some(single) = single {
                object.insert("type".into(), single);
            }
            object.values_mut().for_each(unwrap_optional_refs);
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_optional_refs),
        _ => {}
    }
}

/// One schema file of `schemas/`.
pub struct Published {
    pub file: &'static str,
    pub schema: Value,
}

/// Every schema this crate publishes, by file name. The orchestrator crate
/// publishes the envelope schemas beside these.
pub fn published() -> Vec<Published> {
    vec![Published {
        file: "playbook.schema.json",
        schema: generate::<Playbook>("playbook.schema.json"),
    }]
}

static PLAYBOOK_VALIDATOR: LazyLock<Result<jsonschema::Validator, String>> = LazyLock::new(|| {
    jsonschema::options()
        .build(&generate::<Playbook>("playbook.schema.json"))
        .map_err(|e| e.to_string())
});

/// Validates a parsed document against the playbook schema and returns one
/// finding per violation, each addressed by JSON pointer.
pub fn check_playbook(value: &Value) -> Vec<Finding> {
    match &*PLAYBOOK_VALIDATOR {
        Ok(validator) => check_with(validator, value),
        Err(message) => vec![Finding::new(
            Code::Schema,
            "",
            format!("the playbook schema could not be built: {message}"),
            "this is a bug in Playbook Studio; please report it",
        )],
    }
}

/// Runs any compiled validator and converts its errors to PB002 findings.
pub fn check_with(validator: &jsonschema::Validator, value: &Value) -> Vec<Finding> {
    // The boolean check short-circuits and builds no error paths; most
    // documents the editor sends are structurally valid.
    if validator.is_valid(value) {
        return Vec::new();
    }
    validator
        .iter_errors(value)
        .map(|error| {
            let e = explain::explain(&error);
            Finding::new(Code::Schema, e.path, e.message, e.hint)
        })
        .collect()
}
