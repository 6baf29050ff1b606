//! Texts that are cut before they are kept: a quote in a message, the head
//! of what a command printed, the tail of an agent's standard error.
//!
//! Cutting first and redacting afterwards leaks. A cut inside a credential
//! leaves a piece that no rule matches any more: `ghp_Zq8Wm2Xr4Tn6` is too
//! short for the GitHub rule, `p_Zq8Wm2…` has lost its prefix,
//! `word=hunter2` has lost the `password` that made it a secret. So:
//!
//! - when the whole text is at hand, it is redacted first and the clean
//!   text is cut ([`redact_then_clip`], [`redact_tail`]);
//! - when only a window of a longer stream or file was kept (its first or
//!   last bytes), the window is first narrowed to where no credential can
//!   have been cut in two ([`head_window`], [`tail_window`]); what is left
//!   is redacted as a whole, by the caller or by the record it goes into,
//!   and reads as it would in the whole text.
//!
//! Why the narrowing is enough, rule by rule (`rules.rs`):
//! - **Front cut.** No rule's match spans a line break but a private-key
//!   block's, so a secret cut at the front of a window goes with the
//!   partial first line, and every later line is whole. What is left of a
//!   key block (body lines, its `END` line) has no `BEGIN` before it: it is
//!   dropped up to its `END` line or, when the block does not end in the
//!   window, as long as its lines look like key material.
//! - **End cut.** Every rule's match contains one of the prefilter's
//!   literals (a prefix such as `ghp_`, a key word, `://`, `Bearer`) at or
//!   before its secret. A partial last line of at most [`HEAD_SCAN`] bytes
//!   is dropped; of a longer one, the text from the first literal in its
//!   last [`HEAD_SCAN`] bytes (and, should that fall inside a secret the
//!   rules see, from that secret's start). A secret whose literal lies
//!   further back keeps at least [`HEAD_SCAN`] characters, more than any
//!   rule needs to match (the longest fixed shape has 70); the one
//!   exception is a password in a URL that long, which needs its `@`.
//! - **Folded text.** The rules also read the text folded (`fold.rs`),
//!   where a literal may be spelled otherwise (`%67hp_`), a token padded
//!   with invisible characters is short however many bytes it takes, and a
//!   `%0A` ends a line. Both arguments hold of the folded text as they do
//!   of the text as written, so a window is narrowed both ways and the
//!   shorter kept.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use crate::fold::Folded;
use crate::{REDACTED, redact_str, rules, scan};

/// How far back from the end of a head window a cut credential can start
/// and still be too short for its rule (see the module comment).
pub const HEAD_SCAN: usize = 1024;

static KEY_BEGIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
        .expect("the pattern compiles")
});

static KEY_END: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
        .expect("the pattern compiles")
});

/// The largest char boundary of `text` at or before `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary of `text` at or after `at`.
fn ceil_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The redaction marker that `at` falls strictly inside, as its range.
fn marker_around(text: &str, at: usize) -> Option<(usize, usize)> {
    let from = floor_boundary(text, at.saturating_sub(REDACTED.len() - 1));
    let until = ceil_boundary(text, at + REDACTED.len() - 1);
    let start = from + text[from..until].find(REDACTED)?;
    (start < at && at < start + REDACTED.len()).then_some((start, start + REDACTED.len()))
}

/// `text` redacted, then cut to its first `max_chars` characters, with
/// `ellipsis` appended when anything was cut. A cut never splits the
/// redaction marker. Borrowed when `text` is clean and short enough.
pub fn redact_then_clip<'t>(text: &'t str, max_chars: usize, ellipsis: &str) -> Cow<'t, str> {
    let clean = redact_str(text);
    let Some((mut end, _)) = clean.char_indices().nth(max_chars) else {
        return clean;
    };
    if let Some((start, _)) = marker_around(&clean, end) {
        end = start;
    }
    match clean {
        Cow::Borrowed(text) if ellipsis.is_empty() => Cow::Borrowed(&text[..end]),
        clean => Cow::Owned(format!("{}{ellipsis}", &clean[..end])),
    }
}

