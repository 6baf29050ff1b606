//! Finding every secret a rule sees in a text, in one linear pass per rule.
//!
//! A regular expression's search gives the leftmost match from where it
//! starts. A match that is rejected (`auth: aws_secret_access_key`: a
//! key-like name over a plain word) or accepted (`token: password`) may
//! hold the start of another match that runs past it
//! (`… = wJalrXUtnFEMI…`, `password = Hunter2`). Going on after the whole
//! match passes that one over; going on one character after its start
//! finds it, but rescans long matches once per character (quadratic on
//! `AKIAAKIA…`). So each rule says where its next match can begin that
//! this one does not already decide ([`Resume`], argued per kind in
//! `rules.rs`): near the end of a token's run, after a key's name, or at a
//! value. `every_start_tests.rs` checks the result against a scan from
//! every position.
//!
//! Why this stays linear: the text the search looks at twice is what lies
//! between the resume point and the end of the match: at most
//! `PREFIX_OVERLAP` bytes of a token, a key's separator and value or a
//! flag's value. Two matches' bare values never overlap (a
//! bare value holds no `:` or `=`, so a pair nested in it has its own value
//! after it), and a quoted value ends at its quote, so any character is
//! looked at again a bounded number of times. An accepted bare value is
//! redacted to its real end; the run measured for it is remembered, so
//! values nested in one long run (`token=token=…`) do not measure it again.

use regex::{Captures, Match};

use crate::fold::Folded;
use crate::keys;
use crate::rules::{
    COMPILED, Check, CompiledRule, PREFIX_OVERLAP, Resume, has_literal, may_need_scan,
};

/// Byte ranges of every secret in `text`, sorted and merged: what the
/// rules find in the text as written and in the text folded (`fold.rs`),
/// the latter over the whole source of what they matched.
pub(crate) fn spans(text: &str) -> Vec<(usize, usize)> {
    if !may_need_scan(text) {
        return Vec::new();
    }
    let literal = has_literal(text);
    let folded = Folded::of(text);
    // Most texts: no literal and nothing to fold.
    if !literal && folded.is_none() {
        return Vec::new();
    }
    let mut spans = Vec::new();
    if literal {
        run_rules(text, &mut spans);
    }
    if let Some(folded) = folded {
        let mut seen = Vec::new();
        rule_spans(&folded.text, &mut seen);
        spans.extend(
            seen.into_iter()
                .map(|(start, end)| folded.source_range(start, end)),
        );
    }
    merge(spans)
}

/// Adds the secrets the rules find in `text` as written to `spans`.
pub(crate) fn rule_spans(text: &str, spans: &mut Vec<(usize, usize)>) {
    if has_literal(text) {
        run_rules(text, spans);
    }
}

/// [`rule_spans`] of a text known to hold a literal.
fn run_rules(text: &str, spans: &mut Vec<(usize, usize)>) {
    let compiled = &*COMPILED;
    if !compiled.set.is_match(text) {
        return;
    }
    for index in compiled.set.matches(text).iter() {
        scan_rule(text, &compiled.rules[index], spans);
    }
}

