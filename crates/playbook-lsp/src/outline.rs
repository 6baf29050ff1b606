//! Where every key and scalar value of a document is, with its JSON pointer:
//! what hover, go-to-definition and completion look up by cursor position.
//!
//! One YAML event walk serves both formats (JSON is YAML flow syntax), as in
//! the core's `locate` module; this one keeps the opposite direction
//! (position → pointer). A document that stops parsing yields the scalars
//! before the error, which is what an editor needs while the user types.

use playbook_core::document::nesting::{self, MAX_NESTING};
use playbook_core::events::Events;
use playbook_core::finding::escape_pointer;
use yaml_rust2::parser::Event;
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::text::LineIndex;

/// One key or scalar value.
#[derive(Debug, Clone, PartialEq)]
pub struct Scalar {
    /// Pointer of the value: for a key, the pointer of the value it names.
    pub pointer: String,
    pub is_key: bool,
    pub value: String,
    /// 0-based line and character columns `start..end` on it.
    pub line: usize,
    pub start: usize,
    pub end: usize,
}

/// Every scalar of the first document, in document order.
#[derive(Debug, Default)]
pub struct Outline {
    pub scalars: Vec<Scalar>,
}

impl Outline {
    pub fn new(text: &str, index: &LineIndex) -> Outline {
        let mut scalars = Vec::new();
        walk(text, index, |scalar, _| {
            scalars.push(scalar);
            true
        });
        Outline { scalars }
    }

    /// The scalars that start on a 0-based line. Events come in document
    /// order, so the scalars are sorted by line and this is a binary search.
    pub fn on_line(&self, line: usize) -> &[Scalar] {
        let from = self.scalars.partition_point(|s| s.line < line);
        let to = self.scalars.partition_point(|s| s.line <= line);
        self.scalars.get(from..to).unwrap_or(&[])
    }

    /// The key or value under a 0-based line and character column.
    pub fn at(&self, line: usize, column: usize) -> Option<&Scalar> {
        self.on_line(line)
            .iter()
            .find(|s| s.start <= column && column <= s.end)
    }

    /// The keys at the top level of the document.
    pub fn top_level_keys(&self) -> impl Iterator<Item = &str> {
        self.scalars
            .iter()
            .filter(|s| s.is_key && s.pointer.matches('/').count() == 1)
            .map(|s| s.value.as_str())
    }
}

/// Where a scalar sits among its open ancestors, handed to the visitor
/// together with the scalar.
pub struct Context<'w> {
    /// Keys already given in the innermost mapping, when that is the parent.
    pub sibling_keys: &'w [String],
}

enum Frame {
    Map {
        pointer: String,
        key: Option<String>,
        keys: Vec<String>,
    },
    Seq {
        pointer: String,
        next: usize,
    },
    /// A mapping or sequence used as a key: nothing in it is addressable.
    ComplexKey,
}

/// Walks the scalars of the first document in order; the visitor returns
/// false to stop. Nesting deeper than the core allows is not walked at all.
pub fn walk(text: &str, index: &LineIndex, mut visit: impl FnMut(Scalar, Context<'_>) -> bool) {
    if nesting::too_deep(text).is_some() {
        return;
    }
    let mut stack: Vec<Frame> = Vec::new();
    // The core's event stream: JSON's surrogate-pair escapes (`\ud83d\ude80`)
    // are read too, where yaml-rust2 alone stops.
    let mut parser = Events::new(text);
    let mut documents = 0;
    while let Ok((event, mark)) = parser.next_token() {
        match event {
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return;
                }
            }
            Event::StreamEnd | Event::DocumentEnd => return,
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                if stack.len() >= MAX_NESTING {
                    return;
                }
                let frame = match child(&mut stack) {
                    Slot::Key => Frame::ComplexKey,
                    Slot::Value(pointer) if matches!(event, Event::MappingStart(..)) => {
                        Frame::Map {
                            pointer,
                            key: None,
                            keys: Vec::new(),
                        }
                    }
                    Slot::Value(pointer) => Frame::Seq { pointer, next: 0 },
                };
                stack.push(frame);
            }
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some(Frame::ComplexKey) = stack.pop()
                    && let Some(Frame::Map { key, .. }) = stack.last_mut()
                {
                    // The value of a complex key is addressed as the core
                    // does: under the empty key.
                    *key = Some(String::new());
                }
            }
            Event::Scalar(value, style, ..) => {
                let (pointer, is_key) = match child(&mut stack) {
                    Slot::Key => {
                        let parent = match stack.last_mut() {
                            Some(Frame::Map { pointer, key, keys }) => {
                                *key = Some(value.clone());
                                keys.push(value.clone());
                                pointer.clone()
                            }
                            _ => String::new(),
                        };
                        (format!("{parent}/{}", escape_pointer(&value)), true)
                    }
                    Slot::Value(pointer) => (pointer, false),
                };
                let inside_complex_key = stack.iter().any(|f| matches!(f, Frame::ComplexKey));
                if inside_complex_key {
                    continue;
                }
                let scalar = span(text, index, &mark, style, value, pointer, is_key);
                let sibling_keys: &[String] = match stack.last() {
                    Some(Frame::Map { keys, .. }) => keys,
                    _ => &[],
                };
                if !visit(scalar, Context { sibling_keys }) {
                    return;
                }
            }
            Event::Alias(_) => {
                let _ = child(&mut stack);
            }
            Event::Nothing | Event::StreamStart => {}
        }
    }
}

