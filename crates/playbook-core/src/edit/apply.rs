//! One edit operation applied to text: the smallest span that holds the
//! change is rewritten, everything else is copied byte for byte.
//!
//! Returns `None` for a shape this does not handle (an alias, a node
//! after a `- ` on a line it shares with another node...): the caller then
//! renders the whole document and says so.

use serde_json::Value;
use yaml_rust2::scanner::TScalarStyle;

use super::Op;
use super::render::{self, is_block_collection};
use super::spans::{Kind, NodeId, Place, Tree, colon_after};
use crate::finding::{escape_pointer, pointer_tokens};

/// `text` after `op`. Whether a comment survived is not judged here but on
/// the whole result ([`super::keeps_comments`]), so that no edit, of any
/// kind, can lose one unseen.
pub(super) fn apply_one(text: &str, tree: &Tree, op: &Op, json: bool) -> Option<String> {
    let edit = match op {
        Op::Replace { path, value } => {
            let (id, place) = tree.resolve(path)?;
            replace(text, tree, id, place, value, json)?
        }
        Op::Add { path, value } => {
            let (parent, token) = split_last(path)?;
            let (pid, _) = tree.resolve(&parent)?;
            match &tree.nodes.get(pid)?.kind {
                Kind::Map { .. } => match tree.child(pid, &token) {
                    Some((id, place)) => replace(text, tree, id, place, value, json)?,
                    None => add_entry(text, tree, pid, &token, value, json)?,
                },
                Kind::Seq { items, .. } => {
                    let index = if token == "-" {
                        items.len()
                    } else {
                        token.parse::<usize>().ok()?
                    };
                    if index > items.len() {
                        return None;
                    }
                    insert_item(text, tree, pid, index, value, json)?
                }
                _ => return None,
            }
        }
        Op::Rename { path, to } => match tree.resolve(path)?.1 {
            Place::Entry { map, index } => rename(text, tree, map, index, to, json)?,
            _ => return None,
        },
        Op::Remove { path } => {
            let (parent, _) = split_last(path)?;
            let (_, parent_place) = tree.resolve(&parent)?;
            match tree.resolve(path)?.1 {
                Place::Root => return None,
                Place::Entry { map, index } => remove(text, tree, map, parent_place, index, json)?,
                Place::Item { seq, index } => remove(text, tree, seq, parent_place, index, json)?,
            }
        }
    };
    let (start, end, replacement) = edit;
    let replacement = line_ends_of(text, replacement);
    let mut out = String::with_capacity(text.len() + replacement.len());
    out.push_str(text.get(..start)?);
    out.push_str(&replacement);
    out.push_str(text.get(end..)?);
    Some(out)
}

/// A span to replace and its new text.
type Splice = (usize, usize, String);

/// New text whose lines end as the file's lines do: `\r\n` in a CRLF
/// file. Every splice written into a text goes through this.
pub(super) fn line_ends_of(text: &str, replacement: String) -> String {
    if text.contains("\r\n") && replacement.contains('\n') {
        replacement.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        replacement
    }
}

/// The parent pointer and last token of a pointer.
pub(super) fn split_last(pointer: &str) -> Option<(String, String)> {
    let mut tokens = pointer_tokens(pointer);
    let last = tokens.pop()?;
    let parent: String = tokens
        .iter()
        .map(|t| format!("/{}", escape_pointer(t)))
        .collect();
    Some((parent, last))
}

/// `pos` moved into the text and onto a character boundary, so that no
/// slice below can panic whatever a span says.
fn clamp(text: &str, pos: usize) -> usize {
    let mut pos = pos.min(text.len());
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    pos
}

fn line_start(text: &str, pos: usize) -> usize {
    let pos = clamp(text, pos);
    text[..pos].rfind('\n').map_or(0, |p| p + 1)
}

/// Just past the newline that ends the line holding `end` (or the text's
/// end when it has no final newline).
fn line_end_after(text: &str, end: usize) -> usize {
    let end = clamp(text, end);
    text[end..].find('\n').map_or(text.len(), |p| end + p + 1)
}

/// Where the line holding `pos` ends, before its newline.
fn line_end(text: &str, pos: usize) -> usize {
    let pos = clamp(text, pos);
    text[pos..].find('\n').map_or(text.len(), |p| pos + p)
}

