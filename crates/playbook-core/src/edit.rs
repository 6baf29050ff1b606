//! Edits to playbook text that keep everything they do not touch.
//!
//! A form save, an export or a quick fix knows the value it wants; writing
//! that value out afresh would drop the author's comments, blank lines, key
//! order and quoting. Here an edit is a list of [`Op`]s on JSON pointers
//! (the shape of RFC 6902 JSON Patch: replace, add, remove), and each one
//! rewrites only the span of text that holds the changed value, in the
//! style around it (block or flow, indentation, the old quoting).
//!
//! Every result is checked: the edited text is parsed again and must read
//! as exactly the intended value. When it does not (a shape the span
//! editor does not handle), the whole document is rendered from the value
//! instead and [`Edited::preserved`] says so. Text that reads differently
//! from what was asked is never returned.
//!
//! ```
//! use playbook_core::edit::{Op, apply};
//! use playbook_core::Format;
//!
//! let text = "# Team\nid: demo  # stable id\nname: Demo\n";
//! let ops = [Op::Replace { path: "/name".into(), value: "Shipped".into() }];
//! let edited = apply(text, Format::Yaml, &ops).unwrap();
//! assert_eq!(edited.text, "# Team\nid: demo  # stable id\nname: Shipped\n");
//! assert!(edited.preserved);
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::document::{self, Format};
use crate::finding::{Finding, pointer_tokens};

mod apply;
mod diff;
mod duplicate;
mod order;
mod render;
mod spans;
mod tabs;
#[cfg(test)]
mod tests;
mod tidy;

pub use diff::{diff, diff_within};
pub use duplicate::remove_duplicate_key;
pub use order::rewrite_typed;
pub use tidy::tidy;

/// One change to a document, addressed by JSON pointer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "op", rename_all = "lowercase")]
#[ts(export)]
pub enum Op {
    /// Replaces the value at `path`, which must exist.
    Replace { path: String, value: Value },
    /// Adds `value` under a mapping (`path` ends with the new key; an
    /// existing key is replaced) or inserts it into a sequence (`path` ends
    /// with the index it takes, or `-` to append).
    Add { path: String, value: Value },
    /// Removes the key or item at `path`.
    Remove { path: String },
    /// Renames the key at `path` to `to` in place: the entry keeps its
    /// value, its place among its siblings and everything written around
    /// it (comments, anchors, quoting of the value); only the key's text
    /// changes. The mapping must not have a key `to` already.
    Rename { path: String, to: String },
}

impl Op {
    pub fn path(&self) -> &str {
        match self {
            Op::Replace { path, .. }
            | Op::Add { path, .. }
            | Op::Remove { path }
            | Op::Rename { path, .. } => path,
        }
    }
}

/// The text after an edit.
#[derive(Debug, Clone, PartialEq)]
pub struct Edited {
    pub text: String,
    /// True when only the edited spans changed; false when the document had
    /// to be rendered afresh from its value (comments and layout lost).
    pub preserved: bool,
    /// True when a comment of the old text is not in this one, whatever
    /// the edit: a collection replaced whole (stages moved in `workflow`, a
    /// subtree changed everywhere) loses the comments inside it even though
    /// everything around it is kept. Judged on the whole text by its
    /// comments ([`keeps_comments`]), never by the kind of op. A caller that
    /// promises comments warns (the app) or refuses (`playbook fix`).
    pub comment_written_over: bool,
}

impl Edited {
    /// Every comment of the old text is still in this one, and nothing
    /// but the edited spans changed: the one rule for whether an edit may
    /// be written into a person's file (`playbook fix`, the language
    /// server's code actions, `fmt`).
    pub fn comments_kept(&self) -> bool {
        self.preserved && !self.comment_written_over
    }
}

