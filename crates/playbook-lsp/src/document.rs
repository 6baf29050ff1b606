//! One open file and what the server knows about it, recomputed on every
//! change (full text sync: the client sends the whole text each time).

use playbook_core::{Finding, Format, MAX_DOCUMENT_BYTES, Options, validate_source};
use tower_lsp_server::ls_types::{Position, Range};

use crate::detect;
use crate::outline::Outline;
use crate::text::LineIndex;

pub struct Document {
    pub text: String,
    pub version: i32,
    pub format: Format,
    pub index: LineIndex,
    pub outline: Outline,
    /// Whether the file is linted at all (see [`detect`]).
    pub is_playbook: bool,
    /// The findings of the last validation, each with its range.
    pub findings: Vec<(Finding, Range)>,
}

impl Document {
    pub fn analyse(uri_path: &str, language: Option<&str>, text: String, version: i32) -> Document {
        let format = format_of(uri_path, language, &text);
        let index = LineIndex::new(&text);
        // Beyond the core's limit nothing is parsed: the core reports PB005
        // for a playbook by name, and any other file is left alone.
        let too_large = text.len() > MAX_DOCUMENT_BYTES;
        let outline = if too_large {
            Outline::default()
        } else {
            Outline::new(&text, &index)
        };
        let is_playbook =
            detect::by_name(uri_path) || (!too_large && detect::by_content(&text, &outline));
        let mut document = Document {
            text,
            version,
            format,
            index,
            outline,
            is_playbook,
            findings: Vec::new(),
        };
        if is_playbook {
            let report = validate_source(&document.text, format, &Options::default());
            document.findings = report
                .findings
                .into_iter()
                .map(|f| {
                    let range = document.range_of(&f);
                    (f, range)
                })
                .collect();
        }
        document
    }

    /// Where a finding is: from its line and column to the end of the key or
    /// value there; the start of the file when the finding has no place.
    fn range_of(&self, finding: &Finding) -> Range {
        let Some(location) = finding.location else {
            return Range::new(Position::new(0, 0), Position::new(0, 0));
        };
        let text = &self.text;
        // serde_json counts columns in bytes; the core's own walk, in characters.
        let from_serde_json = self.format == Format::Json
            && matches!(
                finding.code,
                playbook_core::Code::Syntax | playbook_core::Code::DuplicateKey
            );
        let start = if from_serde_json {
            self.index
                .position_at_byte(text, location.line, location.column)
        } else {
            self.index
                .position_at_char(text, location.line, location.column)
        };
        let (line, column) = self.index.char_column(text, start);
        let on_line = self.outline.on_line(line);
        let scalar = on_line.iter().find(|s| s.start == column).or_else(|| {
            // A duplicate key located by serde_json (just past the key):
            // the key of that pointer on the line.
            from_serde_json
                .then(|| {
                    on_line
                        .iter()
                        .find(|s| s.is_key && s.pointer == finding.path)
                })
                .flatten()
        });
        match scalar {
            Some(s) => self
                .index
                .char_range(text, line, s.start, s.end.max(s.start + 1)),
            None => {
                let content: Vec<char> = self.index.line(text, line).chars().collect();
                let token_end = content
                    .iter()
                    .skip(column)
                    .position(|c| c.is_whitespace() || matches!(c, ',' | ']' | '}'))
                    .map_or(content.len(), |n| column + n);
                let end = token_end.max((column + 1).min(content.len()));
                self.index.char_range(text, line, column, end)
            }
        }
    }
}

/// JSON by extension or language id, YAML by extension; otherwise what the
/// text looks like.
fn format_of(uri_path: &str, language: Option<&str>, text: &str) -> Format {
    let lower = uri_path.to_ascii_lowercase();
    if lower.ends_with(".json") || matches!(language, Some("json" | "jsonc")) {
        Format::Json
    } else if lower.ends_with(".yaml") || lower.ends_with(".yml") || language == Some("yaml") {
        Format::Yaml
    } else {
        Format::sniff(text)
    }
}
