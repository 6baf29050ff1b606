//! Cutting before redacting: each secret form of `SECRETS` and of
//! `FOLDED_SECRETS`, in several layouts, at every offset around each kind
//! of cut (a head clip of a whole text, the head and the tail window of a
//! stream), must leave no piece of its secret: no 8 characters of it in a
//! row (all of it, for a shorter one).

use crate::fold_tests::FOLDED_SECRETS;
use crate::tests::SECRETS;
use crate::*;

/// Padding before and after a form: lines, words on one line, and one
/// line longer than [`HEAD_SCAN`] (with and without spaces).
const LAYOUTS: &[(&str, &str, usize)] = &[
    ("yy\n", "\n", 40),
    ("y ", " ", 40),
    ("y", " ", 2000),
    ("word ", " ", 400),
];

fn pieces(secret: &str) -> Vec<&str> {
    let k = secret.len().min(8);
    // Byte pieces, whole characters only (a folded form may hold others).
    (0..=secret.len() - k)
        .filter(|&i| secret.is_char_boundary(i) && secret.is_char_boundary(i + k))
        .map(|i| &secret[i..i + k])
        .collect()
}

fn leaked<'a>(secret: &'a str, text: &str) -> Option<&'a str> {
    pieces(secret).into_iter().find(|p| text.contains(p))
}

/// Every (text, form start, form end) of every form in every layout.
fn placements() -> Vec<(String, usize, usize, &'static str)> {
    let mut out = Vec::new();
    for (form, secret) in SECRETS.iter().chain(FOLDED_SECRETS) {
        for (unit, sep, n) in LAYOUTS {
            let pad = unit.repeat(*n);
            let text = format!("{pad}{sep}{form}{sep}{pad}");
            let start = pad.len() + sep.len();
            // The layout must not change what the form is.
            assert!(
                leaked(secret, &redact_str(&text)).is_none(),
                "{form:?} is not redacted in layout {unit:?}"
            );
            out.push((text, start, start + form.len(), *secret));
        }
    }
    out
}

/// Byte offsets from just before a form to just after it.
fn around(text: &str, start: usize, end: usize) -> impl Iterator<Item = usize> + '_ {
    (start.saturating_sub(2)..=(end + 2).min(text.len())).filter(|&i| text.is_char_boundary(i))
}

/// Leaks of `clip(text, chars)`, a head clip of a whole text.
fn head_clip_leaks(clip: impl Fn(&str, usize) -> String) -> Vec<String> {
    let mut leaks = Vec::new();
    for (text, start, end, secret) in placements() {
        for cut in around(&text, start, end) {
            let chars = text[..cut].chars().count();
            let out = clip(&text, chars);
            if let Some(piece) = leaked(secret, &out) {
                leaks.push(format!("clip at {cut} of {text:?} left {piece:?}: {out:?}"));
            }
        }
    }
    leaks
}

/// Leaks of the record of `keep(window)`, the head window of a stream.
fn head_window_leaks(keep: impl Fn(&str) -> String) -> Vec<String> {
    let mut leaks = Vec::new();
    for (text, start, end, secret) in placements() {
        for cut in around(&text, start, end) {
            // The record redacts what was kept.
            let record = redact_str(&keep(&text[..cut])).into_owned();
            if let Some(piece) = leaked(secret, &record) {
                leaks.push(format!(
                    "head cut at {cut} of {text:?} left {piece:?}: {record:?}"
                ));
            }
        }
    }
    leaks
}

/// Leaks of `tail(window, max)`, a tail of a stream as a record shows it.
fn tail_leaks(tail: impl Fn(&str, usize) -> String) -> Vec<String> {
    let mut leaks = Vec::new();
    for (text, start, end, secret) in placements() {
        for cut in around(&text, start, end) {
            for max in [16, 100, 4096] {
                let shown = tail(&text[cut..], max);
                if let Some(piece) = leaked(secret, &shown) {
                    leaks.push(format!(
                        "tail of {max} cut at {cut} of {text:?} left {piece:?}: {shown:?}"
                    ));
                }
            }
        }
    }
    leaks
}

#[test]
fn a_head_clip_of_a_whole_text_keeps_no_piece_of_a_secret() {
    let leaks = head_clip_leaks(|text, n| {
        let out = redact_then_clip(text, n, "…");
        assert!(out.chars().count() <= n + 1, "{out:?}");
        out.into_owned()
    });
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}

#[test]
fn the_head_window_of_a_stream_keeps_no_piece_of_a_secret() {
    let leaks = head_window_leaks(|window| {
        let kept = head_window(window);
        assert!(window.starts_with(kept));
        kept.to_string()
    });
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}

#[test]
fn the_tail_window_of_a_stream_keeps_no_piece_of_a_secret() {
    let leaks = tail_leaks(|window, max| {
        let kept = tail_window(window);
        assert!(window.ends_with(kept));
        let shown = redact_tail(window, true, max);
        assert!(shown.len() <= max + "…".len(), "{shown:?}");
        format!("{}\n{shown}", redact_str(kept))
    });
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}

