//! YAML text → `serde_json::Value`, from the events of yaml-rust2's parser.
//!
//! Building the value from events (rather than through a serde
//! deserializer) is what lets every refusal carry a location and name both
//! places of a problem: a key given twice, a tag, a second document, an
//! alias that expands past the budget, nesting past [`MAX_NESTING`]. The
//! same parser feeds `locate.rs`, so values and positions agree.
//!
//! Plain scalars are resolved with the YAML 1.2 core schema (null, booleans,
//! integers, floats); quoted and block scalars are always strings. A plain
//! `<<` key merges mappings into its own, as YAML 1.1 loaders do
//! (`merge.rs`).

use std::collections::HashMap;

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::Problem;
use super::nesting::MAX_NESTING;

mod merge;
use crate::finding::{Location, escape_pointer};
use crate::locate::{Recorder, SourceMap};

/// Most nodes that aliases may add to a document in total. Anchors are
/// rare in playbooks and small; a "billion laughs" needs millions.
pub const MAX_ALIAS_NODES: usize = 100_000;

/// Most bytes (of scalars and keys) that aliases may add in total, so an
/// expanded document stays within what the store will read back.
pub const MAX_ALIAS_BYTES: usize = 1024 * 1024;

/// The parser's next event, a scan error as a located syntax problem.
fn next(parser: &mut Parser<std::str::Chars<'_>>) -> Result<(Event, Marker), Problem> {
    parser.next_token().map_err(|e| Problem::Syntax {
        message: e.info().to_string(),
        location: Some(location(e.marker())),
    })
}

pub(super) fn parse(text: &str) -> Result<Value, Problem> {
    let mut loader = Loader::default();
    let mut parser = Parser::new_from_str(text);
    loop {
        let (event, mark) = next(&mut parser)?;
        if loader.event(event, mark)? {
            return Ok(loader.root.unwrap_or(Value::Null));
        }
    }
}

/// Like [`parse`], and maps where each node is from the same events: the
/// same map `SourceMap::new` builds with a parse of its own.
pub(super) fn parse_mapped(text: &str) -> Result<(Value, SourceMap), Problem> {
    let mut loader = Loader::default();
    let mut recorder = Recorder::default();
    let mut parser = Parser::new_from_str(text);
    loop {
        let (event, mark) = next(&mut parser)?;
        recorder.event(&event, &mark);
        if loader.event(event, mark)? {
            let value = loader.root.unwrap_or(Value::Null);
            return Ok((value, recorder.finish()));
        }
    }
}

/// The first document, and where a second one with content starts, if any
/// does. Later documents are only scanned for content (a `---` followed by
/// nothing, or by comments, is no document to speak of); a syntax error in
/// them counts as content.
pub(super) fn parse_first(text: &str) -> Result<(Value, Option<Location>), Problem> {
    let mut loader = Loader::default();
    let mut parser = Parser::new_from_str(text);
    loop {
        let (event, mark) = next(&mut parser)?;
        if matches!(event, Event::DocumentStart) && loader.documents == 1 {
            let first = loader.root.take().unwrap_or(Value::Null);
            let at = location(&mark);
            return Ok((first, later_content(&mut parser).then_some(at)));
        }
        if loader.event(event, mark)? {
            return Ok((loader.root.unwrap_or(Value::Null), None));
        }
    }
}

fn later_content(parser: &mut Parser<std::str::Chars<'_>>) -> bool {
    loop {
        match parser.next_token() {
            Err(_) => return true,
            Ok((Event::StreamEnd, _)) => return false,
            Ok((Event::Scalar(text, style, ..), _)) => {
                let null =
                    style == TScalarStyle::Plain && matches!(text.as_str(), "" | "~" | "null");
                if !null {
                    return true;
                }
            }
            Ok((Event::MappingStart(..) | Event::SequenceStart(..) | Event::Alias(_), _)) => {
                return true;
            }
            Ok(_) => {}
        }
    }
}

fn location(mark: &Marker) -> Location {
    Location {
        line: mark.line(),
        column: mark.col() + 1,
    }
}

