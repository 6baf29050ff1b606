//! Completion: field names where a key goes, and where a value goes the
//! values that fit: an enum's values, role names in `handoff_to`, policy
//! keys (built-in and the playbook's own) in gate fields, escalation
//! conditions in `escalate_on`.
//!
//! While the user types, the document is usually incomplete, so the place
//! of the cursor is not read from the parsed document: the text before the
//! cursor, with a marker where the cursor is, is parsed instead, and the
//! marker's pointer says what belongs there. YAML's indentation and JSON's
//! brackets before the cursor both decide the pointer, the same way the
//! real parser would.

use playbook_core::Format;
use playbook_core::finding::pointer_tokens;
use playbook_core::gate::BUILTIN_POLICIES;
use playbook_core::validate::ESCALATION_TRIGGERS;
use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, MarkupContent,
    MarkupKind, Position, Range, TextEdit,
};

use crate::document::Document;
use crate::outline::{self, Outline};
use crate::roles;
use crate::schema::Field;
use crate::text::LineIndex;

/// Stands for the cursor in the probe text: a plain scalar in any context.
const CURSOR: &str = "pbLspCursorMark";

/// Where the cursor is, as the probe parse saw it.
struct Site {
    pointer: String,
    is_key: bool,
    /// Keys already given before the cursor in the same mapping.
    siblings: Vec<String>,
}

pub fn at(document: &Document, position: Position) -> Vec<CompletionItem> {
    let text = document.text.as_str();
    let offset = document.index.offset(text, position);
    let before = &text[..offset];
    // The word being typed is replaced by the completion. YAML's and
    // JSON's delimiters are all ASCII, so any other character that is not
    // a space belongs to the word (an emoji, a combining mark).
    let word_start = before
        .char_indices()
        .rev()
        .take_while(|&(_, c)| {
            c.is_alphanumeric()
                || matches!(c, '_' | '-' | '.' | '$')
                || !(c.is_ascii() || c.is_whitespace() || c.is_control())
        })
        .last()
        .map_or(offset, |(i, _)| i);
    let quoted = text[..word_start].ends_with(['"', '\'']);
    let probe_end = if quoted { word_start - 1 } else { word_start };
    let prefix = &text[..probe_end];
    // A bare word in a block mapping is only a key once a `:` follows it.
    let Some(site) = probe(prefix, "").or_else(|| probe(prefix, ":")) else {
        return Vec::new();
    };
    // From the clamped offsets, so a position past the end of the line
    // still yields a range inside the text.
    let range = Range::new(
        document.index.position_of(text, word_start),
        document.index.position_of(text, offset),
    );
    let style = Style {
        format: document.format,
        quoted,
        range,
    };
    if site.is_key {
        let parent = parent_of(&site.pointer);
        return fields(&parent, &site.siblings, &style);
    }
    if Field::at(&site.pointer).is_some_and(|f| f.is_object()) {
        // `- ` in a list of objects (a new role): its fields.
        return fields(&site.pointer, &[], &style);
    }
    values(&site.pointer, &document.outline, &style)
}

fn probe(prefix: &str, suffix: &str) -> Option<Site> {
    let text = format!("{prefix}{CURSOR}{suffix}");
    let index = LineIndex::new(&text);
    let mut site = None;
    outline::walk(&text, &index, |scalar, context| {
        if scalar.value != CURSOR {
            return true;
        }
        site = Some(Site {
            pointer: scalar.pointer,
            is_key: scalar.is_key,
            siblings: context.sibling_keys.to_vec(),
        });
        false
    });
    site
}

fn parent_of(pointer: &str) -> String {
    pointer
        .rfind('/')
        .map_or_else(String::new, |i| pointer[..i].to_string())
}

struct Style {
    format: Format,
    quoted: bool,
    range: Range,
}

