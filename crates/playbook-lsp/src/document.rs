//! One open file and what the server knows about it, recomputed on every
//! change (full text sync: the client sends the whole text each time).

use playbook_core::{Finding, Format, MAX_DOCUMENT_BYTES, Options, Session};
use tower_lsp_server::ls_types::{Position, Range};

use crate::detect;
use crate::outline::Outline;
use crate::text::LineIndex;

pub struct Document {
    pub text: String,
    pub version: i32,
    pub format: Format,
    /// The language id the client opened it with (`yaml`, `json`...).
    pub language: Option<String>,
    pub index: LineIndex,
    pub outline: Outline,
    /// Whether the file is linted at all (see [`detect`]).
    pub is_playbook: bool,
    /// The findings of the last validation, each with its range.
    pub findings: Vec<(Finding, Range)>,
    /// The options it was validated with, which fixing all uses too (as
    /// `playbook fix` does for the file).
    pub options: Options,
    /// The last validation's parse, from which the next text (a keystroke
    /// later) is parsed where only one block entry changed.
    pub session: Session,
}

impl Document {
    #[cfg(test)]
    pub fn analyse(uri_path: &str, language: Option<&str>, text: String, version: i32) -> Document {
        Document::analyse_after(uri_path, language, text, version, Session::default())
    }

    /// [`Self::analyse`], parsing the text from the session of the
    /// document's previous text.
    pub fn analyse_after(
        uri_path: &str,
        language: Option<&str>,
        text: String,
        version: i32,
        mut session: Session,
    ) -> Document {
        let format = format_of(uri_path, language, &text);
        let mut document = Document::unchecked(text, format, version);
        document.language = language.map(str::to_string);
        document.is_playbook = detect::by_name(uri_path)
            || (document.text.len() <= MAX_DOCUMENT_BYTES
                && detect::by_content(&document.text, &document.outline));
        if document.is_playbook {
            // A legacy (agenterm) file without `id` takes its id from its name.
            let options = Options {
                file_name: uri_path
                    .rsplit('/')
                    .next()
                    .filter(|name| !name.is_empty())
                    .map(str::to_string),
                ..Options::default()
            };
            let report = session.check(&document.text, format, &options);
            document.options = options;
            document.session = session;
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

    /// A playbook's text for completion and hover only, not validated: the
    /// program embedding the library has its own findings (the app's
    /// Source tab checks the text on every change already).
    pub fn unchecked(text: String, format: Format, version: i32) -> Document {
        let index = LineIndex::new(&text);
        // Beyond the core's limit nothing is parsed: the core reports PB005
        // for a playbook by name, and any other file is left alone.
        let too_large = text.len() > MAX_DOCUMENT_BYTES;
        let outline = if too_large {
            Outline::default()
        } else {
            Outline::new(&text, &index)
        };
        Document {
            text,
            version,
            format,
            language: None,
            index,
            outline,
            is_playbook: true,
            findings: Vec::new(),
            options: Options::default(),
            session: Session::default(),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(path: &str, text: &str, code: &str) -> Vec<Range> {
        Document::analyse(path, None, text.to_string(), 1)
            .findings
            .into_iter()
            .filter(|(f, _)| f.code.as_str() == code)
            .map(|(_, r)| r)
            .collect()
    }

    #[test]
    fn json_syntax_errors_are_placed_by_character_not_byte() {
        // serde_json says column 16 (bytes); `x` is the 15th character.
        let found = ranges("/p/playbook.json", "{\"name\": \"é\", x}", "PB001");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].start, Position::new(0, 14));
    }

    #[test]
    fn json_duplicate_keys_are_both_marked_on_their_keys() {
        let text = "{\"é\": 1,\n \"é\": 2}";
        let found = ranges("/p/playbook.json", text, "PB007");
        assert_eq!(found.len(), 2, "{found:?}");
        let mut starts: Vec<Position> = found.iter().map(|r| r.start).collect();
        starts.sort();
        assert_eq!(starts, [Position::new(0, 1), Position::new(1, 1)]);
        assert!(
            found
                .iter()
                .all(|r| r.end.character == r.start.character + 3)
        );
    }

    /// Regression (sweep C): a JSON playbook with a surrogate-pair escape
    /// (`"\ud83d\ude80"`) had every diagnostic at 0:0 and no outline.
    #[test]
    fn json_with_surrogate_pair_escapes_is_placed() {
        let text = "{\n  \"name\": \"Ship it \\ud83d\\ude80\",\n  \"schema_version\": \"1.0.0\",\n  \"id\": \"x\",\n  \"workflow\": {\"b\": {\"stage_policy\": {\"max_parallel_worktrees\": 0}, \"roles\": [{\"name\": \"w\", \"mode\": \"worker\", \"allowed_agents\": [\"codex\"], \"inputs_required\": [\"task\"], \"outputs_contract\": {\"type\": \"work_result\", \"required\": [\"commit_sha\"]}, \"actions_allowed\": [\"read_file\"], \"gates\": {\"pass_condition\": \"always\"}, \"handoff_to\": []}]}}\n}\n";
        let found = ranges("/p/playbook.json", text, "PB102");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].start, Position::new(4, 38), "{found:?}");
        let document = Document::analyse("/p/playbook.json", None, text.to_string(), 1);
        assert!(
            document
                .outline
                .at(1, 14)
                .is_some_and(|s| s.value == "Ship it 🚀")
        );
    }

    /// Regression (sweep C): lone `\r` line ends put every diagnostic on
    /// line 0; the core counts them as line ends, and so does the server.
    #[test]
    fn lone_cr_line_ends_place_diagnostics_on_their_line() {
        let text = "schema_version: 1.0.0\rid: d\rname: D\rworkflow:\r  build:\r    stage_policy: {max_parallel_worktrees: 0}\r";
        let found = ranges("/p/playbook.yaml", text, "PB102");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].start, Position::new(5, 19), "{found:?}");
    }

    #[test]
    fn other_files_are_not_validated() {
        let document = Document::analyse("/p/compose.yaml", Some("yaml"), "a: [".to_string(), 1);
        assert!(!document.is_playbook && document.findings.is_empty());
        let big = format!("x: {}", "a".repeat(MAX_DOCUMENT_BYTES));
        let document = Document::analyse("/p/data.yaml", None, big, 1);
        assert!(!document.is_playbook);
    }

    #[test]
    fn each_change_is_diagnosed_as_a_fresh_analysis_is() {
        let mut text = include_str!("../../../playbooks/tdd.yaml").to_string();
        let mut document = Document::analyse("/p/tdd.yaml", None, text.clone(), 1);
        let at = text.find("handoff_to: [").unwrap() + "handoff_to: [".len();
        for version in 2..14 {
            if version < 8 {
                text.insert(at, 'q');
            } else {
                text.remove(at);
            }
            let session = std::mem::take(&mut document.session);
            document = Document::analyse_after("/p/tdd.yaml", None, text.clone(), version, session);
            let fresh = Document::analyse("/p/tdd.yaml", None, text.clone(), version);
            assert_eq!(document.findings, fresh.findings, "version {version}");
        }
        assert!(
            document.session.parsed_part_only(),
            "a keystroke parses only its entry"
        );
    }
}
