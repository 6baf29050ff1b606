//! Append-only worklogs (spec/contracts.md, Artifact: Worklog Entry) and
//! the secret scrubbing every text that leaves an agent goes through.

use indexmap::IndexMap;

use crate::envelope::WorklogEntry;

/// Worklogs of a run: task id → entries. Entries can only be appended;
/// there is no API to edit or delete one.
#[derive(Debug, Clone, Default)]
pub struct Worklogs {
    logs: IndexMap<String, Vec<WorklogEntry>>,
}

impl Worklogs {
    /// Appends an entry after scrubbing its free-text fields.
    pub fn append(&mut self, mut entry: WorklogEntry) {
        for text in [&mut entry.decision, &mut entry.result, &mut entry.next_step] {
            if let Some(clean) = scrub(text) {
                *text = clean;
            }
        }
        if let Some(evidence) = &entry.evidence
            && let Some(clean) = scrub(evidence)
        {
            entry.evidence = Some(clean);
        }
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

/// Prefixes of well-known credential formats.
const TOKEN_PREFIXES: &[&str] = &[
    "sk-",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "AKIA",
    "glpat-",
    "AIza",
];
/// Keys whose value is a secret in `key=value` or `key: value` text.
const SECRET_KEYS: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "authorization",
];

/// Replaces secrets in `text` with `[REDACTED]`; `None` when nothing changed.
pub fn scrub(text: &str) -> Option<String> {
    if let Some(start) = text.find("-----BEGIN ")
        && text[start..].contains("PRIVATE KEY-----")
    {
        let end = text[start..]
            .find("-----END ")
            .and_then(|e| {
                text[start + e..]
                    .find("KEY-----")
                    .map(|k| start + e + k + 8)
            })
            .unwrap_or(text.len());
        let mut out = String::from(&text[..start]);
        out.push_str("[REDACTED]");
        out.push_str(&scrub(&text[end..]).unwrap_or_else(|| text[end..].to_string()));
        return Some(out);
    }
    let mut changed = false;
    let mut out = String::with_capacity(text.len());
    let mut redact_next = false;
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let lower = word.to_ascii_lowercase();
        let bare = word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '-');
        let is_token = TOKEN_PREFIXES
            .iter()
            .any(|p| bare.starts_with(p) && bare.len() >= p.len() + 12);
        let key_value = SECRET_KEYS.iter().find_map(|k| {
            let at = lower.find(k)?;
            let rest = &word[at + k.len()..];
            let sep = rest.find(['=', ':'])?;
            (sep <= 1).then_some(at + k.len() + sep + 1)
        });
        if redact_next && (lower == "bearer" || lower == "basic") {
            out.push_str(word);
        } else if redact_next && !word.is_empty() {
            out.push_str("[REDACTED]");
            changed = true;
            redact_next = false;
        } else if is_token {
            out.push_str("[REDACTED]");
            changed = true;
        } else if let Some(cut) = key_value {
            out.push_str(&word[..cut]);
            if cut < word.len() {
                out.push_str("[REDACTED]");
                changed = true;
            } else {
                redact_next = true;
            }
        } else if lower == "bearer" {
            out.push_str(word);
            redact_next = true;
        } else {
            out.push_str(word);
        }
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_and_plain_text_is_kept() {
        assert_eq!(
            scrub("deployed with token=abc123"),
            Some("deployed with token=[REDACTED]".into())
        );
        assert_eq!(
            scrub("password: hunter2 was set"),
            Some("password: [REDACTED] was set".into())
        );
        assert_eq!(
            scrub("key sk-abcdefghijklmnopqrstuv leaked"),
            Some("key [REDACTED] leaked".into())
        );
        assert_eq!(
            scrub("Authorization: Bearer eyJhbGciOi"),
            Some("Authorization: Bearer [REDACTED]".into())
        );
        assert_eq!(
            scrub("all tests pass"),
            None,
            "text without secrets is left alone"
        );
        let key =
            "before -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- after";
        assert_eq!(scrub(key), Some("before [REDACTED] after".into()));
    }
}
