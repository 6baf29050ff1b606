//! YAML merge keys: `<<: *base` and `<<: [*a, *b]` in a mapping.
//!
//! The merge key is a YAML 1.1 type, not part of 1.2's core schema, but the
//! loaders of the tools whose files we read apply it (agenterm's `yaml.v3`,
//! CrewAI's PyYAML), and so do most others; reading `<<` as an ordinary key
//! would silently drop what an author shares through it (an approval gate,
//! an agent's goal). Their rules, followed here:
//! - only a plain `<<` key merges (a quoted `"<<"` is an ordinary key);
//! - its value is a mapping or a list of mappings, anything else is refused;
//! - keys the mapping writes itself win over merged ones, and in a list of
//!   mappings an earlier one wins over a later one.
//!
//! Merged keys take the place of the `<<` key in the mapping's order (for
//! the usual `<<` written first, the order PyYAML gives too); keys written
//! explicitly keep their own place.

use serde_json::{Map, Value};

use crate::document::Problem;
use crate::finding::Location;

/// A mapping's merge key, once seen.
#[derive(Debug)]
pub(super) struct Merge {
    /// How many explicit keys came before `<<`: where merged keys go.
    pub at: usize,
    /// Where `<<` is written, for refusals.
    pub location: Location,
    /// The mappings to merge, earliest first; empty until the value is read.
    pub sources: Vec<Map<String, Value>>,
}

/// Checks the value of a merge key at `path` and keeps its mappings.
pub(super) fn sources(
    value: Value,
    path: String,
    location: Location,
) -> Result<Vec<Map<String, Value>>, Problem> {
    let refuse = |found: &str| Problem::Merge {
        found: found.to_string(),
        path: path.clone(),
        location,
    };
    match value {
        Value::Object(map) => Ok(vec![map]),
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::Object(map) => Ok(map),
                other => Err(refuse(&format!("a list holding {}", kind(&other)))),
            })
            .collect(),
        other => Err(refuse(kind(&other))),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing (null)",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// The mapping with its merged keys: explicit keys before `<<`, then the
/// merged keys it does not write itself, then the explicit keys after.
pub(super) fn apply(explicit: Map<String, Value>, merge: Merge) -> Map<String, Value> {
    let mut merged = Map::new();
    for source in merge.sources {
        for (key, value) in source {
            if !explicit.contains_key(&key) && !merged.contains_key(&key) {
                merged.insert(key, value);
            }
        }
    }
    let mut out = Map::with_capacity(explicit.len() + merged.len());
    let mut explicit = explicit.into_iter();
    out.extend(explicit.by_ref().take(merge.at));
    out.extend(merged);
    out.extend(explicit);
    out
}
