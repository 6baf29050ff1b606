//! Positions: the core counts lines from 1 and columns in Unicode scalar
//! values (characters); LSP counts both from 0 and columns in UTF-16 code
//! units (the protocol's default encoding, the only one every client
//! supports). Every conversion between the two goes through [`LineIndex`],
//! and every input is clamped, so a position past the end of a line or of
//! the document never indexes out of bounds.

use tower_lsp_server::ls_types::{Position, Range};

/// Byte offsets of the starts of the lines of one text.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset where each line starts; the first is always 0.
    starts: Vec<usize>,
}

impl LineIndex {
    /// Lines end at `\n`, `\r\n` and a lone `\r`: the protocol's three line
    /// ends, and the ones YAML (so the core's line numbers) counts.
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        starts.extend(
            bytes
                .iter()
                .enumerate()
                .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    /// The text of a 0-based line, without its line break.
    pub fn line<'t>(&self, text: &'t str, line: usize) -> &'t str {
        let Some(&start) = self.starts.get(line) else {
            return "";
        };
        let end = self
            .starts
            .get(line + 1)
            .map_or(text.len(), |next| next - 1);
        let line = text.get(start..end.max(start)).unwrap_or("");
        // The `\r` of a `\r\n`; a lone `\r` was the break itself.
        line.strip_suffix('\r').unwrap_or(line)
    }

    /// The LSP position of a core location: 1-based line, 1-based column in
    /// characters. Out-of-range values are clamped to the text.
    pub fn position_at_char(&self, text: &str, line: usize, column: usize) -> Position {
        let line0 = line.saturating_sub(1).min(self.starts.len() - 1);
        let chars = column.saturating_sub(1);
        let utf16: usize = self
            .line(text, line0)
            .chars()
            .take(chars)
            .map(char::len_utf16)
            .sum();
        position(line0, utf16)
    }

    /// The LSP position of a 1-based line and a 1-based column counted in
    /// bytes (serde_json's unit for JSON syntax errors). A column inside a
    /// multi-byte character lands on that character's start.
    pub fn position_at_byte(&self, text: &str, line: usize, column: usize) -> Position {
        let line0 = line.saturating_sub(1).min(self.starts.len() - 1);
        let content = self.line(text, line0);
        let mut byte = column.saturating_sub(1).min(content.len());
        while !content.is_char_boundary(byte) {
            byte -= 1;
        }
        position(line0, utf16_len(&content[..byte]))
    }

    /// Character column (0-based) of an LSP position on its line, clamped
    /// to the line; a position inside a surrogate pair counts as before it.
    /// A line past the last one is the end of the text.
    pub fn char_column(&self, text: &str, position: Position) -> (usize, usize) {
        let last = self.starts.len() - 1;
        if position.line as usize > last {
            return (last, self.line(text, last).chars().count());
        }
        let line0 = position.line as usize;
        let mut units = 0usize;
        let mut chars = 0usize;
        for c in self.line(text, line0).chars() {
            units += c.len_utf16();
            if units > position.character as usize {
                break;
            }
            chars += 1;
        }
        (line0, chars)
    }

    /// Byte offset in the text of an LSP position, clamped to its line.
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let (line0, chars) = self.char_column(text, position);
        let start = self.starts.get(line0).copied().unwrap_or(text.len());
        let content = self.line(text, line0);
        start
            + content
                .char_indices()
                .nth(chars)
                .map_or(content.len(), |(i, _)| i)
    }

    /// The LSP position of a byte offset; an offset inside a character or
    /// between `\r` and `\n` moves back to the nearest clean boundary.
    pub fn position_of(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while offset > 0 && (!text.is_char_boundary(offset) || inside_crlf(text, offset)) {
            offset -= 1;
        }
        let line = self
            .starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.starts.get(line).copied().unwrap_or(0).min(offset);
        position(line, utf16_len(&text[start..offset]))
    }

    /// The LSP range of characters `from..to` (0-based) of a 0-based line.
    pub fn char_range(&self, text: &str, line0: usize, from: usize, to: usize) -> Range {
        let content = self.line(text, line0);
        let units =
            |n: usize| -> usize { content.chars().take(n).map(char::len_utf16).sum::<usize>() };
        Range::new(
            position(line0, units(from)),
            position(line0, units(to.max(from))),
        )
    }
}

/// `text` with an LSP range replaced; positions are clamped as everywhere.
pub fn replace(text: &str, range: Range, with: &str) -> String {
    let index = LineIndex::new(text);
    let start = index.offset(text, range.start);
    let end = index.offset(text, range.end).max(start);
    format!("{}{with}{}", &text[..start], &text[end..])
}

/// Whether byte `offset` falls between the `\r` and the `\n` of a `\r\n`.
pub fn inside_crlf(text: &str, offset: usize) -> bool {
    let bytes = text.as_bytes();
    offset > 0 && bytes.get(offset - 1) == Some(&b'\r') && bytes.get(offset) == Some(&b'\n')
}

fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// Documents are at most 8 MiB, so line and column fit in `u32`; saturate
/// rather than wrap all the same.
fn position(line: usize, character: usize) -> Position {
    Position::new(
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(character).unwrap_or(u32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_utf16_units() {
        // "é" is one unit, "😀" two: "x", the sixth character, starts at unit 6.
        let text = "a: é😀x\n";
        let index = LineIndex::new(text);
        assert_eq!(index.position_at_char(text, 1, 5), Position::new(0, 4));
        assert_eq!(index.position_at_char(text, 1, 6), Position::new(0, 6));
        assert_eq!(index.char_column(text, Position::new(0, 6)), (0, 5));
        // Inside the surrogate pair: the emoji's own column.
        assert_eq!(index.char_column(text, Position::new(0, 5)), (0, 4));
        assert_eq!(index.offset(text, Position::new(0, 6)), "a: é😀".len());
        assert_eq!(
            index.char_range(text, 0, 4, 5),
            Range::new(Position::new(0, 4), Position::new(0, 6))
        );
    }

    #[test]
    fn byte_columns_snap_to_characters() {
        let text = "{\"é\": x}";
        let index = LineIndex::new(text);
        // Byte 4 is inside "é" (bytes 2..4 hold it at 1-based 3..4).
        assert_eq!(index.position_at_byte(text, 1, 4), Position::new(0, 2));
        assert_eq!(index.position_at_byte(text, 1, 7), Position::new(0, 5));
    }

    #[test]
    fn offsets_become_positions() {
        let text = "a\r\né😀b\n";
        let index = LineIndex::new(text);
        assert_eq!(index.position_of(text, 2), Position::new(0, 1));
        assert_eq!(index.position_of(text, 3), Position::new(1, 0));
        assert_eq!(index.position_of(text, 4), Position::new(1, 0));
        assert_eq!(index.position_of(text, 9), Position::new(1, 3));
        assert_eq!(index.position_of(text, 99), Position::new(2, 0));
    }

    #[test]
    fn ranged_changes_apply_in_utf16() {
        let text = "a: é😀x\nb";
        let range = Range::new(Position::new(0, 4), Position::new(0, 6));
        assert_eq!(replace(text, range, "!"), "a: é!x\nb");
        let backwards = Range::new(Position::new(1, 1), Position::new(0, 0));
        assert_eq!(replace(text, backwards, "z"), "a: é😀x\nbz");
    }

    /// Regression (sweep C): lone `\r` line ends put every position on
    /// line 0. All three line ends count, as YAML and the protocol say.
    #[test]
    fn lone_cr_and_crlf_end_lines_too() {
        let text = "a\rbc\r\nd\n\re";
        let index = LineIndex::new(text);
        let lines: Vec<&str> = (0..5).map(|l| index.line(text, l)).collect();
        assert_eq!(lines, ["a", "bc", "d", "", "e"]);
        assert_eq!(index.position_of(text, 2), Position::new(1, 0));
        assert_eq!(
            index.position_of(text, 5),
            Position::new(1, 2),
            "inside \\r\\n"
        );
        assert_eq!(index.position_at_char(text, 2, 2), Position::new(1, 1));
        assert_eq!(index.offset(text, Position::new(4, 1)), text.len());
    }

    /// Regression: a position on a line past the last one was taken as
    /// the start of the last line, so a ranged change "at the end" of a
    /// text without a final line break was written into its last line.
    /// Past the last line is the end of the text, as in the protocol's
    /// reference implementation (`TextDocument.offsetAt`).
    #[test]
    fn past_the_last_line_is_the_end_of_the_text() {
        let text = "a\r\nbc";
        let index = LineIndex::new(text);
        assert_eq!(index.offset(text, Position::new(2, 0)), text.len());
        assert_eq!(index.char_column(text, Position::new(9, 0)), (1, 2));
        let far = Range::new(Position::new(5, 0), Position::new(9, 3));
        assert_eq!(replace(text, far, "X"), "a\r\nbcX");
        // On the last line itself, the column still counts.
        let last = Range::new(Position::new(1, 0), Position::new(1, 0));
        assert_eq!(replace(text, last, "X"), "a\r\nXbc");
    }

    #[test]
    fn out_of_range_is_clamped() {
        let text = "a\r\nbc";
        let index = LineIndex::new(text);
        assert_eq!(index.line(text, 0), "a");
        assert_eq!(index.position_at_char(text, 99, 99), Position::new(1, 2));
        assert_eq!(index.position_at_char(text, 0, 0), Position::new(0, 0));
        assert_eq!(index.offset(text, Position::new(7, 40)), text.len());
        assert_eq!(index.offset(text, Position::new(0, 40)), 1);
        let empty = LineIndex::new("");
        assert_eq!(empty.position_at_char("", 3, 3), Position::new(0, 0));
    }
}
