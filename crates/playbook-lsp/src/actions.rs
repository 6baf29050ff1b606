//! Code actions: the core's quick fixes (`playbook_core::fix`) for the
//! findings in the requested range, and all of them at once when the client
//! asks for `source.fixAll`. Each action is one text edit covering only the
//! part of the file the fix changes, so the editor's undo restores it.

use std::collections::HashMap;

use playbook_core::{document, fix};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit, Uri, WorkspaceEdit,
};

use crate::CodeDocs;
use crate::diagnostics;
use crate::document::Document;
use crate::text::inside_crlf;

/// Most fixes offered for one request: a range over a whole hostile file
/// could otherwise hold thousands of findings, each costing an edit.
const MAX_ACTIONS: usize = 50;

pub fn at(
    document: &Document,
    uri: &Uri,
    range: Range,
    only: Option<&[CodeActionKind]>,
    docs: &CodeDocs,
) -> Vec<CodeActionOrCommand> {
    let wants = |kind: &CodeActionKind| {
        only.is_none_or(|kinds| {
            kinds.iter().any(|k| {
                kind.as_str() == k.as_str()
                    || kind.as_str().starts_with(&format!("{}.", k.as_str()))
            })
        })
    };
    let fix_all = CodeActionKind::SOURCE_FIX_ALL;
    let asked = only.is_some_and(|kinds| {
        kinds
            .iter()
            .any(|k| k.as_str().starts_with("source") && fix_all.as_str().starts_with(k.as_str()))
    });
    // Editors ask on every cursor move: parse only when there is something
    // to fix here.
    let fixable_here = wants(&CodeActionKind::QUICKFIX)
        && document
            .findings
            .iter()
            .any(|(f, r)| overlaps(r, &range) && fix::has_fixes(f.code));
    if !fixable_here && !asked {
        return Vec::new();
    }
    // Parsed once for every finding here; text that does not load still
    // has the fixes that work on text (a key given twice).
    let value = document::parse_value(&document.text, document.format).ok();
    let mut actions = Vec::new();
    if fixable_here {
        for (finding, finding_range) in &document.findings {
            if !overlaps(finding_range, &range) || !fix::has_fixes(finding.code) {
                continue;
            }
            let fixes = match &value {
                Some(value) if finding.code != playbook_core::Code::DuplicateKey => {
                    fix::fixes_for(value, finding)
                }
                _ => fix::fixes_for_source(&document.text, document.format, finding),
            };
            for (i, quick) in fixes.into_iter().enumerate() {
                if actions.len() >= MAX_ACTIONS {
                    break;
                }
                // Offered only as `playbook fix` would write it: an edit
                // that cannot keep every comment and the layout is refused
                // there, so it is not offered here (one rule, the core's).
                let Ok(edited) = fix::apply(
                    &document.text,
                    document.format,
                    std::slice::from_ref(&quick),
                ) else {
                    continue;
                };
                if !edited.comments_kept() {
                    continue;
                }
                let Some(edit) = change(document, uri, &edited.text) else {
                    continue;
                };
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: quick.title,
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![diagnostics::one(finding, *finding_range, docs)]),
                    edit: Some(edit),
                    is_preferred: Some(i == 0),
                    ..CodeAction::default()
                }));
            }
        }
    }
    // Fixing everything re-validates after each fix, so it is only done
    // when asked for by kind (an editor's "fix all" or fix on save), not
    // on every cursor move.
    if asked
        && let Ok(fixed) = fix::fix_all(&document.text, document.format, &document.options, &[])
        && !fixed.applied.is_empty()
        && fixed.preserved
        && let Some(edit) = change(document, uri, &fixed.text)
    {
        actions.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Apply every quick fix ({})", fixed.applied.len()),
            kind: Some(fix_all),
            edit: Some(edit),
            ..CodeAction::default()
        }));
    }
    actions
}

/// The edit from the document's text to `new`: the span between their
/// common start and common end, replaced.
fn change(document: &Document, uri: &Uri, new: &str) -> Option<WorkspaceEdit> {
    let old = document.text.as_str();
    if old == new {
        return None;
    }
    let mut start = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    // On a character boundary of both texts, and never between `\r` and `\n`
    // (a lone `\r` is a line end of its own).
    while start > 0
        && (!old.is_char_boundary(start)
            || !new.is_char_boundary(start)
            || inside_crlf(old, start)
            || inside_crlf(new, start))
    {
        start -= 1;
    }
    let suffix = old[start..]
        .bytes()
        .rev()
        .zip(new[start..].bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut old_end = old.len() - suffix;
    while old_end < old.len() && (!old.is_char_boundary(old_end) || inside_crlf(old, old_end)) {
        old_end += 1;
    }
    let new_end = new.len() - (old.len() - old_end);
    let replacement = new.get(start..new_end)?.to_string();
    let range = Range::new(
        document.index.position_of(old, start),
        document.index.position_of(old, old_end),
    );
    let edit = TextEdit::new(range, replacement);
    Some(WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
        ..WorkspaceEdit::default()
    })
}

