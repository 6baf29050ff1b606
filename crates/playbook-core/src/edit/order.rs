//! Key order of a new value, taken from the text it rewrites.
//!
//! A value that went through the typed model (the app's form, a stored
//! version) has the struct's own key order, not the author's; a mapping
//! whose keys moved is replaced whole by [`super::diff`], which would drop
//! every comment in it. Except where order means something, the key order
//! of the text is layout, so the new value takes it before the rewrite.

use serde_json::{Map, Value};

use super::{EditError, Edited, rewrite};
use crate::document::{self, Format};
use crate::finding::escape_pointer;

/// Mappings whose key order is content: stages run in the order of
/// `workflow`, and the typed model keeps both in the author's order, so a
/// different order there is a real move.
const ORDERED: &[&str] = &["/workflow", "/policies"];

/// Rewrites `old_text` to read as `new_value`, a value of the typed model:
/// the text's key order is kept (except in [`ORDERED`] mappings), then
/// [`rewrite`] changes only the spans that differ. For a form save, an
/// export of a stored version, an autosaved draft.
pub fn rewrite_typed(
    old_text: &str,
    format: Format,
    new_value: &Value,
) -> Result<Edited, EditError> {
    let old = document::parse_value(old_text, format).map_err(EditError::Unreadable)?;
    let aligned = in_order_of(new_value, &old, "", &|path| ORDERED.contains(&path));
    rewrite(old_text, format, &aligned)
}

/// `value` with its mapping keys in the order `like` has them (keys only
/// `value` has come after, in its order); a mapping at a path for which
/// `keep` holds keeps its own order. Sequences are matched item by item.
pub(super) fn in_order_of(
    value: &Value,
    like: &Value,
    path: &str,
    keep: &dyn Fn(&str) -> bool,
) -> Value {
    match (value, like) {
        (Value::Object(map), Value::Object(order)) => {
            let mut out = Map::with_capacity(map.len());
            let child = |key: &str| format!("{path}/{}", escape_pointer(key));
            if !keep(path) {
                // Keys only `value` has, which may be keys of `like` renamed.
                let fresh: Vec<&String> = map.keys().filter(|k| !order.contains_key(*k)).collect();
                for (key, theirs) in order {
                    if let Some(ours) = map.get(key) {
                        out.insert(key.clone(), in_order_of(ours, theirs, &child(key), keep));
                    } else if let Some(renamed) = renamed_from(&fresh, map, theirs, &out) {
                        // A rename (a quick fix's `x_owner`) keeps the
                        // place of the key it renames.
                        out.insert(renamed.clone(), map[renamed].clone());
                    }
                }
            }
            for (key, ours) in map {
                if !out.contains_key(key) {
                    let aligned = match order.get(key) {
                        Some(theirs) => in_order_of(ours, theirs, &child(key), keep),
                        None => ours.clone(),
                    };
                    out.insert(key.clone(), aligned);
                }
            }
            Value::Object(out)
        }
        (Value::Array(items), Value::Array(order)) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| match order.get(i) {
                    Some(o) => in_order_of(v, o, &format!("{path}/{i}"), keep),
                    None => v.clone(),
                })
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// Most keys new to a mapping that are matched with removed ones by value:
/// renames are one or a few; beyond this a mapping is simply reordered.
const MAX_RENAMED: usize = 64;

/// The first of the `fresh` keys of `map`, not placed yet, whose value is
/// `value`: the new name of a removed key that held it.
fn renamed_from<'a>(
    fresh: &[&'a String],
    map: &Map<String, Value>,
    value: &Value,
    placed: &Map<String, Value>,
) -> Option<&'a String> {
    if fresh.len() > MAX_RENAMED {
        return None;
    }
    fresh.iter().copied().find(|key| {
        !placed.contains_key(*key)
            && map
                .get(*key)
                .is_some_and(|v| super::diff::identical(v, value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_typed_order_takes_the_authors_order_and_only_the_value_changes() {
        let text = "# head\n\nname: Demo  # shown\nid: demo\n\n# roles\nworkflow: {}\n";
        let typed = json!({"id": "demo", "name": "Shipped", "workflow": {}});
        let edited = rewrite_typed(text, Format::Yaml, &typed).unwrap();
        assert!(edited.preserved);
        assert_eq!(
            edited.text,
            "# head\n\nname: Shipped  # shown\nid: demo\n\n# roles\nworkflow: {}\n"
        );
    }

    #[test]
    fn moved_stages_stay_moved() {
        let text = "id: d\nworkflow:\n  a: {enabled: true}\n  b: {enabled: true}\n";
        let typed =
            json!({"id": "d", "workflow": {"b": {"enabled": true}, "a": {"enabled": true}}});
        let edited = rewrite_typed(text, Format::Yaml, &typed).unwrap();
        let read = document::parse_value(&edited.text, Format::Yaml).unwrap();
        let stages: Vec<_> = read["workflow"].as_object().unwrap().keys().collect();
        assert_eq!(stages, ["b", "a"]);
    }

    #[test]
    fn keys_inside_stages_and_roles_follow_the_text() {
        let text = "workflow:\n  build:\n    roles:\n      - mode: worker  # m\n        name: w\n";
        let typed = json!({"workflow": {"build": {"roles": [{"name": "w2", "mode": "worker"}]}}});
        let edited = rewrite_typed(text, Format::Yaml, &typed).unwrap();
        assert_eq!(
            edited.text,
            "workflow:\n  build:\n    roles:\n      - mode: worker  # m\n        name: w2\n"
        );
    }

    /// The app applies "Rename to `x_owner`" to its value and writes it
    /// back: the key is renamed where it stands, its comment kept.
    #[test]
    fn a_renamed_key_keeps_its_place_through_a_typed_rewrite() {
        let text = "id: demo\nowner: platform-team  # who to page\nname: Demo\n";
        let typed = json!({"id": "demo", "name": "Demo", "x_owner": "platform-team"});
        let edited = rewrite_typed(text, Format::Yaml, &typed).unwrap();
        assert!(edited.comments_kept(), "{}", edited.text);
        assert_eq!(edited.text, text.replace("owner:", "x_owner:"));
    }

    #[test]
    fn unreadable_text_is_an_error_not_a_panic() {
        assert!(rewrite_typed("a: [", Format::Yaml, &json!({})).is_err());
    }
}
