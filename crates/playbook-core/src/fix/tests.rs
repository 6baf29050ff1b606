//! Every fixable code: a commented playbook that has the finding, its
//! first fix applied, the text validated again: the finding is gone, no
//! error appeared, every comment is still there.

use super::*;
use crate::validate::Options;

/// A clean playbook, commented everywhere; each case below breaks it.
const CLEAN: &str = r#"# Head comment.
schema_version: "1.0.0"
id: demo   # stable id
name: Demo
run_inputs: [spec_path]
policies:
  plan_ok: approved == true  # a policy
workflow:
  # Build first.
  build:
    enabled: true
    stage_policy:
      max_parallel_worktrees: 2
    roles:
      # The coder.
      - name: coder
        mode: worker
        inputs_required: [task]
        outputs_contract:
          required: [commit_sha]   # promised
        actions_allowed: [read_file, write_file]
        allowed_agents: [claude]
        gates:
          requires_user_approval: true
        handoff_to: [reviewer]

      # The reviewer judges.
      - name: reviewer
        mode: reviewer
        inputs_required: [spec_path, commit_sha]
        outputs_contract:
          required: [verdict]
        actions_allowed: [read_file]
        allowed_agents: [claude]
        gates:
          pass_condition: review_passed
        handoff_to: [coder]
        retry_policy:
          max_iterations: 3
          escalate_on: [retry_limit]
  # Later.
  ship:
    enabled: false
    roles:
      - name: shipper
        mode: worker
        inputs_required: [commit_sha]
        outputs_contract: {required: [url]}
        actions_allowed: [read_file]
        allowed_agents: [claude]
# Tail comment.
"#;

fn comments(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.find('#').map(|i| l[i..].to_string()))
        .collect()
}

/// Breaks `CLEAN` by replacing `from` with `to`, then fixes `code`.
#[track_caller]
fn check(code: &str, from: &str, to: &str) {
    check_text(code, &CLEAN.replacen(from, to, 1), Format::Yaml);
}

#[track_caller]
fn check_text(code: &str, text: &str, format: Format) {
    let options = Options::default();
    let before = validate_source(text, format, &options);
    let finding = before
        .findings
        .iter()
        .find(|f| f.code.as_str() == code)
        .unwrap_or_else(|| panic!("{code} not raised: {:#?}", before.findings));
    let document = document::parse_value(text, format).unwrap();
    let fixes = fixes_for(&document, finding);
    assert!(!fixes.is_empty(), "no fix for {finding:?}");
    assert!(has_fixes(finding.code));
    let edited = apply(text, format, &fixes[..1]).unwrap();
    assert!(
        edited.comments_kept(),
        "{}: comments lost:\n{}",
        fixes[0].title,
        edited.text
    );
    let after = validate_source(&edited.text, format, &options);
    assert!(
        !after
            .findings
            .iter()
            .any(|f| f.code == finding.code && f.path == finding.path),
        "{} did not remove {finding:?}:\n{}",
        fixes[0].title,
        edited.text
    );
    for error in after.findings.iter().filter(|f| f.is_error()) {
        assert!(
            before
                .findings
                .iter()
                .any(|f| f.code == error.code && f.path == error.path),
            "{} introduced {error:?}:\n{}",
            fixes[0].title,
            edited.text
        );
    }
    for comment in comments(text) {
        assert!(edited.text.contains(&comment), "lost {comment:?}");
    }
}

#[test]
fn the_clean_playbook_is_clean() {
    let report = validate_source(CLEAN, Format::Yaml, &Options::default());
    let noisy: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity != crate::Severity::Info)
        .collect();
    assert!(noisy.is_empty(), "{noisy:#?}");
}

#[test]
fn unbounded_loop_gets_a_retry_limit() {
    check(
        "PB302",
        "        retry_policy:\n          max_iterations: 3\n          escalate_on: [retry_limit]\n",
        "",
    );
}

#[test]
fn reviewer_gets_a_verdict() {
    check("PB207", "required: [verdict]", "required: [notes]");
}