#[test]
fn the_checks_catch_cutting_before_redacting() {
    // The same checks on the old way (cut, then redact) find leaks of
    // every kind: they would have caught it.
    let clip_first = head_clip_leaks(|text, n| {
        let cut: String = text.chars().take(n).collect();
        redact_str(&cut).into_owned()
    });
    assert!(!clip_first.is_empty());
    let raw_head = head_window_leaks(str::to_string);
    assert!(!raw_head.is_empty());
    let raw_tail = tail_leaks(|window, max| {
        let clean = redact_str(window);
        let mut from = clean.len().saturating_sub(max);
        while !clean.is_char_boundary(from) {
            from += 1;
        }
        clean[from..].to_string()
    });
    assert!(!raw_tail.is_empty());
}

#[test]
fn what_is_cut_before_redacting_is_what_the_probe_found() {
    // The two leaks a hostile agent showed: a stderr tail cut two
    // characters into a token, and a 200-byte quote of stdout.
    let token = "ghp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo";
    let stderr = format!("{token}\n{}\n", "y".repeat(4096));
    let window = &stderr[2..];
    assert!(
        redact_str(window).contains("p_Zq8Wm2"),
        "the old way leaked"
    );
    let tail = redact_tail(window, true, 4096);
    assert!(leaked(token, &tail).is_none(), "{tail}");
    assert!(tail.ends_with("yyy\n"), "the last lines stay");

    let stdout = format!("{} {token} and then some text", "x".repeat(181));
    let quote = redact_then_clip(&stdout, 200, "…");
    assert!(leaked(token, &quote).is_none(), "{quote}");
    assert!(quote.starts_with("xxx"));
}

#[test]
fn clips_keep_what_is_clean_and_never_split_the_marker() {
    assert!(matches!(
        redact_then_clip("all tests pass", 100, "…"),
        Cow::Borrowed("all tests pass")
    ));
    assert_eq!(redact_then_clip("all tests pass", 3, ""), "all");
    assert_eq!(redact_then_clip("all tests pass", 3, "…"), "all…");
    assert_eq!(redact_then_clip("ünïcödé", 3, "…"), "ünï…");
    // `token=[REDACTED]`: a cut inside the marker goes before it.
    for n in 7..16 {
        assert_eq!(
            redact_then_clip("token=hunter22 ok", n, ""),
            "token=",
            "{n}"
        );
    }
    assert_eq!(
        redact_then_clip("token=hunter22 ok", 16, ""),
        "token=[REDACTED]"
    );
    let tail = redact_tail("one\ntoken=hunter22\n", false, 4);
    assert_eq!(tail, "…\n", "a cut inside the marker goes after it");
}

#[test]
fn a_window_keeps_what_no_cut_can_have_touched() {
    // A flood without a credential literal is kept whole.
    let flood = "x".repeat(64 * 1024);
    assert_eq!(head_window(&flood), flood);
    // Whole lines before a partial one are kept.
    assert_eq!(head_window("one\ntwo\nthr"), "one\ntwo\n");
    assert_eq!(tail_window("ne\ntwo\nthree"), "two\nthree");
    // A window that is one partial line keeps nothing of it.
    assert_eq!(tail_window(&flood), "");
    // In a long line, the text from the first literal near its end goes.
    let long = format!("{} {}ghp_Zq8Wm2", "y".repeat(2000), "z".repeat(500));
    assert_eq!(head_window(&long), &long[..long.len() - "ghp_Zq8Wm2".len()]);
}

#[test]
fn a_head_cut_inside_a_seen_secret_goes_before_it() {
    // The literal nearest the end lies inside a long token the rules
    // see; cutting there would leave a piece too short for the rule.
    let token = format!("ghp_{}key{}", "A1".repeat(300), "B2".repeat(300));
    let text = format!("{} {token}", "y".repeat(2000));
    let kept = head_window(&text);
    assert!(!kept.contains("ghp_") && !kept.contains("A1A1"), "{kept}");
    assert!(kept.starts_with("yyy"));
}

#[test]
fn the_rest_of_a_key_block_cut_at_the_front_goes() {
    let block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7xyz\nabcDEF0123456789+/==\n-----END RSA PRIVATE KEY-----\nafter\n";
    for cut in 1..block.len() {
        let kept = tail_window(&block[cut..]);
        assert!(
            !kept.contains("MIIE") && !kept.contains("abcDEF"),
            "{cut}: {kept:?}"
        );
        assert!(
            kept.is_empty() || "after\n".ends_with(kept),
            "{cut}: {kept:?}"
        );
    }
    // A block that does not end in the window: its body lines go.
    let open =
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\nAAoGBAK7sRFEBAr0s1y2W\nnext line\n";
    assert_eq!(tail_window(&open[5..]), "next line\n");
}