impl Style {
    fn item(&self, label: &str, new_text: String, kind: CompletionItemKind) -> CompletionItem {
        CompletionItem {
            label: label.to_string(),
            kind: Some(kind),
            filter_text: Some(label.to_string()),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                range: self.range,
                new_text,
            })),
            ..CompletionItem::default()
        }
    }

    fn key(&self, name: &str) -> String {
        match (self.format, self.quoted) {
            (Format::Yaml, false) => format!("{name}: "),
            (Format::Yaml, true) | (Format::Json, true) => name.to_string(),
            (Format::Json, false) => format!("\"{name}\": "),
        }
    }

    fn value(&self, value: &str, is_string: bool) -> String {
        match (self.format, self.quoted, is_string) {
            (Format::Json, false, true) => format!("\"{value}\""),
            _ => value.to_string(),
        }
    }
}

fn fields(parent: &str, siblings: &[String], style: &Style) -> Vec<CompletionItem> {
    let Some(field) = Field::at(parent) else {
        return Vec::new();
    };
    field
        .properties()
        .into_iter()
        .filter(|p| !siblings.iter().any(|s| s == p.name))
        .map(|p| {
            let mut item = style.item(p.name, style.key(p.name), CompletionItemKind::FIELD);
            if Field::is_required(parent, p.name) {
                item.detail = Some("required".to_string());
            }
            item.documentation = p.description.map(markdown);
            item
        })
        .collect()
}

fn values(pointer: &str, outline: &Outline, style: &Style) -> Vec<CompletionItem> {
    if roles::is_handoff_entry(pointer) {
        // A set, not a list searched per name: a playbook may have tens of
        // thousands of roles, and a list made each completion quadratic.
        let mut seen = std::collections::HashSet::new();
        return roles::names(outline)
            .filter(|name| name.value != CURSOR)
            .filter_map(|name| {
                if !seen.insert(name.value.as_str()) {
                    return None;
                }
                let stage = pointer_tokens(&name.pointer)
                    .get(1)
                    .cloned()
                    .unwrap_or_default();
                let mut item = style.item(
                    &name.value,
                    style.value(&name.value, true),
                    CompletionItemKind::REFERENCE,
                );
                item.detail = Some(format!("role of stage `{stage}`"));
                Some(item)
            })
            .collect();
    }
    if roles::is_gate(pointer) {
        let builtin = BUILTIN_POLICIES.iter().map(|p| {
            let mut item = style.item(
                p.key,
                style.value(p.key, true),
                CompletionItemKind::CONSTANT,
            );
            item.detail = Some("built-in policy".to_string());
            item.documentation = Some(markdown(p.description));
            item
        });
        let own = roles::policy_keys(outline).map(|key| {
            let mut item = style.item(
                &key.value,
                style.value(&key.value, true),
                CompletionItemKind::VARIABLE,
            );
            item.detail = Some("policy of this playbook".to_string());
            item
        });
        return own.chain(builtin).collect();
    }
    if roles::is_escalation(pointer) {
        return ESCALATION_TRIGGERS
            .iter()
            .map(|t| style.item(t, style.value(t, true), CompletionItemKind::ENUM_MEMBER))
            .collect();
    }
    let Some(field) = Field::at(pointer) else {
        return Vec::new();
    };
    let is_string = field.type_name() != Some("boolean");
    field
        .values()
        .into_iter()
        .map(|v| {
            style.item(
                v,
                style.value(v, is_string),
                CompletionItemKind::ENUM_MEMBER,
            )
        })
        .collect()
}