/// The text between two positions, empty when they are out of order.
fn between(text: &str, start: usize, end: usize) -> &str {
    let (start, end) = (clamp(text, start), clamp(text, end));
    text.get(start..end.max(start)).unwrap_or("")
}

fn column(text: &str, pos: usize) -> usize {
    between(text, line_start(text, pos), pos).chars().count()
}

/// Whether only spaces precede `pos` on its line.
fn starts_line(text: &str, pos: usize) -> bool {
    between(text, line_start(text, pos), pos)
        .chars()
        .all(|c| c == ' ' || c == '\t')
}

/// The dash of the block sequence item whose value starts at `start`.
fn dash_before(text: &str, start: usize) -> Option<usize> {
    let before = text[..clamp(text, start)].trim_end_matches([' ', '\t', '\n', '\r']);
    before.ends_with('-').then(|| before.len() - 1)
}

/// Indentation of the line holding `pos`, in spaces.
fn line_indent(text: &str, pos: usize) -> usize {
    let start = line_start(text, pos);
    text[start..].len() - text[start..].trim_start_matches(' ').len()
}

/// The indentation step of a pretty JSON text, in spaces: the least
/// indentation of its lines (2 for a text with none to go by), so a value
/// added to a file indented by 4 is indented by 4 too.
fn json_unit(text: &str) -> usize {
    text.lines()
        .map(|line| line.len() - line.trim_start_matches(' ').len())
        .filter(|&n| n > 0)
        .min()
        .unwrap_or(2)
        .min(8)
}

fn is_multiline(text: &str, start: usize, end: usize) -> bool {
    between(text, start, end).contains('\n')
}

/// A value written after `key:` or `- ` in block context, starting with
/// the space or newline that separates it.
fn block_value(value: &Value, column: usize) -> String {
    render::indent_after_first(&render::block_child(value), column)
}

fn replace(
    text: &str,
    tree: &Tree,
    id: NodeId,
    place: Place,
    value: &Value,
    json: bool,
) -> Option<Splice> {
    let node = tree.nodes.get(id)?;
    if matches!(node.kind, Kind::Alias) {
        return None;
    }
    if json {
        let pretty = text.trim_end().contains('\n');
        let indent = line_indent(text, node.start);
        return Some((
            node.start,
            node.end,
            render::json(value, pretty, indent, json_unit(text)),
        ));
    }
    if node.in_flow {
        let rendered = match node.kind {
            Kind::Scalar { style, .. } => render::yaml_styled(value, style, true),
            _ => render::yaml_flow(value),
        };
        return Some((node.start, node.end, rendered));
    }
    // Block context: under a key, after a dash, or the whole document.
    let (column, after_indicator) = match place {
        // The whole document: its own span, at column 0.
        Place::Root => {
            let rendered = if is_block_collection(value) {
                render::yaml_block(value)
            } else {
                render::yaml_flow(value)
            };
            return Some((node.start, node.end, rendered));
        }
        Place::Entry { map, index } => {
            let Kind::Map { entries, .. } = &tree.nodes.get(map)?.kind else {
                return None;
            };
            let entry = entries.get(index)?;
            (
                column(text, entry.key_start),
                colon_after(text, entry.key_end)? + 1,
            )
        }
        Place::Item { .. } => {
            let dash = dash_before(text, node.start)?;
            (column(text, dash), dash + 1)
        }
    };
    let keep_flow =
        node.kind.is_flow_collection() && matches!(value, Value::Object(_) | Value::Array(_));
    if keep_flow {
        return Some((node.start, node.end, render::yaml_flow(value)));
    }
    if let Kind::Scalar {
        style,
        empty: false,
    } = node.kind
        && !is_block_collection(value)
    {
        let rendered = render::yaml_styled(value, style, false);
        // A block scalar (`|-`) cannot be followed by a comment on its
        // last line: the comment moves up to its header line.
        let line_end = line_end(text, node.end);
        let rest = between(text, node.end, line_end).trim();
        if rest.starts_with('#')
            && let Some((header, body)) = rendered.split_once('\n')
        {
            let moved = format!("{header} {rest}\n{body}");
            return Some((
                node.start,
                line_end,
                render::indent_after_first(&moved, column),
            ));
        }
        return Some((
            node.start,
            node.end,
            render::indent_after_first(&rendered, column),
        ));
    }
    if matches!(place, Place::Item { .. }) && is_block_collection(value) {
        // `- key: ...` continues on the dash's line, the rest under it.
        let body = render::indent_after_first(&render::yaml_block(value), column + 2);
        return Some((node.start, node.end, body));
    }
    let start = node.start.max(after_indicator);
    let mut comments = Comments::between(between(text, after_indicator, start));
    let mut end = node.end.max(after_indicator);
    let rendered = block_value(value, column);
    // A comment after the old value's last line would end up inside a
    // multi-line new value: it becomes a line of its own.
    let line_end = line_end(text, end);
    let rest = between(text, end, line_end).trim();
    if rendered.contains('\n') && rest.starts_with('#') {
        comments.lines.push(rest);
        end = line_end;
    }
    Some((after_indicator, end, comments.around(rendered, column)))
}

