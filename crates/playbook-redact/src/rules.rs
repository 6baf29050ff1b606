//! The rule set: one regular expression per kind of credential, in the
//! spirit of gitleaks' rules, compiled once.
//!
//! Every rule marks the secret with a named group: `s` (bare), `q` (inside
//! double quotes) or `a` (inside single quotes); what the rule needed around
//! it (a boundary, a key name, a scheme word) stays readable. Rules are
//! matched with the `regex` crate, whose searches are linear in the input:
//! no input can make redaction slow. A `RegexSet` of all rules answers "is
//! anything here at all?" in one pass, so clean text costs one scan and no
//! allocation.
//!
//! Boundaries: a credential prefix may follow a JSON escape (`\n`, `\t`)
//! when a record holds JSON text inside a string, so "start of a word" is
//! `^`, a character that is not a letter or digit, or such an escape.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use regex::{Captures, Regex, RegexSet};

use crate::keys::{self, KEY_LIKE_WORDS};

/// What must hold, besides the pattern, for a match to be redacted.
#[derive(Debug, Clone, Copy)]
enum Check {
    /// The pattern alone is specific enough.
    Always,
    /// Not a placeholder (`${TOKEN}`, `true`, `***`...).
    NotPlaceholder,
    /// The key name (group `k`) and the value decide (see `keys`).
    ByName,
}

struct Rule {
    /// Shown in tests and docs: which kind of secret this is.
    #[cfg_attr(not(test), allow(dead_code))]
    name: &'static str,
    pattern: String,
    check: Check,
}

/// Start of a word, also right after a JSON escape such as `\n`.
const B: &str = r"(?:^|[^A-Za-z0-9_]|\\[nrt])";

/// A double-quoted value (JSON string, escaped quotes allowed), a
/// single-quoted one, or a bare one up to whitespace or punctuation.
///
/// A bare value is matched only up to a `:` or `=` (base64 padding aside)
/// and 256 characters, so that a match that turns out not to be a secret
/// (`note: token=abc`) ends before any pair nested in it: the search goes
/// on from there and every character is looked at a bounded number of
/// times. An accepted bare value is then redacted to its real end
/// (`p@ss:w0rd`, a long token).
const VALUE: &str = r#"(?:\\?"(?P<q>(?:[^"\\\r\n]|\\[^"nrt])+)|\\?'(?P<a>[^'\\\r\n]+)|(?P<s>[^\s"'\\,;&<>()\[\]`|:=]{1,256}={0,3}))"#;

