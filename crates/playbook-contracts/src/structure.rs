//! Structural violations from the published schemas: what serde can only
//! say as one message ("missing field `actor` at line 1 column 80"), said as
//! one violation per problem at its JSON pointer, the way any JSON Schema
//! validator says it.

use std::sync::LazyLock;

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use crate::check::{
    Checker, NON_BLANK_PATTERN, RUN_ID_PATTERN, TASK_ID_PATTERN, TIMESTAMP_PATTERN, escape_pointer,
    violation,
};
use crate::code::{ErrorCode, ValidatorCode};
use crate::{Envelope, SubagentResult, ValidatorOutput, Violation};

/// Most violations reported for one envelope; a payload with a million bad
/// items gets a bounded answer.
pub const MAX_VIOLATIONS: usize = 100;
/// Longest message kept from the validator (it quotes the offending value,
/// which may be large).
const MAX_MESSAGE_CHARS: usize = 300;

/// One compiled validator per published schema, built once.
static VALIDATORS: LazyLock<Vec<(&'static str, Result<jsonschema::Validator, String>)>> =
    LazyLock::new(|| {
        crate::published()
            .into_iter()
            .map(|p| {
                let validator = jsonschema::options()
                    .should_validate_formats(true)
                    .build(&p.schema)
                    .map_err(|e| e.to_string());
                (p.file, validator)
            })
            .collect()
    });

/// The compiled validator of a published schema file.
pub fn validator(file: &str) -> Result<&'static jsonschema::Validator, String> {
    match VALIDATORS.iter().find(|(f, _)| *f == file) {
        Some((_, Ok(validator))) => Ok(validator),
        Some((_, Err(e))) => Err(format!("the schema {file} does not compile: {e}")),
        None => Err(format!("no published schema named {file}")),
    }
}

/// The validator's message, redacted, then cut. It quotes the agent's
/// value: cut first, a credential split at the cut would keep a piece that
/// the records' redaction no longer recognises.
fn clip(text: String) -> String {
    playbook_redact::redact_then_clip(&text, MAX_MESSAGE_CHARS, "…").into_owned()
}

fn unknown_field(path: &str, key: &str) -> Violation {
    violation(
        ErrorCode::ResultInvalid,
        format!("{path}/{}", escape_pointer(key)),
        format!("unknown field `{key}`; extensions must use the `x_` prefix (strict mode)"),
    )
}

/// Every structural violation of `value` against the schema of `file`;
/// unknown fields only when `strict`. `fallback` is what serde said, used
/// when the schema sees nothing wrong (a number too large for its type).
pub(crate) fn violations(
    file: &str,
    value: &Value,
    strict: bool,
    fallback: &dyn std::fmt::Display,
) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut more = 0usize;
    match validator(file) {
        Err(bug) => out.push(violation(ErrorCode::ResultInvalid, "", bug)),
        Ok(validator) => {
            for error in validator.iter_errors(value) {
                let path = error.instance_path().as_str().to_string();
                let found: Vec<Violation> = match error.kind() {
                    ValidationErrorKind::AdditionalProperties { unexpected } if strict => {
                        unexpected.iter().map(|k| unknown_field(&path, k)).collect()
                    }
                    ValidationErrorKind::AdditionalProperties { .. } => Vec::new(),
                    ValidationErrorKind::Required { property } => {
                        let name = property.as_str().unwrap_or_default();
                        vec![violation(
                            ErrorCode::ResultInvalid,
                            format!("{path}/{}", escape_pointer(name)),
                            format!("missing required field `{name}`"),
                        )]
                    }
                    kind => {
                        // The completion invariants are the `allOf` of the
                        // subagent result schema.
                        let code = if file == SubagentResult::SCHEMA_FILE
                            && error.schema_path().as_str().starts_with("/allOf/")
                        {
                            ErrorCode::ResultInconsistent
                        } else {
                            ErrorCode::ResultInvalid
                        };
                        let message = field_message(file, &path, kind, error.instance())
                            .unwrap_or_else(|| clip(error.to_string()));
                        vec![violation(code, path, message)]
                    }
                };
                for v in found {
                    // A value breaking two keywords of one rule (`pattern`
                    // and `format` of a timestamp) is one problem.
                    if out
                        .iter()
                        .any(|o: &Violation| o.path == v.path && o.message == v.message)
                    {
                        continue;
                    }
                    if out.len() < MAX_VIOLATIONS {
                        out.push(v);
                    } else {
                        more += 1;
                    }
                }
            }
        }
    }
    if more > 0 {
        out.push(violation(
            ErrorCode::ResultInvalid,
            "",
            format!("{more} more violation(s) not listed"),
        ));
    }
    if out.is_empty() {
        out.push(violation(
            ErrorCode::ResultInvalid,
            "",
            clip(fallback.to_string()),
        ));
    }
    out
}

/// The message the typed check gives for a field of a known kind (a
/// timestamp, an id, a code, non-blank text), so both paths say the same
/// thing and no message dumps a regex.
fn field_message(
    file: &str,
    path: &str,
    kind: &ValidationErrorKind,
    instance: &Value,
) -> Option<String> {
    let text = instance.as_str()?;
    let mut checker = Checker::new(false);
    match kind {
        ValidationErrorKind::Pattern { pattern } if pattern == TIMESTAMP_PATTERN => {
            checker.timestamp(path, text)
        }
        ValidationErrorKind::Format { format } if format == "date-time" => {
            checker.timestamp(path, text)
        }
        ValidationErrorKind::Pattern { pattern } if pattern == RUN_ID_PATTERN => {
            checker.run_id(path, text)
        }
        ValidationErrorKind::Pattern { pattern } if pattern == TASK_ID_PATTERN => {
            checker.task_id(path, text)
        }
        ValidationErrorKind::Pattern { pattern } if pattern == NON_BLANK_PATTERN => {
            checker.non_empty(path, text)
        }
        ValidationErrorKind::AnyOf { .. }
        | ValidationErrorKind::OneOfNotValid { .. }
        | ValidationErrorKind::Enum { .. }
            if path.ends_with("/code") =>
        {
            let unknown = if file == ValidatorOutput::SCHEMA_FILE {
                text.parse::<ValidatorCode>().err()
            } else {
                text.parse::<ErrorCode>().err()
            };
            checker.fail(path, unknown?.to_string());
        }
        _ => return None,
    }
    checker.out.pop().map(|v| v.message)
}

/// Unknown non-`x_` fields anywhere in `value` (strict mode).
pub(crate) fn unknown_fields(file: &str, value: &Value) -> Vec<Violation> {
    let validator = match validator(file) {
        Ok(validator) => validator,
        Err(bug) => return vec![violation(ErrorCode::ResultInvalid, "", bug)],
    };
    // Most envelopes are valid: a yes/no pass that stops at nothing is far
    // cheaper than collecting every error, and only a failure needs them.
    if validator.is_valid(value) {
        return Vec::new();
    }
    validator
        .iter_errors(value)
        .filter_map(|error| match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let path = error.instance_path().as_str().to_string();
                Some(
                    unexpected
                        .iter()
                        .map(|k| unknown_field(&path, k))
                        .collect::<Vec<_>>(),
                )
            }
            _ => None,
        })
        .flatten()
        .take(MAX_VIOLATIONS)
        .collect()
}
