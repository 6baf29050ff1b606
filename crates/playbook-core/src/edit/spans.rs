//! Where every node of a document is in its text, as byte ranges.
//!
//! `locate.rs` keeps only start positions (for messages); editing needs
//! where a value ends too, and whether a collection is written in block or
//! flow style. yaml-rust2's events carry start marks only, so a scalar's
//! end is found by reading its text in the style the parser reported
//! (quotes are exact; a plain scalar ends before a comment or an indicator;
//! a block scalar at its last more-indented line), bounded by the start of
//! the next event. A block collection ends where its last child ends; a
//! flow collection at its closing bracket.
//!
//! Anything this reading gets wrong is caught by the caller, which
//! re-parses every edited text and compares values.

use yaml_rust2::parser::Event;
use yaml_rust2::scanner::TScalarStyle;

use crate::document::nesting::{self, MAX_NESTING};
use crate::events::Events;
use crate::finding::pointer_tokens;

/// Index of a node in [`Tree::nodes`]; the root is 0.
pub(super) type NodeId = usize;

#[derive(Debug)]
pub(super) struct Tree {
    pub nodes: Vec<Node>,
}

#[derive(Debug)]
pub(super) struct Node {
    /// First byte of the value: a scalar's first character (its quote,
    /// `|` or `>`), a flow collection's bracket, a block mapping's first
    /// key, a block sequence's first dash.
    pub start: usize,
    /// One past the value's last byte (trailing comments excluded).
    pub end: usize,
    pub kind: Kind,
    /// Whether the node or an ancestor is a flow collection.
    pub in_flow: bool,
}

#[derive(Debug)]
pub(super) enum Kind {
    Scalar { style: TScalarStyle, empty: bool },
    Alias,
    Map { flow: bool, entries: Vec<Entry> },
    Seq { flow: bool, items: Vec<NodeId> },
}

#[derive(Debug)]
pub(super) struct Entry {
    pub key: String,
    pub key_start: usize,
    pub key_end: usize,
    pub value: NodeId,
}

impl Kind {
    pub fn is_flow_collection(&self) -> bool {
        matches!(
            self,
            Kind::Map { flow: true, .. } | Kind::Seq { flow: true, .. }
        )
    }

    pub fn is_block_collection(&self) -> bool {
        matches!(
            self,
            Kind::Map { flow: false, .. } | Kind::Seq { flow: false, .. }
        )
    }
}

/// Where a node sits in its parent.
#[derive(Debug, Clone, Copy)]
pub(super) enum Place {
    Root,
    Entry { map: NodeId, index: usize },
    Item { seq: NodeId, index: usize },
}

impl Tree {
    /// Reads the spans of a document's first (only) YAML or JSON document;
    /// `None` when the text does not parse or is nested too deep.
    pub fn new(text: &str) -> Option<Tree> {
        if nesting::too_deep(text).is_some() {
            return None;
        }
        let mut offsets = Offsets::new(text);
        let mut events = Vec::new();
        let mut parser = Events::new(text);
        loop {
            let (event, mark) = parser.next_token().ok()?;
            let done = matches!(event, Event::StreamEnd);
            events.push((event, offsets.byte(mark.index())));
            if done {
                break;
            }
        }
        let mut builder = Builder {
            text,
            nodes: Vec::new(),
            stack: Vec::new(),
        };
        for i in 0..events.len() {
            let next = events.get(i + 1);
            let bound = next.map_or(text.len(), |(_, at)| *at);
            let (event, at) = &events[i];
            // A block sequence without indentation (`key:\n- [a]`) is
            // announced at its first item: a collection that starts where
            // its first child starts is a block one, whatever char is there.
            let shares_start = next.is_some_and(|(e, next_at)| {
                next_at == at && matches!(e, Event::MappingStart(..) | Event::SequenceStart(..))
            });
            builder.event(event, *at, bound, shares_start)?;
        }
        if builder.nodes.is_empty() {
            return None;
        }
        Some(Tree {
            nodes: builder.nodes,
        })
    }

