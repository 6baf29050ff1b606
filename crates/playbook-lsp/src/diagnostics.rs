//! Findings as LSP diagnostics.

use playbook_core::{Finding, Severity};
use serde_json::json;
use tower_lsp_server::ls_types::{
    CodeDescription, Diagnostic, DiagnosticSeverity, NumberOrString, Range, Uri,
};

use crate::CodeDocs;
use crate::document::Document;

/// Shown as the diagnostics' source, so users can tell ours from other tools'.
pub const SOURCE: &str = "playbook";

pub fn of(document: &Document, docs: &CodeDocs) -> Vec<Diagnostic> {
    document
        .findings
        .iter()
        .map(|(finding, range)| one(finding, *range, docs))
        .collect()
}

/// The diagnostic of one finding at its range.
pub fn one(finding: &Finding, range: Range, docs: &CodeDocs) -> Diagnostic {
    let code = finding.code.as_str();
    let href = docs(code)
        .and_then(|d| d.href)
        .and_then(|h| h.parse::<Uri>().ok());
    // The hint says how to fix it; not every client shows related
    // information, so it is part of the message.
    let message = if finding.hint.is_empty() {
        finding.message.clone()
    } else {
        format!("{}\nhint: {}", finding.message, finding.hint)
    };
    Diagnostic {
        range,
        severity: Some(severity(finding.severity)),
        code: Some(NumberOrString::String(code.to_string())),
        code_description: href.map(|href| CodeDescription { href }),
        source: Some(SOURCE.to_string()),
        message,
        // The pointer lets a client or a code action find the finding again.
        data: Some(json!({ "pointer": finding.path })),
        ..Diagnostic::default()
    }
}

fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}