/// An open collection and what it has collected so far.
enum Frame {
    Map {
        map: Map<String, Value>,
        /// Where each key was seen, in order, to name both places of a
        /// duplicate (the keys themselves are in `map`).
        seen: Vec<Location>,
        /// The key waiting for its value, with its position.
        key: Option<(String, Location)>,
        /// The pending key is the merge key: its value goes to `merge`.
        merging: bool,
        /// The mapping's merge key (`<<`), once seen.
        merge: Option<merge::Merge>,
        anchor: usize,
        nodes: usize,
        bytes: usize,
    },
    Seq {
        items: Vec<Value>,
        anchor: usize,
        nodes: usize,
        bytes: usize,
    },
}

#[derive(Default)]
struct Loader {
    stack: Vec<Frame>,
    root: Option<Value>,
    /// Anchored nodes by anchor id, with their size (nodes, bytes).
    anchors: HashMap<usize, (Value, usize, usize)>,
    alias_nodes: usize,
    alias_bytes: usize,
    documents: usize,
}

impl Loader {
    /// Takes one event; true when the stream has ended.
    fn event(&mut self, event: Event, mark: Marker) -> Result<bool, Problem> {
        let at = location(&mark);
        match event {
            Event::StreamEnd => return Ok(true),
            Event::DocumentStart => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(Problem::MultipleDocuments { location: at });
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.refuse_tag(tag.as_ref(), at)?;
                if self.in_key_position() {
                    let merging = style == TScalarStyle::Plain && text == "<<";
                    return self.key(text, at, merging).map(|()| false);
                }
                let bytes = text.len();
                let value = resolve(text, style, at)?;
                self.anchor(anchor, &value, 1, bytes);
                self.value(value, 1, bytes)?;
            }
            Event::Alias(id) => {
                let Some((value, nodes, bytes)) = self.anchors.get(&id).cloned() else {
                    return Err(Problem::Syntax {
                        message: "an alias names an anchor that is not defined before it".into(),
                        location: Some(at),
                    });
                };
                self.alias_nodes = self.alias_nodes.saturating_add(nodes);
                self.alias_bytes = self.alias_bytes.saturating_add(bytes);
                if self.alias_nodes > MAX_ALIAS_NODES || self.alias_bytes > MAX_ALIAS_BYTES {
                    return Err(Problem::AliasBomb { location: at });
                }
                if self.in_key_position() {
                    return Err(Problem::ComplexKey { location: at });
                }
                self.value(value, nodes, bytes)?;
            }
            Event::MappingStart(anchor, ref tag) | Event::SequenceStart(anchor, ref tag) => {
                self.refuse_tag(tag.as_ref(), at)?;
                if self.in_key_position() {
                    return Err(Problem::ComplexKey { location: at });
                }
                if self.stack.len() >= MAX_NESTING {
                    return Err(Problem::TooDeep { location: at });
                }
                let is_map = matches!(event, Event::MappingStart(..));
                self.stack.push(if is_map {
                    Frame::Map {
                        map: Map::new(),
                        seen: Vec::new(),
                        key: None,
                        merging: false,
                        merge: None,
                        anchor,
                        nodes: 1,
                        bytes: 0,
                    }
                } else {
                    Frame::Seq {
                        items: Vec::new(),
                        anchor,
                        nodes: 1,
                        bytes: 0,
                    }
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                let (value, anchor, nodes, bytes) = match self.stack.pop() {
                    Some(Frame::Map {
                        map,
                        merge,
                        anchor,
                        nodes,
                        bytes,
                        ..
                    }) => {
                        let map = match merge {
                            Some(merge) => merge::apply(map, merge),
                            None => map,
                        };
                        (Value::Object(map), anchor, nodes, bytes)
                    }
                    Some(Frame::Seq {
                        items,
                        anchor,
                        nodes,
                        bytes,
                    }) => (Value::Array(items), anchor, nodes, bytes),
                    None => return Ok(false),
                };
                self.anchor(anchor, &value, nodes, bytes);
                self.value(value, nodes, bytes)?;
            }
            Event::StreamStart | Event::DocumentEnd | Event::Nothing => {}
        }
        Ok(false)
    }

    fn in_key_position(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map { key: None, .. }))
    }

    /// Keeps a copy of an anchored node for its aliases. Only anchored
    /// nodes are copied, and their total is bounded by the alias budget's
    /// counterpart: the document itself (8 MiB).
    fn anchor(&mut self, anchor: usize, value: &Value, nodes: usize, bytes: usize) {
        if anchor > 0 {
            self.anchors.insert(anchor, (value.clone(), nodes, bytes));
        }
    }

    /// Takes a key; `merging` when it is a plain `<<`, the merge key.
    fn key(&mut self, text: String, at: Location, merging: bool) -> Result<(), Problem> {
        let Some(Frame::Map {
            map,
            seen,
            key,
            merging: pending_merge,
            merge,
            bytes,
            ..
        }) = self.stack.last_mut()
        else {
            return Ok(());
        };
        // The merge key is not entered in the map (its value is merged at
        // the mapping's end); a second one is a key given twice all the same.
        let repeated_merge = merging.then(|| merge.as_ref().map(|m| m.location));
        // Keys enter the map in the order they are seen (each once: a repeat
        // stops here), so a key's index in the map is its index in `seen`.
        if (!merging && map.contains_key(&text)) || repeated_merge.flatten().is_some() {
            let index = map.keys().position(|k| *k == text);
            let first = match repeated_merge.flatten() {
                Some(first) => first,
                None => index.and_then(|i| seen.get(i)).copied().unwrap_or(at),
            };
            let pointer = self.pointer();
            let path = format!("{pointer}/{}", escape_pointer(&text));
            return Err(Problem::DuplicateKey {
                key: text,
                path,
                first,
                second: at,
            });
        }
        *bytes = bytes.saturating_add(text.len());
        if merging {
            *merge = Some(merge::Merge {
                at: map.len(),
                location: at,
                sources: Vec::new(),
            });
        } else {
            seen.push(at);
        }
        *pending_merge = merging;
        *key = Some((text, at));
        Ok(())
    }

    /// Adds a finished node to its parent (or makes it the document).
    fn value(&mut self, value: Value, nodes: usize, bytes: usize) -> Result<(), Problem> {
        // The value of a merge key is checked and kept for the mapping's end.
        if let Some(Frame::Map {
            merging: true,
            merge: Some(merge),
            ..
        }) = self.stack.last()
        {
            let location = merge.location;
            let path = format!("{}/<<", self.pointer());
            let sources = merge::sources(value, path, location)?;
            if let Some(Frame::Map {
                merging,
                merge: Some(merge),
                key,
                nodes: n,
                bytes: b,
                ..
            }) = self.stack.last_mut()
            {
                merge.sources = sources;
                *merging = false;
                *key = None;
                *n = n.saturating_add(nodes);
                *b = b.saturating_add(bytes);
            }
            return Ok(());
        }
        match self.stack.last_mut() {
            None => self.root = Some(value),
            Some(Frame::Map {
                map,
                key,
                nodes: n,
                bytes: b,
                ..
            }) => {
                if let Some((k, _)) = key.take() {
                    map.insert(k, value);
                }
                *n = n.saturating_add(nodes);
                *b = b.saturating_add(bytes);
            }
            Some(Frame::Seq {
                items,
                nodes: n,
                bytes: b,
                ..
            }) => {
                items.push(value);
                *n = n.saturating_add(nodes);
                *b = b.saturating_add(bytes);
            }
        }
        Ok(())
    }

    fn refuse_tag(&self, tag: Option<&Tag>, at: Location) -> Result<(), Problem> {
        let Some(tag) = tag else {
            return Ok(());
        };
        // Shown as written: `!!binary`, not its expanded URI.
        let tag = match tag.handle.as_str() {
            "tag:yaml.org,2002:" => format!("!!{}", tag.suffix),
            handle => format!("{handle}{}", tag.suffix),
        };
        let mut path = self.pointer();
        match self.stack.last() {
            Some(Frame::Map {
                key: Some((k, _)), ..
            }) => {
                path.push('/');
                path.push_str(&escape_pointer(k));
            }
            Some(Frame::Seq { items, .. }) => {
                path.push('/');
                path.push_str(&items.len().to_string());
            }
            _ => {}
        }
        Err(Problem::Tag {
            tag,
            path,
            location: at,
        })
    }

    /// JSON pointer of the innermost open collection; built only for a
    /// refusal, so its cost (depth × key length) is paid once.
    fn pointer(&self) -> String {
        let mut pointer = String::new();
        for (depth, frame) in self.stack.iter().enumerate() {
            // The last frame is the collection itself, not a step into it.
            if depth + 1 == self.stack.len() {
                break;
            }
            match frame {
                Frame::Map { key, .. } => {
                    pointer.push('/');
                    pointer.push_str(&escape_pointer(
                        key.as_ref().map_or("", |(k, _)| k.as_str()),
                    ));
                }
                Frame::Seq { items, .. } => {
                    pointer.push('/');
                    pointer.push_str(&items.len().to_string());
                }
            }
        }
        pointer
    }
}

