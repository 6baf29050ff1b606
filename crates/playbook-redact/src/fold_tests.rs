//! Credentials the rules see only folded (`fold.rs`): split by characters
//! nobody sees, percent-encoded, written in tag or full-width characters,
//! or with their invisible characters escaped; and the texts that must
//! fold to nothing new.

use std::borrow::Cow;

use proptest::prelude::*;
use serde_json::json;

use crate::fold::Folded;
use crate::*;

const TOKEN: &str = "ghp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo";

/// Secret forms only the folded text shows, as `tests::SECRETS` has them:
/// the text, and a part of the secret the rules as written leave visible.
/// The cut and near-match tests run over these too.
pub(crate) const FOLDED_SECRETS: &[(&str, &str)] = &[
    // Characters nobody sees, inside a token's body or its prefix.
    (
        "ghp_Zq8Wm2Xr4Tn6Vb1K\u{200b}c3Ld5Fg7Hj9Pa0Se2Ud4Yo",
        "c3Ld5Fg7Hj9Pa0Se2Ud4Yo",
    ),
    (
        "push gh\u{200c}p_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo failed",
        "Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo",
    ),
    (
        "sk-ant-api03-Zq8Wm2Xr4\u{2060}Tn6Vb1Kc3Ld5Fg7Hj9Pa0",
        "Tn6Vb1Kc3Ld5Fg7Hj9Pa0",
    ),
    ("AKIAIOSF\u{feff}ODNN7EXAMPLE", "ODNN7EXAMPLE"),
    ("sk-proj-ABCDEFGHIJ\u{ad}KLMNOPQRSTUV12", "KLMNOPQRSTUV12"),
    ("AKIA\u{1b}IOSFODNN\u{0}7EXAMPLE", "IOSFODNN"),
    // A secret name split.
    ("pass\u{200d}word=hunter2", "hunter2"),
    ("api\u{2063}_key: \"abc123def456\"", "abc123def456"),
    // The invisible character escaped before redaction: by `printable`
    // (core's findings, progress lines), by a JSON writer, or
    // percent-encoded.
    (
        "ghp_Zq8Wm2Xr4Tn6Vb1K\\u{200b}c3Ld5Fg7Hj9Pa0Se2Ud4Yo",
        "c3Ld5Fg7Hj9Pa0Se2Ud4Yo",
    ),
    (
        "ghp_Zq8Wm2Xr4Tn6Vb1K\\u200bc3Ld5Fg7Hj9Pa0Se2Ud4Yo",
        "c3Ld5Fg7Hj9Pa0Se2Ud4Yo",
    ),
    (
        "ghp_Zq8Wm2Xr4Tn6Vb1K%E2%80%8Bc3Ld5Fg7Hj9Pa0Se2Ud4Yo",
        "c3Ld5Fg7Hj9Pa0Se2Ud4Yo",
    ),
    // An escaped invisible character starts a word as the character
    // itself does (`rules::B`).
    (
        "id\\u200bnpm_abcdefghijklmnopqrstuvwxyz0123",
        "abcdefghijklmnopqrstuvwxyz0123",
    ),
    (
        "id%E2%80%8Bnpm_abcdefghijklmnopqrstuvwxyz0123",
        "abcdefghijklmnopqrstuvwxyz0123",
    ),
    // Percent-encoded: a token's characters, a whole URL in a query, a
    // query's `=`.
    (
        "https://x.example/?q=ghp_Zq8W%6D2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo",
        "2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo",
    ),
    (
        "https://bob:%67hp_%5Aq8Wm2Xr4Tn6Vb1Kc3Ld5@github.com/x",
        "Xr4Tn6Vb1Kc3Ld5",
    ),
    (
        "login?next=https%3A%2F%2Fbob%3AS3cr3tPw9x%40git.example.com%2F",
        "S3cr3tPw9x",
    ),
    ("cb?state=1%26password%3Dhunter2%26x=1", "hunter2"),
    // Full-width letters.
    (
        "ｇｈｐ＿Ｚｑ８Ｗｍ２Ｘｒ４Ｔｎ６Ｖｂ１Ｋｃ３Ｌｄ５Ｆｇ７Ｈｊ９",
        "Ｔｎ６Ｖｂ１Ｋｃ３Ｌｄ５",
    ),
];

