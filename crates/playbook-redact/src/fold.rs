//! A text as a reader or a decoder takes it, for the rules to look at a
//! second time.
//!
//! The rules match the characters that are there. A credential can be
//! there and still not be seen by them: split by characters nobody sees
//! (`ghp_Zq8W` + U+200B + `m2Xr…`: a terminal, an editor or a web page
//! shows the token whole, and copying it often drops the U+200B), spelled
//! in characters a decoder turns back into it (`%67hp_…`, `password%3Dhunter2`
//! in a URL's query, a token's letters as tag characters, which language
//! models and "ASCII smuggling" decoders read as ASCII), or with the
//! invisible characters already escaped by `printable` (`\u{200b}`) or by a
//! JSON writer (`\u200b`) before the text was redacted. The *folded* text
//! is the text with each of these read as what it stands for:
//!
//! - every character nobody sees is dropped: Unicode format characters
//!   (category Cf: U+200B–U+200F, U+2060–U+2064, U+FEFF, U+00AD soft
//!   hyphen, bidi controls...), default-ignorable code points (variation
//!   selectors, U+034F, Hangul fillers) and control characters that are
//!   not white space (NUL, ESC, BEL, DEL, C1);
//! - a tag character (U+E0020–U+E007E) reads as the ASCII character it
//!   shadows, and a full-width form (U+FF01–U+FF5E, `ｇｈｐ＿`) as its ASCII
//!   letter: both are exact, one-to-one mappings;
//! - a `%XX` escape reads as the byte it encodes (a UTF-8 sequence of
//!   escapes as its character), one level deep (`%2541` is `%41`), as a
//!   URL decoder reads it, wherever it stands: a URL's userinfo or query,
//!   or inside a token;
//! - `\u{…}` (Rust, `printable`) and `\uXXXX` (JSON, a surrogate pair
//!   whole) escapes of the characters above read as those characters do;
//!   escapes of other characters stay as written.
//!
//! The rules then run over the folded text too (`scan.rs`), and what they
//! find there is redacted in the original over its whole extent, the
//! invisible characters and escapes inside it included. Both texts are
//! scanned, because folding can also join a token to the word before it
//! (`x` U+200B `sk-…` folds to `xsk-…`, which no longer starts a word).
//!
//! Not folded, on purpose: white space (a token broken by a space or a line
//! break, such as a YAML folded scalar's, is two words to every reader;
//! joining words across it would redact text after every prefix-like
//! word), HTML character references and escapes of visible characters
//! (`&#x67;hp_`, `\u0067hp_`: no writer of the records produces them, so
//! they are deliberate disguises, like base64 or a reversed token, which no
//! redactor can undo), look-alike letters of other scripts (`ghр_` with a
//! Cyrillic `р`) and the other compatibility forms (mathematical letters:
//! a large table for a disguise, not an accident).
//!
//! Cost: the prefilter of `rules.rs` looks for what a fold needs (`%` and
//! two hex digits, `\u`, a character that folds) in the same pass as the
//! rules' literals, so most texts, clean ones, cost what they did. A text
//! it lets through is looked at 8 bytes at a time for a byte that can
//! start a fold; only such a byte is looked at closely, and only a text
//! with something to fold is copied. No regular expression runs here.

/// Characters nobody sees: Unicode format characters (Cf),
/// default-ignorable code points, and control characters that are not
/// white space, as ranges, sorted. `the_invisible_table_is_the_unicode_one`
/// checks it against the `regex` crate's Unicode tables, so an update of
/// Unicode that changes the set fails a test.
const INVISIBLE: &[(u32, u32)] = &[
    (0x0, 0x8),
    (0xe, 0x1f),
    // Split where the UTF-8 form gets longer, for [`TRIGGER`].
    (0x7f, 0x7f),
    (0x80, 0x84),
    (0x86, 0x9f),
    (0xad, 0xad),
    (0x34f, 0x34f),
    (0x600, 0x605),
    (0x61c, 0x61c),
    (0x6dd, 0x6dd),
    (0x70f, 0x70f),
    (0x890, 0x891),
    (0x8e2, 0x8e2),
    (0x115f, 0x1160),
    (0x17b4, 0x17b5),
    (0x180b, 0x180f),
    (0x200b, 0x200f),
    (0x202a, 0x202e),
    (0x2060, 0x206f),
    (0x3164, 0x3164),
    (0xfe00, 0xfe0f),
    (0xfeff, 0xfeff),
    (0xffa0, 0xffa0),
    (0xfff0, 0xfffb),
    (0x110bd, 0x110bd),
    (0x110cd, 0x110cd),
    (0x13430, 0x1343f),
    (0x1bca0, 0x1bca3),
    (0x1d173, 0x1d17a),
    (0xe0000, 0xe0fff),
];

