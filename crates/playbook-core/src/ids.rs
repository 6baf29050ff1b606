//! The one rule for ids: which text may name a playbook (or a role
//! template) in a file, in the library and as an exported file name.
//!
//! The lints, the published schema ([`ID_PATTERN`]) and the store all use
//! this module, so an id `validate` accepts is exactly one the store
//! accepts. A test checks the pattern against [`check_id`] character by
//! character.

use crate::printable::is_invisible_format;

/// Longest id, in characters.
pub const MAX_ID_CHARS: usize = 200;

/// The rule as a JSON Schema (ECMA 262) pattern. Forbidden anywhere: `/`,
/// `\`, control characters (C0, DEL, C1) and the invisible format
/// characters that can disguise text (bidi embeddings, overrides and
/// isolates, zero-width characters, the BOM). Forbidden at either end:
/// whitespace. At least one character is not a dot. The length limit is the
/// schema's `maxLength`.
pub const ID_PATTERN: &str = concat!(
    "^(?:",
    // only dots before one non-dot that ends the id
    r"\.*[^.\s/\\\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]",
    "|",
    // a non-dot start, anything allowed, a non-blank end
    r"[^.\s/\\\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]",
    r"[^/\\\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]*",
    r"[^\s/\\\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]",
    "|",
    // dots, then a non-dot (blank allowed inside), anything allowed, a non-blank end
    r"\.+[^./\\\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]",
    r"[^/\\\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]*",
    r"[^\s/\\\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]",
    ")$"
);

/// Whitespace as JSON Schema patterns see it (`\s` in ECMA 262): Unicode
/// White_Space plus the BOM, which is also refused as invisible.
fn is_blank(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// Why `id` cannot be an id, or `None` when it can.
pub fn id_problem(id: &str) -> Option<&'static str> {
    if id.is_empty() {
        Some("it is empty")
    } else if id.chars().count() > MAX_ID_CHARS {
        Some("it is longer than 200 characters")
    } else if id.contains(['/', '\\']) {
        Some("it contains a path separator (`/` or `\\`)")
    } else if id.chars().any(char::is_control) {
        Some("it contains a control character")
    } else if id.chars().any(is_invisible_format) {
        Some("it contains an invisible formatting character (bidi override, zero-width space...)")
    } else if id.starts_with(is_blank) || id.ends_with(is_blank) {
        Some("it starts or ends with whitespace")
    } else if id.chars().all(|c| c == '.') {
        Some("it is only dots")
    } else {
        None
    }
}

/// True when `id` may name a playbook.
pub fn is_valid_id(id: &str) -> bool {
    id_problem(id).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern() -> jsonschema::Validator {
        let schema =
            serde_json::json!({"type": "string", "pattern": ID_PATTERN, "maxLength": MAX_ID_CHARS});
        jsonschema::validator_for(&schema).expect("the id pattern compiles")
    }

    #[test]
    fn the_schema_pattern_and_the_rule_agree_on_every_character() {
        let validator = pattern();
        // Every character alone, at the start, in the middle and at the end.
        let chars = (0u32..0x3100)
            .chain(0xfe00..0x10000)
            .chain([0x1f600, 0xe0001, 0x10ffff])
            .filter_map(char::from_u32);
        for c in chars {
            for id in [
                c.to_string(),
                format!("{c}a"),
                format!("a{c}"),
                format!("a{c}a"),
                format!(".{c}"),
                format!("..{c}a"),
            ] {
                let by_pattern = validator.is_valid(&serde_json::Value::String(id.clone()));
                assert_eq!(
                    by_pattern,
                    is_valid_id(&id),
                    "{id:?} (U+{:04X}): pattern says {by_pattern}, rule says {:?}",
                    c as u32,
                    id_problem(&id)
                );
            }
        }
    }

    #[test]
    fn hostile_ids_are_refused_and_ordinary_ones_pass() {
        for bad in [
            "",
            "a/b",
            "a\\b",
            "a\0b",
            "a\u{7}",
            "\u{202e}dtt",
            "a\u{200b}",
            " a",
            "a ",
            ".",
            "...",
            "\u{feff}a",
            "a\u{2066}",
        ] {
            assert!(!is_valid_id(bad), "{bad:?}");
            assert!(
                !pattern().is_valid(&serde_json::Value::String(bad.into())),
                "{bad:?}"
            );
        }
        for good in [
            "tdd",
            "compound-engineering",
            "a.b",
            ".hidden",
            "v1.2_x",
            "é",
            "日本",
        ] {
            assert!(is_valid_id(good), "{good:?}");
        }
        assert!(!is_valid_id(&"a".repeat(201)));
    }
}
