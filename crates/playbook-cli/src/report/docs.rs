//! What a report says about each rule, taken from the documentation a
//! person would read: `docs/lints.md` for the lint codes, the matching
//! section of `docs/error-codes.md` for contract and validator codes.
//!
//! The text is compiled in, so a report carries the same explanation as the
//! docs of the build that produced it, offline.

use playbook_contracts::ValidatorCode;
use playbook_contracts::code::ErrorCode;
use playbook_core::{Code, Severity};

const LINTS_MD: &str = include_str!("../../../../docs/lints.md");

/// Environment variable naming where the docs folder is published (e.g.
/// `https://github.com/OWNER/REPO/blob/v1.2.0/docs/`); read at run time,
/// else taken from the build's environment. Reports link rules only when it
/// is an absolute `http(s)` URL, because SARIF requires absolute help links.
pub const DOCS_URL_VAR: &str = "PLAYBOOK_DOCS_URL";

/// Documentation of one rule.
pub struct RuleDoc {
    /// The stable code, e.g. `PB301`.
    pub id: String,
    /// An identifier-like name, e.g. `UnknownHandoff`.
    pub name: String,
    /// One line: the code's title.
    pub title: String,
    /// The rule's section of the docs, as Markdown.
    pub markdown: String,
    /// The severity a finding has unless options change it.
    pub default_severity: Severity,
    /// Docs file and anchor, relative to the docs folder (`lints.md#pb301--...`).
    pub doc_ref: String,
}

impl RuleDoc {
    /// The documentation of a lint code, from its section in docs/lints.md
    /// (its title alone if the section is missing).
    pub fn lint(code: Code) -> RuleDoc {
        let id = code.as_str();
        let (heading, body) = lint_section(id).unwrap_or((id, String::new()));
        RuleDoc {
            id: id.to_string(),
            name: format!("{code:?}"),
            title: code.title().to_string(),
            markdown: if body.is_empty() {
                code.title().to_string()
            } else {
                body
            },
            default_severity: code.default_severity(),
            doc_ref: format!("lints.md#{}", github_anchor(heading)),
        }
    }

    /// The documentation of any code a validate report can carry: a lint
    /// code, an orchestrator code (envelope checks) or a validator code
    /// (files that cannot be read). `None` for a code documented nowhere.
    pub fn of(code: &str) -> Option<RuleDoc> {
        if let Some(lint) = Code::ALL.iter().find(|c| c.as_str() == code) {
            return Some(RuleDoc::lint(*lint));
        }
        let (name, title, section) = if let Some(c) = ErrorCode::parse(code) {
            (format!("{c:?}"), c.title(), ErrorCode::DOC_SECTION)
        } else if let Some(c) = ValidatorCode::parse(code) {
            (format!("{c:?}"), c.title(), ValidatorCode::DOC_SECTION)
        } else {
            return None;
        };
        Some(RuleDoc {
            id: code.to_string(),
            name,
            title: title.to_string(),
            markdown: format!("{title}\n\nSee the {section} section of docs/error-codes.md."),
            default_severity: Severity::Error,
            doc_ref: format!("error-codes.md#{}", github_anchor(section)),
        })
    }

    /// The section as plain text: Markdown emphasis and code marks removed,
    /// the doc's hard-wrapped lines joined into paragraphs.
    pub fn text(&self) -> String {
        self.markdown
            .replace("**", "")
            .replace('`', "")
            .split("\n\n")
            .map(|paragraph| paragraph.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// An absolute link to the rule's docs, when the docs URL is known.
    pub fn help_uri(&self) -> Option<String> {
        docs_url().map(|base| format!("{base}{}", self.doc_ref))
    }
}

/// The published docs folder, ending in `/`, if configured and absolute.
pub fn docs_url() -> Option<String> {
    let configured = std::env::var(DOCS_URL_VAR)
        .ok()
        .or_else(|| option_env!("PLAYBOOK_DOCS_URL").map(str::to_string))?;
    let trimmed = configured.trim();
    let absolute = (trimmed.starts_with("https://") || trimmed.starts_with("http://"))
        && !trimmed.chars().any(|c| c.is_whitespace() || c.is_control());
    if !absolute {
        return None;
    }
    Some(if trimmed.ends_with('/') {
        trimmed.to_string()
    } else {
        format!("{trimmed}/")
    })
}

/// The heading text and body of `### CODE — ...` in docs/lints.md. The doc's
/// own structure (one level-3 heading per code, body up to the next
/// heading) is what a reader relies on too; a test keeps every code there.
fn lint_section(code: &str) -> Option<(&'static str, String)> {
    let mut lines = LINTS_MD.lines();
    let heading = lines.find_map(|line| {
        let title = line.strip_prefix("### ")?;
        let rest = title.strip_prefix(code)?;
        rest.starts_with(' ').then_some(title)
    })?;
    let body: Vec<&str> = lines.take_while(|line| !line.starts_with('#')).collect();
    Some((heading, body.join("\n").trim().to_string()))
}

/// The anchor GitHub gives a Markdown heading: lower case, punctuation
/// dropped (letters, digits, `_` and `-` kept), each space a `-`.
pub fn github_anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lint_code_has_its_section_in_the_docs() {
        for code in Code::ALL {
            let doc = lint_section(code.as_str());
            assert!(doc.is_some(), "docs/lints.md has no `### {code} — ...`");
            let (_, body) = doc.unwrap_or_default();
            assert!(!body.is_empty(), "the section of {code} is empty");
        }
    }

    #[test]
    fn anchors_match_what_github_renders() {
        assert_eq!(
            github_anchor("PB001 — syntax error (error)"),
            "pb001--syntax-error-error"
        );
        assert_eq!(
            github_anchor("PB203 — reviewer without `spec_path` / `commit_sha` (warning)"),
            "pb203--reviewer-without-spec_path--commit_sha-warning"
        );
        assert_eq!(github_anchor("Validator"), "validator");
    }

    #[test]
    fn contract_and_validator_codes_are_documented_too() {
        let read = RuleDoc::of("READ_ERROR").map(|d| d.doc_ref);
        assert_eq!(read.as_deref(), Some("error-codes.md#validator"));
        let result = RuleDoc::of("RESULT_INVALID").map(|d| d.doc_ref);
        assert_eq!(result.as_deref(), Some("error-codes.md#orchestrator"));
        assert!(RuleDoc::of("NOT_A_CODE").is_none());
    }
}