/// Characters read as an ASCII one: full-width forms (U+FF01–U+FF5E;
/// the tag characters, U+E0020–U+E007E, are in [`INVISIBLE`]'s last range).
const FULL_WIDTH: (u32, u32) = (0xff01, 0xff5e);

/// Whether nobody sees `c` (it is in [`INVISIBLE`]).
pub(crate) fn is_invisible(c: char) -> bool {
    let c = u32::from(c);
    let i = INVISIBLE.partition_point(|&(_, last)| last < c);
    INVISIBLE.get(i).is_some_and(|&(first, _)| first <= c)
}

/// How a character reads: `None` when nobody sees it.
fn fold_char(c: char) -> Option<char> {
    match c {
        '\u{E0020}'..='\u{E007E}' => char::from_u32(u32::from(c) - 0xE0000),
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0),
        c if is_invisible(c) => None,
        c => Some(c),
    }
}

/// The first byte of the UTF-8 form of code point `c`.
const fn lead_byte(c: u32) -> usize {
    (if c < 0x80 {
        c
    } else if c < 0x800 {
        0xc0 | c >> 6
    } else if c < 0x10000 {
        0xe0 | c >> 12
    } else {
        0xf0 | c >> 18
    }) as usize
}

/// Bytes that can start a fold: `%`, `\\`, and the first byte of every
/// character that folds (the control characters among them).
static TRIGGER: [bool; 256] = {
    let mut table = [false; 256];
    table[b'%' as usize] = true;
    table[b'\\' as usize] = true;
    let mut i = 0;
    while i <= INVISIBLE.len() {
        let (first, last) = if i < INVISIBLE.len() {
            INVISIBLE[i]
        } else {
            FULL_WIDTH
        };
        // First bytes grow with the code point within one length of
        // UTF-8 form (no range spans two): every one between the range's
        // ends is a first byte of a character in it.
        let mut b = lead_byte(first);
        while b <= lead_byte(last) {
            table[b] = true;
            b += 1;
        }
        i += 1;
    }
    table
};

/// What a text must hold for a fold to start in it, for the prefilter
/// (`rules.rs`, which ignores ASCII case): `%` and two hex digits, `\\u`,
/// and the UTF-8 form of every character that folds (of the tag block, its
/// common first two bytes).
pub(crate) fn fold_literals() -> Vec<Vec<u8>> {
    let hex = b"0123456789abcdef";
    let mut literals: Vec<Vec<u8>> = hex
        .iter()
        .flat_map(|&high| hex.iter().map(move |&low| vec![b'%', high, low]))
        .collect();
    literals.push(b"\\u".to_vec());
    literals.push("\u{E0000}".as_bytes()[..2].to_vec());
    for &(first, last) in INVISIBLE.iter().chain([&FULL_WIDTH]) {
        for c in (first..=last).filter_map(char::from_u32) {
            if ('\u{E0000}'..='\u{E0FFF}').contains(&c) {
                continue;
            }
            literals.push(c.to_string().into_bytes());
        }
    }
    literals
}

