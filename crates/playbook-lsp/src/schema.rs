//! Field documentation from the published playbook schema: the schema the
//! core generates from the model (the same text as
//! `schemas/playbook.schema.json`), walked by JSON pointer.

use std::sync::LazyLock;

use playbook_core::Playbook;
use playbook_core::finding::pointer_tokens;
use serde_json::Value;

static SCHEMA: LazyLock<Value> =
    LazyLock::new(|| playbook_core::schema::generate::<Playbook>("playbook.schema.json"));

/// The schema of the value at a pointer, as far as the schema says.
#[derive(Clone, Copy)]
pub struct Field {
    /// The schema where the field is declared (it carries the field's own
    /// description, e.g. a role's `mode`).
    declared: &'static Value,
    /// The same after following `$ref`: the type, enum and properties.
    resolved: &'static Value,
}

/// One property of an object.
pub struct Property {
    pub name: &'static str,
    pub description: Option<&'static str>,
}

impl Field {
    /// The schema of the value at `pointer`; `None` where the schema does
    /// not describe it (an `x_` extension, a field the format lacks).
    pub fn at(pointer: &str) -> Option<Field> {
        let root: &'static Value = &SCHEMA;
        let mut field = Field {
            declared: root,
            resolved: resolve(root),
        };
        for token in pointer_tokens(pointer) {
            let schema = field.resolved;
            let next = schema
                .get("properties")
                .and_then(|p| p.get(&token))
                .or_else(|| {
                    token
                        .parse::<usize>()
                        .ok()
                        .and_then(|_| schema.get("items"))
                })
                .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()))?;
            field = Field {
                declared: next,
                resolved: resolve(next),
            };
        }
        Some(field)
    }

    pub fn description(&self) -> Option<&'static str> {
        self.declared
            .get("description")
            .or_else(|| self.resolved.get("description"))
            .and_then(Value::as_str)
    }

    /// The values an enum field takes, and `true`/`false` for a boolean.
    pub fn values(&self) -> Vec<&'static str> {
        if let Some(values) = self.resolved.get("enum").and_then(Value::as_array) {
            return values.iter().filter_map(Value::as_str).collect();
        }
        if self.resolved.get("type").and_then(Value::as_str) == Some("boolean") {
            return vec!["true", "false"];
        }
        Vec::new()
    }

    /// The type name the schema gives, e.g. `string` or `array`.
    pub fn type_name(&self) -> Option<&'static str> {
        self.resolved.get("type").and_then(Value::as_str)
    }

    pub fn is_object(&self) -> bool {
        self.type_name() == Some("object") || self.resolved.get("properties").is_some()
    }

    /// The named properties of an object field, in schema order.
    pub fn properties(&self) -> Vec<Property> {
        let Some(properties) = self.resolved.get("properties").and_then(Value::as_object) else {
            return Vec::new();
        };
        properties
            .iter()
            .map(|(name, schema)| Property {
                name: name.as_str(),
                description: schema
                    .get("description")
                    .or_else(|| resolve(schema).get("description"))
                    .and_then(Value::as_str),
            })
            .collect()
    }

    pub fn is_required(parent: &str, name: &str) -> bool {
        Field::at(parent)
            .and_then(|f| f.resolved.get("required"))
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|v| v == name))
    }
}

/// Follows a local `$ref` (`#/$defs/Role`); the generated schema has no
/// other kind, and refs never chain, so one step is enough.
fn resolve(schema: &'static Value) -> &'static Value {
    let root: &'static Value = &SCHEMA;
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
        .unwrap_or(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found_by_pointer() {
        let mode = Field::at("/workflow/build/roles/0/mode").unwrap();
        assert!(mode.description().unwrap().contains("planner"));
        assert_eq!(mode.values(), ["planner", "worker", "reviewer", "tester"]);
        let role = Field::at("/workflow/build/roles/3").unwrap();
        assert!(role.properties().iter().any(|p| p.name == "handoff_to"));
        assert_eq!(
            Field::at("/workflow/b/enabled").unwrap().values(),
            ["true", "false"]
        );
        assert!(Field::at("/workflow/b/roles/0/x_note").is_none());
        assert!(Field::is_required("/workflow/b/roles/0", "name"));
        assert!(
            Field::at("")
                .unwrap()
                .properties()
                .iter()
                .any(|p| p.name == "workflow")
        );
    }
}