fn overlaps(a: &Range, b: &Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::text::LineIndex;

    fn apply(text: &str, action: &CodeActionOrCommand) -> String {
        let CodeActionOrCommand::CodeAction(action) = action else {
            panic!("a code action");
        };
        let changes = action
            .edit
            .as_ref()
            .and_then(|e| e.changes.as_ref())
            .expect("an edit");
        let edit = &changes.values().next().expect("one file")[0];
        let index = LineIndex::new(text);
        let start = index.offset(text, edit.range.start);
        let end = index.offset(text, edit.range.end);
        format!("{}{}{}", &text[..start], edit.new_text, &text[end..])
    }

    fn title(action: &CodeActionOrCommand) -> &str {
        match action {
            CodeActionOrCommand::CodeAction(a) => &a.title,
            CodeActionOrCommand::Command(c) => &c.title,
        }
    }

    const TYPO: &str = "schema_version: 1.0.0\r\nid: d\r\nname: Dé😀\r\nworkflow:\r\n  build:\r\n    roles:\r\n      - name: worker # does it\r\n        handoff_to: [reviewr]\r\n      - name: reviewer\r\n";

    #[test]
    fn quick_fixes_edit_only_what_they_change() {
        let uri: Uri = "file:///p/playbook.yaml".parse().expect("a URI");
        let docs: CodeDocs = Arc::new(|_| None);
        let document = Document::analyse("/p/playbook.yaml", None, TYPO.to_string(), 1);
        let (_, range) = document
            .findings
            .iter()
            .find(|(f, _)| f.code.as_str() == "PB301")
            .expect("the unknown handoff");
        let actions = at(&document, &uri, *range, None, &docs);
        let replace = actions
            .iter()
            .find(|a| title(a) == "Replace `reviewr` with `reviewer`")
            .expect("the replacement is offered");
        let fixed = apply(TYPO, replace);
        assert_eq!(fixed, TYPO.replace("[reviewr]", "[reviewer]"));
        let fixed_doc = Document::analyse("/p/playbook.yaml", None, fixed, 2);
        assert!(
            fixed_doc
                .findings
                .iter()
                .all(|(f, _)| f.code.as_str() != "PB301")
        );
        // Nothing is offered away from findings, and fix-all only on request.
        let elsewhere = Range::new(Default::default(), Default::default());
        assert!(at(&document, &uri, elsewhere, None, &docs).is_empty());
        let all = at(
            &document,
            &uri,
            elsewhere,
            Some(&[CodeActionKind::SOURCE_FIX_ALL]),
            &docs,
        );
        assert_eq!(all.len(), 1);
        assert!(title(&all[0]).starts_with("Apply every quick fix"));
        assert!(apply(TYPO, &all[0]).contains("# does it"), "comments kept");
    }

    fn actions_for(text: &str, code: &str) -> (Vec<CodeActionOrCommand>, Vec<CodeActionOrCommand>) {
        let uri: Uri = "file:///p/playbook.yaml".parse().expect("a URI");
        let docs: CodeDocs = Arc::new(|_| None);
        let document = Document::analyse("/p/playbook.yaml", None, text.to_string(), 1);
        let (_, range) = document
            .findings
            .iter()
            .find(|(f, _)| f.code.as_str() == code)
            .unwrap_or_else(|| panic!("{code} in {:?}", document.findings));
        let quick = at(
            &document,
            &uri,
            *range,
            Some(&[CodeActionKind::QUICKFIX]),
            &docs,
        );
        let all = at(
            &document,
            &uri,
            *range,
            Some(&[CodeActionKind::SOURCE_FIX_ALL]),
            &docs,
        );
        (quick, all)
    }

    /// Regression (sweep C): quick fixes and fix-all rewrote a role list
    /// held by an alias whole, dropping comments and the anchor, where
    /// `playbook fix` refuses. An edit the CLI would not write is not offered.
    #[test]
    fn no_action_is_offered_that_playbook_fix_would_refuse() {
        let text = "# Team review flow\nschema_version: 1.0.0\nid: alias\nname: Alias\nworkflow:\n  build:\n    roles:\n      - name: worker   # writes the code\n        mode: worker\n        allowed_agents: [codex]\n        inputs_required: &ins [commit_sha]   # shared inputs\n        outputs_contract: {type: work_result, required: [commit_sha]}\n        actions_allowed: [read_file]\n        gates: {pass_condition: always}\n        handoff_to: [reviewer]\n      - name: reviewer   # judges it\n        mode: reviewer\n        allowed_agents: [claude]\n        inputs_required: *ins\n        outputs_contract: {type: review_result, required: [verdict]}\n        actions_allowed: [read_file]\n        gates: {pass_condition: review_passed}\n        handoff_to: []\n";
        let (quick, all) = actions_for(text, "PB203");
        assert!(
            quick.is_empty(),
            "{:?}",
            quick.iter().map(title).collect::<Vec<_>>()
        );
        assert!(
            all.is_empty(),
            "{:?}",
            all.iter().map(title).collect::<Vec<_>>()
        );
        let fixed =
            fix::fix_all(text, playbook_core::Format::Yaml, &Default::default(), &[]).unwrap();
        assert!(!fixed.preserved, "the CLI refuses the same edit");
    }

    /// Regression (sweep C): a key given twice (PB007) had no action,
    /// though `playbook fix` fixes it: the document does not load, and the
    /// fixes were asked of the loaded value only.
    #[test]
    fn a_key_given_twice_gets_the_fixes_playbook_fix_makes() {
        let text = "schema_version: 1.0.0\nid: d\nname: D\nid: e   # later\nworkflow: {}\n";
        let (quick, all) = actions_for(text, "PB007");
        let titles: Vec<&str> = quick.iter().map(title).collect();
        assert!(
            titles
                .iter()
                .any(|t| t.starts_with("Remove the later `id`")),
            "{titles:?}"
        );
        let fixed = apply(text, &quick[0]);
        assert!(
            fixed.contains("# later")
                && playbook_core::document::parse_value(&fixed, playbook_core::Format::Yaml)
                    .is_ok(),
            "{fixed}"
        );
        assert_eq!(all.len(), 1, "fix-all too");
    }
}