/// `text` written in tag characters (U+E0020–U+E007E), invisible, which
/// decoders and language models read as the ASCII they shadow.
fn tags(text: &str) -> String {
    text.chars()
        .map(|c| char::from_u32(0xE0000 + u32::from(c)).unwrap())
        .collect()
}

/// Characters nobody sees that these tests hide tokens with.
const HIDERS: &[char] = &[
    '\u{ad}',
    '\u{34f}',
    '\u{61c}',
    '\u{115f}',
    '\u{180e}',
    '\u{200b}',
    '\u{200c}',
    '\u{200d}',
    '\u{200e}',
    '\u{200f}',
    '\u{202a}',
    '\u{202e}',
    '\u{2060}',
    '\u{2062}',
    '\u{2063}',
    '\u{2064}',
    '\u{2066}',
    '\u{2069}',
    '\u{206f}',
    '\u{3164}',
    '\u{fe0f}',
    '\u{feff}',
    '\u{fff9}',
    '\u{1d173}',
    '\u{e0001}',
    '\u{e007f}',
    '\u{e0100}',
    '\u{0}',
    '\u{7}',
    '\u{1b}',
    '\u{7f}',
    '\u{9b}',
];

/// `text` as a person or a decoder reads it, worked out here without
/// `fold.rs` (so that the checks do not take the code under test's word):
/// the escaped hiders and the hiders dropped, `%XX` decoded, tag and
/// full-width characters read as ASCII.
fn read(text: &str) -> String {
    let text = text.replace("\\u{200b}", "").replace("\\u2060", "");
    let bytes = text.as_bytes();
    let mut decoded = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                decoded.push(b);
                i += 3;
            }
            (b, _) => {
                decoded.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded)
        .chars()
        .filter(|c| !HIDERS.contains(c))
        .map(|c| match u32::from(c) {
            0xE0020..=0xE007E => char::from_u32(u32::from(c) - 0xE0000).unwrap(),
            0xFF01..=0xFF5E => char::from_u32(u32::from(c) - 0xFEE0).unwrap(),
            _ => c,
        })
        .collect()
}

/// The first 8 characters in a row of `secret` that `text`, as written or
/// as read, still shows.
fn visible_piece<'a>(secret: &'a str, text: &str) -> Option<&'a str> {
    let chars: Vec<(usize, char)> = secret.char_indices().collect();
    let k = chars.len().min(8);
    let read = read(text);
    (0..=chars.len() - k)
        .map(|i| {
            let end = chars.get(i + k).map_or(secret.len(), |&(at, _)| at);
            &secret[chars[i].0..end]
        })
        .find(|piece| text.contains(piece) || read.contains(piece))
}

#[test]
fn every_folded_form_is_redacted() {
    let mut missed = Vec::new();
    for (text, secret) in FOLDED_SECRETS {
        let clean = redact_str(text);
        if clean.contains(secret) || !clean.contains(REDACTED) {
            missed.push(format!("{text:?} -> {clean:?}"));
        }
        if !rules::may_hold_secret(text) {
            missed.push(format!("{text:?} is ruled out before the rules run"));
        }
        let twice = redact_str(&clean).into_owned();
        if twice != clean {
            missed.push(format!("{text:?}: redacting twice changes {clean:?}"));
        }
    }
    assert!(missed.is_empty(), "secrets left:\n{}", missed.join("\n"));
}