/// Why an edit could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EditError {
    /// The text does not parse, so nothing in it can be addressed.
    #[error("the document does not parse: {}", .0.message)]
    Unreadable(Finding),
    /// An operation names a place the document does not have.
    #[error("cannot {op} {path}: {reason}")]
    Path {
        op: &'static str,
        path: String,
        reason: String,
    },
    /// The edited value cannot be written in the document's format.
    #[error("cannot write the edited document: {0}")]
    Render(String),
}

/// Applies `ops` in order to `text`, keeping every comment and layout
/// choice outside the edited spans.
pub fn apply(text: &str, format: Format, ops: &[Op]) -> Result<Edited, EditError> {
    let mut expected = document::parse_value(text, format).map_err(EditError::Unreadable)?;
    let mut expanded = Vec::with_capacity(ops.len());
    for op in ops {
        match op {
            // A whole-document replacement is a structural change of the root.
            Op::Replace { path, value } | Op::Add { path, value } if path.is_empty() => {
                expanded.extend(diff(&expected, value));
            }
            _ => expanded.push(op.clone()),
        }
        patch(&mut expected, op)?;
    }
    finish(text, format, &expanded, expected)
}

/// Rewrites `old_text` so that it reads as `new_value`, changing only the
/// spans whose values differ (see [`diff`]): a caller holding a whole new
/// document (a form save, an export) keeps the file's comments.
pub fn rewrite(old_text: &str, format: Format, new_value: &Value) -> Result<Edited, EditError> {
    let old = document::parse_value(old_text, format).map_err(EditError::Unreadable)?;
    let mut ops = diff(&old, new_value);
    // A change of nearly everything becomes fewer, larger replacements, so
    // the edit stays within its budget and the untouched parts keep their
    // comments; only a document changed at its top level is rendered afresh.
    let mut depth = 8;
    while !within_budget(old_text, ops.len()) && depth > 0 {
        ops = diff_within(&old, new_value, depth);
        depth -= 1;
    }
    finish(old_text, format, &ops, new_value.clone())
}

/// Bytes of text the span editor may walk in one edit: each op re-reads the
/// document, so ops × size is bounded (about 800 ops on a 300 KB playbook).
const EDIT_BUDGET: usize = 256 * 1024 * 1024;

fn within_budget(text: &str, ops: usize) -> bool {
    ops.saturating_mul(text.len().max(1)) <= EDIT_BUDGET
}

/// Edits the text op by op, then checks that it reads as `expected`;
/// renders `expected` afresh when it does not.
fn finish(text: &str, format: Format, ops: &[Op], expected: Value) -> Result<Edited, EditError> {
    if ops.is_empty() {
        return Ok(Edited {
            text: text.to_string(),
            preserved: true,
            comment_written_over: false,
        });
    }
    if within_budget(text, ops.len())
        && let Some(edited) = edit_spans(text, format, ops)
        && document::parse_value(&edited, format)
            .is_ok_and(|value| diff::identical(&value, &expected))
    {
        let comment_written_over = !keeps_comments(text, &edited);
        return Ok(Edited {
            text: edited,
            preserved: true,
            comment_written_over,
        });
    }
    Ok(Edited {
        text: render_value(&expected, format)?,
        preserved: false,
        comment_written_over: false,
    })
}

/// The edited text.
fn edit_spans(text: &str, format: Format, ops: &[Op]) -> Option<String> {
    // The byte-order mark is not part of the document the spans describe.
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    };
    let (mut current, lone_cr) = lf_for_lone_cr(body);
    // JSON indented with tabs is edited in spaces and given its tabs back.
    let spaced = (format == Format::Json)
        .then(|| tabs::spaces_for_tabs(&current))
        .flatten();
    let tabbed = spaced.is_some();
    if let Some(spaced) = spaced {
        current = spaced;
    }
    for op in ops {
        let tree = spans::Tree::new(&current)?;
        current = apply::apply_one(&current, &tree, op, format == Format::Json)?;
    }
    if tabbed {
        current = tabs::tabs_for_spaces(&current);
    }
    if lone_cr {
        current = current.replace('\n', "\r");
    }
    Some(format!("{bom}{current}"))
}

