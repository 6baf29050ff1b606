//! Parsing an edited YAML document again from its last parse: only the
//! smallest block entry or item that holds the edit is parsed, alone, and
//! spliced into the held value and source map.
//!
//! A keystroke in a 230 KB playbook changes a few bytes, yet the loader
//! alone takes longer to read the whole text than the editor may spend on
//! the keystroke. A block collection's entries and items each start their
//! own line at one column, and everything inside one is indented further,
//! so the lines of one entry read alone give the same value and positions
//! (moved by its first line) as they give in the document. A part is
//! parsed alone only where that holds; everywhere else ([`Held::update`]
//! returns false) the caller parses the whole text, which stays the
//! reference: a differential test compares both on random edits.
//!
//! A part is tried from the innermost entry outwards; it is refused
//! (an outer one is tried) when:
//! - a line of it is indented less than its first line, or as much but
//!   is not a compact sequence's item under a key: the edit changed what
//!   encloses it;
//! - it no longer reads as exactly one entry or item, at the same place,
//!   or its key now repeats a sibling's;
//! - its last line no longer ends where the next part starts;
//! - a value in it is left empty at its end (the parser places an empty
//!   value at the next token, which is outside the part), or a block
//!   scalar's header is its last line (an empty block scalar reads
//!   differently at the end of a text).
//!
//! The whole text is parsed (nothing held is trusted) when the document
//! uses anchors, aliases or merge keys (one part may stand for another) or holds a
//! single-pair mapping in a flow sequence (`[a: b]`, read in two ways by
//! the parser: `SourceMap::has_flow_pairs`), a part does
//! not parse (the whole parse words the error and places it), a part holds
//! a NUL byte, a carriage return alone (a line break for YAML), a tab before
//! its content, a document marker or a directive,
//! or it nests too deep for its place.

use serde_json::{Map, Value};

use super::MAX_DOCUMENT_BYTES;
use super::nesting::{self, MAX_NESTING};
use crate::locate::SourceMap;
use crate::locate::splice::{Child, Step};

/// A YAML document as last parsed: its text, value and source map.
#[derive(Debug, Clone)]
pub struct Held {
    text: String,
    value: Value,
    map: SourceMap,
    /// Byte offset where each line starts; line 1 at index 0.
    lines: Vec<usize>,
}

/// What encloses a part, as the descent found it.
struct Part {
    node: usize,
    parent: usize,
    /// Steps from the root to the part, the last one to the part itself.
    path: Vec<Step>,
    /// Old text's bytes of the part: its first line to where the next
    /// part starts.
    start: usize,
    end: usize,
    /// Column (0-based) of the part's first character: its key, or its
    /// sequence item's `-`.
    indent: usize,
}

enum Refusal {
    /// Try the part that encloses this one.
    Outward,
    /// Parse the whole text.
    Whole,
}

