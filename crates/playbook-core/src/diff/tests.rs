//! Data-driven tests of the semantic diff: a base playbook, a list of edits,
//! and the snapshot of the sentences the diff says about them.

use serde_json::{Value, json};

use super::diff;
use crate::document::{self, Format};
use crate::model::Playbook;

const BASE: &str = r#"
schema_version: 1.0.0
id: review-loop
name: Review loop
policies:
  review_passed: verdict == "pass"
workflow:
  plan:
    stage_policy:
      exit_gate: plan_ready
    roles:
      - name: planner
        mode: planner
        responsibilities: Turn the goal into a spec and small tasks.
        inputs_required: [goal]
        outputs_contract: {type: plan_result, required: [spec_path, tasks]}
        actions_allowed: [read_file, search_code]
        handoff_to: [coder]
  build:
    stage_policy:
      exit_gate: review_passed
      max_parallel_worktrees: 2
    roles:
      - name: coder
        mode: worker
        responsibilities: Implement one task against the spec and commit it.
        allowed_agents: [claude, codex]
        inputs_required: [task, spec_path]
        outputs_contract: {type: work_result, required: [commit_sha, summary]}
        actions_allowed: [read_file, write_file, git_commit]
        gates: {requires_user_approval: true, pass_condition: size(commit_sha) > 0}
        handoff_to: [reviewer]
        retry_policy: {max_iterations: 3, escalate_on: [retry_limit]}
      - name: reviewer
        mode: reviewer
        responsibilities: Review the commit against the spec.
        inputs_required: [spec_path, commit_sha]
        outputs_contract: {type: review_result, required: [verdict, issues]}
        actions_allowed: [read_file, git_diff]
        gates: {pass_condition: review_passed}
        handoff_to: [coder, tester]
  test:
    roles:
      - name: tester
        mode: tester
        inputs_required: [commit_sha]
        outputs_contract: {type: test_result, required: [failures]}
        actions_allowed: [run_tests]
        handoff_to: []
"#;

fn base() -> Playbook {
    let value = document::parse_value(BASE, Format::Yaml).expect("the base parses");
    document::from_value(value).expect("the base is a playbook")
}