/// Comments between a key's colon and its block value (`key: # note` and
/// whole comment lines before the first child), kept when the value is
/// replaced.
struct Comments<'a> {
    trailing: Option<&'a str>,
    lines: Vec<&'a str>,
}

impl<'a> Comments<'a> {
    fn between(text: &'a str) -> Self {
        let mut lines = text.split('\n');
        let trailing = lines
            .next()
            .map(str::trim)
            .filter(|first| first.starts_with('#'));
        let lines = lines
            .filter(|line| line.trim_start().starts_with('#'))
            .map(|line| line.trim_end())
            .collect();
        Comments { trailing, lines }
    }

    /// The new value (starting with its space or newline) with the comments
    /// where they were: the trailing one after the colon, the lines before
    /// a block value or after an inline one.
    fn around(&self, value: String, column: usize) -> String {
        let trailing = self.trailing.map(|c| format!(" {c}")).unwrap_or_default();
        // After a block scalar a comment line must be indented less than
        // its content, or it would read as content: it goes to the key's column.
        let block_scalar = value.trim_start().starts_with(['|', '>']);
        let lines: String = self
            .lines
            .iter()
            .map(|l| {
                if block_scalar {
                    format!("\n{}{}", " ".repeat(column), l.trim_start())
                } else {
                    format!("\n{l}")
                }
            })
            .collect();
        match value.strip_prefix('\n') {
            Some(block) => format!("{trailing}{lines}\n{block}"),
            None => format!("{value}{trailing}{lines}"),
        }
    }
}

/// Entry `index` of `map` under the key `to`: only the key's own text is
/// rewritten, in the quoting it had, so the entry keeps its place, its
/// comments and its value exactly as written (an anchor, a block scalar).
fn rename(
    text: &str,
    tree: &Tree,
    map: NodeId,
    index: usize,
    to: &str,
    json: bool,
) -> Option<Splice> {
    let node = tree.nodes.get(map)?;
    let Kind::Map { flow, entries } = &node.kind else {
        return None;
    };
    let entry = entries.get(index)?;
    if entry.key != to && entries.iter().any(|e| e.key == to) {
        return None;
    }
    let old = text.get(entry.key_start..entry.key_end)?;
    let key = Value::String(to.to_string());
    let rendered = if json {
        render::key(to, true, true)
    } else if old.starts_with('"') {
        render::yaml_styled(&key, TScalarStyle::DoubleQuoted, true)
    } else if old.starts_with('\'') {
        render::yaml_styled(&key, TScalarStyle::SingleQuoted, true)
    } else {
        render::key(to, false, *flow || node.in_flow)
    };
    Some((entry.key_start, entry.key_end, rendered))
}

fn add_entry(
    text: &str,
    tree: &Tree,
    map: NodeId,
    key: &str,
    value: &Value,
    json: bool,
) -> Option<Splice> {
    let node = tree.nodes.get(map)?;
    let Kind::Map { flow, entries } = &node.kind else {
        return None;
    };
    if json || *flow {
        let multi = is_multiline(text, node.start, node.end);
        let Some(first) = entries.first() else {
            let rendered = if json {
                render::json(value, multi, line_indent(text, node.start), json_unit(text))
            } else {
                render::yaml_flow(value)
            };
            let entry = format!("{}: {rendered}", render::key(key, json, true));
            return Some((node.start + 1, node.start + 1, entry));
        };
        let last = entries.last()?;
        let indent = column(text, first.key_start);
        let rendered = if json {
            render::json(value, multi, indent, json_unit(text))
        } else {
            render::yaml_flow(value)
        };
        let entry = format!("{}: {rendered}", render::key(key, json, true));
        let own_lines = is_multiline(text, node.start, first.key_start);
        let separator = if own_lines {
            format!(",\n{}", " ".repeat(indent))
        } else {
            ", ".to_string()
        };
        let end = tree.nodes.get(last.value)?.end;
        return Some(append_flow(
            text,
            (node.start, node.end),
            end,
            &separator,
            &entry,
        ));
    }
    let first = entries.first()?;
    let column = column(text, first.key_start);
    let line = format!(
        "{}{}:{}\n",
        " ".repeat(column),
        render::yaml_key(key),
        block_value(value, column)
    );
    Some(insert_after_line(text, node.end, line))
}

