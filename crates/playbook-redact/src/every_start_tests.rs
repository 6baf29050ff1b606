//! The scan considers every position a rule can match at (`scan.rs`): a
//! match, rejected or accepted, never hides a later one, and the scan stays
//! linear.

use proptest::prelude::*;

use crate::fold_tests::FOLDED_SECRETS;
use crate::scan::{SEARCHED, spans_as_written, spans_from_every_start};
use crate::tests::SECRETS;
use crate::*;

/// Near-matches of every rule that the rule rejects, or that match
/// without reaching past themselves: a secret after any of them must
/// still be found.
const NEAR_MISSES: &[&str] = &[
    // The value of a secret-sounding or key-like key.
    "auth: required",
    "DEBUG auth:",
    "secret_name: prod-db",
    "the cache key:",
    "token: true",
    "password: ${DB_PASSWORD}",
    "token_count: 5",
    "\"auth\": \"",
    "note: token=",
    "key:",
    // A flag's value.
    "--secret-name prod",
    "--token ${TOKEN}",
    // Credentials of a flag, a URL, an authorization header.
    "docker run -u 1000:1000",
    "curl -u",
    "https://user:${PASSWORD}@host/",
    "https://example.com:8080/x",
    "Bearer ********",
    "Basic xxxxxxxx",
    // Shapes of tokens too short or cut.
    "ghp_short",
    "AKIA123",
    "sk-short",
    "eyJhbGciOi.eyJ",
    "-----BEGIN PUBLIC KEY-----",
];

/// Accepted matches whose secret is the start of a following pair.
const ACCEPTED_BEFORE: &[&str] = &["token:", "password =", "--token", "Bearer"];

const JOINS: &[&str] = &[" ", "\n", "\t", ": ", " = "];

#[test]
fn the_reported_misses_are_redacted() {
    assert_eq!(
        redact_str("DEBUG auth: aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYA2A2A2A2A"),
        "DEBUG auth: aws_secret_access_key = [REDACTED]"
    );
    assert_eq!(
        redact_str("token: password = Hunter2Hunter2A3"),
        "token: [REDACTED] = [REDACTED]"
    );
    assert_eq!(
        redact_str("connecting to redis://:Tr0ub4dorC4C4@cache.internal:6379/0"),
        "connecting to redis://:[REDACTED]@cache.internal:6379/0"
    );
    assert_eq!(
        redact_str("amqp://guest:p@ssC5C5word@host/"),
        "amqp://guest:[REDACTED]@host/"
    );
    assert_eq!(
        redact_str("curl -u admin:Tr0ub4dorB3B3 https://x"),
        "curl -u admin:[REDACTED] https://x"
    );
    assert_eq!(
        redact_str("curl -u a:b1 -U c:d2 --user e:f3"),
        "curl -u a:[REDACTED] -U c:[REDACTED] --user e:[REDACTED]"
    );
}

#[test]
fn a_secret_after_any_near_match_is_redacted() {
    let mut missed = Vec::new();
    for before in NEAR_MISSES.iter().chain(ACCEPTED_BEFORE) {
        for join in JOINS {
            for (form, secret) in SECRETS.iter().chain(FOLDED_SECRETS) {
                let text = format!("{before}{join}{form}");
                let clean = redact_str(&text);
                if clean.contains(secret) {
                    missed.push(format!("{text:?} -> {clean:?}"));
                }
            }
        }
    }
    assert!(missed.is_empty(), "secrets left:\n{}", missed.join("\n"));
}

#[test]
fn the_scan_finds_what_a_scan_from_every_position_finds() {
    for (form, _) in SECRETS {
        for before in NEAR_MISSES.iter().chain(ACCEPTED_BEFORE) {
            let text = format!("{before} {form} {before}");
            assert_eq!(
                spans_as_written(&text),
                spans_from_every_start(&text),
                "{text:?}"
            );
        }
    }
}

/// Bytes the rule searches go through for `text`, per byte of it.
fn searched_per_byte(text: &str) -> usize {
    SEARCHED.with(|n| n.set(0));
    let _ = redact_str(text);
    SEARCHED.with(|n| n.get()) / text.len().max(1)
}

#[test]
fn hostile_repetitions_are_searched_a_bounded_number_of_times() {
    // Each unit makes matches start inside earlier ones: a chain of pairs,
    // of tokens, of URLs, of flags. Searching from every start of a match
    // would go through the text once per match (thousands of times here).
    let units = [
        "token: password = ",
        "auth: aws_key = ",
        "token=",
        "key:",
        "a_key: ",
        "\"a_key\": \"x ",
        "'a_key': \"x ",
        "AKIA",
        "sk-aaaaaaaaaaaaaaaaaaaa-",
        "eyJhbGciOi.",
        "Bearer x.bearer ",
        "a://:x@",
        "x@",
        " -u a:b",
        " -u -u",
        "--token --token ",
    ];
    for unit in units {
        let text = unit.repeat(64 * 1024 / unit.len());
        let per_byte = searched_per_byte(&text);
        // Each unit matches a rule or two, each going through the text
        // about once (measured: 0 to 2 bytes per byte).
        assert!(
            per_byte <= 8,
            "{unit:?}: {per_byte} bytes searched per byte"
        );
    }
    // A long run after a pair is measured once, not once per nested pair.
    let text = format!("{}{}", "token=".repeat(10_000), "x".repeat(100_000));
    let started = std::time::Instant::now();
    assert_eq!(redact_str(&text), format!("token={REDACTED}"));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

mod property {
    use super::*;

    /// Pieces of keys, separators, values, URLs, flags and tokens, so that
    /// random texts hold matches that start inside other matches.
    fn piece() -> impl Strategy<Value = String> {
        let pieces: Vec<&'static str> = vec![
            "auth",
            "token",
            "password",
            "aws_secret_access_key",
            "secret_name",
            "key",
            "x-api-key",
            "session_id",
            ": ",
            "=",
            " = ",
            ":",
            "=>",
            "\"",
            "'",
            " ",
            "\n",
            "\\n",
            ",",
            "required",
            "hunter2",
            "Hunter2Hunter2A3",
            "9f8e7d6c5b4a39281706f5e4",
            "${PW}",
            "true",
            "xxxxxxxx",
            "https://",
            "redis://",
            "u",
            "@",
            "p@ss",
            "host",
            "/",
            "--token ",
            "-u ",
            "--user ",
            "curl ",
            "1000",
            "ghp_0123456789abcdefghij",
            "AKIA",
            "IOSFODNN7EXAMPLE",
            "eyJhbGciOiJI",
            ".",
            "sk-",
            "abcdefghijklmnopqrstuvwxyz",
            "SG.",
            "-",
            "Bearer ",
            "bearer",
            "-----BEGIN RSA PRIVATE KEY-----",
            "-----END RSA PRIVATE KEY-----",
            "é",
            // Escapes that are boundaries (`rules::B`) or fold.
            "\\u2060",
            "%2F",
            "\\u{200b}",
            "\u{200b}",
        ];
        prop_oneof![
            4 => prop::sample::select(pieces).prop_map(str::to_string),
            1 => "[a-z0-9 _.-]{0,8}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn no_match_hides_another(pieces in prop::collection::vec(piece(), 0..14)) {
            let text = pieces.concat();
            prop_assert_eq!(spans_as_written(&text), spans_from_every_start(&text), "{:?}", text);
        }
    }
}