#[cfg(test)]
thread_local! {
    /// Bytes the rule searches have gone through, from where each search
    /// started to where its match ended: the measure of linearity.
    pub(crate) static SEARCHED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Adds the secrets `rule` finds in `text` to `spans`.
fn scan_rule(text: &str, rule: &CompiledRule, spans: &mut Vec<(usize, usize)>) {
    let mut at = 0;
    let mut run = BareRun::default();
    while at < text.len() {
        let caps = rule.regex.captures_at(text, at);
        #[cfg(test)]
        SEARCHED.with(|n| {
            let end = caps
                .as_ref()
                .and_then(|c| c.get(0))
                .map_or(text.len(), |m| m.end());
            n.set(n.get() + (end - at));
        });
        let Some(caps) = caps else {
            break;
        };
        let (Some(whole), Some(found)) = (caps.get(0), secret(&caps)) else {
            break;
        };
        if accepted(rule.check, &caps, found.as_str()) {
            // A bare value is matched up to 256 characters so that the
            // text looked at again is short; an accepted one is redacted to
            // its real end.
            let end = if matches!(rule.check, Check::ByName) && caps.name("s").is_some() {
                run.end_from(text, found.end())
            } else {
                found.end()
            };
            spans.push((found.start(), end));
        }
        at = resume_at(text, rule.resume, &caps, whole, found);
    }
}

/// Whether a match is a secret, by its rule's check.
fn accepted(check: Check, caps: &Captures<'_>, value: &str) -> bool {
    match check {
        Check::Always => true,
        Check::NotPlaceholder => !keys::is_placeholder(value),
        Check::ByName => caps
            .name("k")
            .is_some_and(|k| keys::hides_value(k.as_str(), value)),
        Check::UserPass => {
            let user = caps.name("k").map_or("", |k| k.as_str());
            !keys::is_placeholder(value) && !is_owner(user, value)
        }
    }
}

/// `1000:1000`: a user and group id (`docker run -u`), not credentials.
fn is_owner(user: &str, group: &str) -> bool {
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    numeric(user) && numeric(group)
}

/// Where the search for the rule's next match starts: the rule's resume
/// point, and always past this match's start, so the scan ends.
fn resume_at(text: &str, resume: Resume, caps: &Captures<'_>, whole: Match, found: Match) -> usize {
    let next = match resume {
        Resume::NearEnd => floor_boundary(text, whole.end().saturating_sub(PREFIX_OVERLAP)),
        Resume::AfterKey => caps.name("k").map_or(whole.end(), |k| k.end()),
        Resume::AtSecret => before_boundary(text, found.start()),
    };
    next.max(char_after(text, whole.start()))
}

/// `at` moved back over the boundary a rule may need before its prefix:
/// one character, or an escape written out (`\n`, `\u200b`, `%2F`: the
/// `B` of `rules.rs`).
fn before_boundary(text: &str, at: usize) -> usize {
    let before = &text[..at];
    let hex = |from: usize| before.as_bytes()[from..].iter().all(u8::is_ascii_hexdigit);
    if at >= 6 && before[..at - 4].ends_with("\\u") && hex(at - 4) {
        return at - 6;
    }
    if at >= 3 && before.as_bytes()[at - 3] == b'%' && hex(at - 2) {
        return at - 3;
    }
    if before.ends_with("\\n") || before.ends_with("\\r") || before.ends_with("\\t") {
        return at - 2;
    }
    before.char_indices().next_back().map_or(at, |(i, _)| i)
}

/// The largest char boundary of `text` at or before `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The start of the character after the one at `at`.
fn char_after(text: &str, at: usize) -> usize {
    text[at..]
        .chars()
        .next()
        .map_or(text.len(), |c| at + c.len_utf8())
}

/// The secret group of a match: bare, double- or single-quoted.
fn secret<'t>(caps: &Captures<'t>) -> Option<Match<'t>> {
    caps.name("s")
        .or_else(|| caps.name("q"))
        .or_else(|| caps.name("a"))
}

/// Characters of a bare value (the `s` group of `rules::VALUE`).
fn is_bare_value_char(c: char) -> bool {
    !c.is_whitespace() && !"\"'\\,;&<>()[]`|".contains(c)
}

/// The last run of bare-value characters measured: every character from
/// `from` to `end` is one, and the one at `end` (if any) is not.
#[derive(Default)]
struct BareRun {
    known: Option<(usize, usize)>,
}

impl BareRun {
    /// Where the run of bare-value characters at `at` ends.
    fn end_from(&mut self, text: &str, at: usize) -> usize {
        if let Some((from, end)) = self.known
            && from <= at
            && at <= end
        {
            return end;
        }
        let end = at
            + text[at..]
                .find(|c: char| !is_bare_value_char(c))
                .unwrap_or(text.len() - at);
        self.known = Some((at, end));
        end
    }
}

/// `spans` sorted, with overlapping and touching ranges joined.
fn merge(mut spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// What the rules find in `text` as written, merged: the part of [`spans`]
/// a scan from every position checks.
#[cfg(test)]
pub(crate) fn spans_as_written(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    rule_spans(text, &mut spans);
    merge(spans)
}

/// The secrets a scan from every position finds: what
/// [`spans_as_written`] must equal. Quadratic; for tests only.
#[cfg(test)]
pub(crate) fn spans_from_every_start(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    for rule in &COMPILED.rules {
        let mut last_start = None;
        let mut run = BareRun::default();
        for at in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
            let Some(caps) = rule.regex.captures_at(text, at) else {
                break;
            };
            let (Some(whole), Some(found)) = (caps.get(0), secret(&caps)) else {
                break;
            };
            // The leftmost match from `at`; each start once.
            if last_start == Some(whole.start()) {
                continue;
            }
            last_start = Some(whole.start());
            if accepted(rule.check, &caps, found.as_str()) {
                let end = if matches!(rule.check, Check::ByName) && caps.name("s").is_some() {
                    run.end_from(text, found.end())
                } else {
                    found.end()
                };
                spans.push((found.start(), end));
            }
        }
    }
    merge(spans)
}
