//! Maps JSON pointers to line and column in the source text.
//!
//! Findings are addressed by JSON pointer because the UI edits the parsed
//! document; people reading CLI output want `file:line:column`. JSON is a
//! subset of the YAML flow syntax, so one YAML event walk serves both formats.

use foldhash::{HashMap, HashMapExt};

use yaml_rust2::parser::Event;
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::document::nesting::{self, MAX_NESTING};
use crate::finding::{Location, pointer_tokens};

pub(crate) mod splice;

/// Positions of every key and value of a document, as a tree that mirrors
/// the document: each key is stored once, so memory is linear in the text
/// (a map from full pointers would be quadratic for long keys nested deep).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceMap {
    nodes: Vec<Node>,
    /// The document defines an anchor, uses an alias or has a merge key
    /// (`<<`): one part of it may stand for another, so no part is parsed
    /// again alone (`splice.rs`).
    anchors: bool,
    /// The most collections open at once (at most, once spliced).
    depth: usize,
    /// Nodes no longer reachable from the root since the last splice.
    garbage: usize,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct Node {
    location: Option<Location>,
    /// Where a one-line scalar value's text starts (after an opening
    /// quote), so a position inside the text (a gate's syntax error) maps to
    /// the document. Absent for block scalars, whose lines are re-indented.
    text_start: Option<Location>,
    /// Where a collection's parser event placed its start: its `{` or `[`
    /// when it is a flow collection (which `reparse.rs` leaves whole).
    opened: Option<Location>,
    children: Children,
}

#[derive(Debug, Clone, Default, PartialEq)]
enum Children {
    #[default]
    Leaf,
    Map(HashMap<String, usize>),
    Seq(Vec<usize>),
}

impl SourceMap {
    /// Builds the map. Text that does not parse yields the positions found
    /// before the error, which is still useful for partial documents; text
    /// nested too deep to parse cheaply yields no positions at all.
    pub fn new(text: &str) -> SourceMap {
        // A byte-order mark is no part of the document (the loaders read
        // the text after it), but yaml-rust2 does not skip one: it would
        // start a plain scalar, so JSON's `{` became text and every finding
        // fell back to 1:1, and YAML's first key was stored with the mark
        // in it. The document is walked without the mark; positions still
        // count it, on the first line, as they count any character of the
        // text the caller holds (an editor's buffer may keep it).
        let body = text.trim_start_matches('\u{feff}');
        let marks = text[..text.len() - body.len()].chars().count();
        let mut map = SourceMap::walk(body);
        if marks > 0 {
            map.shift_first_line(marks);
        }
        map
    }

    fn walk(text: &str) -> SourceMap {
        if nesting::too_deep(text).is_some() {
            return SourceMap::default();
        }
        // `Events`: JSON's surrogate-pair escapes are read too.
        let mut parser = crate::events::Events::new(text);
        // A scan error only truncates the map; the parse error itself is
        // reported by the real parser with its own location.
        let mut recorder = Recorder::default();
        while let Ok((event, mark)) = parser.next_token() {
            if !recorder.event(&event, &mark) {
                break;
            }
        }
        recorder.finish()
    }

    /// Moves every position on line 1 right by `columns` characters.
    fn shift_first_line(&mut self, columns: usize) {
        let shift = |at: &mut Option<Location>| {
            if let Some(at) = at.as_mut().filter(|at| at.line == 1) {
                at.column = at.column.saturating_add(columns);
            }
        };
        for node in &mut self.nodes {
            shift(&mut node.location);
            shift(&mut node.text_start);
            shift(&mut node.opened);
        }
    }

