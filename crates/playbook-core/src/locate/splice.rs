//! Changing a [`SourceMap`] in place when one part of its document was
//! parsed again alone (`document/reparse.rs`): the part's old nodes are
//! dropped, the new part's nodes are grafted where they were, and every
//! position after the part moves by the lines the edit added or removed.

use super::{Children, Node, SourceMap};
use crate::finding::Location;

/// One step from a collection to a child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// A child of a collection node, where its text starts.
#[derive(Debug, Clone)]
pub(crate) struct Child {
    pub(crate) node: usize,
    pub(crate) step: Step,
    pub(crate) location: Location,
}

impl SourceMap {
    /// The document defines an anchor, uses an alias or has a merge key
    /// (`<<`): one part of it may stand for another.
    pub(crate) fn has_anchors(&self) -> bool {
        self.anchors
    }

    /// The most collections open at once while the document was mapped.
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    /// Whether collection `node` of `text` (whose lines start at
    /// `lines`) may be a flow one (`{...}`, `[...]`), whose entries are no
    /// block parts even one per line. Its parser event is placed on the
    /// bracket; a block collection's is in its first entry (which an edit
    /// of that entry may have moved since: then this may say flow for a
    /// block collection, which only makes a part larger).
    pub(crate) fn is_flow(&self, node: usize, text: &str, lines: &[usize]) -> bool {
        let placed = self.nodes.get(node).and_then(|n| n.opened).is_some();
        !placed
            || self.opens_with(node, text, lines, '{')
            || self.opens_with(node, text, lines, '[')
    }

    /// Whether a flow sequence of `text` holds a single-pair mapping
    /// (`[a: b]`, no braces). yaml-rust2 reads one in two ways, depending
    /// on whether a `{` came before it anywhere in the document (its
    /// scanner's `flow_mapping_started` is never reset after a flow
    /// mapping): an empty key (`[: b]`) is refused one way and read the
    /// other, and positions differ. So a part of such a document is not
    /// read alone, nor a part that holds one.
    pub(crate) fn has_flow_pairs(&self, text: &str, lines: &[usize]) -> bool {
        self.nodes.iter().enumerate().any(|(i, node)| {
            let Children::Seq(items) = &node.children else {
                return false;
            };
            items.iter().any(|&item| {
                matches!(self.nodes.get(item), Some(n) if matches!(n.children, Children::Map(_)))
                    && !self.opens_with(item, text, lines, '{')
            }) && self.is_flow(i, text, lines)
        })
    }

    /// Whether collection `node`'s parser event is placed on `bracket`.
    fn opens_with(&self, node: usize, text: &str, lines: &[usize], bracket: char) -> bool {
        let Some(opened) = self.nodes.get(node).and_then(|n| n.opened) else {
            return false;
        };
        let Some(&start) = lines.get(opened.line.saturating_sub(1)) else {
            return false;
        };
        // Columns count characters.
        text.get(start..)
            .and_then(|line| line.chars().nth(opened.column.saturating_sub(1)))
            == Some(bracket)
    }

    pub(crate) fn location_of(&self, node: usize) -> Option<Location> {
        self.nodes.get(node)?.location
    }

    /// The children of collection `node` in document order; `None` for a
    /// scalar, or when a child has no position (nothing to order it by).
    pub(crate) fn children(&self, node: usize) -> Option<Vec<Child>> {
        let mut children = match &self.nodes.get(node)?.children {
            Children::Leaf => return None,
            Children::Map(keys) => keys
                .iter()
                .map(|(key, &child)| {
                    Some(Child {
                        node: child,
                        step: Step::Key(key.clone()),
                        location: self.location_of(child)?,
                    })
                })
                .collect::<Option<Vec<_>>>()?,
            Children::Seq(items) => items
                .iter()
                .enumerate()
                .map(|(index, &child)| {
                    Some(Child {
                        node: child,
                        step: Step::Index(index),
                        location: self.location_of(child)?,
                    })
                })
                .collect::<Option<Vec<_>>>()?,
        };
        children.sort_by_key(|c| (c.location.line, c.location.column));
        Some(children)
    }

    /// The one child of this map's root collection (a part parsed alone is
    /// one mapping entry or one sequence item).
    pub(crate) fn only_child(&self) -> Option<Child> {
        let mut children = self.children(0)?;
        if children.len() != 1 {
            return None;
        }
        children.pop()
    }

    /// Replaces the child of `parent` at `old` with node `from` of `part`
    /// (a map of the part's text alone, whose line 1 is line `first_line`
    /// of this document), under `new` (the same step, or a renamed key).
    pub(crate) fn graft(
        &mut self,
        parent: usize,
        old: &Step,
        new: Step,
        part: SourceMap,
        from: usize,
        first_line: usize,
    ) {
        let offset = self.nodes.len();
        let lines = first_line.saturating_sub(1);
        self.nodes.extend(part.nodes.into_iter().map(|mut node| {
            node.shift(lines as isize);
            match &mut node.children {
                Children::Leaf => {}
                Children::Map(keys) => keys.values_mut().for_each(|i| *i += offset),
                Children::Seq(items) => items.iter_mut().for_each(|i| *i += offset),
            }
            node
        }));
        self.depth = self.depth.max(part.depth);
        let grafted = offset + from;
        let dropped = match (&mut self.nodes[parent].children, old, new) {
            (Children::Map(keys), Step::Key(old), Step::Key(new)) => {
                let dropped = keys.remove(old);
                keys.insert(new, grafted);
                dropped
            }
            (Children::Seq(items), Step::Index(i), _) => items
                .get_mut(*i)
                .map(|slot| std::mem::replace(slot, grafted)),
            _ => None,
        };
        // The part's own root collection and the old subtree are
        // unreachable now.
        self.garbage += 1;
        if let Some(dropped) = dropped {
            self.garbage += self.subtree_len(dropped);
        }
    }

