//! The author's text travelling with the open document.
//!
//! The editor's document is a JSON value; the text it came from (a file,
//! a version, what was typed in the Source tab) travels beside it as
//! [`Authored`]. Whenever the document becomes text again (the Source
//! tab, Save version, the autosaved draft, Export) that text is rewritten
//! to the document with `edit::rewrite_typed`: only the changed values
//! change, comments, blank lines and key order stay. When that cannot be
//! done the document is rendered afresh and `comments_kept` says so, for
//! the page to tell the person: comments are never dropped silently.

use playbook_core::Format;
use playbook_store::Authored;
use serde_json::Value;

use crate::api::Rendered;
use crate::error::Result;
use crate::workbench::render_value;

/// `document` as text in `format` (the author's format when `None`): the
/// author's text rewritten to it when there is one in that format, else a
/// fresh render.
pub fn write(
    document: &Value,
    base: Option<&Authored>,
    format: Option<Format>,
) -> Result<Rendered> {
    let Some(base) = base else {
        let format = format.unwrap_or(Format::Yaml);
        return Ok(Rendered {
            text: render_value(document, format)?,
            format,
            // Nothing was there to keep.
            comments_kept: true,
        });
    };
    let format = format.unwrap_or(base.format);
    if format == base.format
        && let Ok(edited) = playbook_core::edit::rewrite_typed(&base.text, base.format, document)
    {
        // `rewrite` already rendered afresh when the spans could not be
        // edited; its text reads as the document either way.
        let comments_kept = edited.comments_kept();
        return Ok(Rendered {
            text: edited.text,
            format,
            comments_kept,
        });
    }
    // Another format, or a base that does not parse (it came from the
    // page, which may send anything).
    Ok(Rendered {
        text: render_value(document, format)?,
        format,
        comments_kept: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn base(text: &str) -> Authored {
        Authored {
            text: text.into(),
            format: Format::Yaml,
        }
    }

    #[test]
    fn an_edited_value_is_the_only_change() {
        let text = "# team\nid: d   # id\n\nname: D\nworkflow: {}\n";
        let doc = json!({"id": "d", "name": "E", "workflow": {}});
        let out = write(&doc, Some(&base(text)), None).unwrap();
        assert_eq!(out.text, "# team\nid: d   # id\n\nname: E\nworkflow: {}\n");
        assert!(out.comments_kept);
        assert_eq!(out.format, Format::Yaml);
    }

    #[test]
    fn without_a_base_the_document_is_rendered() {
        let out = write(&json!({"id": "d"}), None, Some(Format::Json)).unwrap();
        assert_eq!(out.text, "{\n  \"id\": \"d\"\n}\n");
        assert!(out.comments_kept);
    }

    #[test]
    fn another_format_or_a_broken_base_is_a_fresh_render_and_says_so() {
        let doc = json!({"id": "d"});
        let json = write(&doc, Some(&base("# c\nid: x\n")), Some(Format::Json)).unwrap();
        assert!(!json.comments_kept);
        assert_eq!(json.format, Format::Json);
        let broken = write(&doc, Some(&base("id: [\n# c")), None).unwrap();
        assert!(!broken.comments_kept);
        assert_eq!(broken.text, "id: d\n");
    }

    #[test]
    fn hostile_bases_never_panic() {
        let doc = json!({"id": "d", "workflow": {"a": {"roles": [{"name": "r"}]}}});
        for text in [
            "",
            "\u{feff}",
            "- a\n- b\n",
            "id: &a [*a]",
            "{\"id\": 1}",
            "id: d\nid: e\n",
            &"[".repeat(10_000),
            &format!("id: d\nx: \"{}\"\n", "y".repeat(9 * 1024 * 1024)),
        ] {
            let out = write(&doc, Some(&base(text)), None).unwrap();
            let read = playbook_core::document::parse_value(&out.text, Format::Yaml).unwrap();
            assert_eq!(read, doc, "{:?}", &text[..text.len().min(20)]);
        }
    }
}