    /// Byte ranges of the comments of `text` (the text this tree was read
    /// from): from each `#` that starts a comment (at the start of a line
    /// or after a blank, outside every key and scalar, where `#` is
    /// content) to the end of its line, trailing blanks excluded. Linear:
    /// the scalar spans are sorted once and walked with the text.
    pub fn comments(&self, text: &str) -> Vec<(usize, usize)> {
        let mut scalars: Vec<(usize, usize)> = self
            .nodes
            .iter()
            .flat_map(|n| {
                let own = matches!(n.kind, Kind::Scalar { .. }).then_some((n.start, n.end));
                let keys: &[Entry] = match &n.kind {
                    Kind::Map { entries, .. } => entries,
                    _ => &[],
                };
                own.into_iter()
                    .chain(keys.iter().map(|e| (e.key_start, e.key_end)))
            })
            .filter(|(start, end)| start < end)
            .collect();
        scalars.sort_unstable();
        comments_outside(text, &scalars)
    }

    /// The node at a JSON pointer, with its place in its parent.
    pub fn resolve(&self, pointer: &str) -> Option<(NodeId, Place)> {
        let mut node = 0;
        let mut place = Place::Root;
        for token in pointer_tokens(pointer) {
            let (next, next_place) = self.child(node, &token)?;
            node = next;
            place = next_place;
        }
        Some((node, place))
    }

    pub fn child(&self, node: NodeId, token: &str) -> Option<(NodeId, Place)> {
        match &self.nodes.get(node)?.kind {
            Kind::Map { entries, .. } => {
                let index = entries.iter().position(|e| e.key == token)?;
                Some((entries[index].value, Place::Entry { map: node, index }))
            }
            Kind::Seq { items, .. } => {
                let index = token.parse::<usize>().ok()?;
                Some((*items.get(index)?, Place::Item { seq: node, index }))
            }
            _ => None,
        }
    }
}

/// Marks count characters; slicing needs bytes. Marks arrive mostly in
/// order, so one forward cursor converts them in linear time overall.
struct Offsets<'a> {
    text: &'a str,
    ascii: bool,
    chars: usize,
    bytes: usize,
}

impl<'a> Offsets<'a> {
    fn new(text: &'a str) -> Self {
        Offsets {
            text,
            ascii: text.is_ascii(),
            chars: 0,
            bytes: 0,
        }
    }

    fn byte(&mut self, char_index: usize) -> usize {
        if self.ascii {
            return char_index.min(self.text.len());
        }
        if char_index < self.chars {
            self.chars = 0;
            self.bytes = 0;
        }
        let mut iter = self.text[self.bytes..].char_indices();
        while self.chars < char_index {
            match iter.next() {
                Some((_, c)) => {
                    self.chars += 1;
                    self.bytes += c.len_utf8();
                }
                None => break,
            }
        }
        self.bytes
    }
}

enum Frame {
    Map {
        node: NodeId,
        key: Option<(String, usize, usize)>,
    },
    Seq {
        node: NodeId,
    },
}

struct Builder<'a> {
    text: &'a str,
    nodes: Vec<Node>,
    stack: Vec<Frame>,
}