#[test]
fn the_whole_span_goes_with_what_hid_it() {
    // Invisible characters and escapes inside the token go with it; the
    // text around it stays as written.
    assert_eq!(
        redact_str("push (gh\u{200b}p_Zq8Wm2Xr4Tn6Vb1K\u{200b}c3Ld5Fg7Hj9Pa0Se2Ud4Yo) failed"),
        "push ([REDACTED]) failed"
    );
    assert_eq!(
        redact_str("ok \u{200b} https://bob:%53%33cr3tPw9x@host/x \u{200b}"),
        "ok \u{200b} https://bob:[REDACTED]@host/x \u{200b}"
    );
    assert_eq!(
        redact_str("cb?state=1%26password%3Dhunter2%26x=1"),
        "cb?state=1%26password%3D[REDACTED]%26x=1"
    );
    let smuggled = format!("note {} end", tags(TOKEN));
    assert_eq!(redact_str(&smuggled), "note [REDACTED] end");
    let half = format!("ghp_Zq8Wm2{}", tags("Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo"));
    assert_eq!(redact_str(&half), REDACTED);
}

#[test]
fn json_values_and_typed_records_fold_too() {
    let split = "gh\u{200b}p_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo";
    let records = [
        json!({"note": format!("pushed with {split}")}),
        Value::Object([(split.to_string(), json!(1))].into_iter().collect()),
        json!({"pass\u{200b}word": "hunter2"}),
        json!({"pass%77ord": "hunter2"}),
        json!({"signing\u{ad}_key": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"}),
        json!({"note": tags("password=hunter2")}),
    ];
    for record in records {
        let mut value = record.clone();
        assert!(redact_value(&mut value), "{record}");
        let text = value.to_string();
        assert!(
            !read(&text).contains("hunter2") && visible_piece(TOKEN, &text).is_none(),
            "{record} -> {text}"
        );
        // The typed path's shortcut lets none of them through.
        let typed: Value = redact_serde(&record).unwrap().expect("redacted");
        assert_eq!(typed, value);
    }
}

#[test]
fn text_with_nothing_to_fold_into_a_secret_is_left_as_it_is() {
    for text in [
        "worker ⇄ reviewer — done…",
        // Joiners inside an emoji sequence, a soft hyphen in a word.
        "family 👨\u{200d}👩\u{200d}👧 and hy\u{ad}phen\u{ad}ation",
        "50% done, 100%25 sure, %zz and %E2%28",
        "C:\\Users\\dev\\upload \\u{1F600} \\uZZZZ",
        "ｆｕｌｌ－ｗｉｄｔｈ ｔｅｘｔ",
        "\u{feff}BOM then words",
    ] {
        assert!(
            matches!(redact_str(text), Cow::Borrowed(_)),
            "{text:?} -> {:?}",
            redact_str(text)
        );
    }
}

/// What is not folded, and why (`fold.rs`): white space splits words for
/// every reader; HTML references and escapes of visible characters are
/// deliberate disguises no writer of the records produces. Each stays as
/// written; the part a rule still sees as written is redacted.
#[test]
fn what_is_not_folded_stays_as_written() {
    assert_eq!(
        redact_str("ghp_Zq8Wm2Xr4Tn6Vb1K c3Ld5Fg7Hj9Pa0Se2Ud4Yo"),
        "[REDACTED] c3Ld5Fg7Hj9Pa0Se2Ud4Yo"
    );
    for disguised in [
        "&#x67;hp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo",
        "\\u0067hp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo",
        "%2567hp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo",
    ] {
        assert_eq!(redact_str(disguised), disguised);
    }
}

#[test]
fn a_folded_text_maps_back_to_whole_characters_of_its_source() {
    let source = "a\u{200b}%41%C3%A9\\u{200d}b\u{E0063}ｄ%zz\\u200be";
    let f = Folded::of(source).unwrap();
    assert_eq!(f.text, "aAébcd%zze");
    let mut last = 0;
    for (at, c) in f.text.char_indices() {
        let (start, end) = f.source_range(at, at + c.len_utf8());
        assert!(source.is_char_boundary(start) && source.is_char_boundary(end));
        assert!(last <= start && start < end, "{c:?} at {at}");
        last = end;
    }
    assert_eq!(f.source_range(0, f.text.len()), (0, source.len()));
    assert_eq!(f.source_start(f.text.len()), source.len());
}

#[test]
fn a_window_of_a_stream_is_cut_as_its_folded_text_would_be() {
    // A token padded with invisible characters: as written, the literal
    // lies further back than the head scan, and the piece after the cut is
    // long in bytes, short in what it shows.
    let padded: String = TOKEN
        .chars()
        .flat_map(|c| [c, '\u{200b}', '\u{200b}', '\u{200b}', '\u{200b}'])
        .collect();
    let text = format!("{} {padded}", "y".repeat(2000));
    for cut in (2001..text.len()).filter(|&i| text.is_char_boundary(i)) {
        let kept = redact_str(head_window(&text[..cut])).into_owned();
        assert!(
            visible_piece(TOKEN, &kept).is_none(),
            "cut at {cut}: {kept:?}"
        );
    }
    // A `%0A` ends a line of the folded text, not of the text as written:
    // the partial first line goes up to the later of the two.
    let tail = tail_window("d%0Apassword=hunt%0Aer2\nnext\n");
    assert_eq!(tail, "next\n");
    // What a key block cut at the front left goes when only its folded
    // text shows it is one (a body line and the `END` with a U+200B).
    let block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7xyz\n\
                 abcDEF01\u{200b}23456789+/==\n-----E\u{200b}ND RSA PRIVATE KEY-----\nafter\n";
    // As written the block has no end, so it runs to the text's end.
    assert_eq!(redact_str(block), REDACTED);
    for cut in (1..block.len()).filter(|&i| block.is_char_boundary(i)) {
        let kept = tail_window(&block[cut..]);
        assert!(
            !kept.contains("MIIE") && !kept.contains("abcDEF"),
            "{cut}: {kept:?}"
        );
    }
}

/// Characters nobody sees, and escapes of one, to put inside tokens.
fn hider() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(HIDERS.to_vec()).prop_map(String::from),
        1 => Just("\\u{200b}".to_string()),
        1 => Just("\\u2060".to_string()),
        1 => Just("%E2%80%8B".to_string()),
        1 => Just("%C2%AD".to_string()),
    ]
}