/// The part of a head window that may be kept: `text` is the beginning of
/// a longer stream or file whose rest was not read. Whatever a credential
/// cut at the end left is dropped (see the module comment); the rest reads
/// as in the whole text, so redacting it later hides what redacting the
/// whole would have hidden there. The kept text is not redacted: a tool's
/// result reaches its agent as the file or command gave it.
pub fn head_window(text: &str) -> &str {
    let kept = head_window_as_written(text);
    // The rules also read the text folded (`fold.rs`), where a credential's
    // literal or its length may be other than as written (`%67hp_…`, a
    // token padded with invisible characters): the window is narrowed as
    // the folded text would be too, and the shorter head kept.
    match Folded::of(text) {
        Some(folded) => {
            let in_folded = head_window_as_written(&folded.text).len();
            &kept[..folded.source_start(in_folded).min(kept.len())]
        }
        None => kept,
    }
}

/// [`head_window`] of `text` as written.
fn head_window_as_written(text: &str) -> &str {
    let line_start = text.rfind('\n').map_or(0, |i| i + 1);
    if text.len() - line_start <= HEAD_SCAN {
        return &text[..line_start];
    }
    let from = floor_boundary(text, text.len() - HEAD_SCAN);
    let Some(at) = rules::first_literal(&text[from..]) else {
        return text;
    };
    let mut cut = from + at;
    // A cut inside a secret the rules see would leave a piece of it they
    // may no longer see: cut before the secret instead.
    if let Some(&(start, _)) = scan::spans(text)
        .iter()
        .find(|&&(start, end)| start < cut && cut < end)
    {
        cut = start;
    }
    &text[..cut]
}

/// The part of a tail window that may be kept: `text` is the end of a
/// longer stream whose beginning was dropped. The partial first line goes,
/// and with it any credential cut at the front (see the module comment);
/// nothing is kept of a window that is all one partial line.
pub fn tail_window(text: &str) -> &str {
    let kept = tail_window_as_written(text);
    // As for a head: narrowed as the folded text would be too (a `%0A`
    // ends a line there), and the shorter tail kept.
    match Folded::of(text) {
        Some(folded) => {
            let in_folded = tail_window_as_written(&folded.text).len();
            let start = folded.source_start(folded.text.len() - in_folded);
            &text[start.max(text.len() - kept.len())..]
        }
        None => kept,
    }
}

/// [`tail_window`] of `text` as written.
fn tail_window_as_written(text: &str) -> &str {
    match text.find('\n') {
        Some(i) => without_key_remainder(&text[i + 1..]),
        None => "",
    }
}

/// `text` without what a private-key block cut at the front left of it.
fn without_key_remainder(text: &str) -> &str {
    if let Some(end) = KEY_END.find(text)
        && KEY_BEGIN
            .find(text)
            .is_none_or(|begin| begin.start() > end.start())
    {
        let after = text[end.end()..]
            .find('\n')
            .map_or(text.len(), |i| end.end() + i + 1);
        return &text[after..];
    }
    let mut rest = text;
    let mut in_body = false;
    while !rest.is_empty() {
        let (line, next) = match rest.find('\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        if !looks_like_key_material(line, in_body) {
            break;
        }
        in_body = true;
        rest = next;
    }
    rest
}

/// A line of a key block's body: base64 (its first word at least 16
/// characters of it, letters and digits mixed, so that a line of `y` or of
/// words is not taken for one; any base64 once in a body, such as its
/// short last line), a blank line, or an RFC 1421 header.
fn looks_like_key_material(line: &str, in_body: bool) -> bool {
    let line = line.trim();
    if line.is_empty() || line.starts_with("Proc-Type:") || line.starts_with("DEK-Info:") {
        return true;
    }
    let word = line.split_whitespace().next().unwrap_or_default();
    let base64 = word
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    if in_body {
        return base64 && word.len() == line.len();
    }
    base64
        && word.len() >= 16
        && word.bytes().any(|b| b.is_ascii_digit())
        && word.bytes().any(|b| b.is_ascii_alphabetic())
}

/// The tail of a stream as a record shows it: `window` is what was kept of
/// the stream's end (`cut_before`: its beginning was dropped). The window
/// is narrowed ([`tail_window`]), redacted, and its last `max_bytes` kept,
/// with `…` in front when anything was cut. A cut never splits the
/// redaction marker.
pub fn redact_tail(window: &str, cut_before: bool, max_bytes: usize) -> String {
    let kept = if cut_before {
        tail_window(window)
    } else {
        window
    };
    let clean = redact_str(kept);
    if clean.len() <= max_bytes {
        return if cut_before {
            format!("…{clean}")
        } else {
            clean.into_owned()
        };
    }
    let mut start = ceil_boundary(&clean, clean.len() - max_bytes);
    if let Some((_, end)) = marker_around(&clean, start) {
        start = end;
    }
    format!("…{}", &clean[start..])
}
