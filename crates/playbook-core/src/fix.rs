//! Quick fixes: for a finding whose fix is mechanical, the change that
//! removes it, as a title a person can read and [`edit::Op`]s that keep the
//! file's comments.
//!
//! Fixes are computed from the parsed document (the generic value the
//! finding's pointer addresses), not from the lints: the lints stay one
//! function per concern, and this module keys its rules by finding code
//! and path (`fix/rules.rs`). Which codes have fixes is listed in
//! `docs/lints.md`.
//!
//! For an editor or a language server: [`fixes_for_source`] gives the
//! fixes of a finding of some text (also of text that does not load, for a
//! key given twice), [`apply`] one of them, and
//! [`edit::TextChange::between`] the single text edit to send.
//!
//! ```
//! use playbook_core::{Format, Options, fix, validate_source};
//!
//! let text = "schema_version: \"1.0.0\"\nid: d\nname: D\nworkflow:\n  review:\n    roles:\n      - name: reviewer  # judges\n        mode: reviewer\n        inputs_required: [spec_path, commit_sha]\n        actions_allowed: [read_file]\n        allowed_agents: [claude]\n        outputs_contract: {required: [notes]}\n";
//! let report = validate_source(text, Format::Yaml, &Options::default());
//! let finding = report.findings.iter().find(|f| f.code.as_str() == "PB207").unwrap();
//! let document = playbook_core::document::parse_value(text, Format::Yaml).unwrap();
//! let fixes = fix::fixes_for(&document, finding);
//! assert_eq!(fixes[0].title, "Add `verdict` to the required fields");
//! let fixed = fix::apply(text, Format::Yaml, &fixes[..1]).unwrap();
//! assert!(fixed.text.contains("{required: [notes, verdict]}"));
//! assert!(fixed.text.contains("# judges"));
//! ```

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::document::{self, Format};
use crate::edit::{self, EditError, Edited, Op, TextChange};
use crate::finding::{Code, Finding};
use crate::validate::{Options, validate_source};

mod rules;
#[cfg(test)]
mod tests;

/// One mechanical change that removes a finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Fix {
    /// What the fix does, as a button or a CLI line says it.
    pub title: String,
    /// The finding it removes: its code and JSON pointer.
    pub code: Code,
    pub path: String,
    /// The edit, applied in order (see [`edit::apply`]).
    pub ops: Vec<Op>,
    /// A change of the text itself, for a document that does not load
    /// (a key given twice) and so cannot be addressed by pointer; a fix
    /// with one is applied on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub change: Option<TextChange>,
}

/// The fixes for one finding of `document` (the parsed text the finding
/// was reported on), best first; empty when its fix is not mechanical.
pub fn fixes_for(document: &Value, finding: &Finding) -> Vec<Fix> {
    rules::fixes(document, finding)
        .into_iter()
        .map(|(title, ops)| Fix {
            title,
            code: finding.code,
            path: finding.path.clone(),
            ops,
            change: None,
        })
        .collect()
}

/// The fixes for one finding of `text`, including those of a document
/// that does not load: a key given twice (PB007) is fixed by removing the
/// later entry (or, second choice, the earlier).
pub fn fixes_for_source(text: &str, format: Format, finding: &Finding) -> Vec<Fix> {
    if finding.code == Code::DuplicateKey {
        return duplicate_key(text, format, finding);
    }
    match document::parse_value(text, format) {
        Ok(value) => fixes_for(&value, finding),
        Err(_) => Vec::new(),
    }
}

fn duplicate_key(text: &str, format: Format, finding: &Finding) -> Vec<Fix> {
    let key = crate::finding::pointer_tokens(&finding.path)
        .pop()
        .unwrap_or_default();
    [(false, "later"), (true, "earlier")]
        .into_iter()
        .filter_map(|(keep_later, which)| {
            let (change, line) =
                edit::remove_duplicate_key(text, format, &finding.path, keep_later)?;
            Some(Fix {
                title: format!("Remove the {which} `{key}` (line {line})"),
                code: finding.code,
                path: finding.path.clone(),
                ops: Vec::new(),
                change: Some(change),
            })
        })
        .collect()
}

/// Whether findings with this code can have a quick fix.
pub fn has_fixes(code: Code) -> bool {
    rules::FIXABLE.contains(&code)
}