const TOKENS: &[&str] = &[
    TOKEN,
    "sk-ant-api03-Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0",
    "AKIAIOSFODNN7EXAMPLE",
    "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz",
    "glpat-abcdefghij0123456789",
    "xoxb-1234567890-abcdefghij",
    "npm_abcdefghijklmnopqrstuvwxyz0123456789",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Inserting characters nobody sees anywhere into a token, in any
    /// context, leaves no 8 characters of it in a row visible, as written
    /// or as read.
    #[test]
    fn a_token_split_by_invisible_characters_is_redacted(
        token in prop::sample::select(TOKENS.to_vec()),
        inserts in prop::collection::vec((any::<prop::sample::Index>(), hider()), 1..5),
        before in prop::sample::select(vec!["", "push failed: ", "x ", "(", "\n", "token "]),
        after in prop::sample::select(vec!["", " retrying", ")", "\n", "x"]),
    ) {
        let mut split: Vec<String> = token.chars().map(String::from).collect();
        for (at, hider) in inserts {
            let i = at.index(split.len() + 1);
            split.insert(i, hider);
        }
        let text = format!("{before}{}{after}", split.concat());
        let clean = redact_str(&text);
        prop_assert!(visible_piece(token, &clean).is_none(), "{:?} -> {:?}", text, clean);
    }

    /// Percent-encoding any of a token's characters, or writing them as
    /// tag characters, leaves none of it readable either.
    #[test]
    fn a_token_with_encoded_characters_is_redacted(
        token in prop::sample::select(TOKENS.to_vec()),
        encoded in prop::collection::vec(0u8..4, 64),
    ) {
        let text: String = token
            .chars()
            .zip(encoded)
            .map(|(c, how)| match how {
                0 => format!("%{:02X}", u32::from(c)),
                1 => format!("%{:02x}", u32::from(c)),
                2 => tags(&c.to_string()),
                _ => c.to_string(),
            })
            .collect();
        let clean = redact_str(&text);
        prop_assert!(visible_piece(token, &clean).is_none(), "{:?} -> {:?}", text, clean);
    }
}