/// Whether byte `b` can start a fold (a [`TRIGGER`]).
#[cfg(test)]
pub(crate) fn can_start_fold(b: u8) -> bool {
    TRIGGER[usize::from(b)]
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Bytes of the word that may be a [`TRIGGER`] (outside ASCII, a control
/// character but white space, `%`, `\\` or DEL), as their high bits; no
/// false negatives. Each byte is compared on its own (no carry crosses into
/// the next), so a text's line breaks and tabs do not make it look twice.
pub(crate) fn suspicious(word: u64) -> u64 {
    const LOW7: u64 = ONES * 0x7f;
    // High bit set for each ASCII byte at least `n` (`n` ≤ 0x80).
    let at_least = |n: u64| ((word & LOW7) + ONES * (0x80 - n)) & HIGHS;
    let equal = |b: u8| {
        let v = word ^ (ONES * u64::from(b));
        !(((v & LOW7) + LOW7) | v | LOW7)
    };
    let ascii = !word & HIGHS;
    let control = !at_least(0x20) & ascii;
    let white = at_least(0x09) & !at_least(0x0e) & ascii;
    (word & HIGHS) | (control & !white) | equal(b'%') | equal(b'\\') | equal(0x7f)
}

fn word(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// The first fold in `text` at or after `from`: where it starts, how it
/// reads (`None`: as nothing) and where it ends.
fn next_fold(text: &str, from: usize) -> Option<(usize, Option<char>, usize)> {
    let bytes = text.as_bytes();
    let mut at = from;
    while at < bytes.len() {
        // 16 bytes at a time, skipped when none can start a fold.
        let until = (at + 16).min(bytes.len());
        if until == at + 16 && suspicious(word(bytes, at)) | suspicious(word(bytes, at + 8)) == 0 {
            at = until;
            continue;
        }
        for i in at..until {
            if TRIGGER[usize::from(bytes[i])]
                && let Some((c, end)) = unit(text, i)
            {
                return Some((i, c, end));
            }
        }
        at = until;
    }
    None
}

/// Whether folding `text` changes it.
pub(crate) fn needs_fold(text: &str) -> bool {
    next_fold(text, 0).is_some()
}

/// A run of the folded text and where it comes from: copied as it is
/// (`verbatim`: byte `view + i` is byte `source + i`), or one folded unit
/// (an escape or a character) standing for `source..source_end`.
#[derive(Debug, Clone, Copy)]
struct Run {
    view: usize,
    source: usize,
    source_end: usize,
    verbatim: bool,
}

/// The folded form of a text, and the way back to the text.
pub(crate) struct Folded {
    pub(crate) text: String,
    runs: Vec<Run>,
    source_len: usize,
}

impl Folded {
    /// `source` folded; `None` when folding changes nothing.
    pub(crate) fn of(source: &str) -> Option<Folded> {
        let first = next_fold(source, 0)?;
        let mut folded = Folded {
            text: String::with_capacity(source.len()),
            runs: Vec::new(),
            source_len: source.len(),
        };
        let mut at = 0;
        let mut next = Some(first);
        while let Some((start, c, end)) = next {
            folded.verbatim(source, at, start);
            folded.unit(c, start, end);
            at = end;
            next = next_fold(source, at);
        }
        folded.verbatim(source, at, source.len());
        Some(folded)
    }

    fn verbatim(&mut self, source: &str, start: usize, end: usize) {
        if start == end {
            return;
        }
        let view = self.text.len();
        match self.runs.last_mut() {
            // Continues the last verbatim run: one run per stretch.
            Some(last) if last.verbatim && last.source_end == start => last.source_end = end,
            _ => self.runs.push(Run {
                view,
                source: start,
                source_end: end,
                verbatim: true,
            }),
        }
        self.text.push_str(&source[start..end]);
    }

    fn unit(&mut self, c: Option<char>, start: usize, end: usize) {
        // A dropped character adds nothing to the view; a span around it
        // covers it all the same, its ends being in the runs either side.
        if let Some(c) = c {
            self.runs.push(Run {
                view: self.text.len(),
                source: start,
                source_end: end,
                verbatim: false,
            });
            self.text.push(c);
        }
    }

    /// The run byte `at` of the folded text belongs to.
    fn run(&self, at: usize) -> Run {
        let index = self.runs.partition_point(|r| r.view <= at);
        self.runs[index - 1]
    }

    /// Where in the source byte `at` of the folded text starts (the
    /// source's end for the folded text's end).
    pub(crate) fn source_start(&self, at: usize) -> usize {
        if at >= self.text.len() {
            return self.source_len;
        }
        let run = self.run(at);
        if run.verbatim {
            run.source + (at - run.view)
        } else {
            run.source
        }
    }

    /// Where in the source the byte before `at` of the folded text ends.
    fn source_end(&self, at: usize) -> usize {
        let run = self.run(at - 1);
        if run.verbatim {
            run.source + (at - run.view)
        } else {
            run.source_end
        }
    }

    /// The source range the range `start..end` of the folded text covers,
    /// with every escape and dropped character inside it.
    pub(crate) fn source_range(&self, start: usize, end: usize) -> (usize, usize) {
        (self.source_start(start), self.source_end(end))
    }
}

/// The fold that starts at byte `at` (a [`TRIGGER`]): how it reads and
/// where it ends, or `None` when nothing folds there.
fn unit(source: &str, at: usize) -> Option<(Option<char>, usize)> {
    let bytes = source.as_bytes();
    let (c, end) = match bytes[at] {
        b'%' => percent(bytes, at)?,
        b'\\' => {
            let (c, end) = unicode_escape(source, at)?;
            // Only escapes of characters read as something else fold:
            // `\u0041` stays as written.
            if fold_char(c) == Some(c) {
                return None;
            }
            (c, end)
        }
        // The middle of a character outside ASCII.
        0x80..=0xbf => return None,
        _ => {
            let c = source[at..].chars().next()?;
            (c, at + c.len_utf8())
        }
    };
    let folded = fold_char(c);
    // A `%XX` always folds (to the character it encodes); a character as
    // written only if it reads as another or as nothing.
    (bytes[at] == b'%' || folded != Some(c)).then_some((folded, end))
}

fn hex_byte(bytes: &[u8], at: usize) -> Option<u8> {
    hex_value(bytes.get(at..at + 2)?).and_then(|v| u8::try_from(v).ok())
}

/// The character `%XX` (or a UTF-8 sequence of them) at `at` encodes.
fn percent(bytes: &[u8], at: usize) -> Option<(char, usize)> {
    let lead = hex_byte(bytes, at + 1)?;
    let len = match lead {
        0x00..=0x7f => return Some((char::from(lead), at + 3)),
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return None,
    };
    let mut utf8 = [0u8; 4];
    for (i, slot) in utf8.iter_mut().enumerate().take(len) {
        let escape = at + 3 * i;
        if bytes.get(escape) != Some(&b'%') {
            return None;
        }
        *slot = hex_byte(bytes, escape + 1)?;
    }
    let c = std::str::from_utf8(&utf8[..len]).ok()?.chars().next()?;
    Some((c, at + 3 * len))
}

/// The value of `digits`, all hex digits (no sign, unlike
/// `from_str_radix`), at most 6 of them.
fn hex_value(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 6 || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

/// The character `\u{…}` or `\uXXXX` (a surrogate pair as one) at `at`
/// stands for. Looks at most 12 bytes ahead, so that a text of `\u{`
/// without a `}` is not read again from each of them.
fn unicode_escape(source: &str, at: usize) -> Option<(char, usize)> {
    let bytes = source.as_bytes();
    if bytes.get(at + 1) != Some(&b'u') {
        return None;
    }
    let rest = &bytes[at + 2..];
    if rest.first() == Some(&b'{') {
        let close = rest.iter().take(8).position(|&b| b == b'}')?;
        let c = char::from_u32(hex_value(&rest[1..close])?)?;
        return Some((c, at + 2 + close + 1));
    }
    let four = |from: usize| rest.get(from..from + 4).and_then(hex_value);
    let first = four(0)?;
    if let Some(c) = char::from_u32(first) {
        return Some((c, at + 6));
    }
    // A high surrogate, whole only with the low one after it.
    if rest.get(4..6) != Some(b"\\u".as_slice()) {
        return None;
    }
    let low = four(6)?;
    if !(0xd800..0xdc00).contains(&first) || !(0xdc00..0xe000).contains(&low) {
        return None;
    }
    let c = char::from_u32(0x10000 + ((first - 0xd800) << 10) + (low - 0xdc00))?;
    Some((c, at + 12))
}
