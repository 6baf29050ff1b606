//! Maps JSON pointers to line and column in the source text.
//!
//! Findings are addressed by JSON pointer because the UI edits the parsed
//! document; people reading CLI output want `file:line:column`. JSON is a
//! subset of the YAML flow syntax, so one YAML event walk serves both formats.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

use crate::finding::{Location, escape_pointer, pointer_tokens};

/// Positions of every key and value of a document, by JSON pointer.
#[derive(Debug, Default)]
pub struct SourceMap {
    positions: HashMap<String, Location>,
}

impl SourceMap {
    /// Builds the map. Text that does not parse yields the positions found
    /// before the error, which is still useful for partial documents.
    pub fn new(text: &str) -> SourceMap {
        let mut builder = Builder::default();
        let mut parser = Parser::new_from_str(text);
        // A scan error only truncates the map; the parse error itself is
        // reported by the real parser with its own location.
        let _ = parser.load(&mut builder, false);
        SourceMap {
            positions: builder.positions,
        }
    }

    /// Location of the value at `pointer`, or of its nearest existing
    /// ancestor when the value is absent (a missing field is reported where
    /// its parent object starts).
    pub fn locate(&self, pointer: &str) -> Option<Location> {
        let tokens = pointer_tokens(pointer);
        (0..=tokens.len()).rev().find_map(|n| {
            let prefix: String = tokens[..n]
                .iter()
                .map(|t| format!("/{}", escape_pointer(t)))
                .collect();
            self.positions.get(&prefix).copied()
        })
    }
}

enum Frame {
    /// `start` is where the parser announced the mapping, kept until the
    /// first key: for a block mapping the announcement comes late (at the
    /// first `:`), so the first key's position is the better one.
    Map {
        pointer: String,
        key: Option<String>,
        start: Option<Location>,
    },
    Seq {
        pointer: String,
        index: usize,
    },
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    positions: HashMap<String, Location>,
}

impl Builder {
    fn in_key_position(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map { key: None, .. }))
    }

    fn child_pointer(&self) -> String {
        match self.stack.last() {
            None => String::new(),
            Some(Frame::Map { pointer, key, .. }) => {
                format!("{pointer}/{}", escape_pointer(key.as_deref().unwrap_or("")))
            }
            Some(Frame::Seq { pointer, index }) => format!("{pointer}/{index}"),
        }
    }

    /// Records a position; a mapping entry keeps the position of its key.
    fn record(&mut self, pointer: String, location: Location) {
        self.positions.entry(pointer).or_insert(location);
    }

    /// Moves the parent past the node that just ended.
    fn finish_node(&mut self) {
        match self.stack.last_mut() {
            // A complex (non-scalar) key ended; its value comes next.
            Some(Frame::Map {
                key: key @ None, ..
            }) => *key = Some(String::new()),
            Some(Frame::Map { key, .. }) => *key = None,
            Some(Frame::Seq { index, .. }) => *index += 1,
            None => {}
        }
    }

    fn scalar(&mut self, text: String, location: Location) {
        if self.in_key_position() {
            if let Some(Frame::Map {
                pointer,
                key,
                start,
            }) = self.stack.last_mut()
            {
                if start.take().is_some() {
                    self.positions.entry(pointer.clone()).or_insert(location);
                }
                let entry = format!("{pointer}/{}", escape_pointer(&text));
                *key = Some(text);
                self.positions.entry(entry).or_insert(location);
            }
        } else {
            let pointer = self.child_pointer();
            self.record(pointer, location);
            self.finish_node();
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, mark: Marker) {
        let location = Location {
            line: mark.line(),
            column: mark.col() + 1,
        };
        match event {
            Event::Scalar(text, ..) => self.scalar(text, location),
            Event::Alias(_) => self.scalar(String::new(), location),
            Event::MappingStart(..) => {
                let pointer = self.child_pointer();
                self.stack.push(Frame::Map {
                    pointer,
                    key: None,
                    start: Some(location),
                });
            }
            Event::SequenceStart(..) => {
                let pointer = self.child_pointer();
                self.record(pointer.clone(), location);
                self.stack.push(Frame::Seq { pointer, index: 0 });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                // An empty mapping never saw a key; fall back to its start.
                if let Some(Frame::Map {
                    pointer,
                    start: Some(start),
                    ..
                }) = self.stack.pop()
                {
                    self.record(pointer, start);
                }
                self.finish_node();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, pointer: &str, line: usize, column: usize) {
        let map = SourceMap::new(text);
        assert_eq!(
            map.locate(pointer),
            Some(Location { line, column }),
            "position of {pointer}"
        );
    }

    #[test]
    fn mapping_entries_point_at_their_key() {
        let text =
            "id: a\nworkflow:\n  build:\n    roles:\n      - name: w\n        handoff_to: [r]\n";
        check(text, "/id", 1, 1);
        check(text, "/workflow/build/roles/0", 5, 9);
        check(text, "/workflow/build/roles/0/handoff_to", 6, 9);
        check(text, "/workflow/build/roles/0/handoff_to/0", 6, 22);
    }

    #[test]
    fn missing_value_falls_back_to_nearest_ancestor() {
        let text = "workflow:\n  build:\n    roles:\n      - name: w\n";
        check(text, "/workflow/build/roles/0/inputs_required", 4, 9);
    }

    #[test]
    fn json_documents_are_located_too() {
        let text = "{\n  \"id\": \"a\",\n  \"workflow\": {\"plan\": {\"roles\": []}}\n}\n";
        check(text, "/workflow/plan/roles", 3, 25);
    }
}