fn rules() -> Vec<Rule> {
    let rule = |name, pattern: String, check| Rule {
        name,
        pattern,
        check,
    };
    vec![
        rule(
            "private key block",
            // The whole block, any key type; an unterminated block runs to
            // the end of the text (a truncated key is still a key).
            r"(?is)(?P<s>-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|\z))".into(),
            Check::Always,
        ),
        rule(
            "GitHub token",
            r"(?P<s>gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{22,})".into(),
            Check::Always,
        ),
        rule(
            "GitLab token",
            r"(?P<s>gl(?:pat|dt|rt|ptt|ft|cbt|oas)-[A-Za-z0-9_-]{16,})".into(),
            Check::Always,
        ),
        rule(
            "Slack token or webhook",
            r"(?P<s>xox[abposre]-[A-Za-z0-9-]{10,}|hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/_-]{16,})".into(),
            Check::Always,
        ),
        rule(
            "AWS access key id",
            r"(?P<s>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{12,})"
                .into(),
            Check::Always,
        ),
        rule(
            "Google API key",
            r"(?P<s>AIza[0-9A-Za-z_-]{30,})".into(),
            Check::Always,
        ),
        rule(
            "OpenAI or Anthropic key",
            format!(r"{B}(?P<s>sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{{20,}})"),
            Check::Always,
        ),
        rule(
            "Stripe secret key",
            r"(?P<s>(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}|whsec_[0-9A-Za-z]{20,})".into(),
            Check::Always,
        ),
        rule(
            "package registry token",
            format!(
                r"{B}(?P<s>npm_[A-Za-z0-9]{{30,}}|pypi-AgE[A-Za-z0-9_-]{{40,}}|hf_[A-Za-z0-9]{{30,}}|SG\.[A-Za-z0-9_-]{{16,}}\.[A-Za-z0-9_-]{{16,}}|do[opr]_v1_[a-f0-9]{{64}}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{{32}}|dapi[a-f0-9]{{32}})"
            ),
            Check::Always,
        ),
        rule(
            "JSON web token",
            r"(?P<s>eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*)".into(),
            Check::Always,
        ),
        rule(
            "password in a URL",
            r#"[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\s:/?#@"'<>]+:(?P<s>[^\s/?#@"'<>]+)@"#.into(),
            Check::NotPlaceholder,
        ),
        rule(
            "authorization value",
            format!(r"(?i){B}(?:bearer|basic)[ \t]+(?P<s>[a-z0-9._~+/=-]{{8,}})"),
            Check::NotPlaceholder,
        ),
        rule(
            "secret in a command-line flag",
            r#"(?i)(?:^|\s)--?(?P<k>[a-z0-9_-]*(?:password|passwd|passphrase|token|secret|api[_-]?key))[ \t]+(?P<s>[^\s"'-][^\s"']*)"#
                .into(),
            Check::ByName,
        ),
        rule(
            "value of a secret-sounding key",
            // `key=value`, `key: value`, `"key": "value"`, `key => value`,
            // `Authorization: Bearer value`, in any quoting or spacing.
            format!(
                r#"(?i)(?P<k>[a-z0-9_.-]*{KEY_LIKE_WORDS}[a-z0-9_.-]*)["'\\]*[ \t]*(?:=>|:=|=|:)[ \t]*(?:(?:bearer|basic|token|digest)[ \t]+)?{VALUE}"#
            ),
            Check::ByName,
        ),
    ]
}

/// Literals, one of which (ignoring ASCII case) every match of every rule
/// contains: the credential prefixes, the scheme words and the key-like
/// words of [`KEY_LIKE_WORDS`]. Most record texts (ids, role names,
/// hashes, counts) contain none, and an Aho-Corasick scan rules them out
/// far faster than the rule set can. `every_rule_needs_a_prefilter_literal`
/// keeps this list in step with the rules.
const LITERALS: &[&str] = &[
    // Shapes.
    "-----begin",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "gldt-",
    "glrt-",
    "glptt-",
    "glft-",
    "glcbt-",
    "gloas-",
    "xox",
    "hooks.slack.com",
    "a3t",
    "akia",
    "asia",
    "abia",
    "acca",
    "agpa",
    "aida",
    "aroa",
    "aipa",
    "anpa",
    "anva",
    "aiza",
    "sk-",
    "sk_",
    "rk_",
    "whsec_",
    "npm_",
    "pypi-",
    "hf_",
    "sg.",
    "_v1_",
    "shp",
    "dapi",
    "eyj",
    "://",
    "bearer",
    "basic",
    // Key-like words (`keys::KEY_LIKE_WORDS`).
    "key",
    "token",
    "secret",
    "passw",
    "passphrase",
    "pwd",
    "auth",
    "cred",
    "signature",
    "session",
    "cookie",
    "salt",
    "hmac",
    "private",
];

static PREFILTER: LazyLock<AhoCorasick> = LazyLock::new(|| {
    // A DFA: every event, record and entry of a run is scanned, mostly
    // short clean texts, where the DFA's per-byte step is the fastest the
    // crate offers; the automaton of these few literals is small.
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(LITERALS)
        .expect("the literals compile")
});

/// Whether `text` may hold a secret at all (no false negatives).
pub(crate) fn may_hold_secret(text: &str) -> bool {
    PREFILTER.is_match(text)
}