impl Builder<'_> {
    fn in_flow(&self) -> bool {
        self.stack.last().is_some_and(|frame| {
            let node = match frame {
                Frame::Map { node, .. } | Frame::Seq { node } => *node,
            };
            self.nodes
                .get(node)
                .is_some_and(|n| n.in_flow || n.kind.is_flow_collection())
        })
    }

    fn event(&mut self, event: &Event, at: usize, bound: usize, shares_start: bool) -> Option<()> {
        match event {
            Event::Scalar(text, style, ..) => {
                let in_flow = self.in_flow();
                if let Some(Frame::Map {
                    key: key @ None, ..
                }) = self.stack.last_mut()
                {
                    let end = scalar_end(self.text, at, bound, *style, in_flow, true);
                    *key = Some((text.clone(), at, end));
                    return Some(());
                }
                let empty = *style == TScalarStyle::Plain && text.is_empty();
                // A block scalar is reported at its content; its header
                // (`|`, `>-`...) belongs to it.
                let at = if matches!(style, TScalarStyle::Literal | TScalarStyle::Folded) {
                    block_header(self.text, at)?
                } else {
                    at
                };
                let (start, end) = if empty {
                    let at = self.empty_value_position().unwrap_or(at);
                    (at, at)
                } else {
                    (at, scalar_end(self.text, at, bound, *style, in_flow, false))
                };
                let kind = Kind::Scalar {
                    style: *style,
                    empty,
                };
                self.attach(start, end, kind, in_flow)?;
            }
            Event::Alias(_) => {
                if matches!(self.stack.last(), Some(Frame::Map { key: None, .. })) {
                    return None;
                }
                let in_flow = self.in_flow();
                let end = word_end(self.text, at, bound);
                self.attach(at, end, Kind::Alias, in_flow)?;
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                if self.stack.len() >= MAX_NESTING
                    || matches!(self.stack.last(), Some(Frame::Map { key: None, .. }))
                {
                    return None;
                }
                let is_map = matches!(event, Event::MappingStart(..));
                let bracket = if is_map { b'{' } else { b'[' };
                let flow = !shares_start && self.text.as_bytes().get(at) == Some(&bracket);
                let in_flow = self.in_flow();
                let kind = if is_map {
                    Kind::Map {
                        flow,
                        entries: Vec::new(),
                    }
                } else {
                    Kind::Seq {
                        flow,
                        items: Vec::new(),
                    }
                };
                // A block mapping starts at its first key, set when it comes.
                let id = self.attach_open(at, kind, in_flow)?;
                self.stack.push(if is_map {
                    Frame::Map {
                        node: id,
                        key: None,
                    }
                } else {
                    Frame::Seq { node: id }
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                let frame = self.stack.pop()?;
                let id = match frame {
                    Frame::Map { node, .. } | Frame::Seq { node } => node,
                };
                let node = self.nodes.get_mut(id)?;
                if node.kind.is_flow_collection() {
                    node.end = at + 1;
                }
                let end = node.end;
                self.close(end);
            }
            _ => {}
        }
        Some(())
    }

    /// A value with no text (`key:` alone) sits right after its colon.
    fn empty_value_position(&self) -> Option<usize> {
        let Some(Frame::Map {
            key: Some((_, _, key_end)),
            ..
        }) = self.stack.last()
        else {
            return None;
        };
        colon_after(self.text, *key_end).map(|colon| colon + 1)
    }

    fn attach(&mut self, start: usize, end: usize, kind: Kind, in_flow: bool) -> Option<()> {
        let id = self.attach_open(start, kind, in_flow)?;
        self.nodes.get_mut(id)?.end = end;
        self.close(end);
        Some(())
    }

    /// Adds a node under the current frame (or as the root).
    fn attach_open(&mut self, start: usize, kind: Kind, in_flow: bool) -> Option<NodeId> {
        let id = self.nodes.len();
        self.nodes.push(Node {
            start,
            end: start,
            kind,
            in_flow,
        });
        match self.stack.last_mut() {
            None => {
                if id != 0 {
                    return None;
                }
            }
            Some(Frame::Map { node, key }) => {
                let (name, key_start, key_end) = key.clone()?;
                let map = *node;
                if let Some(Node {
                    kind: Kind::Map { entries, flow },
                    start,
                    end,
                    ..
                }) = self.nodes.get_mut(map)
                {
                    if !*flow && entries.is_empty() {
                        *start = key_start;
                        *end = key_end;
                    }
                    entries.push(Entry {
                        key: name,
                        key_start,
                        key_end,
                        value: id,
                    });
                }
            }
            Some(Frame::Seq { node }) => {
                let seq = *node;
                if let Some(Node {
                    kind: Kind::Seq { items, .. },
                    ..
                }) = self.nodes.get_mut(seq)
                {
                    items.push(id);
                }
            }
        }
        Some(id)
    }

    /// A child ended at `end`: a block parent now ends there too, and a
    /// mapping waits for its next key.
    fn close(&mut self, end: usize) {
        let parent = match self.stack.last_mut() {
            Some(Frame::Map { node, key }) => {
                *key = None;
                *node
            }
            Some(Frame::Seq { node }) => *node,
            None => return,
        };
        if let Some(node) = self.nodes.get_mut(parent)
            && node.kind.is_block_collection()
        {
            node.end = node.end.max(end);
        }
    }
}

/// The position of the `:` after a key that ends at `key_end`.
pub(super) fn colon_after(text: &str, key_end: usize) -> Option<usize> {
    let rest = text.get(key_end..)?;
    let offset = rest.find(|c: char| c != ' ' && c != '\t')?;
    (rest.as_bytes()[offset] == b':').then_some(key_end + offset)
}

/// The comments of `text` outside the sorted, disjoint `scalars` spans
/// (see [`Tree::comments`]); with no spans, every `#` at a line's start or
/// after a blank counts, which errs towards "a comment is there".
pub(super) fn comments_outside(text: &str, scalars: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut next_scalar = 0;
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'#' || !(at == 0 || matches!(bytes[at - 1], b' ' | b'\t' | b'\n' | b'\r'))
        {
            at += 1;
            continue;
        }
        while scalars.get(next_scalar).is_some_and(|&(_, end)| end <= at) {
            next_scalar += 1;
        }
        if scalars
            .get(next_scalar)
            .is_some_and(|&(start, end)| start <= at && at < end)
        {
            at += 1;
            continue;
        }
        let line_end = text[at..].find(['\n', '\r']).map_or(text.len(), |p| at + p);
        let end = at + text[at..line_end].trim_end_matches([' ', '\t']).len();
        out.push((at, end));
        at = line_end;
    }
    out
}

