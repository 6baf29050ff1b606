//! The typed checks shared by every envelope: one rule per kind of field
//! (ids, versions, timestamps, codes, non-blank text, lengths), so a field
//! of a kind is checked the same way in every envelope that carries it.
//!
//! Each rule here has a twin in the published JSON Schema (a `pattern`, an
//! `enum`, a `minLength`) built from the same constant, so an independent
//! validator agrees with [`crate::parse`]. The tests walk a table of
//! envelopes through both.

use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::Extra;
use crate::code::ErrorCode;

/// `schema_version`: `1.x.y`. Unknown major versions fail closed.
pub const VERSION_PATTERN: &str = r"^1\.[0-9]+\.[0-9]+$";
/// `run_id`: a UUID v4.
pub const RUN_ID_PATTERN: &str =
    r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$";
/// `task_id`: `T-n` or a 36-character UUID-like id.
pub const TASK_ID_PATTERN: &str = r"^(T-[0-9]+|[0-9a-fA-F-]{36})$";
/// Every timestamp of the contracts: ISO-8601 in UTC, written with `Z`
/// (`2026-05-01T12:00:00Z`, optional fraction). Offsets, lower-case `t`/`z`,
/// a space instead of `T` and free text are refused. The calendar (no
/// February 30) is checked by [`is_utc_timestamp`] and, in the schema, by
/// `format: date-time`.
pub const TIMESTAMP_PATTERN: &str = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]{1,9})?Z$";
/// Text that is not blank: at least one character outside the whitespace
/// that both Rust's `char::is_whitespace` and ECMA-262's `\s` know, spelled
/// out so that every regex engine reads it the same way.
pub const NON_BLANK_PATTERN: &str =
    r"[^\t\n\x0B\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]";

/// Whether `c` counts as blank for [`NON_BLANK_PATTERN`].
fn is_blank_char(c: char) -> bool {
    c.is_whitespace() || c == '\u{FEFF}'
}

/// Whether `text` has a character that is not blank (the rule of every
/// "non-empty" text of the contracts).
pub fn is_non_blank(text: &str) -> bool {
    !text.chars().all(is_blank_char)
}

/// Whether `text` is a UUID v4 (the `run_id` rule).
pub fn is_uuid_v4(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            14 => *c == b'4',
            19 => matches!(c, b'8' | b'9' | b'a' | b'b' | b'A' | b'B'),
            _ => c.is_ascii_hexdigit(),
        })
}

/// Whether `text` matches the `task_id` rule of spec/contracts.md.
pub fn is_task_id(text: &str) -> bool {
    match text.strip_prefix("T-") {
        Some(n) => !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()),
        None => text.len() == 36 && text.bytes().all(|c| c.is_ascii_hexdigit() || c == b'-'),
    }
}

/// Whether `text` is a `1.x.y` contract version.
pub fn is_supported_version(text: &str) -> bool {
    let mut parts = text.split('.');
    parts.next() == Some("1")
        && parts.clone().count() == 2
        && parts.all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
}

static TIMESTAMP: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(TIMESTAMP_PATTERN).ok());

/// Whether `text` is an ISO-8601 UTC timestamp of the contracts: the shape
/// of [`TIMESTAMP_PATTERN`] and a real instant (the calendar is jiff's).
pub fn is_utc_timestamp(text: &str) -> bool {
    let shaped = TIMESTAMP.as_ref().is_some_and(|re| re.is_match(text));
    // jiff refuses what the shape cannot see (February 30, April 31); a
    // leap second (`:60`) is a valid RFC 3339 instant, so it is read as
    // `:59` the way the schema's `format: date-time` accepts it.
    shaped
        && text
            .replacen(":60", ":59", 1)
            .parse::<jiff::Timestamp>()
            .is_ok()
}

/// One thing wrong with an envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(export)]
pub struct Violation {
    pub code: ErrorCode,
    /// JSON pointer into the envelope.
    pub path: String,
    pub message: String,
}

pub(crate) fn violation(
    code: ErrorCode,
    path: impl Into<String>,
    message: impl Into<String>,
) -> Violation {
    Violation {
        code,
        path: path.into(),
        message: message.into(),
    }
}

/// Collects violations while walking an envelope.
pub(crate) struct Checker {
    strict: bool,
    pub(crate) out: Vec<Violation>,
}

impl Checker {
    pub(crate) fn new(strict: bool) -> Checker {
        Checker {
            strict,
            out: Vec::new(),
        }
    }

    pub(crate) fn fail(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.out
            .push(violation(ErrorCode::ResultInvalid, path, message));
    }

    pub(crate) fn fail_with(
        &mut self,
        code: ErrorCode,
        path: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.out.push(violation(code, path, message));
    }

    pub(crate) fn extra(&mut self, path: &str, extra: &Extra) {
        if !self.strict {
            return;
        }
        for key in extra.keys().filter(|k| !k.starts_with("x_")) {
            self.fail(
                format!("{path}/{}", escape_pointer(key)),
                format!("unknown field `{key}`; extensions must use the `x_` prefix (strict mode)"),
            );
        }
    }

    pub(crate) fn version(&mut self, version: &str) {
        if !is_supported_version(version) {
            self.fail_with(
                ErrorCode::UnsupportedVersion,
                "/schema_version",
                format!(
                    "schema_version `{version}` is not 1.x.y; unknown major versions fail closed"
                ),
            );
        }
    }

    pub(crate) fn run_id(&mut self, path: &str, run_id: &str) {
        if !is_uuid_v4(run_id) {
            self.fail(path, format!("run_id `{run_id}` is not a UUID v4"));
        }
    }

    pub(crate) fn task_id(&mut self, path: &str, task_id: &str) {
        if !is_task_id(task_id) {
            self.fail(
                path,
                format!("task_id `{task_id}` matches neither `T-<n>` nor a 36-character id"),
            );
        }
    }

    /// Every timestamp field of every envelope goes through here.
    pub(crate) fn timestamp(&mut self, path: &str, text: &str) {
        if !is_utc_timestamp(text) {
            self.fail(
                path,
                format!(
                    "`{}` is not an ISO-8601 UTC timestamp; write it like `2026-05-01T12:00:00Z` (UTC, ending in `Z`)",
                    text.escape_debug()
                ),
            );
        }
    }

    pub(crate) fn timestamp_opt(&mut self, path: &str, text: Option<&String>) {
        if let Some(text) = text {
            self.timestamp(path, text);
        }
    }

    /// Every orchestrator-code field of every envelope goes through here.
    pub(crate) fn code(&mut self, path: &str, text: &str) {
        if let Err(unknown) = text.parse::<ErrorCode>() {
            self.fail(path, unknown.to_string());
        }
    }

    pub(crate) fn length(&mut self, path: &str, text: &str, min: usize, max: usize) {
        let n = text.chars().count();
        if n < min || n > max {
            self.fail(path, format!("length {n} is outside {min}..{max}"));
        }
    }

    pub(crate) fn non_empty(&mut self, path: &str, text: &str) {
        if !is_non_blank(text) {
            self.fail(path, "must not be empty");
        }
    }
}

/// Escapes one JSON pointer segment (RFC 6901).
pub(crate) fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}
