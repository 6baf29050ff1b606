//! JSON text → `serde_json::Value`, refusing a key given twice in one object.
//!
//! `serde_json::Value` keeps the last of two equal keys, so a reviewer who
//! reads the first one is misled. This deserializer builds the same value
//! but stops at a repeated key; serde_json places the error (the second
//! key) and `locate.rs` finds the first one by its pointer.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::Problem;
use crate::finding::{Location, escape_pointer, pointer_tokens};
use crate::locate::SourceMap;

/// Marks the message of a duplicate-key error so it can be told apart from
/// serde_json's own syntax errors.
const DUPLICATE: &str = "\u{0}duplicate:";

pub(super) fn parse(text: &str) -> Result<Value, Problem> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let result = Node { parent: None }
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    result.map_err(|e| {
        let second = (e.line() > 0).then(|| Location {
            line: e.line(),
            column: e.column(),
        });
        let message = e.to_string();
        // The message is the marker and the pointer, then serde_json's
        // " at line L column C".
        let duplicate = message
            .strip_prefix(DUPLICATE)
            .map(|rest| rest.rsplit_once(" at line ").map_or(rest, |(p, _)| p));
        match duplicate {
            Some(path) => {
                let first = SourceMap::new(text).locate(path);
                Problem::DuplicateKey {
                    key: pointer_tokens(path).pop().unwrap_or_default(),
                    path: path.to_string(),
                    first: first.unwrap_or(Location { line: 0, column: 0 }),
                    second: second.unwrap_or(Location { line: 0, column: 0 }),
                }
            }
            None => Problem::Syntax {
                message,
                location: second,
            },
        }
    })
}

/// One step of the path from the root, kept on the stack: the pointer is
/// only written out when a duplicate is found.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

struct Path<'a> {
    step: Step<'a>,
    parent: Option<&'a Path<'a>>,
}

fn pointer(path: Option<&Path<'_>>) -> String {
    let mut steps = Vec::new();
    let mut at = path;
    while let Some(p) = at {
        steps.push(match p.step {
            Step::Key(k) => escape_pointer(k),
            Step::Index(i) => i.to_string(),
        });
        at = p.parent;
    }
    steps.iter().rev().map(|s| format!("/{s}")).collect()
}

#[derive(Clone, Copy)]
struct Node<'a> {
    parent: Option<&'a Path<'a>>,
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number is not finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let path = Path {
                step: Step::Index(items.len()),
                parent: self.parent,
            };
            match seq.next_element_seed(Node {
                parent: Some(&path),
            })? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            let path = Path {
                step: Step::Key(&key),
                parent: self.parent,
            };
            if map.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "{DUPLICATE}{}",
                    pointer(Some(&path))
                )));
            }
            let value = access.next_value_seed(Node {
                parent: Some(&path),
            })?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_those_of_serde_json() {
        let text = r#"{"a": [1, -2, 1.5, true, null, "s", {"b": {}}], "c": 18446744073709551615}"#;
        assert_eq!(
            parse(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
    }

    #[test]
    fn a_duplicate_key_is_refused_with_both_places() {
        let text = "{\n  \"a\": [\n    {\"x\": 1,\n     \"x\": 2}\n  ]\n}\n";
        let Problem::DuplicateKey {
            key,
            path,
            first,
            second,
        } = parse(text).unwrap_err()
        else {
            panic!("not a duplicate");
        };
        assert_eq!((key.as_str(), path.as_str()), ("x", "/a/0/x"));
        assert_eq!(first.line, 3);
        assert_eq!(second.line, 4);
    }

    #[test]
    fn deep_nesting_is_a_syntax_error() {
        let text = "[".repeat(100_000);
        assert!(matches!(parse(&text), Err(Problem::Syntax { .. })));
    }
}
