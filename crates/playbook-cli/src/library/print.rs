//! How library text and results are printed: escaped for the terminal, or
//! as JSON.

use super::*;

/// A stored text as a message shows it: redacted (a name, a note or an
/// error quoting the playbook can hold a pasted token, and these lines reach
/// terminals and CI logs), then the core's one rule (`printable`), so no
/// stored text acts on the terminal or forges a row. JSON results are
/// redacted alike ([`print_json`]); documents (`show`, `draft`) are printed
/// as their text, the author's own, as `export` writes them.
pub(super) fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    playbook_orchestrator::redact::printable(text)
}

/// [`shown`] for a message of several lines (a refusal lists its findings
/// one per line): each line escaped, the line breaks kept.
pub(super) fn shown_lines(text: &str) -> String {
    text.split('\n').map(shown).collect::<Vec<_>>().join("\n")
}

/// The first 12 characters of a hash, as `git log --oneline` shows commits.
pub(super) fn short_hash(hash: &str) -> String {
    hash.chars().take(12).collect()
}

pub(super) fn validity(v: &playbook_store::Validity) -> String {
    if v.errors > 0 {
        format!("{} error(s)", v.errors)
    } else if v.warnings > 0 {
        format!("valid, {} warning(s)", v.warnings)
    } else {
        "valid".to_string()
    }
}

pub(super) fn report_saved(saved: &playbook_store::Saved, format: Output) {
    match format {
        Output::Json => print_json(saved),
        Output::Text if saved.unchanged => println!(
            "{} unchanged: the content equals version {}",
            saved.playbook, saved.version.number
        ),
        Output::Text => println!(
            "{} saved as version {} ({})",
            saved.playbook,
            saved.version.number,
            validity(&saved.version.validity)
        ),
    }
}

pub(super) fn done(format: Output, message: &str) {
    match format {
        Output::Json => print_json(&serde_json::json!({ "ok": true, "message": message })),
        Output::Text => println!("{message}"),
    }
}
