//! What the published schema of a model (schemas/whatif-model.schema.json)
//! says beyond what schemars infers from the types, so that an editor
//! validating against it accepts and refuses what `playbook whatif` does:
//! the aliases serde reads, the keys of `roles` and `iterations`, and an
//! override that holds no `iterations` of its own. Ranges and patterns of
//! single values are attributes on the types in `model.rs`; the rules a
//! JSON Schema cannot state are listed in `check.rs`.
//! `tests/whatif/schema.rs` runs both on the same documents.

use schemars::{Schema, SchemaGenerator, json_schema};
use serde_json::{Value, json};

use super::{ALIASES, MAX_ENTRIES, Params};

/// An iteration key: a whole number from 1 to [`super::MAX_ITERATION`]
/// (10 000), written without a sign or leading zeros, as the checker
/// requires (`k.to_string() == key`).
pub(super) const ITERATION_KEY: &str = "^([1-9][0-9]{0,3}|10000)$";

/// A cost unit: at least one character that is not white space, and no
/// control or invisible formatting character (those of
/// [`playbook_core::printable::is_unprintable`]: C0, DEL, C1 and the bidi
/// and zero-width marks).
pub(super) const COST_UNIT: &str = "^[^\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2069\\uFEFF]*[^\\s\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2069\\uFEFF][^\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2069\\uFEFF]*$";

/// `Params`: each alias serde reads (`contract_violation` for `violation`,
/// see [`ALIASES`]) is a property too, with the same schema, and a model
/// sets a field under one of its names only (serde refuses both as a
/// duplicate field).
pub(super) fn aliases(schema: &mut Schema) {
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for (name, alias) in ALIASES {
        if let Some(mut same) = properties.get(name).cloned() {
            if let Some(same) = same.as_object_mut() {
                same.insert(
                    "description".into(),
                    Value::String(format!(
                        "Another name for `{name}`; an entry sets one or the other."
                    )),
                );
            }
            properties.insert(alias.to_string(), same);
        }
    }
    let one_name: Vec<Value> = ALIASES
        .iter()
        .map(|(name, alias)| json!({ "not": { "required": [name, alias] } }))
        .collect();
    schema.insert("allOf".into(), Value::Array(one_name));
}

/// The `iterations` of a role, a mode or `defaults`: iteration keys, at
/// most [`MAX_ENTRIES`] of them, each an entry without `iterations`.
pub(super) fn iterations(generator: &mut SchemaGenerator) -> Schema {
    let params = generator.subschema_for::<Params>();
    json_schema!({
        "type": ["object", "null"],
        "propertyNames": { "pattern": ITERATION_KEY },
        "maxProperties": MAX_ENTRIES,
        "additionalProperties": {
            "allOf": [params, { "properties": { "iterations": { "type": "null" } } }]
        }
    })
}

/// `roles`: a role name (anything but blank) or `mode:` and one of the
/// four modes, at most [`MAX_ENTRIES`] of them.
pub(super) fn roles(generator: &mut SchemaGenerator) -> Schema {
    let params = generator.subschema_for::<Params>();
    let modes: Vec<String> = playbook_core::model::RoleMode::ALL
        .iter()
        .map(|m| format!("mode:{}", m.as_str()))
        .collect();
    json_schema!({
        "type": "object",
        "additionalProperties": params,
        "maxProperties": MAX_ENTRIES,
        "propertyNames": {
            "pattern": "\\S",
            "anyOf": [{ "not": { "pattern": "^mode:" } }, { "enum": modes }]
        }
    })
}