/// Where the earliest prefilter literal in `text` starts. Every match of
/// every rule holds one at or before its secret (`window.rs` relies on it).
pub(crate) fn first_literal(text: &str) -> Option<usize> {
    // Overlapping search: the literal that ends first need not start first.
    PREFILTER
        .find_overlapping_iter(text)
        .map(|m| m.start())
        .min()
}

/// [`may_hold_secret`] of UTF-8 bytes (a record's JSON text).
pub(crate) fn may_hold_secret_bytes(text: &[u8]) -> bool {
    PREFILTER.is_match(text)
}

struct Compiled {
    set: RegexSet,
    rules: Vec<(Regex, Check)>,
    #[cfg_attr(not(test), allow(dead_code))]
    names: Vec<&'static str>,
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| {
    let rules = rules();
    // The patterns are constants of this file; a test compiles them all.
    let set = RegexSet::new(rules.iter().map(|r| &r.pattern)).expect("the rule set compiles");
    Compiled {
        set,
        names: rules.iter().map(|r| r.name).collect(),
        rules: rules
            .iter()
            .map(|r| (Regex::new(&r.pattern).expect("each rule compiles"), r.check))
            .collect(),
    }
});

/// The secret group of a match: bare, double- or single-quoted.
fn secret<'t>(caps: &Captures<'t>) -> Option<regex::Match<'t>> {
    caps.name("s")
        .or_else(|| caps.name("q"))
        .or_else(|| caps.name("a"))
}

/// Characters of a bare value (the `s` group of [`VALUE`]).
fn is_bare_value_char(c: char) -> bool {
    !c.is_whitespace() && !"\"'\\,;&<>()[]`|".contains(c)
}

/// Byte ranges of every secret in `text`, sorted and merged.
pub(crate) fn spans(text: &str) -> Vec<(usize, usize)> {
    if !may_hold_secret(text) {
        return Vec::new();
    }
    let compiled = &*COMPILED;
    if !compiled.set.is_match(text) {
        return Vec::new();
    }
    let hits = compiled.set.matches(text);
    let mut spans = Vec::new();
    for index in hits.iter() {
        let (regex, check) = &compiled.rules[index];
        let mut at = 0;
        while let Some(caps) = regex.captures_at(text, at) {
            let (Some(whole), Some(found)) = (caps.get(0), secret(&caps)) else {
                break;
            };
            let keep = match check {
                Check::Always => true,
                Check::NotPlaceholder => !keys::is_placeholder(found.as_str()),
                Check::ByName => caps
                    .name("k")
                    .is_some_and(|k| keys::hides_value(k.as_str(), found.as_str())),
            };
            at = if keep {
                // A bare value is matched up to 256 characters so that a
                // rejected match never rescans far; an accepted one is
                // redacted to its real end.
                let mut end = found.end();
                if matches!(check, Check::ByName) && caps.name("s").is_some() {
                    end += text[end..]
                        .find(|c: char| !is_bare_value_char(c))
                        .unwrap_or(text.len() - end);
                }
                spans.push((found.start(), end));
                end
            } else if found.as_str().contains([':', '='])
                || text[found.end()..].starts_with([':', '='])
            {
                // `note: token=abc`: the rejected value may start a pair of
                // its own; look again from its start. A bare value holds no
                // separator and a quoted one ends at its quote, so no text
                // is rescanned more than a bounded number of times.
                found.start()
            } else {
                whole.end()
            };
            if at >= text.len() {
                break;
            }
        }
    }
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

/// Names of the rules that match `text` (for tests and diagnostics).
#[cfg(test)]
pub(crate) fn matching_rules(text: &str) -> Vec<&'static str> {
    let compiled = &*COMPILED;
    compiled
        .set
        .matches(text)
        .iter()
        .map(|i| compiled.names[i])
        .collect()
}
