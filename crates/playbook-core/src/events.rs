//! The YAML event stream that the position readers walk (`locate.rs`, the
//! span reader of `edit/`, the language server's outline): yaml-rust2's
//! parser, reading JSON's surrogate-pair escapes as well.
//!
//! JSON writes a character outside the Basic Multilingual Plane as two
//! escapes, `"\ud83d\ude80"` (Python's `json.dumps` and many tools do so
//! by default). serde_json reads that; yaml-rust2, which these readers use
//! because JSON is YAML flow syntax, refuses it (YAML's `\u` names one
//! character, and half a pair is none). A document that loads must also
//! have positions, so here the parser reads a copy in which each valid
//! pair is replaced by a stand-in of the same length (`\uFFFD\uFFFD`):
//! every byte, character, line and column stays where it is. A scalar that
//! held a pair is then decoded from the original text, so keys and values
//! read as they do in the loaded document.
//!
//! Only text that scans as JSON (strings, and no `'` or `#` outside them)
//! is read this way; YAML never needs it (the loader refuses such escapes,
//! and a `\u` in a single-quoted or plain scalar is not an escape).

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, ScanError, TScalarStyle};

/// A surrogate pair escape: `\uD83D\uDE80`, twelve ASCII bytes.
const PAIR_LEN: usize = 12;
/// What the parser reads in a pair's place: valid, ASCII, the same length.
const STAND_IN: &[u8; PAIR_LEN] = b"\\uFFFD\\uFFFD";

/// The events of a text, as [`Parser::next_token`] gives them.
pub struct Events<'a> {
    text: &'a str,
    parser: Reader<'a>,
    masked: bool,
    /// Character → byte cursor for decoding a scalar from the original
    /// text; events come in order, so this is linear overall.
    chars: usize,
    bytes: usize,
}

impl<'a> Events<'a> {
    pub fn new(text: &'a str) -> Events<'a> {
        let pairs = surrogate_pairs(text);
        let masked = !pairs.is_empty();
        let parser = if masked {
            Reader::Masked(Box::new(Parser::new(Masked {
                chars: text.char_indices(),
                pairs: pairs.into_iter(),
                next: None,
                started: false,
            })))
        } else {
            Reader::Plain(Box::new(Parser::new_from_str(text)))
        };
        Events {
            text,
            parser,
            masked,
            chars: 0,
            bytes: 0,
        }
    }

    /// The next event and where it starts; an error where the parser stops.
    pub fn next_token(&mut self) -> Result<(Event, Marker), ScanError> {
        let (mut event, mark) = match &mut self.parser {
            Reader::Plain(parser) => parser.next_token()?,
            Reader::Masked(parser) => parser.next_token()?,
        };
        if self.masked
            && let Event::Scalar(value, TScalarStyle::DoubleQuoted, ..) = &mut event
            && value.contains('\u{FFFD}')
            && let Some(real) = self.decode_at(mark.index())
        {
            *value = real;
        }
        Ok((event, mark))
    }

    /// The double-quoted string that opens at character `index` of the
    /// original text, decoded as JSON.
    fn decode_at(&mut self, index: usize) -> Option<String> {
        if index < self.chars {
            self.chars = 0;
            self.bytes = 0;
        }
        let mut rest = self.text.get(self.bytes..)?.chars();
        while self.chars < index {
            self.bytes += rest.next()?.len_utf8();
            self.chars += 1;
        }
        let slice = self.text.get(self.bytes..)?;
        let end = closing_quote(slice.as_bytes())?;
        serde_json::from_str(slice.get(..end)?).ok()
    }
}

/// The parser over the text itself (nearly every text: the parser the
/// YAML crate's own reader uses, so no second copy of it is compiled for
/// the common case), or over the masked copy.
enum Reader<'a> {
    Plain(Box<Parser<std::str::Chars<'a>>>),
    Masked(Box<Parser<Masked<'a>>>),
}

/// One past the quote that closes the string opening at `bytes[0]`.
fn closing_quote(bytes: &[u8]) -> Option<usize> {
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Byte offsets of the valid surrogate pair escapes inside the strings of
/// JSON text, ascending; empty for anything else (most texts: one search
/// for `\u` decides).
fn surrogate_pairs(text: &str) -> Vec<usize> {
    if !text.contains("\\u") {
        return Vec::new();
    }
    let bytes = text.as_bytes();
    let mut pairs = Vec::new();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match (in_string, bytes[i]) {
            (true, b'\\') => {
                if is_pair(&bytes[i..]) {
                    pairs.push(i);
                    i += PAIR_LEN;
                } else {
                    i += 2;
                }
                continue;
            }
            (_, b'"') => in_string = !in_string,
            // Not JSON: YAML's quoting rules differ, so no masking.
            (false, b'\'' | b'#') => return Vec::new(),
            _ => {}
        }
        i += 1;
    }
    pairs
}

/// Whether `bytes` starts with `\uD8xx\uDCxx`: a high surrogate escape
/// followed at once by a low one.
fn is_pair(bytes: &[u8]) -> bool {
    let unit = |at: usize| -> Option<u16> {
        let escape = bytes.get(at..at + 6)?;
        if &escape[..2] != b"\\u" {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&escape[2..]).ok()?, 16).ok()
    };
    matches!(
        (unit(0), unit(6)),
        (Some(0xD800..=0xDBFF), Some(0xDC00..=0xDFFF))
    )
}

/// The text's characters with each pair replaced by [`STAND_IN`].
struct Masked<'a> {
    chars: std::str::CharIndices<'a>,
    pairs: std::vec::IntoIter<usize>,
    next: Option<usize>,
    started: bool,
}

impl Iterator for Masked<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        if !self.started {
            self.started = true;
            self.next = self.pairs.next();
        }
        let (at, c) = self.chars.next()?;
        if let Some(start) = self.next
            && at >= start
        {
            // A pair is ASCII: one character per byte.
            let k = at - start;
            if k + 1 == PAIR_LEN {
                self.next = self.pairs.next();
            }
            if let Some(&b) = STAND_IN.get(k) {
                return Some(char::from(b));
            }
        }
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalars(text: &str) -> Vec<(String, usize)> {
        let mut events = Events::new(text);
        let mut out = Vec::new();
        while let Ok((event, mark)) = events.next_token() {
            match event {
                Event::Scalar(value, ..) => out.push((value, mark.index())),
                Event::StreamEnd => break,
                _ => {}
            }
        }
        out
    }

    #[test]
    fn surrogate_pair_escapes_read_as_their_character_at_their_place() {
        let text = "{\"\\ud83d\\ude80 key\": \"go \\uD83D\\uDE80!\", \"n\": \"\\ufffd\"}";
        assert_eq!(
            scalars(text),
            [
                ("🚀 key".to_string(), 1),
                ("go 🚀!".to_string(), 21),
                ("n".to_string(), 41),
                ("\u{fffd}".to_string(), 46),
            ]
        );
    }

    #[test]
    fn only_json_strings_are_masked() {
        // An escaped backslash, a lone surrogate, and YAML quoting.
        assert!(surrogate_pairs("{\"a\": \"\\\\ud83d\\ude80\"}").is_empty());
        assert!(surrogate_pairs("{\"a\": \"\\ud83d x\"}").is_empty());
        assert!(surrogate_pairs("a: '\\ud83d\\ude80'\n").is_empty());
        assert!(surrogate_pairs("{a: \"\\ud83d\\ude80\"} # c\n").is_empty());
        assert_eq!(surrogate_pairs("[\"\\ud83d\\ude80\"]"), [2]);
    }
}
