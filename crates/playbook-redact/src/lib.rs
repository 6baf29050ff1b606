//! The one secret redactor of Playbook Studio.
//!
//! Agents write free text: errors, questions, notes, evidence, tool
//! arguments, whole output objects. Any of it may carry a credential the
//! agent saw. Every record that leaves a run — events, worklogs, the audit
//! log, the ledger, blockers, envelopes, handoff bundles, stored runs, the
//! CLI's text report — passes through this crate first, so a secret is
//! replaced by [`REDACTED`] before anything is written or shown.
//!
//! What counts as a secret (`rules.rs`, `keys.rs`): credential formats
//! with a recognisable shape (GitHub, GitLab, Slack, AWS, Google, OpenAI,
//! Anthropic, Stripe, npm, PyPI... tokens, JWTs, PEM private-key blocks,
//! passwords in URLs, `Bearer`/`Basic` values, `curl -u user:pass`)
//! anywhere in a text; the value after a secret-sounding name (`password`,
//! `api_key`, `token`, `client_secret`...) in `key=value`, `key: value` or
//! `"key": "value"` form with any spacing or quoting; and a machine-made
//! (long, mixed, high-entropy) value after a key-like name (`signing_key`,
//! `session_id`).
//! In a JSON value the object's own keys are names too:
//! `{"password": "x"}` hides `x`.
//!
//! The rules read each text as written and folded (`fold.rs`): with the
//! characters nobody sees dropped, tag and full-width characters read as
//! ASCII, and `%XX` escapes decoded, so a token split by a U+200B or
//! written percent-encoded is found, and redacted with what hid it
//! (docs/redaction.md says what is and is not seen through, and why).
//!
//! Cost: one linear scan of a `RegexSet` per text, and one linear pass
//! per rule that matches (`scan.rs`); nothing is allocated when nothing
//! matches.
//!
//! A text is redacted whole, then cut, never the other way round: a cut
//! inside a credential leaves a piece no rule matches. Where a record
//! keeps only part of a text, it goes through `window.rs`:
//! [`redact_then_clip`] for a head, [`redact_tail`] for a tail, and
//! [`head_window`]/[`tail_window`] for a window of a stream that was never
//! read whole.

#[cfg(test)]
mod cuts_tests;
#[cfg(test)]
mod every_start_tests;
mod fold;
#[cfg(test)]
mod fold_tests;
mod keys;
mod pointer;
mod probe;
mod rules;
mod scan;
#[cfg(test)]
mod tests;
mod window;

use std::borrow::Cow;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub use pointer::redact_json_pointer;
use probe::json_may_hold_secret;
pub use window::{HEAD_SCAN, head_window, redact_tail, redact_then_clip, tail_window};