    /// Where position (`line`, `column`, 1-based) of the one-line text at
    /// `pointer` is in the document; `None` when the value is not a
    /// one-line scalar or the position is past its first line.
    pub fn locate_in_text(&self, pointer: &str, line: usize, column: usize) -> Option<Location> {
        if line != 1 || column == 0 {
            return None;
        }
        let mut node = self.nodes.first()?;
        for token in pointer_tokens(pointer) {
            let child = match &node.children {
                Children::Map(keys) => keys.get(&token).copied(),
                Children::Seq(items) => token
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| items.get(i).copied()),
                Children::Leaf => None,
            }?;
            node = self.nodes.get(child)?;
        }
        let start = node.text_start?;
        Some(Location {
            line: start.line,
            column: start.column.checked_add(column - 1)?,
        })
    }

    /// Location of the value at `pointer`, or of its nearest existing
    /// ancestor when the value is absent (a missing field is reported where
    /// its parent object starts).
    pub fn locate(&self, pointer: &str) -> Option<Location> {
        let mut node = self.nodes.first()?;
        let mut found = node.location;
        for token in pointer_tokens(pointer) {
            let child = match &node.children {
                Children::Map(keys) => keys.get(&token).copied(),
                Children::Seq(items) => token
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| items.get(i).copied()),
                Children::Leaf => None,
            };
            let Some(next) = child.and_then(|i| self.nodes.get(i)) else {
                break;
            };
            node = next;
            found = node.location.or(found);
        }
        found
    }
}

/// Builds a [`SourceMap`] from parser events as they pass, so the parse
/// that loads a document can place its findings without a second parse.
#[derive(Default)]
pub(crate) struct Recorder {
    builder: Builder,
    documents: usize,
    stopped: bool,
}

impl Recorder {
    /// Takes one event; false once nothing further is mapped. Positions
    /// are of the first document: the one a playbook is.
    pub(crate) fn event(&mut self, event: &Event, mark: &Marker) -> bool {
        if self.stopped {
            return false;
        }
        if matches!(event, Event::DocumentStart) {
            self.documents += 1;
        }
        if self.documents > 1
            || matches!(event, Event::StreamEnd)
            || !self.builder.on_event(event, mark)
        {
            self.stopped = true;
        }
        !self.stopped
    }

    pub(crate) fn finish(self) -> SourceMap {
        SourceMap {
            nodes: self.builder.nodes,
            anchors: self.builder.anchors,
            depth: self.builder.depth,
            garbage: 0,
        }
    }
}

enum Frame {
    /// `start` is where the parser announced the mapping, kept until the
    /// first key: for a block mapping the announcement comes late (at the
    /// first `:`), so the first key's position is the better one.
    Map {
        node: usize,
        key: Option<usize>,
        start: Option<Location>,
        /// The entry of the mapping's merge key (a plain `<<`), if any.
        merge: Option<usize>,
    },
    Seq {
        node: usize,
    },
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    nodes: Vec<Node>,
    /// Only the first document is mapped.
    done: bool,
    anchors: bool,
    depth: usize,
    /// Anchored mappings by anchor id, and aliases to them by node: what a
    /// merge key (`<<: *base`) merges.
    anchored: HashMap<usize, usize>,
    aliased: HashMap<usize, usize>,
    /// Entries merged so far; bounded like the loader's alias expansion.
    merged: usize,
}