/// Resolves a scalar with the YAML 1.2 core schema.
fn resolve(text: String, style: TScalarStyle, at: Location) -> Result<Value, Problem> {
    if style != TScalarStyle::Plain {
        return Ok(Value::String(text));
    }
    match text.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Value::Null),
        "true" | "True" | "TRUE" => return Ok(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Ok(Value::Bool(false)),
        _ => {}
    }
    if let Some(number) = integer(&text) {
        return Ok(Value::Number(number));
    }
    if is_float(&text) {
        return match text.parse::<f64>().ok().and_then(Number::from_f64) {
            Some(number) => Ok(Value::Number(number)),
            None => Err(Problem::NotFinite { text, location: at }),
        };
    }
    let special = text.trim_start_matches(['+', '-']).to_ascii_lowercase();
    if matches!(special.as_str(), ".inf" | ".nan") {
        return Err(Problem::NotFinite { text, location: at });
    }
    Ok(Value::String(text))
}

/// Decimal, `0x` hex and `0o` octal integers; those beyond u64 are floats.
fn integer(text: &str) -> Option<Number> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = if let Some(hex) = digits.strip_prefix("0x") {
        (16, hex)
    } else if let Some(octal) = digits.strip_prefix("0o") {
        (8, octal)
    } else {
        (10, digits)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    if radix != 10 && text.starts_with(['-', '+']) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if negative {
        // i64::MIN's magnitude is one more than i64::MAX.
        let value = 0i64.checked_sub_unsigned(magnitude)?;
        Some(Number::from(value))
    } else {
        Some(Number::from(magnitude))
    }
}

