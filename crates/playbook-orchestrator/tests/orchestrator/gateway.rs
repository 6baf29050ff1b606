//! The gateway's rules, exercised through scripted tool calls: the same
//! checks refuse a real agent's calls (crates/playbook-runner). Each refusal
//! is recorded before anything runs and names its rule.

use playbook_orchestrator::Approval;
use playbook_orchestrator::event::Event;
use playbook_orchestrator::{ErrorCode, preview};

use crate::events;

/// One role that may use every catalog tool, without approval.
const PLAYBOOK: &str = r#"
schema_version: "1.0.0"
id: gw
name: Gateway
workflow:
  build:
    roles:
      - name: worker
        mode: worker
        actions_allowed: [read_file, write_file, edit_file, delete_file, run_command, run_tests,
                          git_status, git_diff, git_commit, git_checkpoint, git_reset, git_push, deploy]
        gates:
          requires_user_approval: false
"#;

/// Runs one task of `kind` (none: the default) whose worker makes `calls`
/// (YAML flow list); returns each call's (tool, blocked code).
fn calls(task: &str, calls: &str, limits: &str) -> Vec<(String, Option<ErrorCode>)> {
    let scenario = format!(
        "input:\n  goal: g\n  tasks:\n    - {{id: T-1, title: t, acceptance_criteria: [ok]{task}}}\n  active_locks:\n    - {{task_id: T-9, resource: shared/, active: true}}\nroles:\n  worker:\n    default:\n      tool_calls: {calls}\n{limits}"
    );
    let run = preview(PLAYBOOK, &scenario, 0, Approval::Auto).expect("the preview starts");
    events(&run)
        .into_iter()
        .filter_map(|e| match e.event {
            Event::ToolCallAllowed { tool, .. } => Some((tool, None)),
            Event::ToolCallBlocked { tool, code, .. } => Some((tool, Some(code))),
            _ => None,
        })
        .collect()
}

fn code_of(results: &[(String, Option<ErrorCode>)], tool: &str) -> Option<ErrorCode> {
    results
        .iter()
        .find(|(t, _)| t == tool)
        .unwrap_or_else(|| panic!("{tool} was not attempted: {results:?}"))
        .1
}

#[test]
fn task_kinds_refuse_what_their_kind_forbids() {
    let all = "[read_file, write_file, run_command, git_commit, git_reset, git_push, deploy]";
    let expect = |kind: &str, allowed: &[&str]| {
        let got = calls(&format!(", kind: {kind}"), all, "");
        for (tool, code) in &got {
            let want_allowed = allowed.contains(&tool.as_str());
            assert_eq!(code.is_none(), want_allowed, "{kind}: {tool} gave {code:?}");
            if !want_allowed {
                assert_eq!(*code, Some(ErrorCode::TaskKindForbids), "{kind}: {tool}");
            }
        }
    };
    expect(
        "edit_repo",
        &[
            "read_file",
            "write_file",
            "run_command",
            "git_commit",
            "deploy",
        ],
    );
    expect("inspect", &["read_file"]);
    expect("run", &["read_file", "run_command"]);
    expect("git", &["read_file", "git_commit", "git_reset"]);
}

#[test]
fn paths_that_leave_the_worktree_are_refused() {
    for path in [
        "/etc/passwd",
        "../outside",
        "a/../../b",
        ".git/config",
        "C:\\\\x",
    ] {
        let got = calls(
            "",
            &format!("[{{tool: write_file, args: {{path: '{path}', content: x}}}}]"),
            "",
        );
        assert_eq!(
            code_of(&got, "write_file"),
            Some(ErrorCode::PathEscape),
            "{path}"
        );
    }
    let got = calls(
        "",
        "[{tool: write_file, args: {path: [1], content: x}}]",
        "",
    );
    assert_eq!(code_of(&got, "write_file"), Some(ErrorCode::PathEscape));
}

#[test]
fn writes_keep_to_lock_scope_forbidden_scope_and_other_tasks_locks() {
    let scoped = ", lock_scope: [src/], forbidden_scope: [src/secret/]";
    let write = |p: &str| format!("{{tool: edit_file, args: {{path: '{p}', old: a, new: b}}}}");
    let got = calls(scoped, &format!("[{}]", write("src/ok.rs")), "");
    assert_eq!(code_of(&got, "edit_file"), None);
    // A forbidden path or another task's lock in another case is the same
    // file on a case-insensitive file system: refused too.
    for path in [
        "docs/readme.md",
        "src/secret/key.pem",
        "src/Secret/key.pem",
        "src/SECRET",
        "src",
        "src/../docs/x",
        "srcx/a",
    ] {
        let got = calls(scoped, &format!("[{}]", write(path)), "");
        assert_eq!(
            code_of(&got, "edit_file"),
            Some(ErrorCode::ScopeViolation),
            "{path}"
        );
    }
    // Without a lock_scope the task owns its worktree, but never another
    // task's lock.
    for path in ["shared/x", "Shared/x"] {
        let got = calls("", &format!("[{}]", write(path)), "");
        assert_eq!(
            code_of(&got, "edit_file"),
            Some(ErrorCode::ScopeViolation),
            "{path}"
        );
    }
    let got = calls("", &format!("[{}]", write("mine/x")), "");
    assert_eq!(code_of(&got, "edit_file"), None);
}

#[test]
fn the_run_tool_call_budget_holds_and_denied_calls_do_not_use_it() {
    let got = calls(
        "",
        "[git_push, read_file, read_file, read_file]",
        "limits:\n  max_run_tool_calls: 2\n",
    );
    let codes: Vec<_> = got.iter().map(|(_, c)| *c).collect();
    assert_eq!(
        codes,
        vec![
            Some(ErrorCode::TaskKindForbids),
            None,
            None,
            Some(ErrorCode::BudgetExceeded)
        ]
    );
}
