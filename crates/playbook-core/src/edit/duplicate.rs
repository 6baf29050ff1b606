//! Removing one entry of a key given twice (PB007). Such a document does
//! not load, so the fix works on the text and its spans alone, and checks
//! that the parser still reads the result with one entry fewer.

use super::{Format, TextChange, apply, lf_for_lone_cr, spans};

/// Removes one entry of a key given twice (PB007) from the mapping that
/// holds `pointer`: the later one, or the earlier with `keep_later`.
/// Works on text that does not load (that is what a duplicate does to
/// it); returns the change and the line of the removed entry, or `None`
/// when the mapping does not have the key twice.
pub fn remove_duplicate_key(
    text: &str,
    format: Format,
    pointer: &str,
    keep_later: bool,
) -> Option<(TextChange, usize)> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let offset = text.len() - body.len();
    let (work, lone_cr) = lf_for_lone_cr(body);
    let tree = spans::Tree::new(&work)?;
    let (parent, key) = apply::split_last(pointer)?;
    let (map, place) = tree.resolve(&parent)?;
    let count = |tree: &spans::Tree, map: usize| match &tree.nodes.get(map)?.kind {
        spans::Kind::Map { entries, .. } => Some(
            entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.key == key)
                .map(|(i, e)| (i, e.key_start))
                .collect::<Vec<_>>(),
        ),
        _ => None,
    };
    let same = count(&tree, map)?;
    let &(index, key_start) = if keep_later {
        same.first()?
    } else {
        same.get(1)?
    };
    if same.len() < 2 {
        return None;
    }
    let (start, end, replacement) =
        apply::remove(&work, &tree, map, place, index, format == Format::Json)?;
    let mut replacement = apply::line_ends_of(&work, replacement);
    if lone_cr {
        replacement = replacement.replace('\n', "\r");
    }
    let change = TextChange {
        start: start + offset,
        end: end + offset,
        text: replacement,
    };
    // The result must still be read by the parser, with one entry fewer.
    let edited = change.apply(text)?;
    let (edited_work, _) = lf_for_lone_cr(edited.strip_prefix('\u{feff}').unwrap_or(&edited));
    let after = spans::Tree::new(&edited_work)?;
    let (map_after, _) = after.resolve(&parent)?;
    (count(&after, map_after)?.len() + 1 == same.len()).then_some(())?;
    let line = line_of(body, key_start);
    Some((change, line))
}

/// The 1-based line of byte `offset`, counting line breaks as YAML (and
/// the language server protocol) do: `\r\n`, `\r` and `\n`.
fn line_of(text: &str, offset: usize) -> usize {
    let before = text.as_bytes().get(..offset).unwrap_or(text.as_bytes());
    let breaks = before
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && before.get(i + 1) != Some(&b'\n')))
        .count();
    breaks + 1
}