/// Applies fixes in order to `text`, keeping comments and layout.
pub fn apply(text: &str, format: Format, fixes: &[Fix]) -> Result<Edited, EditError> {
    if let Some(fix) = fixes.iter().find(|f| f.change.is_some()) {
        let refuse = |reason: &str| EditError::Path {
            op: "apply",
            path: fix.path.clone(),
            reason: reason.to_string(),
        };
        if fixes.len() > 1 {
            return Err(refuse(
                "a fix that changes the text itself is applied alone",
            ));
        }
        let change = fix.change.as_ref().ok_or_else(|| refuse("no change"))?;
        let edited = change
            .apply(text)
            .ok_or_else(|| refuse("the text changed since the fix was computed"))?;
        // Judged like every other edit: on the comments of the result.
        let comment_written_over = !edit::keeps_comments(text, &edited);
        return Ok(Edited {
            text: edited,
            preserved: true,
            comment_written_over,
        });
    }
    let ops: Vec<Op> = fixes.iter().flat_map(|f| f.ops.iter().cloned()).collect();
    edit::apply(text, format, &ops)
}

/// What [`fix_all`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Fixed {
    pub text: String,
    /// The fixes applied, in order.
    pub applied: Vec<Fix>,
    /// False when some fix could not keep every comment and the layout
    /// ([`Edited::comments_kept`] of one of its edits): `playbook fix`
    /// refuses to write the text then, and the language server offers no
    /// action for it.
    pub preserved: bool,
    /// The applied fixes whose edit could not keep them (empty when
    /// `preserved`), so a refusal can say which.
    pub reformatting: Vec<Fix>,
}

/// Most fixes one [`fix_all`] applies: each removes a finding, so this is
/// far above any real playbook's count and only bounds hostile input.
pub const MAX_FIXES: usize = 2000;

/// Applies every mechanical fix, validating again after each round, until
/// none is left; `codes` limits it to some codes. A round applies the first
/// fix of every finding at once when their pointers cannot disturb each
/// other (different roles or sections, no pointer into a sequence another
/// fix of the round adds to or removes from; see `batch`); so a playbook
/// with hundreds of findings takes a few rounds, not hundreds. A fix whose finding is still there afterwards is not tried
/// again, so this always ends.
pub fn fix_all(
    text: &str,
    format: Format,
    options: &Options,
    codes: &[Code],
) -> Result<Fixed, EditError> {
    let unreadable = document::parse_value(text, format).err();
    let mut current = text.to_string();
    let mut applied = Vec::new();
    let mut reformatting = Vec::new();
    let mut tried: HashSet<(Code, String, String)> = HashSet::new();
    while applied.len() < MAX_FIXES {
        let document = document::parse_value(&current, format).ok();
        let report = validate_source(&current, format, options);
        let candidates: Vec<Fix> = report
            .findings
            .iter()
            .filter(|f| codes.is_empty() || codes.contains(&f.code))
            .filter_map(|f| {
                let fixes = match &document {
                    Some(value) => fixes_for(value, f),
                    None if f.code == Code::DuplicateKey => duplicate_key(&current, format, f),
                    None => Vec::new(),
                };
                fixes.into_iter().next()
            })
            .filter(|fix| !tried.contains(&key(fix)))
            .collect();
        let Some(first) = candidates.first() else {
            break;
        };
        let batch: Vec<Fix> = match &document {
            Some(value) => batch(value, &candidates, MAX_FIXES - applied.len()),
            None => vec![first.clone()],
        };
        for fix in &batch {
            tried.insert(key(fix));
        }
        // The batch as one edit; if that does not apply, fix by fix (a fix
        // whose edit does not apply is skipped, never fatal).
        match apply(&current, format, &batch) {
            Ok(edited) if edited.comments_kept() && batch.len() > 1 => {
                current = edited.text;
                applied.extend(batch);
            }
            _ => {
                for fix in batch {
                    let Ok(edited) = apply(&current, format, std::slice::from_ref(&fix)) else {
                        continue;
                    };
                    if edited.text == current {
                        continue;
                    }
                    if !edited.comments_kept() {
                        reformatting.push(fix.clone());
                    }
                    current = edited.text;
                    applied.push(fix);
                }
            }
        }
    }
    // Text that does not load and that no fix made load has nothing to
    // address: say so rather than "nothing to fix".
    if let Some(finding) = unreadable
        && applied.is_empty()
    {
        return Err(EditError::Unreadable(finding));
    }
    Ok(Fixed {
        text: current,
        applied,
        preserved: reformatting.is_empty(),
        reformatting,
    })
}