/// The `|` or `>` that opens the block scalar whose content starts at
/// `content`: on the last non-blank line before it, after the key's colon
/// or the item's dash.
fn block_header(text: &str, content: usize) -> Option<usize> {
    if matches!(text.as_bytes().get(content), Some(b'|' | b'>')) {
        return Some(content);
    }
    let mut end = text.get(..content)?.rfind('\n')?;
    loop {
        let start = text[..end].rfind('\n').map_or(0, |p| p + 1);
        let line = &text[start..end];
        if !line.trim().is_empty() {
            let bytes = line.as_bytes();
            return (0..bytes.len())
                .find(|&i| {
                    matches!(bytes[i], b'|' | b'>')
                        && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b':' | b'-'))
                })
                .map(|i| start + i);
        }
        end = start.checked_sub(1)?;
    }
}

/// End of an alias name (`*name`).
fn word_end(text: &str, at: usize, bound: usize) -> usize {
    let slice = text.get(at..bound.max(at).min(text.len())).unwrap_or("");
    at + slice
        .find(|c: char| c.is_whitespace() || ",[]{}".contains(c))
        .unwrap_or(slice.len())
}

fn scalar_end(
    text: &str,
    at: usize,
    bound: usize,
    style: TScalarStyle,
    in_flow: bool,
    is_key: bool,
) -> usize {
    let Some(slice) = text.get(at..bound.max(at).min(text.len())) else {
        return at;
    };
    let end = match style {
        TScalarStyle::DoubleQuoted => quoted_end(slice, b'"'),
        TScalarStyle::SingleQuoted => quoted_end(slice, b'\''),
        TScalarStyle::Literal | TScalarStyle::Folded => block_scalar_end(slice),
        _ => plain_end(slice, in_flow, is_key),
    };
    at + end.min(slice.len())
}