/// What a secret is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// `text` with every secret replaced by [`REDACTED`]; borrowed when clean.
pub fn redact_str(text: &str) -> Cow<'_, str> {
    let spans = scan::spans(text);
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in spans {
        out.push_str(&text[last..start]);
        out.push_str(REDACTED);
        last = end;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// Redacts a string in place; whether it changed.
pub fn redact_string(text: &mut String) -> bool {
    match redact_str(text) {
        Cow::Borrowed(_) => false,
        Cow::Owned(clean) => {
            *text = clean;
            true
        }
    }
}

/// Whether `text` holds nothing the redactor would hide.
pub fn is_clean(text: &str) -> bool {
    scan::spans(text).is_empty()
}

/// Whether `name`, as an object key, changes nothing when redacted: it is
/// clean itself and does not make the value under it a secret (not a
/// secret or key-like name). A record whose keys are all plain can be
/// redacted string by string, with the result [`redact_value`] gives.
pub fn is_plain_name(name: &str) -> bool {
    !rules::may_hold_secret(name) || (is_clean(name) && keys::classify(name) == keys::Name::Plain)
}

/// Whether `name`, as the key of a number, changes nothing when redacted:
/// it is clean itself and is not a secret name (a key-like name such as
/// `test_author` hides only machine-made strings, never a number).
pub fn keeps_number_under(name: &str) -> bool {
    !rules::may_hold_secret(name) || (is_clean(name) && keys::classify(name) != keys::Name::Secret)
}

/// Redacts every string of a JSON value in place — leaves, object keys,
/// and whole values under secret-sounding keys (a number under `pin` or
/// `password` becomes the string [`REDACTED`] too). Iterative, so nesting
/// depth cannot exhaust the stack. Whether anything changed.
pub fn redact_value(value: &mut Value) -> bool {
    let mut changed = false;
    let mut stack: Vec<&mut Value> = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) => changed |= redact_string(text),
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => {
                changed |= redact_keys(map);
                for (key, child) in map.iter_mut() {
                    match child {
                        Value::String(text) if keys::hides_value(key, text) => {
                            *text = REDACTED.to_string();
                            changed = true;
                        }
                        Value::Number(n)
                            if keys::classify(key) == keys::Name::Secret
                                && keys::hides_value(key, &n.to_string()) =>
                        {
                            *child = Value::String(REDACTED.to_string());
                            changed = true;
                        }
                        _ => stack.push(child),
                    }
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    changed
}

/// Object keys that are secrets themselves (`{"ghp_…": 1}`). Two keys that
/// both redact keep both entries, numbered.
fn redact_keys(map: &mut Map<String, Value>) -> bool {
    if map.keys().all(|k| is_clean(k)) {
        return false;
    }
    let old = std::mem::take(map);
    for (key, value) in old {
        let mut key = redact_str(&key).into_owned();
        if map.contains_key(&key) {
            let mut n = 2;
            while map.contains_key(&format!("{key}#{n}")) {
                n += 1;
            }
            key = format!("{key}#{n}");
        }
        map.insert(key, value);
    }
    true
}

/// Redacts JSON text: parsed, redacted as a value and written back when it
/// parses; redacted as plain text when it does not.
pub fn redact_json_text(text: &str) -> Cow<'_, str> {
    match serde_json::from_str::<Value>(text) {
        Ok(mut value) => {
            if redact_value(&mut value) {
                match serde_json::to_string(&value) {
                    Ok(clean) => Cow::Owned(clean),
                    // Writing a parsed value back cannot fail; if it did,
                    // the plain-text rules still apply.
                    Err(_) => redact_str(text),
                }
            } else {
                Cow::Borrowed(text)
            }
        }
        Err(_) => redact_str(text),
    }
}

/// Why a typed record could not be redacted.
#[derive(Debug)]
pub struct RedactError(serde_json::Error);

impl std::error::Error for RedactError {}

impl std::fmt::Display for RedactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a record could not be redacted and was withheld: {}",
            self.0
        )
    }
}

/// Redacts any serialisable record through its JSON form: `Ok(None)` when
/// it holds no secret, `Ok(Some(clean))` when it did. An error means the
/// redacted form no longer fits the type (a secret in a field with a fixed
/// set of values); callers must then withhold the record, never fall back
/// to the original.
pub fn redact_serde<T: Serialize + DeserializeOwned>(record: &T) -> Result<Option<T>, RedactError> {
    if !json_may_hold_secret(record) {
        return Ok(None);
    }
    let mut value = serde_json::to_value(record).map_err(RedactError)?;
    if !redact_value(&mut value) {
        return Ok(None);
    }
    serde_json::from_value(value).map(Some).map_err(RedactError)
}

/// Types whose text fields can be redacted in place.
pub trait Redact {
    /// Redacts every text in `self`; whether anything changed.
    fn redact(&mut self) -> bool;
}

impl Redact for String {
    fn redact(&mut self) -> bool {
        redact_string(self)
    }
}

impl Redact for Value {
    fn redact(&mut self) -> bool {
        redact_value(self)
    }
}

impl<T: Redact> Redact for Option<T> {
    fn redact(&mut self) -> bool {
        self.as_mut().is_some_and(Redact::redact)
    }
}

impl<T: Redact> Redact for Vec<T> {
    fn redact(&mut self) -> bool {
        self.iter_mut()
            .fold(false, |changed, item| item.redact() | changed)
    }
}