/// A text whose lines end in a lone `\r` (valid YAML and JSON, and an LSP
/// line end) is edited with `\n` in their place: the same length, so every
/// span holds, and the same value (both read as a line break, and neither
/// may stand raw inside a JSON string). True when that was done, so the
/// caller gives the `\r`s back.
pub(super) fn lf_for_lone_cr(text: &str) -> (String, bool) {
    if text.contains('\r') && !text.contains('\n') {
        (text.replace('\r', "\n"), true)
    } else {
        (text.to_string(), false)
    }
}

/// Whether every comment of `old` is in `new`, as many times as in `old`
/// (comments are compared by their text; an edit never writes a new one,
/// so one that is still there is the author's). Comments are found as the
/// YAML scanner places them ([`comments`]), so a `#` inside a quoted or
/// block scalar is not one and a comment after a tab is.
pub fn keeps_comments(old: &str, new: &str) -> bool {
    let old_comments = comments(old);
    if old_comments.is_empty() {
        return true;
    }
    let mut left: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for comment in comments(new) {
        *left.entry(comment).or_default() += 1;
    }
    old_comments
        .into_iter()
        .all(|comment| match left.get_mut(comment) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        })
}

/// The comments of a YAML or JSON text, in order, each from its `#` to
/// the end of its line. Read from the scanner's spans: every key and
/// scalar is known, so a `#` is a comment exactly when it is outside them
/// and starts the text or follows a blank (a space, a tab or a line break).
/// Text the span reader cannot read gets every such `#` counted, inside a
/// scalar or not: it errs towards "a comment is there".
pub fn comments(text: &str) -> Vec<&str> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !body.contains('#') {
        return Vec::new();
    }
    let ranges = match spans::Tree::new(body) {
        Some(tree) => tree.comments(body),
        None => spans::comments_outside(body, &[]),
    };
    ranges
        .into_iter()
        .filter_map(|(start, end)| body.get(start..end))
        .collect()
}

/// Whether a YAML or JSON text has a comment (see [`comments`]).
pub fn has_comments(text: &str) -> bool {
    !comments(text).is_empty()
}

/// `text` (written with `\n` line ends) with the line ends `original` uses:
/// a person's file keeps its line endings through `fmt`. A file that mixes
/// them gets the one most of its lines end with (`\n` on a tie). Every line
/// break reads as one in YAML and JSON, so the value is the same.
pub fn line_ends_as(original: &str, text: String) -> String {
    let bytes = original.as_bytes();
    let (mut crlf, mut cr, mut lf) = (0usize, 0usize, 0usize);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => crlf += 1,
            b'\r' => cr += 1,
            b'\n' if i == 0 || bytes[i - 1] != b'\r' => lf += 1,
            _ => {}
        }
    }
    let style = if crlf > lf.max(cr) {
        "\r\n"
    } else if cr > lf.max(crlf) {
        "\r"
    } else {
        return text;
    };
    text.replace("\r\n", "\n").replace('\n', style)
}

/// The one span that differs between two texts: `old[start..end]` becomes
/// `text`. An editor applies an edit as this single change (one undo step,
/// the cursor and folds elsewhere untouched); a language server sends it as
/// one `TextEdit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct TextChange {
    /// Byte offsets into the old text, on character boundaries.
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl TextChange {
    /// The smallest change from `old` to `new` (common prefix and suffix
    /// kept); `None` when they are equal.
    pub fn between(old: &str, new: &str) -> Option<TextChange> {
        if old == new {
            return None;
        }
        let mut start = old
            .bytes()
            .zip(new.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        while !old.is_char_boundary(start) || !new.is_char_boundary(start) {
            start -= 1;
        }
        let room = old.len().min(new.len()) - start;
        let mut suffix = old
            .bytes()
            .rev()
            .zip(new.bytes().rev())
            .take(room)
            .take_while(|(a, b)| a == b)
            .count();
        while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix)
        {
            suffix -= 1;
        }
        Some(TextChange {
            start,
            end: old.len() - suffix,
            text: new[start..new.len() - suffix].to_string(),
        })
    }

    /// `old` with the change applied.
    pub fn apply(&self, old: &str) -> Option<String> {
        let mut out = String::with_capacity(old.len() + self.text.len());
        out.push_str(old.get(..self.start)?);
        out.push_str(&self.text);
        out.push_str(old.get(self.end..)?);
        Some(out)
    }
}