/// One past the closing quote; `\x` escapes in double quotes, `''` in single.
fn quoted_end(slice: &str, quote: u8) -> usize {
    let bytes = slice.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        let b = bytes[i];
        if quote == b'"' && b == b'\\' {
            i += 2;
            continue;
        }
        if b == quote {
            if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

/// A plain scalar ends before ` #`, before `: ` (a key's colon), at a flow
/// indicator inside a flow collection, or at the end of its last line: a
/// following line continues it unless it is blank, a comment or an
/// indicator line (`- ...`), and the next event bounds it anyway.
fn plain_end(slice: &str, in_flow: bool, is_key: bool) -> usize {
    let bytes = slice.as_bytes();
    let mut last = 0;
    let mut i = 0;
    let mut line_start = false;
    while i < bytes.len() {
        let b = bytes[i];
        if line_start && i > 0 {
            // A continuation line: only text, not a comment or indicator.
            let rest = &slice[i..];
            let trimmed = rest.trim_start_matches([' ', '\t']);
            if trimmed.starts_with('#')
                || trimmed.starts_with("- ")
                || trimmed.starts_with("-\n")
                || trimmed.starts_with("---")
                || trimmed.starts_with("...")
                || is_key
            {
                break;
            }
            line_start = false;
        }
        match b {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b'#' if i > 0 && matches!(bytes[i - 1], b' ' | b'\t' | b'\n') => break,
            b':' => {
                let next = bytes.get(i + 1).copied();
                let ends = match next {
                    None | Some(b' ' | b'\t' | b'\n' | b'\r') => true,
                    Some(b',' | b']' | b'}' | b'[' | b'{') => in_flow,
                    _ => false,
                };
                if ends {
                    break;
                }
            }
            b',' | b']' | b'}' | b'[' | b'{' if in_flow => break,
            _ => {}
        }
        if !matches!(b, b' ' | b'\t' | b'\r') {
            last = i + 1;
        }
        i += 1;
    }
    // `last` may sit inside a multi-byte character; move to its end.
    let mut end = last;
    while end < slice.len() && !slice.is_char_boundary(end) {
        end += 1;
    }
    end
}

/// A block scalar (`|`, `>`) runs from its header to its last line that is
/// indented at least as its first content line; trailing blank lines and
/// less-indented comments belong to what follows.
fn block_scalar_end(slice: &str) -> usize {
    let mut lines = slice.split_inclusive('\n');
    let Some(header) = lines.next() else {
        return slice.len();
    };
    let mut offset = header.len();
    let mut end = header.trim_end().len();
    let mut indent: Option<usize> = None;
    for line in lines {
        let content = line.trim_end();
        let trimmed = content.trim_start_matches(' ');
        if trimmed.is_empty() {
            offset += line.len();
            continue;
        }
        let this = content.len() - trimmed.len();
        let need = *indent.get_or_insert(this);
        if this < need || this == 0 {
            break;
        }
        end = offset + content.len();
        offset += line.len();
    }
    end
}

/// The text of the value at `pointer` (tests read spans through it).
#[cfg(test)]
pub(super) fn text_of<'a>(text: &'a str, tree: &Tree, pointer: &str) -> Option<&'a str> {
    let (id, _) = tree.resolve(pointer)?;
    let node = tree.nodes.get(id)?;
    text.get(node.start..node.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn span(text: &str, pointer: &str) -> String {
        let tree = Tree::new(text).expect("parses");
        text_of(text, &tree, pointer).expect("resolves").to_string()
    }

    #[test]
    fn scalar_spans_stop_before_comments_and_keys() {
        let text = "a: plain value  # note\nb: \"quoted # not a comment\" # c\nc: 'it''s'\nd:\ne: [x, 'y', {f: g}]\n";
        assert_eq!(span(text, "/a"), "plain value");
        assert_eq!(span(text, "/b"), "\"quoted # not a comment\"");
        assert_eq!(span(text, "/c"), "'it''s'");
        assert_eq!(span(text, "/d"), "");
        assert_eq!(span(text, "/e"), "[x, 'y', {f: g}]");
        assert_eq!(span(text, "/e/0"), "x");
        assert_eq!(span(text, "/e/2/f"), "g");
    }

    #[test]
    fn block_collections_end_at_their_last_child() {
        let text = "top:\n  # head\n  list:\n    - one\n    - two # trailing\n  # between\n  after: |\n    line 1\n    line 2\n\n# tail\nlast: é\n";
        assert_eq!(span(text, "/top/list"), "- one\n    - two");
        assert_eq!(
            span(text, "/top"),
            "list:\n    - one\n    - two # trailing\n  # between\n  after: |\n    line 1\n    line 2"
        );
        assert_eq!(span(text, "/last"), "é");
    }

    #[test]
    fn json_spans() {
        let text = "{\n  \"a\": [1, 2],\n  \"b\": {\"c\": \"d\"}\n}\n";
        assert_eq!(span(text, "/a"), "[1, 2]");
        assert_eq!(span(text, "/b/c"), "\"d\"");
        assert_eq!(span(text, ""), &text[..text.len() - 1]);
    }
}
