//! Append-only worklogs (spec/contracts.md, Artifact: Worklog Entry). An
//! entry is redacted (`playbook-redact`) as it is appended, every field of
//! it, so a worklog holds no secret even while the run goes on.

use indexmap::IndexMap;
use playbook_redact::Redact;

use crate::envelope::WorklogEntry;

/// Worklogs of a run: task id → entries. Entries can only be appended;
/// there is no API to edit or delete one.
#[derive(Debug, Clone, Default)]
pub struct Worklogs {
    logs: IndexMap<String, Vec<WorklogEntry>>,
}

impl Worklogs {
    /// Appends an entry after redacting every text in it.
    pub fn append(&mut self, mut entry: WorklogEntry) {
        redact_entry(&mut entry);
        self.append_redacted(entry);
    }

    /// Appends an entry the engine has already redacted.
    pub(crate) fn append_redacted(&mut self, entry: WorklogEntry) {
        self.logs
            .entry(entry.task_id.clone())
            .or_default()
            .push(entry);
    }

    pub fn entries(&self, task_id: &str) -> &[WorklogEntry] {
        self.logs.get(task_id).map(Vec::as_slice).unwrap_or(&[])
    }

    pub fn tasks(&self) -> impl Iterator<Item = (&str, &[WorklogEntry])> {
        self.logs.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }

    /// The JSONL text of one task's worklog.
    pub fn jsonl(&self, task_id: &str) -> String {
        let mut out = String::new();
        for e in self.entries(task_id) {
            out.push_str(&serde_json::to_string(e).unwrap_or_default());
            out.push('\n');
        }
        out
    }
}

/// Redacts an entry field by field. Every field is text, so redaction never
/// changes a type; the destructuring without `..` makes a new field fail to
/// compile until it is listed here.
fn redact_entry(entry: &mut WorklogEntry) {
    let WorklogEntry {
        timestamp,
        run_id,
        task_id,
        actor,
        action,
        files_touched,
        decision,
        result,
        next_step,
        code,
        evidence,
    } = entry;
    for text in [
        timestamp, run_id, task_id, actor, action, decision, result, next_step,
    ] {
        text.redact();
    }
    files_touched.redact();
    code.redact();
    evidence.redact();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(result: &str) -> WorklogEntry {
        WorklogEntry {
            timestamp: "2025-01-01T00:00:00Z".into(),
            run_id: "R".into(),
            task_id: "T-1".into(),
            actor: "worker".into(),
            action: "ran tests".into(),
            files_touched: vec!["src/.env password=hunter22".into()],
            decision: "use token=abc123".into(),
            result: result.into(),
            next_step: "none".into(),
            code: None,
            evidence: Some("curl -H 'Authorization: Bearer abcdefgh123'".into()),
        }
    }

    #[test]
    fn every_field_of_an_appended_entry_is_redacted() {
        let mut logs = Worklogs::default();
        logs.append(entry("failed:\napi_key=sk-abcdefghijklmnopqrstuv"));
        let jsonl = logs.jsonl("T-1");
        for secret in [
            "hunter22",
            "abc123",
            "sk-abcdefghijklmnopqrstuv",
            "abcdefgh123",
        ] {
            assert!(!jsonl.contains(secret), "{secret} in {jsonl}");
        }
        assert!(jsonl.contains("ran tests"), "plain text stays");
    }
}