impl Held {
    /// Holds a parse of `text` made by the mapped loader, if one of its
    /// parts may ever be parsed again alone (no anchors, no aliases).
    pub fn new(text: String, value: Value, map: SourceMap) -> Option<Held> {
        if map.has_anchors() || has_lone_carriage_return(&text) || has_explicit_key(&text) {
            return None;
        }
        let lines = line_starts(&text);
        if map.has_flow_pairs(&text, &lines) {
            return None;
        }
        Some(Held {
            text,
            value,
            map,
            lines,
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn value(&self) -> &Value {
        &self.value
    }

    pub fn map(&self) -> &SourceMap {
        &self.map
    }

    /// Brings the held parse to `text` by parsing the edited part alone;
    /// false (nothing held changed) when the whole text must be parsed.
    pub fn update(&mut self, text: &str) -> bool {
        // What the whole parse refuses before parsing is refused the same
        // way: too large, or empty as it counts emptiness.
        if text.len() > MAX_DOCUMENT_BYTES
            || text.trim().is_empty()
            || super::yaml_is_only_comments(text)
        {
            return false;
        }
        let Some(change) = crate::edit::TextChange::between(&self.text, text) else {
            return true;
        };
        let changed = change.start..change.end;
        for part in self.parts(changed).iter().rev() {
            match self.splice(part, text) {
                Ok(()) => return true,
                Err(Refusal::Outward) => continue,
                Err(Refusal::Whole) => return false,
            }
        }
        false
    }

    fn line_start(&self, line: usize) -> usize {
        self.lines
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(self.text.len())
    }

    /// The parts that hold bytes `changed` of the old text (an insertion
    /// is held by the part it follows), outermost first.
    fn parts(&self, changed: std::ops::Range<usize>) -> Vec<Part> {
        let mut parts = Vec::new();
        let mut node = 0;
        let mut value = &self.value;
        let mut end = self.text.len();
        let mut path = Vec::new();
        while let Some(children) = self.map.children(node) {
            if self.map.is_flow(node, &self.text, &self.lines) {
                break;
            }
            // Parts are bounded by where their siblings start: only a
            // collection whose every entry starts its own line, at one
            // column, has parts (not so a flow collection's entries, nor an
            // item left empty, which the parser places at the next token).
            let mut indents = children.iter().map(|c| self.starts_its_line(c, value));
            let first = indents.next().flatten();
            let one_per_line = children
                .windows(2)
                .all(|w| w[0].location.line < w[1].location.line);
            if first.is_none() || indents.any(|indent| indent != first) || !one_per_line {
                break;
            }
            let indent = first.unwrap_or_default();
            let found = children.iter().enumerate().find_map(|(i, child)| {
                let start = self.line_start(child.location.line);
                let child_end = children
                    .get(i + 1)
                    .map_or(end, |next| self.line_start(next.location.line));
                (start <= changed.start && changed.end <= child_end && start < child_end)
                    .then_some((child, start, child_end))
            });
            let Some((child, start, child_end)) = found else {
                break;
            };
            path.push(child.step.clone());
            parts.push(Part {
                node: child.node,
                parent: node,
                path: path.clone(),
                start,
                end: child_end,
                indent,
            });
            node = child.node;
            end = child_end;
            let Some(inner) = (match &child.step {
                Step::Key(key) => value.get(key),
                Step::Index(i) => value.get(*i),
            }) else {
                break;
            };
            value = inner;
        }
        parts
    }

    /// The column of a child's first character when nothing but
    /// indentation comes before it on its line: a key first on its line,
    /// or a sequence item whose `-` is. The parser places an empty key or
    /// item at the next token, which may start a later line: a child is
    /// only taken to be where it is placed when its text is there.
    fn starts_its_line(&self, child: &Child, parent: &Value) -> Option<usize> {
        let start = self.line_start(child.location.line);
        let line = self.text.as_bytes().get(start..)?;
        let indent = line.iter().take_while(|&&b| b == b' ').count();
        let column = child.location.column.checked_sub(1)?;
        match &child.step {
            Step::Key(key) => {
                let here = line.get(indent..)?;
                let written = here.starts_with(key.as_bytes())
                    || here.first().is_some_and(|&b| b == b'"' || b == b'\'');
                (column == indent && !key.is_empty() && written).then_some(indent)
            }
            Step::Index(i) => {
                let between = line.get(indent..column)?;
                let dash_then_spaces = between.len() >= 2
                    && between[0] == b'-'
                    && between[1..].iter().all(|&b| b == b' ');
                // Only ASCII precedes the column: it counts bytes too.
                let here = line.get(column..)?;
                let empty = parent.get(*i).is_none_or(Value::is_null)
                    && !["null", "Null", "NULL", "~"]
                        .iter()
                        .any(|word| here.starts_with(word.as_bytes()));
                (dash_then_spaces && !empty).then_some(indent)
            }
        }
    }

    /// Parses `part` of the new `text` alone and splices it in.
    fn splice(&mut self, part: &Part, text: &str) -> Result<(), Refusal> {
        let grown = text.len() as isize - self.text.len() as isize;
        let new_end = part
            .end
            .checked_add_signed(grown)
            .filter(|&e| e > part.start && e <= text.len())
            .ok_or(Refusal::Outward)?;
        if new_end < text.len() && text.as_bytes()[new_end - 1] != b'\n' {
            return Err(Refusal::Outward);
        }
        let region = text.get(part.start..new_end).ok_or(Refusal::Whole)?;
        let is_key = matches!(part.path.last(), Some(Step::Key(_)));
        check_lines(region, part.indent, is_key)?;
        // The whole text, not the region: the pre-scan's state carries
        // across lines (an unclosed bracket, a block scalar), so a part
        // that scans shallow alone can make the rest of the document deep,
        // and the whole parse runs this scan first.
        if nesting::too_deep(text).is_some() {
            return Err(Refusal::Whole);
        }
        let (value, map) = super::yaml::parse_mapped(region).map_err(|_| Refusal::Whole)?;
        if map.has_anchors() || part.path.len() + map.depth() >= MAX_NESTING {
            return Err(Refusal::Whole);
        }
        if map.has_flow_pairs(region, &line_starts(region)) {
            return Err(Refusal::Whole);
        }
        // `start` begins a line: the lines starting at or before it.
        let first_line = self.lines.partition_point(|&s| s <= part.start);
        // A value left empty is placed at the next token, which is past
        // the part's end when nothing follows it in the part: where that
        // is depends on what follows the part in the document.
        let new_lines = region.matches('\n').count();
        if region.ends_with('\n') && map.last_line() > new_lines {
            return Err(Refusal::Outward);
        }
        let child = map.only_child().ok_or(Refusal::Outward)?;
        let moved = crate::finding::Location {
            line: child.location.line + first_line - 1,
            column: child.location.column,
        };
        if Some(moved) != self.map.location_of(part.node) {
            return Err(Refusal::Outward);
        }
        let entry = only_entry(value, &child.step).ok_or(Refusal::Outward)?;
        let old_step = part.path.last().cloned().ok_or(Refusal::Whole)?;
        self.replace_value(&part.path, &child.step, entry)?;

        let old_lines = self.text[part.start..part.end].matches('\n').count();
        let old_end_line = first_line + old_lines;
        let before = self.map.len();
        self.map.graft(
            part.parent,
            &old_step,
            child.step,
            map,
            child.node,
            first_line,
        );
        // Positions after the part move by the lines it gained or lost; a
        // part that ends the text has nothing after it (and when the text
        // does not end with a newline, its last line is not one after it).
        if part.end < self.text.len() {
            self.map.shift_lines(
                old_end_line,
                new_lines as isize - old_lines as isize,
                before..self.map.len(),
            );
        }
        self.map.collect_garbage();
        self.text = text.to_owned();
        self.lines = line_starts(text);
        Ok(())
    }

    /// Puts `entry` (the part's new value) where the part's old value was;
    /// a renamed key keeps its place among its siblings.
    fn replace_value(&mut self, path: &[Step], step: &Step, entry: Value) -> Result<(), Refusal> {
        let (last, parents) = path.split_last().ok_or(Refusal::Whole)?;
        let mut parent = &mut self.value;
        for step in parents {
            parent = match (parent, step) {
                (Value::Object(map), Step::Key(key)) => map.get_mut(key),
                (Value::Array(items), Step::Index(i)) => items.get_mut(*i),
                _ => None,
            }
            .ok_or(Refusal::Whole)?;
        }
        match (parent, last, step) {
            (Value::Object(map), Step::Key(old), Step::Key(new)) if old == new => {
                *map.get_mut(old).ok_or(Refusal::Whole)? = entry;
            }
            (Value::Object(map), Step::Key(old), Step::Key(new)) => {
                if map.contains_key(new) {
                    // A repeated key: the whole parse names both places.
                    return Err(Refusal::Outward);
                }
                let mut entry = Some(entry);
                let renamed: Map<String, Value> = std::mem::take(map)
                    .into_iter()
                    .map(|(k, v)| match entry.take_if(|_| k == *old) {
                        Some(entry) => (new.clone(), entry),
                        None => (k, v),
                    })
                    .collect();
                *map = renamed;
            }
            (Value::Array(items), Step::Index(i), Step::Index(_)) => {
                *items.get_mut(*i).ok_or(Refusal::Whole)? = entry;
            }
            _ => return Err(Refusal::Outward),
        }
        Ok(())
    }
}

/// The one entry's value (or item) of a part parsed alone.
fn only_entry(value: Value, step: &Step) -> Option<Value> {
    match (value, step) {
        (Value::Object(map), Step::Key(key)) if map.len() == 1 => map
            .into_iter()
            .next()
            .and_then(|(k, v)| (k == *key).then_some(v)),
        (Value::Array(items), Step::Index(_)) if items.len() == 1 => items.into_iter().next(),
        _ => None,
    }
}

/// Whether the part's lines read alone as they read in the document.
fn check_lines(region: &str, indent: usize, is_key: bool) -> Result<(), Refusal> {
    if region.contains('\0') || has_lone_carriage_return(region) || has_explicit_key(region) {
        return Err(Refusal::Whole);
    }
    let mut last_content = "";
    for (i, line) in region.split('\n').enumerate() {
        let spaces = line.bytes().take_while(|&b| b == b' ').count();
        let rest = &line[spaces..];
        if rest.trim().is_empty() {
            continue;
        }
        if !rest.starts_with('#') {
            last_content = rest;
        }
        if rest.starts_with('\t') {
            return Err(Refusal::Whole);
        }
        if spaces == 0 && is_marker(rest) {
            return Err(Refusal::Whole);
        }
        if i == 0 {
            if spaces != indent {
                return Err(Refusal::Outward);
            }
            continue;
        }
        if rest.starts_with('#') || spaces > indent {
            continue;
        }
        let compact_item = rest == "-" || rest.starts_with("- ");
        if spaces < indent || !(is_key && compact_item) {
            return Err(Refusal::Outward);
        }
    }
    // A block scalar with no text line reads as "\n" at the end of the
    // text and as "" before a line that ends it: it must not end the part.
    if opens_block_scalar(last_content) {
        return Err(Refusal::Outward);
    }
    Ok(())
}

/// Whether a line ends with a block scalar's header (`|`, `>-`, `|2+`...),
/// a comment after it included; may say so of other lines, which only
/// makes a part larger.
fn opens_block_scalar(line: &str) -> bool {
    let line = line.split(" #").next().unwrap_or(line).trim_end();
    let header = line.trim_end_matches(|c: char| c == '-' || c == '+' || c.is_ascii_digit());
    header.ends_with('|') || header.ends_with('>')
}

/// A document marker or a directive, which only mean that at column 0.
fn is_marker(line: &str) -> bool {
    let marker = |m: &str| {
        line.strip_prefix(m)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r']))
    };
    line.starts_with('%') || marker("---") || marker("...")
}

/// A `\r` not followed by `\n` breaks a line for YAML, not for the line
/// starts here (`\n` only): such a text is always parsed whole.
fn has_lone_carriage_return(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|i| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

/// A block mapping's explicit key (`? key`, also as a sequence item's
/// `- ? key`): its entry starts at the `?`, but the map places the entry at
/// its key, which may start on a later line, so the part that holds the
/// entry cannot be told from the map. Such a text is always parsed whole
/// (a line of a scalar that reads so counts too: it is then parsed whole
/// for nothing).
fn has_explicit_key(text: &str) -> bool {
    text.lines().any(|line| {
        let mut rest = line.trim_start_matches(' ');
        while let Some(item) = rest
            .strip_prefix('-')
            .filter(|r| r.starts_with([' ', '\t']))
        {
            rest = item.trim_start_matches([' ', '\t']);
        }
        rest.strip_prefix('?')
            .is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t', '\r']))
    })
}

/// Byte offset where each line starts (line 1 at index 0).
pub(crate) fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect()
}

#[cfg(test)]
mod tests;
