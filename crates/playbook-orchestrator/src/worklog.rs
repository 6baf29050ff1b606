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
///
/// Word by word, without allocating until a secret is found: a word is a
/// secret when it starts with a known credential prefix, or it follows
/// `key=`/`key:` for a secret-sounding key (in the same word or the next),
/// or it follows `Bearer`/`Basic`. PEM private key blocks go whole.
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
    let mut out: Option<String> = None;
    let mut redact_next = false;
    let mut offset = 0;
    for word in text.split(' ') {
        let keep_prefix = if redact_next
            && (word.eq_ignore_ascii_case("bearer") || word.eq_ignore_ascii_case("basic"))
        {
            Some(word.len())
        } else if redact_next && !word.is_empty() {
            redact_next = false;
            Some(0)
        } else if is_token(word) {
            Some(0)
        } else if let Some(cut) = secret_key_end(word) {
            if cut == word.len() {
                redact_next = true;
                None
            } else {
                Some(cut)
            }
        } else {
            if word.eq_ignore_ascii_case("bearer") {
                redact_next = true;
            }
            None
        };
        if let Some(keep) = keep_prefix
            && keep < word.len()
        {
            let buffer = out.get_or_insert_with(|| text[..offset].to_string());
            buffer.push_str(&word[..keep]);
            buffer.push_str("[REDACTED]");
        } else if let Some(buffer) = &mut out {
            buffer.push_str(word);
        }
        offset += word.len() + 1;
        if offset <= text.len()
            && let Some(buffer) = &mut out
        {
            buffer.push(' ');
        }
    }
    out
}

fn is_token(word: &str) -> bool {
    let bare = word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '-');
    TOKEN_PREFIXES
        .iter()
        .any(|p| bare.len() >= p.len() + 12 && bare.starts_with(p))
}

/// For `password=x` or `token:` the index just after the separator.
fn secret_key_end(word: &str) -> Option<usize> {
    let sep = word.find(['=', ':'])?;
    let key = word[..sep].trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_');
    let key = key.as_bytes();
    SECRET_KEYS
        .iter()
        .any(|k| {
            key.len() >= k.len() && key[key.len() - k.len()..].eq_ignore_ascii_case(k.as_bytes())
        })
        .then_some(sep + 1)
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