/// One edit of the base document, addressed by JSON pointer.
enum Edit {
    Set(&'static str, Value),
    Remove(&'static str),
    /// Renames a key of the object at the pointer, keeping its position.
    RenameKey(&'static str, &'static str, &'static str),
}
use Edit::*;

fn apply(document: &mut Value, edit: Edit) {
    let split = |pointer: &'static str| pointer.rsplit_once('/').expect("pointer has a parent");
    match edit {
        Set(pointer, value) => {
            let (parent, key) = split(pointer);
            match document.pointer_mut(parent).expect("parent exists") {
                Value::Object(map) => {
                    map.insert(key.to_string(), value);
                }
                Value::Array(items) => {
                    let index: usize = key.parse().expect("array index");
                    if index == items.len() {
                        items.push(value);
                    } else {
                        items[index] = value;
                    }
                }
                _ => panic!("{pointer} is not inside an object or array"),
            }
        }
        Remove(pointer) => {
            let (parent, key) = split(pointer);
            match document.pointer_mut(parent).expect("parent exists") {
                Value::Object(map) => {
                    map.shift_remove(key).expect("key exists");
                }
                Value::Array(items) => {
                    items.remove(key.parse::<usize>().expect("array index"));
                }
                _ => panic!("{pointer} is not inside an object or array"),
            }
        }
        RenameKey(pointer, from, to) => {
            let map = document
                .pointer_mut(pointer)
                .and_then(Value::as_object_mut)
                .expect("object exists");
            let entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
            for (key, value) in entries {
                map.insert(if key == from { to.to_string() } else { key }, value);
            }
        }
    }
}

fn edited(edits: Vec<Edit>) -> Playbook {
    let mut value = serde_json::to_value(base()).expect("serialises");
    for edit in edits {
        apply(&mut value, edit);
    }
    serde_json::from_value(value).expect("the edited document is a playbook")
}

/// Diffs the base against the edited base and snapshots the sentences.
#[track_caller]
fn check(name: &str, edits: Vec<Edit>) {
    let changes = diff(&base(), &edited(edits));
    let text = changes.sentences().collect::<Vec<_>>().join("\n");
    insta::assert_snapshot!(name, text);
}

#[test]
fn identical_playbooks_have_no_changes() {
    assert!(
        diff(&base(), &base()).is_empty(),
        "nothing changed, so nothing may be reported"
    );
}

#[test]
fn a_new_tool_widens_the_role() {
    check(
        "tool_widened",
        vec![Set(
            "/workflow/build/roles/1/actions_allowed/2",
            json!("merge_worktree"),
        )],
    );
}

#[test]
fn a_removed_tool_narrows_the_role() {
    check(
        "tool_narrowed",
        vec![Set(
            "/workflow/build/roles/0/actions_allowed",
            json!(["read_file", "write_file"]),
        )],
    );
}

#[test]
fn a_higher_retry_limit_shows_before_and_after() {
    check(
        "retry_limit_raised",
        vec![Set(
            "/workflow/build/roles/0/retry_policy/max_iterations",
            json!(5),
        )],
    );
}

#[test]
fn removing_the_retry_policy_says_what_it_was() {
    check(
        "retry_policy_removed",
        vec![Remove("/workflow/build/roles/0/retry_policy")],
    );
}

#[test]
fn dropping_approval_is_reported_as_such() {
    check(
        "approval_dropped",
        vec![Set(
            "/workflow/build/roles/0/gates/requires_user_approval",
            json!(false),
        )],
    );
}

#[test]
fn a_tool_leaving_the_mutating_list_no_longer_needs_approval() {
    check(
        "mutating_actions_narrowed",
        vec![Set(
            "/mutating_actions",
            json!(["write_file", "edit_file", "git_commit"]),
        )],
    );
}

#[test]
fn gate_changes_show_both_conditions() {
    check(
        "gates_changed",
        vec![
            Set(
                "/workflow/build/roles/1/gates/pass_condition",
                json!("verdict == \"pass\""),
            ),
            Set(
                "/workflow/build/stage_policy/exit_gate",
                json!("tests_green"),
            ),
            Remove("/workflow/plan/stage_policy/exit_gate"),
            Set(
                "/workflow/test/stage_policy",
                json!({"enter_gate": "review_passed"}),
            ),
        ],
    );
}

#[test]
fn a_renamed_role_is_one_rename_and_its_handoffs_follow_it() {
    check(
        "role_renamed",
        vec![
            Set("/workflow/build/roles/0/name", json!("implementer")),
            Set("/workflow/plan/roles/0/handoff_to", json!(["implementer"])),
            Set(
                "/workflow/build/roles/1/handoff_to",
                json!(["implementer", "tester"]),
            ),
        ],
    );
}

#[test]
fn a_renamed_and_edited_role_reports_the_rename_and_the_edit() {
    check(
        "role_renamed_and_edited",
        vec![
            Set("/workflow/build/roles/0/name", json!("implementer")),
            Set("/workflow/build/roles/0/allowed_agents", json!(["claude"])),
            Set("/workflow/plan/roles/0/handoff_to", json!(["implementer"])),
            Set(
                "/workflow/build/roles/1/handoff_to",
                json!(["implementer", "tester"]),
            ),
        ],
    );
}

#[test]
fn an_unrelated_role_replacing_another_is_a_removal_and_an_addition() {
    check(
        "role_replaced",
        vec![
            Set(
                "/workflow/test/roles/0",
                json!({"name": "auditor", "mode": "reviewer", "responsibilities": "Audit licences.",
                       "actions_allowed": ["read_file"], "inputs_required": ["commit_sha"],
                       "outputs_contract": {"type": "audit", "required": ["verdict"]}}),
            ),
            Set(
                "/workflow/build/roles/1/handoff_to",
                json!(["coder", "auditor"]),
            ),
        ],
    );
}

#[test]
fn adding_and_removing_stages_and_roles() {
    check(
        "stages_and_roles_added_removed",
        vec![
            Remove("/workflow/test"),
            Set(
                "/workflow/release",
                json!({"roles": [{"name": "releaser", "mode": "worker", "actions_allowed": ["deploy"],
                                  "gates": {"requires_user_approval": true}}]}),
            ),
            Set("/workflow/build/roles/1/handoff_to", json!(["coder"])),
        ],
    );
}

#[test]
fn a_renamed_stage_is_one_rename() {
    check(
        "stage_renamed",
        vec![RenameKey("/workflow", "build", "implement")],
    );
}

#[test]
fn moving_a_role_to_another_stage() {
    check(
        "role_moved",
        vec![
            Remove("/workflow/build/roles/1"),
            Set(
                "/workflow/test/roles/1",
                serde_json::to_value(base().role("reviewer").expect("reviewer").role)
                    .expect("json"),
            ),
        ],
    );
}

#[test]
fn disabling_a_stage_and_changing_parallelism() {
    check(
        "stage_settings",
        vec![
            Set("/workflow/test/enabled", json!(false)),
            Set(
                "/workflow/build/stage_policy/max_parallel_worktrees",
                json!(4),
            ),
        ],
    );
}

#[test]
fn reordering_stages_changes_the_flow() {
    let mut value = serde_json::to_value(base()).expect("json");
    let workflow = value["workflow"].as_object_mut().expect("object");
    let plan = workflow.shift_remove("plan").expect("plan");
    workflow.insert("plan".into(), plan);
    let changes = diff(&base(), &serde_json::from_value(value).expect("playbook"));
    insta::assert_snapshot!(
        "stages_reordered_plan_last",
        changes.sentences().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn field_changes_of_roles_and_playbook() {
    check(
        "fields_changed",
        vec![
            Set("/name", json!("Review loop v2")),
            Set("/description", json!("Plan, build with review, test.")),
            Set(
                "/workflow/build/roles/0/responsibilities",
                json!("Implement the task test-first."),
            ),
            Set(
                "/workflow/build/roles/1/inputs_required",
                json!(["spec_path", "commit_sha", "test_report"]),
            ),
            Set(
                "/workflow/build/roles/1/outputs_contract/required",
                json!(["verdict"]),
            ),
            Set(
                "/workflow/build/roles/0/retry_policy/escalate_on",
                json!(["retry_limit", "timeout"]),
            ),
            Set("/workflow/build/roles/0/x_owner", json!("team-a")),
            Set("/policies/tests_green", json!("failures == 0")),
            Remove("/policies/review_passed"),
        ],
    );
}

#[test]
fn changes_serialise_with_kind_location_and_values() {
    let changes = diff(
        &base(),
        &edited(vec![
            Set(
                "/workflow/build/roles/1/actions_allowed/2",
                json!("merge_worktree"),
            ),
            Set(
                "/workflow/build/roles/0/retry_policy/max_iterations",
                json!(5),
            ),
        ]),
    );
    insta::assert_json_snapshot!("json_output", changes);
}

#[test]
fn reordering_roles_changes_where_a_stage_starts() {
    let reviewer =
        serde_json::to_value(base().role("reviewer").expect("reviewer").role).expect("json");
    let coder = serde_json::to_value(base().role("coder").expect("coder").role).expect("json");
    check(
        "stage_entry_changed",
        vec![
            Set("/workflow/build/roles/0", reviewer),
            Set("/workflow/build/roles/1", coder),
        ],
    );
}

#[test]
fn two_versions_of_a_role_template_differ_in_contract_sentences() {
    use crate::model::RoleMode;
    use crate::templates::role_template;
    let old = role_template(RoleMode::Reviewer);
    assert!(super::diff_roles(&old, &old).is_empty());
    let mut new = old.clone();
    new.name = "strict-reviewer".into();
    new.actions_allowed
        .get_or_insert_with(Vec::new)
        .push("run_tests".into());
    new.retry_policy
        .get_or_insert_with(Default::default)
        .max_iterations = Some(5);
    new.handoff_to = Some(vec!["implementer".into()]);
    let changes = super::diff_roles(&old, &new);
    let sentences: Vec<&str> = changes.sentences().collect();
    assert!(
        sentences.contains(&"role reviewer renamed to strict-reviewer"),
        "{sentences:#?}"
    );
    assert!(
        sentences.contains(&"strict-reviewer may now use run_tests (renamed from reviewer)"),
        "{sentences:#?}"
    );
    assert!(
        sentences.iter().any(|s| s.contains("retry limit")),
        "{sentences:#?}"
    );
    assert!(
        sentences.contains(&"handoff strict-reviewer → implementer added"),
        "{sentences:#?}"
    );
    assert!(changes.changes.iter().all(|c| c.stage.is_none()));
    assert!(
        changes.changes[0].widening,
        "widening changes come first: {sentences:#?}"
    );
}
