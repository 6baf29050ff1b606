//! `validate --format github`: GitHub Actions workflow commands, so each
//! finding shows as an annotation on the pull request's changed file.
//!
//! One line per finding, `::error file=F,line=L,col=C,title=CODE::message`.
//! Every value is escaped as the Actions toolkit documents it, because file
//! names and messages carry text from the playbook: an unescaped newline
//! would end the command and start another (`::set-env...`) of the author's
//! choosing.

use std::fmt::Write;

use playbook_contracts::ValidatorCode;
use playbook_core::Severity;

use crate::authoring::FileOutcome;

/// The workflow commands of a validate run, one line per finding.
pub fn render(outcomes: &[FileOutcome]) -> String {
    let mut out = String::new();
    for outcome in outcomes {
        if let Some(error) = &outcome.read_error {
            command(
                &mut out,
                Severity::Error,
                &outcome.file,
                None,
                ValidatorCode::ReadError.as_str(),
                error,
            );
        }
        for f in &outcome.findings {
            let message = if f.hint.is_empty() {
                f.message.clone()
            } else {
                format!("{}\nhint: {}", f.message, f.hint)
            };
            let at = f.location.map(|l| (l.line, l.column));
            command(&mut out, f.severity, &outcome.file, at, &f.code, &message);
        }
    }
    out
}

fn command(
    out: &mut String,
    severity: Severity,
    file: &str,
    at: Option<(usize, usize)>,
    code: &str,
    message: &str,
) {
    let name = match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut properties = Vec::new();
    // Standard input has no file to annotate.
    if file != "-" {
        properties.push(format!("file={}", escape_property(&annotation_path(file))));
    }
    if let Some((line, column)) = at.filter(|(line, _)| *line >= 1) {
        properties.push(format!("line={line}"));
        if column >= 1 {
            properties.push(format!("col={column}"));
        }
    }
    properties.push(format!("title={}", escape_property(code)));
    // Writing into a String cannot fail.
    let _ = writeln!(
        out,
        "::{name} {}::{}",
        properties.join(","),
        escape_data(message)
    );
}

/// The path GitHub matches against the pull request's files: relative to
/// the checkout. An absolute path inside `GITHUB_WORKSPACE` (a glob the
/// workflow expanded from `$GITHUB_WORKSPACE/...`) is made relative to it;
/// anything else is kept as given.
fn annotation_path(file: &str) -> String {
    let workspace = std::env::var("GITHUB_WORKSPACE").unwrap_or_default();
    let workspace = workspace.trim_end_matches('/');
    if workspace.is_empty() {
        return file.to_string();
    }
    file.strip_prefix(workspace)
        .and_then(|rest| rest.strip_prefix('/'))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(file)
        .to_string()
}

/// Escapes a command's message: `%`, carriage return and line feed.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value: as data, plus `:` and `,`, which delimit
/// properties.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_cannot_break_out_of_its_command() {
        let hostile = "50% done\r\n::set-env name=X::1,a:b";
        assert_eq!(
            escape_data(hostile),
            "50%25 done%0D%0A::set-env name=X::1,a:b"
        );
        assert_eq!(
            escape_property(hostile),
            "50%25 done%0D%0A%3A%3Aset-env name=X%3A%3A1%2Ca%3Ab"
        );
        // `%` first, so an escape already in the text is not decoded later.
        assert_eq!(escape_data("%0A"), "%250A");
    }
}
