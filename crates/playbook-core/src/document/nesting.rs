//! A linear pre-scan that refuses deeply nested flow collections before any
//! parser sees them.
//!
//! Why a pre-scan: YAML scanners (libyaml and yaml-rust2 alike) must look
//! ahead to the end of a flow collection before emitting the token that
//! opens the next one (it might be a key), and they re-check every open
//! level on each token. `[[[[…]]]]` 100 000 deep therefore costs them
//! depth × tokens — tens of seconds — long before a depth limit in the
//! event consumer could fire. This scan is one pass over the bytes.
//!
//! The scan follows just enough of the lexical rules to skip brackets that
//! are text: quoted scalars (a quote opens one only where a token may start),
//! comments (`#` after whitespace) and the lines of block scalars (`|`, `>`).
//! Block nesting (`- - - -`, indentation) needs no pre-scan: the scanner
//! handles it in linear time and the loader's own depth limit stops it.

use crate::finding::Location;

/// Deepest nesting of collections a document may have. A playbook needs
/// fewer than 10 levels; 128 is also serde_json's own limit.
pub const MAX_NESTING: usize = 128;

/// Where the flow nesting first exceeds [`MAX_NESTING`], if it does.
pub fn too_deep(text: &str) -> Option<Location> {
    let mut scan = Scan::default();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            scan.newline(bytes, i);
            i += 1;
            continue;
        }
        if scan.in_block_scalar {
            i += 1;
            continue;
        }
        match b {
            b'#' if scan.previous_is_blank() => {
                // A comment runs to the end of the line.
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' | b'"' if scan.token_may_start() => {
                i = scan.skip_quoted(bytes, i);
                continue;
            }
            b'[' | b'{' if scan.token_may_start() || scan.depth > 0 => {
                scan.depth += 1;
                if scan.depth > MAX_NESTING {
                    return Some(location_of(text, i));
                }
            }
            b']' | b'}' if scan.depth > 0 => scan.depth -= 1,
            b'|' | b'>' if scan.depth == 0 && scan.after_indicator() => {
                scan.open_block_scalar(bytes, i);
            }
            _ => {}
        }
        scan.previous = Some(b);
        if !matches!(b, b' ' | b'\t' | b'\r') {
            scan.previous_token_char = Some(b);
        }
        i += 1;
    }
    None
}

#[derive(Default)]
struct Scan {
    /// Open flow collections.
    depth: usize,
    /// The byte before the current one on this line (None at line start).
    previous: Option<u8>,
    /// The last non-blank byte on this line, and the byte before it.
    previous_token_char: Option<u8>,
    /// Inside the text lines of a `|` or `>` block scalar.
    in_block_scalar: bool,
    /// Indentation of the line that opened the block scalar.
    block_parent_indent: usize,
    /// Set when a block scalar indicator was seen on the current line.
    block_pending: bool,
}

impl Scan {
    fn previous_is_blank(&self) -> bool {
        matches!(self.previous, None | Some(b' ' | b'\t' | b'\r'))
    }

    /// A quoted scalar or a flow collection can only start where a token
    /// starts: at the start of a line, or after whitespace that follows an
    /// indicator (`: `, `- `, `? `), or right after `[`, `{` or `,`.
    /// Inside a flow collection a JSON-like `"key":"value"` needs no blank.
    /// Outside flow collections, `x[` and `x,[` are plain text.
    fn token_may_start(&self) -> bool {
        match self.previous_token_char {
            None => true,
            Some(b'[' | b'{' | b',' | b':') if self.depth > 0 => true,
            Some(b':' | b'-' | b'?') => self.previous_is_blank(),
            _ => false,
        }
    }

    /// `|`/`>` opens a block scalar after `: `, `- `, `? ` or alone on a line.
    fn after_indicator(&self) -> bool {
        match self.previous_token_char {
            None => true,
            Some(b':' | b'-' | b'?') => self.previous_is_blank(),
            _ => false,
        }
    }

