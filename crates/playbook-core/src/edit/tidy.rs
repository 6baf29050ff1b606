//! What `playbook fmt` may change in a file that has comments.
//!
//! A full render (the canonical layout) drops comments, so a commented
//! file keeps its layout: only values the typed model writes differently
//! are rewritten (through [`super::rewrite`], in place), and whitespace
//! that carries nothing is tidied: trailing spaces, mixed line ends (made
//! the file's own: those most of its lines end with), the final newline. Each step
//! is kept only if the text still reads as the same value; indentation,
//! quoting and CRLF line ends are left as the author wrote them.

use serde_json::Value;

use yaml_rust2::scanner::TScalarStyle;

use super::spans::{Kind, Tree};
use super::{EditError, rewrite};
use crate::document::{self, Format};

/// `text` with its values made `canonical` and its whitespace tidied,
/// comments, key order, blank lines, indentation and quoting kept. A step
/// that cannot keep them is skipped, so the result never loses a comment.
pub fn tidy(text: &str, format: Format, canonical: &Value) -> Result<String, EditError> {
    // Key order is layout here: the author's order stays (the typed
    // model's own order would move every commented block).
    let original = document::parse_value(text, format).map_err(EditError::Unreadable)?;
    let canonical = super::order::in_order_of(canonical, &original, "", &|_| false);
    let rewritten = rewrite(text, format, &canonical)?;
    let text = if rewritten.comments_kept() {
        rewritten.text
    } else {
        text.to_string()
    };
    let target = document::parse_value(&text, format).map_err(EditError::Unreadable)?;
    let tidied = super::line_ends_as(&text, whitespace(&text));
    if document::parse_value(&tidied, format).is_ok_and(|v| super::diff::identical(&v, &target)) {
        Ok(tidied)
    } else {
        Ok(text)
    }
}

/// Trailing blanks off every line outside block scalars (where they are
/// content), exactly one final newline; LF line ends, which the caller
/// gives the file's own style back (YAML reads every line break as LF).
fn whitespace(text: &str) -> String {
    let (text, _) = super::lf_for_lone_cr(text);
    let text = text.as_str();
    let blocks: Vec<(usize, usize)> = Tree::new(text)
        .map(|tree| {
            tree.nodes
                .iter()
                .filter(|n| {
                    matches!(
                        n.kind,
                        Kind::Scalar {
                            style: TScalarStyle::Literal | TScalarStyle::Folded,
                            ..
                        }
                    )
                })
                .map(|n| (n.start, n.end))
                .collect()
        })
        .unwrap_or_default();
    let mut out = String::with_capacity(text.len());
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let end = offset + content.len();
        let in_block = blocks.iter().any(|&(s, e)| offset < e && end > s);
        if in_block {
            out.push_str(content);
        } else {
            out.push_str(content.trim_end_matches([' ', '\t']));
        }
        out.push('\n');
        offset += line.len();
    }
    let kept = out.trim_end_matches('\n').len();
    out.truncate(kept);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_layout_stay_while_whitespace_is_tidied() {
        let text = "# head\nid: demo   \nlist:   # note\n    - a\n\n    - b\t\n\n\n";
        let value = document::parse_value(text, Format::Yaml).unwrap();
        let tidied = tidy(text, Format::Yaml, &value).unwrap();
        assert_eq!(
            tidied,
            "# head\nid: demo\nlist:   # note\n    - a\n\n    - b\n"
        );
    }

    /// Regression (sweep C): `fmt` turned CRLF into LF. A person's file
    /// keeps its line ends; a mixed file gets those most of its lines have.
    #[test]
    fn crlf_and_lone_cr_line_ends_are_kept() {
        let text = "# head\r\nid: demo   \r\nlist:   # note\n    - a\r\n\r\n    - b\t\r\n\r\n";
        let value = document::parse_value(text, Format::Yaml).unwrap();
        assert_eq!(
            tidy(text, Format::Yaml, &value).unwrap(),
            "# head\r\nid: demo\r\nlist:   # note\r\n    - a\r\n\r\n    - b\r\n"
        );
        let text = "id: demo  \r# c\rlist:\r  - a \r";
        let value = document::parse_value(text, Format::Yaml).unwrap();
        assert_eq!(
            tidy(text, Format::Yaml, &value).unwrap(),
            "id: demo\r# c\rlist:\r  - a\r"
        );
    }

    #[test]
    fn a_block_scalars_trailing_spaces_are_content_and_stay() {
        let text = "# c\nprompt: |\n  keep   \n  this\n";
        let value = document::parse_value(text, Format::Yaml).unwrap();
        assert_eq!(tidy(text, Format::Yaml, &value).unwrap(), text);
    }

    #[test]
    fn the_authors_key_order_is_layout_and_stays() {
        let text = "# c\nname: N  # n\nid: demo  # id\n";
        let canonical = serde_json::json!({"id": "demo", "name": "N"});
        assert_eq!(tidy(text, Format::Yaml, &canonical).unwrap(), text);
    }

    #[test]
    fn canonical_values_are_written_in_place() {
        let text = "# c\nid: demo  # id\nextra: null\n";
        let canonical = serde_json::json!({"id": "demo"});
        assert_eq!(
            tidy(text, Format::Yaml, &canonical).unwrap(),
            "# c\nid: demo  # id\n"
        );
    }
}