/// Appends `member` to the flow collection `open..close` whose last member
/// ends at `end`: right after it, or, when a comment follows it on its
/// line, on a line of its own after that comment, so the comment stays
/// with the member it was written for. That line is indented as the last
/// member's, or deeper than the line the collection opens on (flow lines
/// continue only indented past their block).
fn append_flow(
    text: &str,
    (open, close): (usize, usize),
    end: usize,
    separator: &str,
    member: &str,
) -> Splice {
    let eol = line_end(text, end);
    let rest = between(text, end, eol);
    if rest.trim_start().starts_with('#') && eol < close {
        let inner = line_indent(text, open) + 2;
        let own = if line_start(text, end) == line_start(text, open) {
            0
        } else {
            line_indent(text, end)
        };
        let indent = " ".repeat(own.max(inner));
        return (end, eol, format!(",{rest}\n{indent}{member}"));
    }
    (end, end, format!("{separator}{member}"))
}

/// Inserts whole lines after the line that holds `end`.
fn insert_after_line(text: &str, end: usize, lines: String) -> Splice {
    let at = line_end_after(text, end);
    if at == text.len() && !text.ends_with('\n') {
        (at, at, format!("\n{}", lines.trim_end_matches('\n')))
    } else {
        (at, at, lines)
    }
}

fn insert_item(
    text: &str,
    tree: &Tree,
    seq: NodeId,
    index: usize,
    value: &Value,
    json: bool,
) -> Option<Splice> {
    let node = tree.nodes.get(seq)?;
    let Kind::Seq { flow, items } = &node.kind else {
        return None;
    };
    if json || *flow {
        let multi = is_multiline(text, node.start, node.end);
        let Some(&first) = items.first() else {
            let rendered = if json {
                render::json(value, multi, line_indent(text, node.start), json_unit(text))
            } else {
                render::yaml_flow(value)
            };
            return Some((node.start + 1, node.start + 1, rendered));
        };
        let first_start = tree.nodes.get(first)?.start;
        let indent = column(text, first_start);
        let rendered = if json {
            render::json(value, multi, indent, json_unit(text))
        } else {
            render::yaml_flow(value)
        };
        let separator = if is_multiline(text, node.start, first_start) {
            format!(",\n{}", " ".repeat(indent))
        } else {
            ", ".to_string()
        };
        return Some(match items.get(index) {
            Some(&at) => {
                let at = tree.nodes.get(at)?.start;
                (at, at, format!("{rendered}{separator}"))
            }
            None => {
                let end = tree.nodes.get(*items.last()?)?.end;
                append_flow(text, (node.start, node.end), end, &separator, &rendered)
            }
        });
    }
    let first_dash = dash_before(text, tree.nodes.get(*items.first()?)?.start)?;
    let column = column(text, first_dash);
    let body = render::indent_after_first(&render::block_item(value), column + 2);
    let line = format!("{}- {body}\n", " ".repeat(column));
    match items.get(index) {
        Some(&at) => {
            let dash = dash_before(text, tree.nodes.get(at)?.start)?;
            if !starts_line(text, dash) {
                // `- - old`: the new item takes the inner dash's place and
                // the old one moves to a line of its own.
                let item = format!("- {body}\n{}", " ".repeat(column));
                return Some((dash, dash, item));
            }
            let start = line_start(text, dash);
            Some((start, start, line))
        }
        None => Some(insert_after_line(text, node.end, line)),
    }
}