    /// Moves every position on line `from_line` or later by `delta` lines,
    /// except in nodes `skip` (just grafted, already placed).
    pub(crate) fn shift_lines(
        &mut self,
        from_line: usize,
        delta: isize,
        skip: std::ops::Range<usize>,
    ) {
        if delta == 0 {
            return;
        }
        for (i, node) in self.nodes.iter_mut().enumerate() {
            if skip.contains(&i) {
                continue;
            }
            for location in [&mut node.location, &mut node.text_start, &mut node.opened]
                .into_iter()
                .flatten()
            {
                if location.line >= from_line {
                    location.line = location.line.saturating_add_signed(delta);
                }
            }
        }
    }

    /// The last line any position is on.
    pub(crate) fn last_line(&self) -> usize {
        self.nodes
            .iter()
            .flat_map(|n| [n.location, n.text_start, n.opened])
            .flatten()
            .map(|l| l.line)
            .max()
            .unwrap_or(0)
    }

    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Drops unreachable nodes once they are as many as the reachable
    /// ones, so a long editing session does not grow the map.
    pub(crate) fn collect_garbage(&mut self) {
        if self.garbage * 2 < self.nodes.len() {
            return;
        }
        self.compact();
    }

    /// Keeps only the nodes reachable from the root, in document order:
    /// the order a fresh map has.
    pub(crate) fn compact(&mut self) {
        if self.nodes.is_empty() {
            return;
        }
        let mut old: Vec<Option<Node>> = std::mem::take(&mut self.nodes)
            .into_iter()
            .map(Some)
            .collect();
        // Preorder: a node, then its children by position, as the builder
        // pushes them while the events pass.
        let mut order = Vec::with_capacity(old.len());
        let mut todo = vec![0usize];
        while let Some(i) = todo.pop() {
            order.push(i);
            let Some(node) = old[i].as_ref() else {
                continue;
            };
            let mut children: Vec<usize> = match &node.children {
                Children::Leaf => Vec::new(),
                Children::Map(keys) => keys.values().copied().collect(),
                Children::Seq(items) => items.clone(),
            };
            children.sort_by_key(|&c| {
                old[c]
                    .as_ref()
                    .and_then(|n| n.location)
                    .map(|l| (l.line, l.column))
            });
            todo.extend(children.into_iter().rev());
        }
        let mut new_index = vec![usize::MAX; old.len()];
        for (new, &i) in order.iter().enumerate() {
            new_index[i] = new;
        }
        self.nodes = order
            .iter()
            .filter_map(|&i| old[i].take())
            .map(|mut node| {
                match &mut node.children {
                    Children::Leaf => {}
                    Children::Map(keys) => keys.values_mut().for_each(|c| *c = new_index[*c]),
                    Children::Seq(items) => items.iter_mut().for_each(|c| *c = new_index[*c]),
                }
                node
            })
            .collect();
        self.garbage = 0;
    }

    fn subtree_len(&self, root: usize) -> usize {
        let mut count = 0;
        let mut todo = vec![root];
        while let Some(i) = todo.pop() {
            count += 1;
            match self.nodes.get(i).map(|n| &n.children) {
                Some(Children::Map(keys)) => todo.extend(keys.values()),
                Some(Children::Seq(items)) => todo.extend(items),
                _ => {}
            }
        }
        count
    }

    /// Every node's pointer and the positions findings are placed by, in
    /// document order, and whether it may be a flow collection: what a
    /// test compares (unreachable nodes are not listed).
    #[cfg(test)]
    pub(crate) fn positions(&self, text: &str) -> Vec<Position> {
        let lines = crate::document::reparse::line_starts(text);
        let mut out = Vec::new();
        if self.nodes.is_empty() {
            return out;
        }
        let mut todo = vec![(String::new(), 0usize)];
        while let Some((pointer, i)) = todo.pop() {
            let node = &self.nodes[i];
            let flow = !matches!(node.children, Children::Leaf) && self.is_flow(i, text, &lines);
            out.push(Position {
                pointer: pointer.clone(),
                location: node.location,
                text_start: node.text_start,
                flow,
            });
            let mut children: Vec<(String, usize)> = match &node.children {
                Children::Leaf => Vec::new(),
                Children::Map(keys) => keys
                    .iter()
                    .map(|(k, &c)| (format!("{pointer}/{k}"), c))
                    .collect(),
                Children::Seq(items) => items
                    .iter()
                    .enumerate()
                    .map(|(n, &c)| (format!("{pointer}/{n}"), c))
                    .collect(),
            };
            children.sort_by(|a, b| b.0.cmp(&a.0));
            todo.extend(children);
        }
        out
    }
}

#[cfg(test)]
#[derive(Debug, PartialEq)]
pub(crate) struct Position {
    pub(crate) pointer: String,
    pub(crate) location: Option<Location>,
    pub(crate) text_start: Option<Location>,
    pub(crate) flow: bool,
}

impl Node {
    fn shift(&mut self, delta: isize) {
        for location in [&mut self.location, &mut self.text_start, &mut self.opened]
            .into_iter()
            .flatten()
        {
            location.line = location.line.saturating_add_signed(delta);
        }
    }
}