fn key(fix: &Fix) -> (Code, String, String) {
    (fix.code, fix.path.clone(), fix.title.clone())
}

/// The fixes of one round, at most `room`: the first fix of every finding,
/// in order, whose owner no earlier fix of the round has and whose
/// pointers no earlier one moves. A fix that adds or removes a sequence
/// item moves the pointers into that sequence (later indices shift), so no
/// other fix of the round may point into it, and it may not point into one
/// an earlier fix moves; fixes of different sequences go together. (One
/// such fix a round made a role-per-round walk of, say, every role's
/// handoff to itself: a round each, every round validating the whole text.)
/// A fix that changes the text itself or the whole document goes alone.
fn batch(document: &Value, candidates: &[Fix], room: usize) -> Vec<Fix> {
    let mut owners = HashSet::new();
    let mut shifted: Vec<&str> = Vec::new();
    let mut touched: Vec<&str> = Vec::new();
    let mut round: Vec<Fix> = Vec::new();
    for fix in candidates {
        if round.len() == room {
            break;
        }
        if fix.change.is_some() || fix.ops.iter().any(|op| op.path().is_empty()) {
            if round.is_empty() {
                round.push(fix.clone());
                break;
            }
            continue;
        }
        let shifts = shifted_sequences(document, fix);
        let moved = fix
            .ops
            .iter()
            .any(|op| shifted.iter().any(|s| is_within(op.path(), s)))
            || shifts
                .iter()
                .any(|s| touched.iter().any(|path| is_within(path, s)));
        if moved || !owners.insert(owner(fix)) {
            continue;
        }
        shifted.extend(shifts);
        touched.extend(fix.ops.iter().map(Op::path));
        round.push(fix.clone());
    }
    round
}

/// The sequences a fix adds an item to (not at the end) or removes one
/// from: the pointers into them after that item move.
fn shifted_sequences<'f>(document: &Value, fix: &'f Fix) -> Vec<&'f str> {
    fix.ops
        .iter()
        .filter_map(|op| {
            let shifting = match op {
                Op::Remove { path } => parent_is_sequence(document, path),
                Op::Add { path, .. } => !path.ends_with("/-") && parent_is_sequence(document, path),
                Op::Replace { .. } | Op::Rename { .. } => false,
            };
            shifting.then(|| op.path().rsplit_once('/').map_or("", |(p, _)| p))
        })
        .collect()
}

/// Whether `path` is `sequence` or a pointer into it.
fn is_within(path: &str, sequence: &str) -> bool {
    path.strip_prefix(sequence)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// What a fix may touch: its role, else its top-level section. An unknown
/// field's fix renames or removes that one key and reads nothing else, so
/// it owns only the key and the name it renames it to: the unknown fields
/// of one role are fixed in one round. (With the role as their owner, a
/// role given hundreds of them took a round each, every round validating
/// the whole text again: quadratic in the file, minutes for a few hundred
/// kilobytes.)
fn owner(fix: &Fix) -> String {
    if fix.code == Code::UnknownField {
        let renamed = fix.ops.iter().find_map(|op| match op {
            Op::Rename { to, .. } => Some(to.as_str()),
            _ => None,
        });
        let parent = fix.path.rsplit_once('/').map_or("", |(p, _)| p);
        // The target's name is one owner with the key it would collide
        // with: two unknown keys are never renamed to the same name.
        return match renamed {
            Some(to) => format!("{parent}/{}", crate::finding::escape_pointer(to)),
            None => fix.path.clone(),
        };
    }
    let tokens = crate::finding::pointer_tokens(&fix.path);
    let depth = if tokens.first().is_some_and(|t| t == "workflow") {
        4
    } else {
        1
    };
    tokens.into_iter().take(depth).collect::<Vec<_>>().join("/")
}

fn parent_is_sequence(document: &Value, path: &str) -> bool {
    let parent = path.rsplit_once('/').map_or("", |(p, _)| p);
    document.pointer(parent).is_some_and(Value::is_array)
}
