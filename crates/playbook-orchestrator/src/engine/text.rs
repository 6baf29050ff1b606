//! Short texts the records carry: summaries, truncation, task content.

use std::borrow::Cow;

use super::*;

pub(super) fn ledger_word(status: LedgerStatus) -> &'static str {
    match status {
        LedgerStatus::Todo => "todo",
        LedgerStatus::InProgress => "in progress",
        LedgerStatus::Blocked => "blocked",
        LedgerStatus::Done => "done",
        LedgerStatus::Failed => "failed",
        LedgerStatus::Canceled => "canceled",
    }
}

pub(super) fn objective(goal: &str) -> String {
    if goal.trim().is_empty() {
        "Preview the playbook".into()
    } else {
        truncate(goal, 5000)
    }
}

/// The first `max_chars` characters of `text`, redacted when it is cut.
pub(super) fn truncate(text: &str, max_chars: usize) -> String {
    cut(text, max_chars).into_owned()
}

/// The first `max_chars` characters of `text`; borrowed when it fits.
///
/// Every text cut here may carry what an agent wrote (an error, a verdict,
/// a question, a title, an output) into a record. One that is cut is
/// redacted whole first: cut first, a credential split at the cut would
/// leave a piece that no redaction rule recognises any more, and the
/// records' own redaction would let it through
/// (`playbook_redact::redact_then_clip`). One that fits is not cut, so it
/// goes on whole and the record it enters redacts it, as every record is
/// redacted; scanning it here too would scan every step's summaries twice.
pub(super) fn cut(text: &str, max_chars: usize) -> Cow<'_, str> {
    if text.len() <= max_chars || text.char_indices().nth(max_chars).is_none() {
        return Cow::Borrowed(text);
    }
    playbook_redact::redact_then_clip(text, max_chars, "")
}

pub(super) fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(super) fn summarize(values: &Map<String, Value>, fields: &[String]) -> String {
    let mut out = String::new();
    for f in fields.iter().take(6) {
        if let Some(v) = values.get(f) {
            if !out.is_empty() {
                out.push_str(", ");
            }
            out.push_str(f);
            out.push('=');
            match v {
                Value::String(s) => out.push_str(&cut(s, 80)),
                other => out.push_str(&cut(&other.to_string(), 80)),
            }
        }
    }
    out
}

pub(super) fn task_content(packet: &PacketTask) -> String {
    let mut out = format!("# {}\n", packet.title);
    for c in &packet.acceptance_criteria {
        out.push_str("- ");
        out.push_str(c);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn truncation_counts_characters_and_never_splits_one() {
        assert_eq!(truncate("short", 10), "short");
        let cut = truncate(&"é".repeat(20), 5);
        assert!(cut.starts_with("ééééé"));
        assert!(cut.chars().count() <= 6, "{cut}");
    }

    #[test]
    fn a_text_is_redacted_before_it_is_cut() {
        // Cut first, `ghp_Zq8Wm2Xr4Tn6Vb` (too short for the GitHub rule)
        // would have reached the record.
        let text = format!(
            "{} ghp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo",
            "x".repeat(181)
        );
        let cut = truncate(&text, 200);
        assert!(!cut.contains("Zq8Wm2"), "{cut}");
        let values = json!({"verdict": text});
        let summary = summarize(values.as_object().unwrap(), &["verdict".into()]);
        assert!(!summary.contains("ghp_"), "{summary}");
    }

    #[test]
    fn summaries_name_the_required_fields_only() {
        let values = json!({"verdict": "pass", "secret_sauce": "x", "issues": []});
        let summary = summarize(values.as_object().unwrap(), &["verdict".into()]);
        assert!(summary.contains("verdict"), "{summary}");
        assert!(!summary.contains("secret_sauce"), "{summary}");
    }
}