#[test]
fn tester_gets_a_failures_field() {
    check("PB208", "mode: reviewer", "mode: tester");
}

#[test]
fn reviewer_gets_its_inputs() {
    check(
        "PB203",
        "inputs_required: [spec_path, commit_sha]",
        "inputs_required: [commit_sha]",
    );
}

#[test]
fn retry_limit_gets_an_escalation() {
    check("PB401", "escalate_on: [retry_limit]", "escalate_on: []");
}

#[test]
fn zero_iterations_become_three() {
    check("PB402", "max_iterations: 3", "max_iterations: 0");
}

#[test]
fn unknown_escalation_is_corrected() {
    check(
        "PB404",
        "escalate_on: [retry_limit]",
        "escalate_on: [retry_limt]",
    );
}

#[test]
fn unknown_handoff_is_corrected() {
    check("PB301", "handoff_to: [coder]", "handoff_to: [codr]");
}

#[test]
fn handoff_into_a_disabled_stage_is_removed() {
    check(
        "PB305",
        "handoff_to: [coder]",
        "handoff_to: [coder, shipper]",
    );
}

#[test]
fn handoff_to_itself_is_removed() {
    check(
        "PB306",
        "handoff_to: [reviewer]",
        "handoff_to: [reviewer, coder]",
    );
}

#[test]
fn zero_and_too_many_worktrees_are_bounded() {
    check(
        "PB102",
        "max_parallel_worktrees: 2",
        "max_parallel_worktrees: 0",
    );
    check(
        "PB103",
        "max_parallel_worktrees: 2",
        "max_parallel_worktrees: 99",
    );
}

#[test]
fn mutating_tools_get_an_approval() {
    check(
        "PB206",
        "requires_user_approval: true",
        "requires_user_approval: false",
    );
}

#[test]
fn duplicate_roles_are_renamed() {
    check("PB204", "- name: shipper", "- name: coder");
}

#[test]
fn unknown_fields_become_extensions() {
    check(
        "PB004",
        "id: demo   # stable id\n",
        "id: demo   # stable id\nowner: me\n",
    );
}

/// Regression (sweep C): "Rename to `x_owner`" renamed by removing and
/// adding, so the key lost its comment, an anchor and its block scalar
/// style and moved to the end of its mapping, while `fix_all` called the
/// file preserved. Now only the key's text changes, in YAML and JSON.
#[test]
fn an_unknown_field_is_renamed_in_place() {
    let text = CLEAN.replacen(
        "id: demo   # stable id\n",
        "id: demo   # stable id\nowner: &who platform-team  # who to page at night\nnotes: >-\n  folded\n  text\n",
        1,
    );
    let fixed = fix_all(
        &text,
        Format::Yaml,
        &Options::default(),
        &[Code::UnknownField],
    )
    .unwrap();
    assert!(fixed.preserved);
    assert_eq!(
        fixed.text,
        text.replace("owner: &who", "x_owner: &who")
            .replace("notes: >-", "x_notes: >-")
    );
    let json = "{\n  \"schema_version\": \"1.0.0\",\n  \"id\": \"demo\",\n  \"owner\": \"platform-team\",\n  \"name\": \"Demo\",\n  \"workflow\": {\"plan\": {\"roles\": []}}\n}\n";
    let fixed = fix_all(
        json,
        Format::Json,
        &Options::default(),
        &[Code::UnknownField],
    )
    .unwrap();
    assert_eq!(fixed.text, json.replace("\"owner\"", "\"x_owner\""));
}

/// A text fix is judged on the comments of its result like any edit: one
/// that drops a comment is not called kept, whatever kind of edit it is.
#[test]
fn a_fix_that_drops_a_comment_is_never_called_kept() {
    let text = "a: 1  # one\nb: 2\n";
    let fix = Fix {
        title: "drop".into(),
        code: Code::DuplicateKey,
        path: "/a".into(),
        ops: Vec::new(),
        change: TextChange::between(text, "a: 1\nb: 2\n"),
    };
    assert!(!apply(text, Format::Yaml, &[fix]).unwrap().comments_kept());
}