    fn open_block_scalar(&mut self, bytes: &[u8], at: usize) {
        let line_start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        self.block_parent_indent = bytes[line_start..]
            .iter()
            .take_while(|&&b| b == b' ')
            .count();
        self.block_pending = true;
    }

    /// At a newline: decide whether the next line belongs to a block scalar.
    fn newline(&mut self, bytes: &[u8], at: usize) {
        self.previous = None;
        self.previous_token_char = None;
        if self.block_pending {
            self.block_pending = false;
            self.in_block_scalar = true;
        }
        if self.in_block_scalar {
            // The scalar goes on while lines are blank or indented deeper
            // than the line that opened it.
            let rest = &bytes[at + 1..];
            let indent = rest.iter().take_while(|&&b| b == b' ').count();
            let blank = matches!(rest.get(indent), None | Some(b'\n' | b'\r'));
            self.in_block_scalar = blank || indent > self.block_parent_indent;
        }
    }

    /// Skips a quoted scalar starting at `start`; returns the index after it.
    fn skip_quoted(&mut self, bytes: &[u8], start: usize) -> usize {
        let quote = bytes[start];
        let mut i = start + 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' if quote == b'"' => i += 2,
                // `''` is an escaped quote inside a single-quoted scalar.
                b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
                b if b == quote => {
                    self.previous = Some(quote);
                    self.previous_token_char = Some(quote);
                    return i + 1;
                }
                _ => i += 1,
            }
        }
        bytes.len()
    }
}

/// Line and column (1-based, in characters) of byte offset `at`.
pub fn location_of(text: &str, at: usize) -> Location {
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or(text);
    // A line ends at `\n`, `\r\n` or a lone `\r`, as YAML and LSP read it
    // (the `\r` of a CRLF is looked past in the whole text, not the part
    // before `at`).
    let all = text.as_bytes();
    let (mut line, mut line_start) = (1, 0);
    for (i, &b) in before.as_bytes().iter().enumerate() {
        if b == b'\n' || (b == b'\r' && all.get(i + 1) != Some(&b'\n')) {
            line += 1;
            line_start = i + 1;
        }
    }
    Location {
        line,
        column: before[line_start..].chars().count() + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_lf_crlf_and_a_lone_cr() {
        let text = "a\nb\r\nc\rdé";
        assert_eq!(
            location_of(text, text.len()),
            Location { line: 4, column: 3 }
        );
        // At the `\r` and at the `\n` of a CRLF: still the second line.
        assert_eq!(location_of(text, 3), Location { line: 2, column: 2 });
        assert_eq!(location_of(text, 4), Location { line: 2, column: 3 });
    }

    #[test]
    fn deep_flow_nesting_is_found_where_it_crosses_the_limit() {
        let text = format!("a: {}", "[".repeat(200));
        let at = too_deep(&text).expect("too deep");
        assert_eq!(
            at,
            Location {
                line: 1,
                column: 4 + MAX_NESTING
            }
        );
        let json = "{\"a\":".repeat(1000);
        assert!(too_deep(&json).is_some());
    }

    #[test]
    fn brackets_that_are_text_do_not_count() {
        let many = "[".repeat(300);
        for text in [
            format!("a: '{many}'\n"),
            format!("a: \"{many}\"\n"),
            format!("a: x # {many}\n"),
            format!("a: |\n  {many}\n  more\nb: 1\n"),
            format!("a: b{many}\n"),
            format!("a: b, {many}\n"),
            format!("a: 'it''s {many}'\n"),
            format!("{{\"a\":\"{many}\"}}\n"),
        ] {
            assert_eq!(too_deep(&text), None, "{text}");
        }
    }

    #[test]
    fn a_block_scalar_ends_at_a_less_indented_line() {
        let text = format!("a: |\n  text\nb: {}\n", "[".repeat(300));
        assert!(too_deep(&text).is_some());
    }

    #[test]
    fn balanced_documents_pass() {
        let text = "a: [1, [2, {b: [3]}]]\n".repeat(10_000);
        assert_eq!(too_deep(&text), None);
    }
}
