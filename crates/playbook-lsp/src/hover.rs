//! Hover: the schema's documentation of the field under the cursor, and the
//! documentation of every finding whose range holds the cursor.

use tower_lsp_server::ls_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};

use crate::CodeDocs;
use crate::document::Document;
use crate::schema::Field;

pub fn at(document: &Document, position: Position, docs: &CodeDocs) -> Option<Hover> {
    let (line, column) = document.index.char_column(&document.text, position);
    let mut sections = Vec::new();
    let mut range = None;
    if let Some(scalar) = document.outline.at(line, column)
        && let Some(section) = field_doc(&scalar.pointer, scalar.is_key)
    {
        sections.push(section);
        range = Some(
            document
                .index
                .char_range(&document.text, line, scalar.start, scalar.end),
        );
    }
    for (finding, finding_range) in &document.findings {
        if contains(finding_range, position) {
            let code = finding.code.as_str();
            let doc = docs(code);
            let mut section = format!("**{code}** {}", finding.code.title());
            if let Some(doc) = &doc {
                section.push_str("\n\n");
                section.push_str(&doc.markdown);
                if let Some(href) = &doc.href {
                    section.push_str(&format!("\n\n[{code} in the docs]({href})"));
                }
            }
            sections.push(section);
        }
    }
    if sections.is_empty() {
        return None;
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: sections.join("\n\n---\n\n"),
        }),
        range,
    })
}

/// `name` (type): description, with the values an enum takes.
fn field_doc(pointer: &str, is_key: bool) -> Option<String> {
    let field = Field::at(pointer)?;
    let description = field.description()?;
    let name = playbook_core::finding::pointer_tokens(pointer)
        .pop()
        .unwrap_or_default();
    let mut text = match (is_key, field.type_name()) {
        (true, Some(kind)) => format!("**{name}** ({kind})\n\n{description}"),
        _ => description.to_string(),
    };
    let values = field.values();
    if !values.is_empty() && field.type_name() != Some("boolean") {
        let list: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
        text.push_str(&format!("\n\nOne of: {}", list.join(", ")));
    }
    Some(text)
}

fn contains(range: &tower_lsp_server::ls_types::Range, position: Position) -> bool {
    range.start <= position && position <= range.end
}