#[test]
fn empty_enabled_stage_is_disabled() {
    check(
        "PB101",
        "  ship:\n    enabled: false\n    roles:\n      - name: shipper",
        "  ship:\n    enabled: true\n    roles: []\n  unused:\n    roles:\n      - name: shipper",
    );
}

#[test]
fn placeholder_becomes_an_input() {
    check(
        "PB211",
        "        actions_allowed: [read_file]\n        allowed_agents: [claude]\n        gates:",
        "        actions_allowed: [read_file]\n        allowed_agents: [claude]\n        suggested_prompt: Review {commit_sha} for {ticket}\n        gates:",
    );
}

#[test]
fn gate_fields_become_promised() {
    check(
        "PB502",
        "pass_condition: review_passed",
        "pass_condition: verdict == \"pass\" && score > 3",
    );
}

#[test]
fn unknown_policy_is_corrected_or_defined() {
    check(
        "PB503",
        "pass_condition: review_passed",
        "pass_condition: review_pased",
    );
    check(
        "PB503",
        "pass_condition: review_passed",
        "pass_condition: ready_to_merge",
    );
}

#[test]
fn no_enabled_stage_enables_one() {
    let text = CLEAN.replacen(
        "  build:\n    enabled: true",
        "  build:\n    enabled: false",
        1,
    );
    check_text("PB104", &text, Format::Yaml);
}

#[test]
fn json_files_are_fixed_in_place() {
    let value = document::parse_value(CLEAN, Format::Yaml).unwrap();
    let mut value = value;
    value["workflow"]["build"]["roles"][1]["outputs_contract"]["required"] =
        serde_json::json!(["notes"]);
    let text = serde_json::to_string_pretty(&value).unwrap();
    check_text("PB207", &text, Format::Json);
}

#[test]
fn fix_all_clears_every_fixable_finding_and_ends() {
    let text = CLEAN
        .replacen("required: [verdict]", "required: [notes]", 1)
        .replacen("handoff_to: [coder]", "handoff_to: [codr]", 1)
        .replacen("max_parallel_worktrees: 2", "max_parallel_worktrees: 0", 1);
    let fixed = fix_all(&text, Format::Yaml, &Options::default(), &[]).unwrap();
    assert!(fixed.preserved);
    assert_eq!(fixed.applied.len(), 3, "{:#?}", fixed.applied);
    let after = validate_source(&fixed.text, Format::Yaml, &Options::default());
    assert!(after.allow(), "{:#?}", after.findings);
    for comment in comments(&text) {
        assert!(fixed.text.contains(&comment));
    }
    // Only the codes asked for.
    let some = fix_all(
        &text,
        Format::Yaml,
        &Options::default(),
        &[Code::UnknownHandoff],
    )
    .unwrap();
    assert_eq!(some.applied.len(), 1);
    assert_eq!(some.applied[0].code, Code::UnknownHandoff);
}

#[test]
fn findings_without_a_mechanical_fix_get_none() {
    let text = CLEAN.replacen("allowed_agents: [claude]", "allowed_agents: []", 1);
    let report = validate_source(&text, Format::Yaml, &Options::default());
    let document = document::parse_value(&text, Format::Yaml).unwrap();
    let finding = report
        .findings
        .iter()
        .find(|f| f.code == Code::NoAgents)
        .unwrap();
    assert!(fixes_for(&document, finding).is_empty());
    assert!(!has_fixes(Code::NoAgents));
}