fn markdown(text: &str) -> Documentation {
    Documentation::MarkupContent(MarkupContent {
        kind: MarkupKind::Markdown,
        value: text.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(text: &str, line: u32, character: u32) -> Vec<String> {
        let document = Document::analyse("/p/playbook.yaml", None, text.to_string(), 1);
        at(&document, Position::new(line, character))
            .into_iter()
            .map(|i| i.label)
            .collect()
    }

    const ROLES: &str = "workflow:\n  build:\n    roles:\n      - name: coder\n        handoff_to: [rev]\n      - name: reviewer\n        mode: \n";

    #[test]
    fn role_names_in_handoff_to() {
        let names = labels(ROLES, 4, 22);
        assert_eq!(names, ["coder", "reviewer"]);
    }

    #[test]
    fn enum_values_and_fields() {
        assert_eq!(
            labels(ROLES, 6, 14),
            ["planner", "worker", "reviewer", "tester"]
        );
        let text = "workflow:\n  build:\n    roles:\n      - name: coder\n        han\n";
        let fields = labels(text, 4, 11);
        assert!(fields.contains(&"handoff_to".to_string()));
        assert!(!fields.contains(&"name".to_string()));
        let top = labels("id: x\n\n", 1, 0);
        assert!(top.contains(&"workflow".to_string()) && !top.contains(&"id".to_string()));
    }

    #[test]
    fn block_lists_new_roles_and_quoted_values() {
        let text = "workflow:\n  build:\n    roles:\n      - name: coder\n        handoff_to:\n          - \n      - name: tester\n";
        assert_eq!(labels(text, 5, 12), ["coder", "tester"]);
        let text = "workflow:\n  build:\n    roles:\n      - name: coder\n      - \n";
        let fields = labels(text, 4, 8);
        assert!(fields.contains(&"name".to_string()) && fields.contains(&"mode".to_string()));
        let text = "workflow:\n  build:\n    roles:\n      - name: coder\n        mode: \"re\n";
        assert!(labels(text, 4, 19).contains(&"reviewer".to_string()));
        let text = "workflow:\n  b:\n    roles:\n      - name: a\n        retry_policy:\n          escalate_on: [ret\n";
        assert!(labels(text, 5, 27).contains(&"retry_limit".to_string()));
        // Free text has nothing to offer; neither does a comment.
        assert!(labels("description: some te\n", 0, 20).is_empty());
    }

    /// Regression: the word being typed was cut at the first character
    /// that is not alphanumeric, so a role name that starts with an emoji
    /// or holds a combining mark (`é` as `e` + U+0301) had no completion
    /// once its first character was typed.
    #[test]
    fn names_beyond_letters_and_digits_complete() {
        let text = "workflow:\n  b:\n    roles:\n      - name: 😀bot\n      - name: e\u{301}tude\n        handoff_to: [😀";
        // The cursor after the emoji: two UTF-16 units past the `[`.
        let document = Document::analyse("/p/playbook.yaml", None, text.to_string(), 1);
        let items = at(&document, Position::new(5, 23));
        let bot = items.iter().find(|i| i.label == "😀bot").expect("the role");
        let Some(CompletionTextEdit::Edit(edit)) = &bot.text_edit else {
            panic!("an edit");
        };
        assert_eq!(
            edit.range,
            Range::new(Position::new(5, 21), Position::new(5, 23))
        );
        let text = text.replace("[😀", "[e\u{301}");
        assert!(labels(&text, 5, 23).contains(&"e\u{301}tude".to_string()));
    }

    #[test]
    fn policies_in_gates() {
        let text =
            "policies:\n  mine: \"true\"\nworkflow:\n  b:\n    stage_policy:\n      exit_gate: \n";
        let keys = labels(text, 5, 17);
        assert!(keys.contains(&"mine".to_string()) && keys.contains(&"plan_ready".to_string()));
    }

    #[test]
    fn json_keys_and_values() {
        let text = "{\"workflow\": {\"b\": {\"roles\": [{\"name\": \"a\", \"mode\": \"";
        let document = Document::analyse("/p/x.playbook.json", None, text.to_string(), 1);
        let items = at(&document, Position::new(0, text.len() as u32));
        assert!(items.iter().any(|i| i.label == "tester"));
        let text = "{\"workflow\": {\"b\": {\"roles\": [{\"name\": \"a\", \"ha";
        let document = Document::analyse("/p/x.playbook.json", None, text.to_string(), 1);
        let items = at(&document, Position::new(0, text.len() as u32));
        assert!(items.iter().any(|i| i.label == "handoff_to"));
    }
}