/// What the next node of the innermost container is.
enum Slot {
    /// A key of a mapping (the key itself is recorded by the caller).
    Key,
    /// A value, with its pointer.
    Value(String),
}

/// Takes the next slot of the innermost container: a mapping alternates
/// key and value, a sequence counts its items; the root is the empty pointer.
fn child(stack: &mut [Frame]) -> Slot {
    match stack.last_mut() {
        None => Slot::Value(String::new()),
        Some(Frame::Map { pointer, key, .. }) => match key.take() {
            Some(k) => Slot::Value(format!("{pointer}/{}", escape_pointer(&k))),
            None => Slot::Key,
        },
        Some(Frame::Seq { pointer, next }) => {
            let slot = Slot::Value(format!("{pointer}/{next}"));
            *next += 1;
            slot
        }
        Some(Frame::ComplexKey) => Slot::Value(String::new()),
    }
}

/// The columns a scalar covers on its first line. Plain scalars cover their
/// text, quoted ones run to the closing quote, block scalars (`|`, `>`)
/// cover their indicator; nothing runs past the end of the line.
fn span(
    text: &str,
    index: &LineIndex,
    mark: &Marker,
    style: TScalarStyle,
    value: String,
    pointer: String,
    is_key: bool,
) -> Scalar {
    let line = mark.line().saturating_sub(1);
    let start = mark.col();
    let content: Vec<char> = index.line(text, line).chars().collect();
    let start = start.min(content.len());
    let end = match style {
        TScalarStyle::Plain => start + value.chars().count(),
        TScalarStyle::SingleQuoted => closing_quote(&content, start, '\''),
        TScalarStyle::DoubleQuoted => closing_quote(&content, start, '"'),
        _ => start + 1,
    };
    Scalar {
        pointer,
        is_key,
        value,
        line,
        start,
        end: end.min(content.len()),
    }
}

/// Column just past the quote closing the string opened at `start`.
fn closing_quote(line: &[char], start: usize, quote: char) -> usize {
    let mut i = start + 1;
    while let Some(&c) = line.get(i) {
        if quote == '"' && c == '\\' {
            i += 2;
            continue;
        }
        if c == quote {
            // '' is an escaped quote inside a single-quoted string.
            if quote == '\'' && line.get(i + 1) == Some(&'\'') {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    line.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(text: &str) -> Outline {
        Outline::new(text, &LineIndex::new(text))
    }

    #[test]
    fn keys_and_values_have_pointers_and_spans() {
        let text = "id: demo\nworkflow:\n  build:\n    roles:\n      - name: \"coder\"\n        handoff_to: [rev, 'a''b']\n";
        let o = outline(text);
        let find = |p: &str, key: bool| {
            o.scalars
                .iter()
                .find(|s| s.pointer == p && s.is_key == key)
                .cloned()
        };
        let name = find("/workflow/build/roles/0/name", false).unwrap();
        assert_eq!((name.line, name.start, name.end), (4, 14, 21));
        assert_eq!(name.value, "coder");
        let second = find("/workflow/build/roles/0/handoff_to/1", false).unwrap();
        assert_eq!((second.start, second.end), (26, 32));
        assert_eq!(
            o.at(5, 22).unwrap().pointer,
            "/workflow/build/roles/0/handoff_to/0"
        );
        assert_eq!(o.at(3, 5).unwrap().pointer, "/workflow/build/roles");
        assert!(o.at(3, 5).unwrap().is_key);
        assert_eq!(o.top_level_keys().collect::<Vec<_>>(), ["id", "workflow"]);
    }

    #[test]
    fn json_is_walked_too() {
        let text = "{\"id\": \"x\", \"workflow\": {\"b\": {\"roles\": [{\"name\": \"c\"}]}}}";
        let o = outline(text);
        assert!(
            o.scalars
                .iter()
                .any(|s| s.pointer == "/workflow/b/roles/0/name" && !s.is_key)
        );
    }

    #[test]
    fn broken_and_hostile_documents_yield_what_parses() {
        let o = outline("a: 1\nb: [\n");
        assert_eq!(o.top_level_keys().collect::<Vec<_>>(), ["a", "b"]);
        assert!(outline(&"[".repeat(100_000)).scalars.is_empty());
        let o = outline("? [a, b]\n: v\nc: *x\n---\nd: 1\n");
        assert!(o.scalars.iter().all(|s| s.pointer != "/d"));
        assert!(o.scalars.iter().any(|s| s.pointer == "/" && s.value == "v"));
    }
}
