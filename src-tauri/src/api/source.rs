//! Completion and hover for the Source tab's editor: the language server's
//! own answers (`playbook_lsp::embedded`), in the UI's shape. Positions are
//! 0-based lines and UTF-16 columns, as a JavaScript string counts.

use playbook_lsp::embedded::{self, CompletionKind};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A place in the Source text: 0-based line, column in UTF-16 code units.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SourcePosition {
    pub line: u32,
    pub character: u32,
}

/// What a completion is, for the editor's icon.
#[derive(Debug, Clone, Copy, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum SourceCompletionKind {
    Field,
    Role,
    BuiltinPolicy,
    OwnPolicy,
    Value,
}

/// One completion: `insert` replaces the text from `from` to `to`.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct SourceCompletion {
    pub label: String,
    pub kind: SourceCompletionKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub detail: Option<String>,
    /// The schema's description, as Markdown.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub documentation: Option<String>,
    pub insert: String,
    pub from: SourcePosition,
    pub to: SourcePosition,
}

/// The documentation of the field under a position, as Markdown.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct SourceHover {
    pub markdown: String,
    /// The key or value it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub from: Option<SourcePosition>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub to: Option<SourcePosition>,
}

impl From<SourcePosition> for embedded::Position {
    fn from(p: SourcePosition) -> Self {
        embedded::Position {
            line: p.line,
            character: p.character,
        }
    }
}

impl From<embedded::Position> for SourcePosition {
    fn from(p: embedded::Position) -> Self {
        SourcePosition {
            line: p.line,
            character: p.character,
        }
    }
}

impl From<embedded::Completion> for SourceCompletion {
    fn from(c: embedded::Completion) -> Self {
        SourceCompletion {
            label: c.label,
            kind: match c.kind {
                CompletionKind::Field => SourceCompletionKind::Field,
                CompletionKind::Role => SourceCompletionKind::Role,
                CompletionKind::BuiltinPolicy => SourceCompletionKind::BuiltinPolicy,
                CompletionKind::OwnPolicy => SourceCompletionKind::OwnPolicy,
                CompletionKind::Value => SourceCompletionKind::Value,
            },
            detail: c.detail,
            documentation: c.documentation,
            insert: c.insert,
            from: c.from.into(),
            to: c.to.into(),
        }
    }
}

impl From<embedded::HoverText> for SourceHover {
    fn from(h: embedded::HoverText) -> Self {
        SourceHover {
            markdown: h.markdown,
            from: h.range.map(|(from, _)| from.into()),
            to: h.range.map(|(_, to)| to.into()),
        }
    }
}