#[test]
fn a_key_given_twice_loses_its_later_entry() {
    let text = CLEAN.replacen(
        "          requires_user_approval: true\n",
        "          requires_user_approval: true   # keep\n          requires_user_approval: false  # drop\n",
        1,
    );
    let report = validate_source(&text, Format::Yaml, &Options::default());
    let finding = report
        .findings
        .iter()
        .find(|f| f.code == Code::DuplicateKey)
        .unwrap();
    let fixes = fixes_for_source(&text, Format::Yaml, finding);
    assert_eq!(fixes.len(), 2);
    assert!(
        fixes[0]
            .title
            .starts_with("Remove the later `requires_user_approval` (line ")
    );
    let fixed = apply(&text, Format::Yaml, &fixes[..1]).unwrap();
    // The removed entry's comment stays, where the entry was.
    assert_eq!(
        fixed.text,
        CLEAN.replacen(
            "requires_user_approval: true\n",
            "requires_user_approval: true   # keep\n          # drop\n",
            1
        )
    );
    assert!(fixed.comments_kept());
    let other = apply(&text, Format::Yaml, &fixes[1..]).unwrap();
    assert!(
        other
            .text
            .contains("          # keep\n          requires_user_approval: false  # drop\n"),
        "{}",
        other.text
    );
    assert!(other.comments_kept());
    // A text fix goes alone.
    assert!(apply(&text, Format::Yaml, &fixes).is_err());
    // fix_all gets the document loading again, then fixes the rest.
    let all = fix_all(&text, Format::Yaml, &Options::default(), &[]).unwrap();
    assert_eq!(all.applied[0].code, Code::DuplicateKey);
    assert!(document::parse_value(&all.text, Format::Yaml).is_ok());
}

/// Regression: removing a key given twice from a CRLF file wrote the
/// removed entry's comment on a line ending in a bare `\n`, so the file
/// mixed line ends (other edits end new lines as the file's lines do).
#[test]
fn a_key_given_twice_in_a_crlf_file_keeps_crlf() {
    let text =
        "schema_version: 1.0.0\r\nid: a # first\r\nname: N\r\nid: b   # second\r\nworkflow: {}\r\n";
    let report = validate_source(text, Format::Yaml, &Options::default());
    let finding = report
        .findings
        .iter()
        .find(|f| f.code == Code::DuplicateKey)
        .unwrap();
    let fixes = fixes_for_source(text, Format::Yaml, finding);
    for fix in &fixes {
        let fixed = apply(text, Format::Yaml, std::slice::from_ref(fix)).unwrap();
        assert!(fixed.comments_kept(), "{}", fix.title);
        assert_eq!(
            fixed.text.matches('\n').count(),
            fixed.text.matches("\r\n").count(),
            "{}: {:?}",
            fix.title,
            fixed.text
        );
    }
    let later = apply(text, Format::Yaml, &fixes[..1]).unwrap();
    assert_eq!(
        later.text,
        "schema_version: 1.0.0\r\nid: a # first\r\nname: N\r\n# second\r\nworkflow: {}\r\n"
    );
}

#[test]
fn a_json_key_given_twice_is_fixed_too() {
    let text = "{\n  \"id\": \"a\",\n  \"name\": \"N\",\n  \"id\": \"b\"\n}\n";
    let report = validate_source(text, Format::Json, &Options::default());
    let finding = report
        .findings
        .iter()
        .find(|f| f.code == Code::DuplicateKey)
        .unwrap();
    let fixes = fixes_for_source(text, Format::Json, finding);
    let fixed = apply(text, Format::Json, &fixes[..1]).unwrap();
    assert_eq!(fixed.text, "{\n  \"id\": \"a\",\n  \"name\": \"N\"\n}\n");
    let fixed = apply(text, Format::Json, &fixes[1..2]).unwrap();
    assert_eq!(fixed.text, "{\n  \"name\": \"N\",\n  \"id\": \"b\"\n}\n");
}

#[test]
fn hundreds_of_findings_are_fixed_in_batches_keeping_every_comment() {
    let roles: String = (0..150)
        .map(|i| {
            format!(
                "      # role {i}\n      - name: r{i}\n        mode: reviewer\n        inputs_required: [spec_path, commit_sha]\n        outputs_contract: {{required: [notes]}}\n        actions_allowed: [read_file]\n        allowed_agents: [claude]\n        handoff_to: [r{}]\n",
                (i + 1) % 150
            )
        })
        .collect();
    let text = format!(
        "# big\nschema_version: \"1.0.0\"\nid: big\nname: Big\nrun_inputs: [spec_path]\nworkflow:\n  build:\n    roles:\n{roles}"
    );
    let fixed = fix_all(&text, Format::Yaml, &Options::default(), &[]).unwrap();
    assert!(fixed.preserved);
    assert_eq!(fixed.applied.len(), 151, "150 verdicts and one loop limit");
    let after = validate_source(&fixed.text, Format::Yaml, &Options::default());
    assert!(after.allow(), "{:#?}", after.findings);
    for i in 0..150 {
        assert!(fixed.text.contains(&format!("      # role {i}\n")));
    }
}