/// A value written out afresh, as `playbook fmt` would.
pub fn render_value(value: &Value, format: Format) -> Result<String, EditError> {
    match format {
        Format::Json => serde_json::to_string_pretty(value)
            .map(|text| text + "\n")
            .map_err(|e| EditError::Render(e.to_string())),
        Format::Yaml => yaml_serde::to_string(value).map_err(|e| EditError::Render(e.to_string())),
    }
}

/// Applies one op to a value, as the text edit must read afterwards.
pub fn patch(root: &mut Value, op: &Op) -> Result<(), EditError> {
    let (name, path) = match op {
        Op::Replace { path, .. } => ("replace", path),
        Op::Add { path, .. } => ("add", path),
        Op::Remove { path } => ("remove", path),
        Op::Rename { path, .. } => ("rename", path),
    };
    let fail = |reason: &str| EditError::Path {
        op: name,
        path: path.clone(),
        reason: reason.to_string(),
    };
    let mut tokens = pointer_tokens(path);
    let Some(last) = tokens.pop() else {
        return match op {
            Op::Replace { value, .. } | Op::Add { value, .. } => {
                *root = value.clone();
                Ok(())
            }
            Op::Remove { .. } => Err(fail("the whole document cannot be removed")),
            Op::Rename { .. } => Err(fail("the whole document has no key")),
        };
    };
    let mut parent = &mut *root;
    for token in &tokens {
        parent = match parent {
            Value::Object(map) => map.get_mut(token),
            Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
            _ => None,
        }
        .ok_or_else(|| fail("a parent of it does not exist"))?;
    }
    match (parent, op) {
        (Value::Object(map), Op::Add { value, .. }) => {
            map.insert(last, value.clone());
        }
        (Value::Object(map), Op::Replace { value, .. }) => {
            *map.get_mut(&last).ok_or_else(|| fail("no such key"))? = value.clone();
        }
        (Value::Object(map), Op::Remove { .. }) => {
            map.shift_remove(&last).ok_or_else(|| fail("no such key"))?;
        }
        (Value::Object(map), Op::Rename { to, .. }) => {
            if *to != last && map.contains_key(to) {
                return Err(fail("the mapping has a key of the new name already"));
            }
            let index = map
                .keys()
                .position(|k| *k == last)
                .ok_or_else(|| fail("no such key"))?;
            let value = map.shift_remove(&last).ok_or_else(|| fail("no such key"))?;
            map.shift_insert(index, to.clone(), value);
        }
        (Value::Array(items), Op::Add { value, .. }) => {
            let index = if last == "-" {
                items.len()
            } else {
                last.parse::<usize>().map_err(|_| fail("not an index"))?
            };
            if index > items.len() {
                return Err(fail("the index is past the end of the sequence"));
            }
            items.insert(index, value.clone());
        }
        (Value::Array(items), Op::Replace { value, .. }) => {
            let index = last.parse::<usize>().map_err(|_| fail("not an index"))?;
            *items.get_mut(index).ok_or_else(|| fail("no such item"))? = value.clone();
        }
        (Value::Array(items), Op::Remove { .. }) => {
            let index = last.parse::<usize>().map_err(|_| fail("not an index"))?;
            if index >= items.len() {
                return Err(fail("no such item"));
            }
            items.remove(index);
        }
        (Value::Array(_), Op::Rename { .. }) => return Err(fail("a sequence item has no key")),
        _ => return Err(fail("its parent is neither a mapping nor a sequence")),
    }
    Ok(())
}
