//! The server's completion and hover as plain functions, for a program that
//! shows a playbook's text in its own editor without speaking the protocol
//! (the desktop app's Source tab). The same code answers the server's
//! requests, so an editor talking LSP and the app offer the same things.
//!
//! Positions are the protocol's: 0-based lines, columns in UTF-16 code
//! units, which is also how a JavaScript string counts. Every position is
//! clamped to the text, and a panic in the analysis (a defect) yields
//! nothing rather than taking the caller down.

use std::panic::{AssertUnwindSafe, catch_unwind};

use playbook_core::Format;
use tower_lsp_server::ls_types::{
    self, CompletionItemKind, CompletionTextEdit, Documentation, HoverContents, MarkedString,
};

use crate::document::Document;
use crate::{CodeDocs, complete, hover};

/// A place in the text: 0-based line, 0-based column in UTF-16 code units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

/// What a completion offers, for the editor to pick an icon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionKind {
    /// A field name of the schema.
    Field,
    /// A role name of this playbook (`handoff_to`).
    Role,
    /// A built-in gate policy.
    BuiltinPolicy,
    /// A policy key of this playbook.
    OwnPolicy,
    /// A value of an enum.
    Value,
}

/// One completion: `insert` replaces the text from `from` to `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    /// A short note: "required", "role of stage `build`"...
    pub detail: Option<String>,
    /// The schema's description, as Markdown.
    pub documentation: Option<String>,
    pub insert: String,
    pub from: Position,
    pub to: Position,
}

/// The documentation of what is under a position, as Markdown, and the
/// range of the key or value it is about when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoverText {
    pub markdown: String,
    pub range: Option<(Position, Position)>,
}

/// The completions at `position` of a playbook's `text`.
pub fn completions(text: &str, format: Format, position: Position) -> Vec<Completion> {
    guarded(|| {
        let document = Document::unchecked(text.to_string(), format, 0);
        complete::at(&document, lsp(position))
            .into_iter()
            .filter_map(|item| {
                let Some(CompletionTextEdit::Edit(edit)) = item.text_edit else {
                    return None;
                };
                Some(Completion {
                    kind: kind_of(item.kind),
                    detail: item.detail,
                    documentation: item.documentation.map(|d| match d {
                        Documentation::String(s) => s,
                        Documentation::MarkupContent(m) => m.value,
                    }),
                    label: item.label,
                    insert: edit.new_text,
                    from: ours(edit.range.start),
                    to: ours(edit.range.end),
                })
            })
            .collect()
    })
    .unwrap_or_default()
}

/// The schema's documentation of the field (or value) at `position`. The
/// findings are not part of it: the caller shows its own.
pub fn hover(text: &str, format: Format, position: Position) -> Option<HoverText> {
    guarded(|| {
        let document = Document::unchecked(text.to_string(), format, 0);
        let no_docs: CodeDocs = std::sync::Arc::new(|_| None);
        let found = hover::at(&document, lsp(position), &no_docs)?;
        let markdown = match found.contents {
            HoverContents::Markup(m) => m.value,
            HoverContents::Scalar(MarkedString::String(s)) => s,
            HoverContents::Scalar(MarkedString::LanguageString(s)) => s.value,
            HoverContents::Array(parts) => parts
                .into_iter()
                .map(|p| match p {
                    MarkedString::String(s) => s,
                    MarkedString::LanguageString(s) => s.value,
                })
                .collect::<Vec<_>>()
                .join("\n\n"),
        };
        Some(HoverText {
            markdown,
            range: found.range.map(|r| (ours(r.start), ours(r.end))),
        })
    })
    .flatten()
}

fn guarded<T>(work: impl FnOnce() -> T) -> Option<T> {
    catch_unwind(AssertUnwindSafe(work)).ok()
}

fn kind_of(kind: Option<CompletionItemKind>) -> CompletionKind {
    match kind {
        Some(CompletionItemKind::FIELD) => CompletionKind::Field,
        Some(CompletionItemKind::REFERENCE) => CompletionKind::Role,
        Some(CompletionItemKind::CONSTANT) => CompletionKind::BuiltinPolicy,
        Some(CompletionItemKind::VARIABLE) => CompletionKind::OwnPolicy,
        _ => CompletionKind::Value,
    }
}

fn lsp(position: Position) -> ls_types::Position {
    ls_types::Position::new(position.line, position.character)
}

fn ours(position: ls_types::Position) -> Position {
    Position {
        line: position.line,
        character: position.character,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROLES: &str = "workflow:\n  build:\n    roles:\n      - name: coder\n        handoff_to: [rev]\n      - name: reviewer\n        mode: \n";

    fn at(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn role_names_replace_the_word_being_typed() {
        // The cursor after `rev` in `handoff_to: [rev]`.
        let found = completions(ROLES, Format::Yaml, at(4, 24));
        let reviewer = found
            .iter()
            .find(|c| c.label == "reviewer")
            .expect("reviewer is offered");
        assert_eq!(reviewer.kind, CompletionKind::Role);
        assert_eq!(reviewer.insert, "reviewer");
        assert_eq!((reviewer.from, reviewer.to), (at(4, 21), at(4, 24)));
    }

    #[test]
    fn fields_carry_their_documentation() {
        let text = "workflow:\n  build:\n    roles:\n      - name: coder\n        han\n";
        let found = completions(text, Format::Yaml, at(4, 11));
        let handoff = found
            .iter()
            .find(|c| c.label == "handoff_to")
            .expect("handoff_to is offered");
        assert_eq!(handoff.kind, CompletionKind::Field);
        assert_eq!(handoff.insert, "handoff_to: ");
        assert!(
            handoff
                .documentation
                .as_deref()
                .is_some_and(|d| !d.is_empty())
        );
    }

    #[test]
    fn hover_documents_a_field_and_its_values() {
        let found = hover(ROLES, Format::Yaml, at(6, 9)).expect("mode is documented");
        assert!(found.markdown.contains("**mode**"), "{}", found.markdown);
        assert!(found.markdown.contains("`reviewer`"), "{}", found.markdown);
        assert_eq!(found.range, Some((at(6, 8), at(6, 12))));
        // Findings are the caller's: a broken document still has field docs
        // and never a finding's text.
        let broken = "workflow:\n  build:\n    roles:\n      - name: coder\n        mode: nope\n";
        let found = hover(broken, Format::Yaml, at(4, 9)).expect("mode is documented");
        assert!(!found.markdown.contains("PB"), "{}", found.markdown);
    }

    #[test]
    fn positions_anywhere_never_fail() {
        for text in ["", "\u{feff}", "a: é😀\r\n", "{\"a\": [", "- - - ["] {
            for format in [Format::Yaml, Format::Json] {
                for line in 0..4 {
                    for character in [0, 1, 2, 5, 6, 99, u32::MAX] {
                        let p = at(line, character);
                        for c in completions(text, format, p) {
                            assert!(c.from <= c.to, "{text:?} {p:?}: {c:?}");
                        }
                        let _ = hover(text, format, p);
                    }
                }
            }
        }
    }
}
