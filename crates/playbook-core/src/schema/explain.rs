//! What a schema violation is called and how it is fixed.
//!
//! A value that fits none of an `anyOf`/`oneOf`'s forms gets, from the
//! validator, one error at the outer value that echoes the whole value and
//! names no field. The branch that got furthest into the value says what is
//! wrong and where, so that branch's error is reported instead; when every
//! branch fails at the value itself, each branch's complaint is listed.

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use crate::finding::escape_pointer;

/// The longest rendering of a value a message quotes.
const MAX_QUOTED: usize = 80;

/// One violation as a finding reads it: pointer, message and fix.
pub(super) struct Explained {
    pub path: String,
    pub message: String,
    pub hint: String,
}

pub(super) fn explain(error: &ValidationError<'_>) -> Explained {
    let error = deepest(error);
    if alternatives(error).is_none() {
        return one(error);
    }
    let mut forms = Vec::new();
    collect_forms(error, &mut forms);
    // `null` is how an optional field's schema allows leaving it out; no
    // one needs to be told they could have written null.
    let null = |e: &&ValidationError<'static>| {
        matches!(
            e.kind(),
            ValidationErrorKind::Type { kind: TypeKind::Single(t) } if t.to_string() == "null"
        )
    };
    if forms.iter().any(|e| !null(e)) {
        forms.retain(|e| !null(e));
    }
    let mut messages: Vec<String> = Vec::new();
    let mut hints: Vec<String> = Vec::new();
    for e in &forms {
        for (list, item) in [
            (&mut messages, shorten(e.to_string(), e.instance())),
            (&mut hints, hint(e.kind())),
        ] {
            if !list.contains(&item) {
                list.push(item);
            }
        }
    }
    Explained {
        path: error.instance_path().as_str().to_string(),
        message: format!(
            "{} fits none of the forms allowed here: {}",
            quote(error.instance()),
            messages.join("; ")
        ),
        hint: hints.join(", or "),
    }
}

/// The first complaint of each form an alternative allows, alternatives
/// nested at the same value flattened into their own forms.
fn collect_forms<'e>(
    error: &'e ValidationError<'_>,
    forms: &mut Vec<&'e ValidationError<'static>>,
) {
    for branch in alternatives(error).into_iter().flatten() {
        let Some(first) = branch.first() else {
            continue;
        };
        if alternatives(first).is_some() && first.instance_path() == error.instance_path() {
            collect_forms(first, forms);
        } else {
            forms.push(first);
        }
    }
}

/// A violation that is not a choice between forms.
fn one(error: &ValidationError<'_>) -> Explained {
    let mut path = error.instance_path().as_str().to_string();
    // A missing field is reported at the field, where it is to be added.
    if let ValidationErrorKind::Required { property } = error.kind() {
        path = format!(
            "{path}/{}",
            escape_pointer(property.as_str().unwrap_or_default())
        );
    }
    let message = match (error.kind(), error.instance().as_str()) {
        // The id pattern is long; the rule's own words say what is wrong.
        (ValidationErrorKind::Pattern { pattern }, Some(id))
            if pattern == crate::ids::ID_PATTERN =>
        {
            let problem = crate::ids::id_problem(id).unwrap_or("it breaks the id rule");
            format!("the id `{}` cannot be used: {problem}", id.escape_debug())
        }
        _ => shorten(error.to_string(), error.instance()),
    };
    Explained {
        path,
        message,
        hint: hint(error.kind()),
    }
}

/// The branches of an `anyOf`/`oneOf` the value fits none of.
fn alternatives<'e>(
    error: &'e ValidationError<'_>,
) -> Option<&'e Vec<Vec<ValidationError<'static>>>> {
    match error.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            Some(context)
        }
        _ => None,
    }
}

/// Follows `anyOf`/`oneOf` errors into the branch that got deepest into the
/// value, while that branch's error lies below the alternative's own value.
fn deepest<'e, 'a>(error: &'e ValidationError<'a>) -> &'e ValidationError<'a> {
    let Some(branches) = alternatives(error) else {
        return error;
    };
    let depth = |e: &ValidationError<'_>| e.instance_path().as_str().matches('/').count();
    let own = depth(error);
    let best = branches
        .iter()
        .flat_map(|branch| branch.iter())
        .max_by_key(|e| depth(e))
        .filter(|e| depth(e) > own);
    match best {
        // The nested error may itself be an alternative: follow it down.
        Some(inner) => deepest(inner),
        None => error,
    }
}

/// The value as a message quotes it, cut to [`MAX_QUOTED`] characters,
/// never inside a word ([`crate::printable::head_of_whole_words`]).
fn quote(value: &Value) -> String {
    let text = value.to_string();
    match crate::printable::head_of_whole_words(&text, MAX_QUOTED) {
        Some(head) => format!("{head}…"),
        None => text,
    }
}

/// The validator's message with a long quoted value cut short, so a wrong
/// value of a thousand lines does not fill the message.
fn shorten(message: String, instance: &Value) -> String {
    let full = instance.to_string();
    if full.chars().count() <= MAX_QUOTED {
        return message;
    }
    message.replacen(&full, &quote(instance), 1)
}

/// How to fix a violation of `kind`.
fn hint(kind: &ValidationErrorKind) -> String {
    match kind {
        ValidationErrorKind::Required { property } => {
            format!(
                "add the required field `{}`",
                property.as_str().unwrap_or_default()
            )
        }
        ValidationErrorKind::Type {
            kind: TypeKind::Single(expected),
        } => match expected.to_string().as_str() {
            "array" => "write a list, e.g. `[read_file, git_diff]`".to_string(),
            "object" => "write a mapping of fields (`key: value` lines)".to_string(),
            "integer" => "write a whole number, e.g. 3".to_string(),
            "boolean" => "write true or false".to_string(),
            "string" => "write text (quote it if it looks like a number or a list)".to_string(),
            other => format!("write a value of type {other}"),
        },
        ValidationErrorKind::Type { .. } => {
            "change the value to one of the types named in the message".to_string()
        }
        ValidationErrorKind::Enum { options } => format!("use one of {options}"),
        ValidationErrorKind::Pattern { pattern } if pattern == crate::ids::ID_PATTERN => {
            crate::validate::ID_HINT.to_string()
        }
        ValidationErrorKind::Pattern { pattern } => format!("write a value matching {pattern}"),
        ValidationErrorKind::MinLength { .. } => "write a non-empty value".to_string(),
        ValidationErrorKind::Minimum { limit } => format!("use a value of at least {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("use a value of at most {limit}"),
        _ => "compare the value with `playbook schema`".to_string(),
    }
}

#[cfg(test)]
mod quote_tests {
    use super::*;

    #[test]
    fn a_quoted_value_is_never_cut_inside_a_word() {
        let token = format!("ghp_{}", "Zq8Wm2Xr4Tn6Vb".repeat(3));
        let value = Value::String(format!("{} {token} tail", "a".repeat(70)));
        let quoted = quote(&value);
        assert!(!quoted.contains("ghp_"), "{quoted}");
        assert!(quoted.ends_with(' ') || quoted.ends_with('…'), "{quoted}");
        assert!(quoted.starts_with("\"aaaa"), "{quoted}");
        // A value of one long word keeps nothing of it.
        assert_eq!(quote(&Value::String(token.repeat(3))), "\"…");
        // Short values are quoted whole.
        assert_eq!(quote(&Value::String("short".into())), "\"short\"");
    }
}