#[test]
fn the_invisible_table_is_the_unicode_one() {
    // The `regex` crate's Unicode tables: every character of category Cf,
    // every default-ignorable code point, every control character that is
    // not white space.
    let unicode =
        regex::Regex::new(r"[\p{Cf}\p{Default_Ignorable_Code_Point}[\p{Cc}--\s]]").unwrap();
    let every: String = (0..=u32::from(char::MAX))
        .filter_map(char::from_u32)
        .collect();
    let listed: std::collections::HashSet<char> = unicode
        .find_iter(&every)
        .filter_map(|m| m.as_str().chars().next())
        .collect();
    let differ: Vec<String> = every
        .chars()
        .filter(|&c| crate::fold::is_invisible(c) != listed.contains(&c))
        .map(|c| format!("U+{:04X}", u32::from(c)))
        .collect();
    assert!(differ.is_empty(), "the table differs at {differ:?}");
}

#[test]
fn only_first_bytes_of_folding_characters_start_a_fold_and_the_prefilter_sees_each() {
    // No range of the table spans two lengths of UTF-8 form, so the first
    // bytes between its ends are exactly those of its characters.
    let folds = |c: char| crate::fold::is_invisible(c) || ('\u{ff01}'..='\u{ff5e}').contains(&c);
    for c in (0..=u32::from(char::MAX))
        .filter_map(char::from_u32)
        .filter(|&c| folds(c))
    {
        let mut utf8 = [0; 4];
        let first = c.encode_utf8(&mut utf8).as_bytes()[0];
        assert!(crate::fold::can_start_fold(first), "U+{:04X}", u32::from(c));
        // The prefilter lets every text with one through.
        assert!(
            rules::may_need_scan(&format!("ab{c}cd")),
            "U+{:04X}",
            u32::from(c)
        );
    }
    for escape in ["%41", "\\u200b", "\\u{200b}"] {
        assert!(rules::may_need_scan(escape));
    }
    for continuation in 0x80..=0xbf {
        assert!(!crate::fold::can_start_fold(continuation));
    }
}

#[test]
fn the_word_check_flags_exactly_the_bytes_that_can_start_a_fold() {
    // Every byte value at every place of a word, among bytes that are not
    // flagged: flagged exactly when it can start a fold or is not ASCII.
    for b in 0..=u8::MAX {
        let flagged = b >= 0x80 || crate::fold::can_start_fold(b);
        for place in 0..8 {
            let mut word = [b'a'; 8];
            word[place] = b;
            let mask = crate::fold::suspicious(u64::from_le_bytes(word));
            assert_eq!(mask != 0, flagged, "byte {b:#x} at {place}");
            if flagged {
                assert_eq!(mask, 0x80 << (8 * place), "byte {b:#x} at {place}");
            }
        }
    }
}

#[test]
fn escapes_are_read_strictly() {
    // Only `\u`, only hex digits (no sign), a `}` within reach, a
    // surrogate pair whole.
    for text in [
        "\\x{200b}",
        "\\u{+ad}",
        "\\u+0ad",
        "%+1",
        "\\u{200b",
        "\\u{0000200b}",
        "\\ud800x",
        "\\udc00",
    ] {
        assert!(Folded::of(text).is_none(), "{text:?}");
    }
    assert_eq!(Folded::of("a\\udb40\\udc67b").unwrap().text, "agb");
    assert_eq!(Folded::of("a\\u{ad}b%00c").unwrap().text, "abc");
}

#[test]
fn folding_never_hides_less_than_the_text_as_written() {
    // Machine-made as written (long, mixed, high entropy); what it spells
    // folded (`x9/=+@:,`) is short. The value is judged both ways.
    let text = "session_id=x9%2F%3D%2B%40%3A%2C";
    assert_eq!(redact_str(text), "session_id=[REDACTED]");
    let mut value = json!({"session_id": "x9%2F%3D%2B%40%3A%2C"});
    assert!(redact_value(&mut value));
}
