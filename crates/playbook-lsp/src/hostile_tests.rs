//! Every feature at every position of documents no one should write: no
//! panic, and ranges stay inside the text.

use std::sync::Arc;

use tower_lsp_server::ls_types::{CodeActionKind, CompletionTextEdit, Position, Range, Uri};

use crate::document::Document;
use crate::{CodeDoc, CodeDocs, actions, complete, definition, diagnostics, hover};

const HOSTILE: &[&str] = &[
    "",
    "\u{feff}",
    "\r\n\r\n",
    ":",
    "- - - [",
    "{\"a\": {\"b\": [1, {\"c\": \"é😀\"",
    "workflow:\n  b:\n    roles:\n      - name: a\n        handoff_to: [a, *x, !!str y, 'q''q', \"\\u00e9\\\"\"]\n",
    "? [k]\n: v\n&a b: *a\n---\nsecond: 1\n...\n",
    "id: x\r\nworkflow:\r\n  é😀:\r\n    roles: [{name: 😀, handoff_to: [😀]}]\r\n",
    "workflow: {b: {roles: [{name: r, handoff_to: [r], gates: {pass_condition: }}]}}",
    "x: |\n  block\n  text\ny: >-\n  folded\n",
    "a:\n\tb: tab\n",
    "\"unterminated",
    "{\"workflow\": {\"\": {\"roles\": [{\"name\": \"\"}]}}}",
];

fn docs() -> CodeDocs {
    Arc::new(|code| {
        Some(CodeDoc {
            markdown: format!("docs of {code}"),
            href: Some("not a uri".to_string()),
        })
    })
}

#[test]
fn every_position_of_hostile_documents() {
    let uri: Uri = "file:///p/playbook.yaml".parse().expect("a valid URI");
    let docs = docs();
    for text in HOSTILE {
        for path in ["/p/playbook.yaml", "/p/x.playbook.json"] {
            let document = Document::analyse(path, None, text.to_string(), 1);
            let lines = text.lines().count() as u32 + 2;
            let _ = diagnostics::of(&document, &docs);
            let everything = Range::new(Position::new(0, 0), Position::new(lines, 0));
            let kinds = [CodeActionKind::QUICKFIX, CodeActionKind::SOURCE_FIX_ALL];
            let _ = actions::at(&document, &uri, everything, Some(&kinds), &docs);
            for (_, range) in &document.findings {
                assert!(range.start <= range.end, "{text:?}: {range:?}");
                assert!(range.end.line < lines, "{text:?}: {range:?}");
            }
            for line in 0..lines {
                for character in (0..40).chain([u32::MAX]) {
                    let at = Position::new(line, character);
                    let _ = hover::at(&document, at, &docs);
                    for item in complete::at(&document, at) {
                        assert!(!item.label.is_empty(), "{text:?}");
                        if let Some(CompletionTextEdit::Edit(edit)) = &item.text_edit {
                            let r = edit.range;
                            assert!(r.start <= r.end && r.end.line < lines, "{text:?}: {r:?}");
                            let width = text
                                .lines()
                                .nth(r.end.line as usize)
                                .map_or(0, |l| l.encode_utf16().count());
                            assert!(
                                r.end.character as usize <= width,
                                "{text:?} at {at:?}: {r:?}"
                            );
                        }
                    }
                    let _ = definition::at(&document, &uri, at);
                }
            }
        }
    }
}

#[test]
fn go_to_definition_survives_crlf_and_wide_characters() {
    let text = "id: x\r\nworkflow:\r\n  b:\r\n    roles:\r\n      - name: é😀\r\n        handoff_to: [é😀]\r\n";
    let uri: Uri = "file:///p/playbook.yaml".parse().expect("a valid URI");
    let document = Document::analyse("/p/playbook.yaml", None, text.to_string(), 1);
    let target = definition::at(&document, &uri, Position::new(5, 22)).expect("the role");
    // "é😀" is 3 UTF-16 units after `      - name: `.
    assert_eq!(target.range.start, Position::new(4, 14));
    assert_eq!(target.range.end, Position::new(4, 17));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(100))]

    /// Random text made of what YAML and JSON give meaning to, and random
    /// positions: every feature answers without a panic.
    #[test]
    fn random_text_at_random_positions(
        text in "([a-z_ ]{0,6}|[-:{}\\[\\],'\"#&*!|>?\\\\ \t\r\n]|é|😀|workflow|roles|name|handoff_to|  ){0,60}",
        line in 0u32..12,
        character in 0u32..30,
        json in proptest::bool::ANY,
    ) {
        let uri: Uri = "file:///p/playbook.yaml".parse().expect("a valid URI");
        let path = if json { "/p/playbook.json" } else { "/p/playbook.yaml" };
        let docs = docs();
        let document = Document::analyse(path, None, text, 1);
        let at = Position::new(line, character);
        let _ = diagnostics::of(&document, &docs);
        let _ = hover::at(&document, at, &docs);
        let _ = complete::at(&document, at);
        let _ = definition::at(&document, &uri, at);
        let kinds = [CodeActionKind::QUICKFIX, CodeActionKind::SOURCE_FIX_ALL];
        let _ = actions::at(&document, &uri, Range::new(Position::new(0, 0), at), Some(&kinds), &docs);
    }
}