/// Regression (schema sweep): a role with hundreds of unknown fields took
/// one round of `fix_all` per field, every round validating the whole text
/// again (quadratic: a 60 KB file with 500 of them took 16 s of CPU in a
/// debug build). Each fix renames its own key, so one round takes them all.
#[test]
fn the_unknown_fields_of_one_role_are_fixed_in_one_round() {
    let extra: String = (0..300)
        .map(|i| format!("        unknown_{i}: {i}\n"))
        .collect();
    let text = CLEAN.replacen(
        "        mode: worker\n",
        &format!("        mode: worker\n{extra}"),
        1,
    );
    let document = document::parse_value(&text, Format::Yaml).unwrap();
    let report = validate_source(&text, Format::Yaml, &Options::default());
    let candidates: Vec<Fix> = report
        .findings
        .iter()
        .filter_map(|f| fixes_for(&document, f).into_iter().next())
        .collect();
    assert_eq!(candidates.len(), 300, "{:?}", report.findings);
    let round = batch(&document, &candidates, MAX_FIXES);
    assert_eq!(round.len(), 300);
    // Applied at once, they are every rename, the comments kept.
    let fixed = apply(&text, Format::Yaml, &round).unwrap();
    assert!(fixed.comments_kept());
    assert!(fixed.text.contains("        x_unknown_299: 299\n"));
    assert!(!fixed.text.contains("\n        unknown_"));
}

/// Every role hands off to itself (PB306): each fix removes an item of its
/// own role's `handoff_to`. Removing a sequence item made a fix go alone,
/// so the roles took a round each, every round validating the whole text.
/// Fixes of different sequences now go together; a fix pointing into a
/// sequence another one shifts still waits for the next round.
#[test]
fn removals_from_different_sequences_go_in_one_round() {
    let roles: String = (0..200)
        .map(|i| format!("      - name: r{i}\n        mode: worker\n        handoff_to: [r{i}]\n"))
        .collect();
    let text =
        format!("schema_version: \"1.0.0\"\nid: d\nname: D\nworkflow:\n  b:\n    roles:\n{roles}");
    let document = document::parse_value(&text, Format::Yaml).unwrap();
    let report = validate_source(&text, Format::Yaml, &Options::default());
    let candidates: Vec<Fix> = report
        .findings
        .iter()
        .filter(|f| f.code == Code::HandoffToItself)
        .filter_map(|f| fixes_for(&document, f).into_iter().next())
        .collect();
    assert_eq!(candidates.len(), 200, "{:?}", report.findings);
    let round = batch(&document, &candidates, MAX_FIXES);
    assert_eq!(round.len(), 200);
    let fixed = apply(&text, Format::Yaml, &round).unwrap();
    let again = validate_source(&fixed.text, Format::Yaml, &Options::default());
    assert!(
        !again
            .findings
            .iter()
            .any(|f| f.code == Code::HandoffToItself),
        "{}",
        fixed.text
    );

    // Two fixes of one sequence: the second points past an item the first
    // removes, so it waits.
    let first = Fix {
        ops: vec![Op::Remove {
            path: "/workflow/b/roles/0/handoff_to/0".into(),
        }],
        ..candidates[0].clone()
    };
    let second = Fix {
        path: "/workflow/b/roles/1".into(),
        ops: vec![Op::Replace {
            path: "/workflow/b/roles/0/handoff_to/0".into(),
            value: serde_json::json!("r9"),
        }],
        ..candidates[1].clone()
    };
    assert_eq!(batch(&document, &[first, second], MAX_FIXES).len(), 1);
}