/// `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
fn is_float(text: &str) -> bool {
    let s = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(at) => (&s[..at], Some(&s[at + 1..])),
        None => (s, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (mantissa, None),
    };
    let digits = |t: &str| t.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match fraction {
        Some(f) => digits(whole) && digits(f) && !(whole.is_empty() && f.is_empty()),
        None => !whole.is_empty() && digits(whole),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> Value {
        parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    fn problem(text: &str) -> Problem {
        match parse(text) {
            Ok(v) => panic!("{text} parsed as {v}"),
            Err(problem) => problem,
        }
    }

    #[test]
    fn scalars_follow_the_core_schema() {
        let v = value(
            "a: 1\nb: -2\nc: 1.5\nd: true\ne: ~\nf: '1'\ng: 0x1F\nh: 18446744073709551615\ni: 1e3\nj: yes\nk: .5\nl:\n",
        );
        assert_eq!(
            v,
            serde_json::json!({"a": 1, "b": -2, "c": 1.5, "d": true, "e": null, "f": "1",
                "g": 31, "h": 18446744073709551615u64, "i": 1000.0, "j": "yes", "k": 0.5, "l": null})
        );
        assert_eq!(value("a: -9223372036854775808")["a"], i64::MIN);
        assert!(matches!(problem("a: 1e400"), Problem::NotFinite { .. }));
    }

    #[test]
    fn a_duplicate_key_names_both_places() {
        let Problem::DuplicateKey {
            key,
            path,
            first,
            second,
        } = problem("a:\n  b: 1\n  c: 2\n  b: 3\n")
        else {
            panic!("not a duplicate")
        };
        assert_eq!(key, "b");
        assert_eq!(path, "/a/b");
        assert_eq!(first, Location { line: 2, column: 3 });
        assert_eq!(second, Location { line: 4, column: 3 });
        assert!(matches!(
            problem("l:\n  - {x: 1, x: 2}\n"),
            Problem::DuplicateKey { path, .. } if path == "/l/0/x"
        ));
    }

    #[test]
    fn tags_documents_and_complex_keys_are_refused() {
        for text in [
            "a: !!binary aGVsbG8=",
            "a: !!timestamp 2001-12-14",
            "a: !custom x",
            "a: !!str x",
            "!!map {a: 1}",
        ] {
            assert!(matches!(problem(text), Problem::Tag { .. }), "{text}");
        }
        assert!(matches!(
            problem("a: 1\n---\nb: 2\n"),
            Problem::MultipleDocuments { location } if location.line == 2
        ));
        assert!(matches!(
            problem("? [a]\n: 1\n"),
            Problem::ComplexKey { .. }
        ));
        assert!(matches!(problem("a: .inf"), Problem::NotFinite { .. }));
    }

    #[test]
    fn alias_expansion_is_bounded_by_size() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..10 {
            let prev = level - 1;
            let refs = vec![format!("*a{prev}"); 10].join(", ");
            text.push_str(&format!("a{level}: &a{level} [{refs}]\n"));
        }
        assert!(matches!(problem(&text), Problem::AliasBomb { .. }));
        // A long string repeated through aliases counts by its bytes.
        let big = "x".repeat(100_000);
        let text = format!("s: &s {big}\nl: [{}]\n", vec!["*s"; 20].join(", "));
        assert!(matches!(problem(&text), Problem::AliasBomb { .. }));
        // Ordinary reuse is fine.
        assert_eq!(value("d: &d {x: 1}\ne: *d\n")["e"]["x"], 1);
    }

    #[test]
    fn merge_keys_merge_mappings_and_written_keys_win() {
        // As yaml.v3 and PyYAML read them: the mapping's own keys win, and in
        // a list of merged mappings the earlier one wins.
        let v = value("b: &b {a: 1, b: 2}\nm:\n  <<: *b\n  b: 3\n  c: 4\n");
        assert_eq!(v["m"], serde_json::json!({"a": 1, "b": 3, "c": 4}));
        let keys: Vec<&String> = v["m"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["a", "b", "c"], "merged keys take the place of `<<`");
        let v = value("x: &x {a: 1}\ny: &y {a: 2, b: 2}\nm: {z: 0, <<: [*x, *y], c: 3}\n");
        let keys: Vec<&String> = v["m"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a", "b", "c"]);
        assert_eq!(v["m"], serde_json::json!({"z": 0, "a": 1, "b": 2, "c": 3}));
        // A mapping written in place, a merge of a merge, and an empty list.
        assert_eq!(value("m: {<<: {a: 1}}")["m"], serde_json::json!({"a": 1}));
        let v = value("a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc: {<<: *b}\nd: {<<: []}\n");
        assert_eq!(v["c"], serde_json::json!({"x": 1, "y": 2}));
        assert_eq!(v["d"], serde_json::json!({}));
        // Only a plain `<<` merges: quoted, it is an ordinary key.
        assert_eq!(
            value("m: {\"<<\": {a: 1}}")["m"],
            serde_json::json!({"<<": {"a": 1}})
        );
    }

    #[test]
    fn a_merge_of_anything_but_mappings_is_refused_at_its_key() {
        for (text, line, column) in [
            ("m: {<<: 1}", 1, 5),
            ("a: &a [1]\nm:\n  <<: *a\n", 3, 3),
            ("a: &a {x: 1}\nm:\n  k: v\n  <<: [*a, 2]\n", 4, 3),
            ("m:\n  <<:\n", 2, 3),
        ] {
            let Problem::Merge { path, location, .. } = problem(text) else {
                panic!("{text}: not refused as a merge")
            };
            assert_eq!(path, "/m/<<", "{text}");
            assert_eq!(location, Location { line, column }, "{text}");
        }
        assert!(matches!(
            problem("m: {<<: {a: 1}, <<: {b: 1}}"),
            Problem::DuplicateKey { path, .. } if path == "/m/<<"
        ));
    }

    #[test]
    fn block_nesting_is_limited() {
        let text = "- ".repeat(100_000) + "x";
        assert!(matches!(problem(&text), Problem::TooDeep { .. }));
    }
}
