//! Key names and values: when the name of a field says "secret", and when a
//! value looks like a credential rather than a word.
//!
//! Two tiers. A *secret* name (`password`, `api_key`, `client_secret`,
//! `accessToken`...) hides any value but an obvious placeholder: a password
//! may be a dictionary word. A *key-like* name (`signing_key`, `session_id`,
//! `x-auth`...) hides only a value that looks machine-made: long, mixed
//! letters and digits, high entropy. That keeps `token_count: 5`,
//! `secret_name: prod-db` and the SHA-256 digests the records use for
//! identity (`prompt_hash`) readable.

use std::sync::LazyLock;

use regex::Regex;

use crate::fold::Folded;

/// Name endings that make any value a secret (case-insensitive; `-`/`_`
/// optional between words, so `apiKey`, `api-key` and `API_KEY` all match).
pub(crate) const SECRET_NAMES: &str = r"(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|credentials?|authorization|auth|cookie)";

/// Words anywhere in a name that make a machine-made value a secret.
pub(crate) const KEY_LIKE_WORDS: &str = r"(?:key|token|secret|passw|passphrase|pwd|auth|cred|signature|session|cookie|salt|hmac|private|bearer)";

static SECRET_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)^[a-z0-9_.-]*{SECRET_NAMES}$")).expect("the pattern compiles")
});

static KEY_LIKE_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)^[a-z0-9_.-]*{KEY_LIKE_WORDS}[a-z0-9_.-]*$"))
        .expect("the pattern compiles")
});

/// Names ending in `auth`/`cookie`/`authorization` are too often prose
/// (`auth: required`) to hide every value: they count as key-like only.
fn weak_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with("auth") || lower.ends_with("cookie")
}

/// How a field's name classifies its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Name {
    /// Any value but a placeholder is a secret.
    Secret,
    /// A machine-made value is a secret.
    KeyLike,
    #[default]
    Plain,
}

pub(crate) fn classify(name: &str) -> Name {
    // Only the end of a name decides what it is; a text that runs into a
    // name (`…lots of words…password=`) is judged by its last characters,
    // which also keeps this check cheap.
    let mut cut = name.len().saturating_sub(64);
    while !name.is_char_boundary(cut) {
        cut += 1;
    }
    let name = &name[cut..];
    if !crate::rules::may_hold_secret(name) {
        return Name::Plain;
    }
    // A name is judged as it reads (`pass` U+200B `word`, `pass%77ord`).
    let folded = Folded::of(name);
    let name = folded.as_ref().map_or(name, |f| f.text.as_str());
    if SECRET_NAME.is_match(name) && !weak_secret_name(name) {
        Name::Secret
    } else if KEY_LIKE_NAME.is_match(name) {
        Name::KeyLike
    } else {
        Name::Plain
    }
}

/// Values that say "there is no secret here": empty, already redacted,
/// masks, template and environment references, booleans and nulls.
pub(crate) fn is_placeholder(value: &str) -> bool {
    let v = value.trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace());
    if v.is_empty() || v.contains(crate::REDACTED) {
        return true;
    }
    if v.chars()
        .all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '•' | '-'))
    {
        return true;
    }
    if is_reference(v) {
        return true;
    }
    matches!(
        v.to_ascii_lowercase().as_str(),
        "true" | "false" | "null" | "none" | "nil" | "yes" | "no" | "redacted" | "required"
            // Authorization scheme words, not the credential after them.
            | "bearer" | "basic" | "digest"
    )
}

/// `${VAR}`, `{{ var }}`, `<your-token>` or `$VAR`: where a secret would
/// come from, not the secret.
fn is_reference(v: &str) -> bool {
    let enclosed = |open: &str, close: &str| {
        v.len() > open.len() + close.len() && v.starts_with(open) && v.ends_with(close)
    };
    let env = v.strip_prefix('$').is_some_and(|name| {
        !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    });
    env || enclosed("${", "}") || enclosed("{{", "}}") || enclosed("<", ">")
}

/// Shannon entropy in bits per byte.
pub(crate) fn entropy(value: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in value.bytes() {
        counts[usize::from(b)] += 1;
    }
    let n = value.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// A value a machine made: at least 16 characters without spaces, letters
/// and digits mixed, at least 3 bits of entropy per character. Bare SHA-1
/// and SHA-256 hex digests (40 or 64 lowercase hex digits) are exempt: the
/// records use them to identify content (prompt, playbook and scenario
/// hashes, commits), and a digest does not reveal what it digests.
pub(crate) fn looks_machine_made(value: &str) -> bool {
    let v = value.trim_matches(|c: char| c == '"' || c == '\'');
    if v.len() < 16 || v.contains(char::is_whitespace) {
        return false;
    }
    if (v.len() == 40 || v.len() == 64)
        && v.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return false;
    }
    let letters = v.bytes().any(|b| b.is_ascii_alphabetic());
    let digits = v.bytes().any(|b| b.is_ascii_digit());
    letters && digits && entropy(v) >= 3.0
}

/// Whether a value under a field called `name` is a secret as a whole:
/// as written, or as it reads folded (`fold.rs`: `hunter` U+00AD `2`). Both
/// are asked, so that folding never hides less than the text as written
/// did (`%41%42…` looks machine-made; what it spells may not).
pub(crate) fn hides_value(name: &str, value: &str) -> bool {
    let class = classify(name);
    let hides = |value: &str| match class {
        Name::Secret => !is_placeholder(value),
        Name::KeyLike => looks_machine_made(value),
        Name::Plain => false,
    };
    class != Name::Plain && (hides(value) || Folded::of(value).is_some_and(|f| hides(&f.text)))
}