/// Removes entry or item `index` of the collection `parent`. The comments
/// of the members that stay stay where they are; the removed member's own
/// comments stay in the file too, as lines before the line it started on
/// (they may say why it was there, and nothing a person wrote is dropped
/// without a word).
pub(super) fn remove(
    text: &str,
    tree: &Tree,
    parent: NodeId,
    parent_place: Place,
    index: usize,
    json: bool,
) -> Option<Splice> {
    let splice = remove_member(text, tree, parent, parent_place, index, json)?;
    if json {
        return Some(splice);
    }
    let (start, end, replacement) = splice;
    let comments = tree.comments(text);
    let kept = super::spans::comments_outside(&replacement, &[]);
    let lost: Vec<&str> = comments
        .iter()
        .filter(|&&(s, _)| start <= s && s < end)
        .filter_map(|&(s, e)| text.get(s..e))
        .filter(|c| {
            !kept
                .iter()
                .any(|&(ks, ke)| replacement.get(ks..ke) == Some(*c))
        })
        .collect();
    Some(with_comments_before(text, (start, end, replacement), &lost))
}

/// `splice` with the comments in `lost` written as whole lines before the
/// line where it starts, at that line's indentation: the column of a
/// member of the collection, which no block scalar before it reaches, so
/// each stays a comment.
fn with_comments_before(text: &str, (start, end, replacement): Splice, lost: &[&str]) -> Splice {
    if lost.is_empty() {
        return (start, end, replacement);
    }
    let line = line_start(text, start);
    let indent = " ".repeat(line_indent(text, start));
    let mut out = String::new();
    for comment in lost {
        out.push_str(&indent);
        out.push_str(comment);
        out.push('\n');
    }
    out.push_str(between(text, line, start));
    out.push_str(&replacement);
    (line, end, out)
}

fn remove_member(
    text: &str,
    tree: &Tree,
    parent: NodeId,
    parent_place: Place,
    index: usize,
    json: bool,
) -> Option<Splice> {
    let node = tree.nodes.get(parent)?;
    // (start of the member's text, its value node) for every member.
    let members: Vec<(usize, NodeId)> = match &node.kind {
        Kind::Map { entries, .. } => entries.iter().map(|e| (e.key_start, e.value)).collect(),
        Kind::Seq { items, .. } => items
            .iter()
            .map(|&i| tree.nodes.get(i).map(|n| (n.start, i)))
            .collect::<Option<_>>()?,
        _ => return None,
    };
    let (start, value) = *members.get(index)?;
    let value_end = tree.nodes.get(value)?.end;
    if json || node.kind.is_flow_collection() {
        if members.len() == 1 {
            // Everything between the brackets goes, so a multi-line list
            // becomes `[]`, not a bracket and a line of blanks.
            let open = node.start + 1;
            let close = node.end.checked_sub(1)?;
            return Some(if open <= start && value_end <= close {
                (open, close, String::new())
            } else {
                (start, value_end, String::new())
            });
        }
        if let Some(&(next, _)) = members.get(index + 1) {
            return Some((start, next, String::new()));
        }
        // The last member: its separator goes with it, but what follows
        // the member before it (`[a,  # about a` and the line break) is
        // that member's and stays.
        let previous = tree.nodes.get(members.get(index.checked_sub(1)?)?.1)?.end;
        let gap = between(text, previous, start);
        let kept = match comma_outside_comments(gap) {
            Some(comma) if gap.contains('#') => {
                format!("{}{}", &gap[..comma], &gap[comma + 1..])
            }
            _ => String::new(),
        };
        return Some((previous, value_end, kept));
    }
    let is_seq = matches!(node.kind, Kind::Seq { .. });
    if members.len() == 1 {
        // The last member: the collection becomes `{}` or `[]`.
        let empty = if is_seq {
            Value::Array(Vec::new())
        } else {
            Value::Object(serde_json::Map::new())
        };
        return replace(text, tree, parent, parent_place, &empty, json);
    }
    let start = if is_seq {
        dash_before(text, start)?
    } else {
        start
    };
    if starts_line(text, start) {
        return Some((
            line_start(text, start),
            line_end_after(text, value_end),
            String::new(),
        ));
    }
    // The first member shares its line with an indicator (`- name: x`):
    // the next member moves up into its place.
    let &(next, _) = members.get(index + 1)?;
    let next = if is_seq {
        dash_before(text, next)?
    } else {
        next
    };
    Some((start, next, String::new()))
}

/// The offset of the `,` in the text between two flow members (blanks,
/// comments and that one comma).
fn comma_outside_comments(gap: &str) -> Option<usize> {
    let mut in_comment = false;
    for (i, c) in gap.char_indices() {
        match c {
            '#' => in_comment = true,
            '\n' | '\r' => in_comment = false,
            ',' if !in_comment => return Some(i),
            _ => {}
        }
    }
    None
}