impl Builder {
    fn in_key_position(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map { key: None, .. }))
    }

    fn push(&mut self, location: Option<Location>) -> usize {
        self.nodes.push(Node {
            location,
            text_start: None,
            opened: None,
            children: Children::Leaf,
        });
        self.nodes.len() - 1
    }

    /// The node a value starting now belongs to: the entry of the pending
    /// key, a new item, or the root. A mapping entry keeps the position of
    /// its key.
    fn child(&mut self, location: Option<Location>) -> usize {
        match self.stack.last() {
            None => {
                if self.nodes.is_empty() {
                    self.push(location)
                } else {
                    0
                }
            }
            Some(&Frame::Map { node, key, .. }) => match key {
                Some(entry) => {
                    if let Some(n) = self.nodes.get_mut(entry) {
                        n.location = n.location.or(location);
                    }
                    entry
                }
                None => self.entry(node, String::new(), location),
            },
            Some(&Frame::Seq { node }) => {
                let item = self.push(location);
                if let Some(Node {
                    children: Children::Seq(items),
                    ..
                }) = self.nodes.get_mut(node)
                {
                    items.push(item);
                }
                item
            }
        }
    }

    /// The child of mapping `map` under `key`; the first of two equal keys wins.
    fn entry(&mut self, map: usize, key: String, location: Option<Location>) -> usize {
        if let Some(Node {
            children: Children::Map(keys),
            ..
        }) = self.nodes.get(map)
            && let Some(&existing) = keys.get(&key)
        {
            return existing;
        }
        let entry = self.push(location);
        if let Some(Node {
            children: Children::Map(keys),
            ..
        }) = self.nodes.get_mut(map)
        {
            keys.insert(key, entry);
        }
        entry
    }

    /// Moves the parent past the node that just ended.
    fn finish_node(&mut self) {
        let parent = match self.stack.last() {
            Some(&Frame::Map {
                node, key: None, ..
            }) => Some(node),
            _ => None,
        };
        match self.stack.last_mut() {
            // A complex (non-scalar) key ended; its value comes next.
            Some(Frame::Map {
                key: key @ None, ..
            }) => {
                *key = parent.and_then(|p| match &self.nodes.get(p)?.children {
                    Children::Map(keys) => keys.get("").copied(),
                    _ => None,
                });
            }
            Some(Frame::Map { key, .. }) => *key = None,
            _ => {}
        }
    }

    fn scalar(&mut self, text: &str, location: Location, style: Option<TScalarStyle>) {
        if let Some(&Frame::Map {
            node, key: None, ..
        }) = self.stack.last()
        {
            if let Some(Frame::Map { start, .. }) = self.stack.last_mut()
                && start.take().is_some()
                && let Some(n) = self.nodes.get_mut(node)
            {
                n.location = n.location.or(Some(location));
            }
            let entry = self.entry(node, text.to_owned(), Some(location));
            // Only a plain `<<` merges (`document/yaml/merge.rs`); one part of
            // the document then stands for another, as with an alias.
            let merging = style == Some(TScalarStyle::Plain) && text == "<<";
            self.anchors |= merging;
            if let Some(Frame::Map { key, merge, .. }) = self.stack.last_mut() {
                *key = Some(entry);
                if merging {
                    *merge = Some(entry);
                }
            }
        } else {
            let node = self.child(Some(location));
            let text_start = match style {
                Some(TScalarStyle::Plain) => Some(location),
                Some(TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted) => Some(Location {
                    line: location.line,
                    column: location.column + 1,
                }),
                _ => None,
            };
            if let Some(n) = self.nodes.get_mut(node) {
                n.text_start = text_start;
            }
            self.finish_node();
        }
    }

    /// Gives mapping `target` the merged keys it does not write itself, as
    /// the loader does: each is the node where it is written (in the
    /// anchored mapping), so a finding about a merged value points at a
    /// real line. Earlier mappings of a merged list win.
    fn merge(&mut self, target: usize, entry: usize) {
        let resolved = |node: usize| self.aliased.get(&node).copied().unwrap_or(node);
        let sources: Vec<usize> = match self.nodes.get(entry).map(|n| &n.children) {
            Some(Children::Seq(items)) => items.iter().map(|&i| resolved(i)).collect(),
            Some(_) => vec![resolved(entry)],
            None => Vec::new(),
        };
        for source in sources {
            let Some(Node {
                children: Children::Map(keys),
                ..
            }) = self.nodes.get(source)
            else {
                continue;
            };
            // The loader refuses a document whose aliases expand past its
            // budget; a map of one (built on its own) stops merging there.
            self.merged = self.merged.saturating_add(keys.len());
            if self.merged > crate::document::MAX_ALIAS_NODES {
                return;
            }
            let entries: Vec<(String, usize)> =
                keys.iter().map(|(k, &node)| (k.clone(), node)).collect();
            if let Some(Node {
                children: Children::Map(into),
                ..
            }) = self.nodes.get_mut(target)
            {
                for (key, node) in entries {
                    into.entry(key).or_insert(node);
                }
            }
        }
    }

    /// Takes one event; false once there is nothing more to map.
    fn on_event(&mut self, event: &Event, mark: &Marker) -> bool {
        let location = Location {
            line: mark.line(),
            column: mark.col() + 1,
        };
        match event {
            Event::DocumentEnd => self.done = true,
            Event::Scalar(text, style, anchor, _) => {
                self.anchors |= *anchor > 0;
                self.scalar(text, location, Some(*style))
            }
            Event::Alias(id) => {
                self.anchors = true;
                if self.in_key_position() {
                    self.scalar("", location, None)
                } else {
                    let node = self.child(Some(location));
                    self.finish_node();
                    if let Some(&target) = self.anchored.get(id) {
                        self.aliased.insert(node, target);
                    }
                }
            }
            Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                if self.stack.len() >= MAX_NESTING {
                    return false;
                }
                self.anchors |= *anchor > 0;
                self.depth = self.depth.max(self.stack.len() + 1);
                let is_map = matches!(event, Event::MappingStart(..));
                if is_map && self.in_key_position() {
                    // A complex key: mapped under the empty key.
                    let Some(&Frame::Map { node, .. }) = self.stack.last() else {
                        return false;
                    };
                    self.entry(node, String::new(), Some(location));
                }
                let node = self.child(if is_map { None } else { Some(location) });
                if is_map && *anchor > 0 {
                    self.anchored.insert(*anchor, node);
                }
                if let Some(n) = self.nodes.get_mut(node) {
                    n.opened = Some(location);
                    n.children = if is_map {
                        Children::Map(HashMap::new())
                    } else {
                        Children::Seq(Vec::new())
                    };
                }
                self.stack.push(if is_map {
                    Frame::Map {
                        node,
                        key: None,
                        start: Some(location),
                        merge: None,
                    }
                } else {
                    Frame::Seq { node }
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                match self.stack.pop() {
                    // An empty mapping never saw a key; fall back to its start.
                    Some(Frame::Map {
                        node,
                        start: Some(start),
                        ..
                    }) => {
                        if let Some(n) = self.nodes.get_mut(node) {
                            n.location = n.location.or(Some(start));
                        }
                    }
                    Some(Frame::Map {
                        node,
                        merge: Some(entry),
                        ..
                    }) => self.merge(node, entry),
                    _ => {}
                }
                self.finish_node();
            }
            _ => {}
        }
        !self.done
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
    fn a_position_inside_a_one_line_value_maps_into_the_document() {
        let text = "a:\n  plain: x == 1\n  quoted: \"y = 2\"\n  block: |\n    z\n";
        let map = SourceMap::new(text);
        assert_eq!(
            map.locate_in_text("/a/plain", 1, 3),
            Some(Location {
                line: 2,
                column: 12
            })
        );
        assert_eq!(
            map.locate_in_text("/a/quoted", 1, 3),
            Some(Location {
                line: 3,
                column: 14
            })
        );
        assert_eq!(map.locate_in_text("/a/block", 1, 1), None);
        assert_eq!(map.locate_in_text("/a/plain", 2, 1), None);
        assert_eq!(map.locate_in_text("/a/missing", 1, 1), None);
        assert_eq!(map.locate_in_text("/a/plain", 1, usize::MAX), None);
    }

    #[test]
    fn missing_value_falls_back_to_nearest_ancestor() {
        let text = "workflow:\n  build:\n    roles:\n      - name: w\n";
        check(text, "/workflow/build/roles/0/inputs_required", 4, 9);
    }

    #[test]
    fn a_merged_value_is_located_where_it_is_written() {
        let text = "x_guarded: &g\n  requires_user_approval: true\n  pass_condition: a\nx_more: &m {max: 1}\ngates:\n  <<: [*g, *m]\n  pass_condition: always\n";
        check(text, "/gates/requires_user_approval", 2, 3);
        check(text, "/gates/max", 4, 13);
        // The mapping's own key wins, in positions as in values.
        check(text, "/gates/pass_condition", 7, 3);
        let map = SourceMap::new(text);
        assert_eq!(
            map.locate_in_text("/gates/requires_user_approval", 1, 2),
            Some(Location {
                line: 2,
                column: 28
            })
        );
        // One part stands for another: no part is parsed again alone.
        assert!(map.anchors);
        assert!(SourceMap::new("m: {<<: {a: 1}}").anchors);
        check("m:\n  <<: {a: 1}\n", "/m/a", 2, 8);
    }

    #[test]
    fn json_documents_are_located_too() {
        let text = "{\n  \"id\": \"a\",\n  \"workflow\": {\"plan\": {\"roles\": []}}\n}\n";
        check(text, "/workflow/plan/roles", 3, 25);
    }

    /// A byte-order mark moves nothing but the first line, where it is a
    /// character of the text like any other; JSON after one was read as a
    /// plain scalar, so every finding fell back to 1:1.
    #[test]
    fn a_byte_order_mark_moves_only_the_first_line() {
        let json = "{\"id\": \"a\",\n  \"workflow\": {\"plan\": {\"roles\": [\n    {\"name\": \"w\", \"handoff_to\": [\"r\"]}]}}\n}\n";
        let yaml =
            "id: a\nworkflow:\n  plan:\n    roles:\n      - name: w\n        handoff_to: [r]\n";
        for (text, later, at) in [
            (json, "/workflow/plan/roles/0/handoff_to/0", (3, 34)),
            (yaml, "/workflow/plan/roles/0/handoff_to/0", (6, 22)),
        ] {
            check(text, later, at.0, at.1);
            check(&format!("\u{feff}{text}"), later, at.0, at.1);
            let first = SourceMap::new(text).locate("/id").unwrap();
            check(&format!("\u{feff}{text}"), "/id", 1, first.column + 1);
        }
        // A gate's syntax error is placed through the text's start.
        let map = SourceMap::new("\u{feff}{\"g\": \"a ==\"}");
        assert_eq!(
            map.locate_in_text("/g", 1, 3),
            Some(Location {
                line: 1,
                column: 11
            })
        );
    }

    /// The same through validation: a finding after a byte-order mark is
    /// where it is without one, in both formats.
    #[test]
    fn findings_after_a_byte_order_mark_keep_their_place() {
        use crate::document::Format;
        let json = "{\n  \"schema_version\": \"1.0.0\",\n  \"id\": \"b\",\n  \"name\": \"B\",\n  \"workflow\": {\"build\": {\"roles\": [\n    {\"name\": \"w\", \"mode\": \"worker\", \"handoff_to\": [\"nobody\"]}\n  ]}}\n}\n";
        let yaml = "schema_version: 1.0.0\nid: b\nname: B\nworkflow:\n  build:\n    roles:\n      - name: w\n        mode: worker\n        handoff_to: [nobody]\n";
        for (text, format) in [(json, Format::Json), (yaml, Format::Yaml)] {
            let options = crate::Options::default();
            let place = |text: &str| {
                let report = crate::validate_source(text, format, &options);
                let finding = report
                    .findings
                    .iter()
                    .find(|f| f.code == crate::Code::UnknownHandoff)
                    .cloned()
                    .expect("PB301");
                finding.location
            };
            let plain = place(text);
            assert!(plain.is_some_and(|l| l.line > 1), "{plain:?}");
            assert_eq!(place(&format!("\u{feff}{text}")), plain, "{format:?}");
        }
    }
}

#[cfg(test)]
mod linear_tests {
    use super::*;

    #[test]
    fn too_deep_text_maps_nothing_and_returns() {
        let text = "[".repeat(1_000_000);
        assert_eq!(SourceMap::new(&text).locate("/0"), None);
        let text = "- ".repeat(100_000);
        assert!(SourceMap::new(&text).locate("").is_some());
    }

    #[test]
    fn the_first_of_two_equal_keys_is_located() {
        let text = "a: 1\nb: 2\na: 3\n";
        assert_eq!(
            SourceMap::new(text).locate("/a"),
            Some(Location { line: 1, column: 1 })
        );
    }

    #[test]
    fn a_long_key_is_stored_once() {
        // Stored per pointer, 100 000 entries under a 1 MB key would take 100 GB.
        let key = "k".repeat(1_000_000);
        let body: Vec<String> = (0..100_000).map(|i| format!("\"e{i}\": 1\n")).collect();
        let text = format!("{{\"{key}\": {{\n{}}}}}", body.join(","));
        let map = SourceMap::new(&text);
        assert_eq!(
            map.locate(&format!("/{key}/e99999")).map(|l| l.line),
            Some(100_001)
        );
    }
}

/// The map recorded while loading must be the map a parse of its own
/// builds, for every document the repository has: examples, lint fixtures,
/// fuzz seeds and regressions.
#[cfg(test)]
pub(crate) mod recorder_tests {
    use std::path::Path;

    use super::*;
    use crate::document::{self, Format};

    fn texts(dir: &Path, out: &mut Vec<(String, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                texts(&path, out);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                out.push((path.display().to_string(), text));
            }
        }
    }

    /// Every document text the repository has, by name (also read by the
    /// typed model's differential test).
    pub(crate) fn corpus() -> Vec<(String, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut out = Vec::new();
        for dir in [
            "playbooks",
            "tests/fixtures",
            "fuzz/seeds/validate_source",
            "fuzz/regressions/validate_source",
            "crates/playbook-orchestrator/tests/fixtures",
        ] {
            texts(&root.join(dir), &mut out);
        }
        let written = [
            "a: &x {b: 1, c: [2, 3]}\nd: *x\ne:\n  <<: *x\n  f: 4\n",
            "a: &x {b: 1}\ny: &y {b: 2, c: 3}\ne:\n  <<: [*x, *y, {d: 4}]\n  c: 5\n\"<<\": 6\n",
            "? complex\n: 1\nk: [a, {b: c}, [d]]\n",
            "s: |\n  line\n  line\nq: \"x: y\"\np: 'it''s'\n# comment\nn: ~\n",
            "{\"id\": \"a\", \"workflow\": {\"s\": {\"roles\": [{\"name\": \"r\"}]}}}",
            "- - - x\n  - y\n- {}\n- []\n",
            "a: 1\n...\n",
            "a: on\nb: yes\nc: 0o17\nd: 017\ne: 0x1f\nf: .5\ng: 1_000\n",
        ];
        out.extend(written.iter().map(|t| (format!("{t:?}"), t.to_string())));
        out
    }

    #[test]
    fn the_map_of_the_loading_parse_equals_a_separate_one() {
        let mut mapped = 0;
        for (name, text) in corpus() {
            let format = Format::sniff(&text);
            let plain = document::parse_playbook(&text, format);
            let with_map = document::parse_playbook_mapped(&text, format, true);
            match (plain, with_map) {
                (Ok((value, notes)), Ok((again, notes_again, map))) => {
                    assert_eq!(value, again, "{name}: the value differs");
                    assert_eq!(notes, notes_again, "{name}: the notes differ");
                    if let Some(map) = map {
                        assert!(
                            map == SourceMap::new(text.trim_start_matches('\u{feff}')),
                            "{name}: the maps differ"
                        );
                        mapped += 1;
                    }
                }
                (Err(a), Err(b)) => assert_eq!(a, b, "{name}: the refusals differ"),
                (a, b) => panic!("{name}: {a:?} but mapped {:?}", b.map(|(v, ..)| v)),
            }
        }
        assert!(mapped >= 60, "only {mapped} documents were mapped");
    }
}
