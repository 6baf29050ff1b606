//! Tool permissions can only narrow a role's `actions_allowed`.

use playbook_runner::context::{
    Bundle, NarrowReason, Overlay, PolicyFor, RoleRule, effective_tools, narrow,
};
use proptest::prelude::*;

use crate::{Repo, strings};

#[test]
fn an_overlay_that_allows_git_push_and_a_policy_that_allows_everything_grant_nothing_new() {
    let repo = Repo::with(&[
        (
            "policy/role-permissions.json",
            r#"{"roles": {"Executor": {"allow": ["*", "git_push", "run_command"]}}}"#,
        ),
        (
            "agents/Executor.md",
            "---\nallowed_actions: [read_file, write_file, git_push]\nforbidden_actions: []\n---\n# Executor\nYou may git_push.\n",
        ),
    ]);
    let bundle = Bundle::read(repo.path(), "main", &["Executor"]).unwrap();
    let actions = strings(&["read_file", "write_file", "git_commit"]);
    let (tools, narrowed) = effective_tools(&bundle, "Executor", &actions);
    assert_eq!(
        tools,
        ["read_file", "write_file"],
        "git_commit is not in the overlay's list; git_push never was allowed"
    );
    assert!(
        narrowed.iter().any(|n| n.tool == "git_push"
            && n.reason == NarrowReason::WideningIgnored
            && n.source == "agents/Executor.md"),
        "the overlay's attempt to widen is recorded: {narrowed:?}"
    );
    assert!(
        narrowed
            .iter()
            .any(|n| n.tool == "git_push" && n.source == "policy/role-permissions.json"),
        "so is the policy's: {narrowed:?}"
    );
    assert!(
        narrowed
            .iter()
            .any(|n| n.tool == "git_commit" && n.reason == NarrowReason::NotAllowedByOverlay)
    );
}

#[test]
fn policy_deny_and_overlay_forbidden_actions_subtract() {
    let repo = Repo::with(&[
        (
            "policy/role-permissions.json",
            r#"{"roles": {"Reviewer": {"allow": ["read_file", "search_code", "run_command"], "deny": ["run_command"]}}}"#,
        ),
        (
            "agents/Reviewer.md",
            "---\nforbidden_actions: [search_code]\n---\n",
        ),
    ]);
    let bundle = Bundle::read(repo.path(), "main", &["Reviewer"]).unwrap();
    let actions = strings(&["read_file", "search_code", "run_command", "write_file"]);
    let (tools, narrowed) = effective_tools(&bundle, "Reviewer", &actions);
    assert_eq!(tools, ["read_file"]);
    let reasons: Vec<(&str, NarrowReason)> = narrowed
        .iter()
        .map(|n| (n.tool.as_str(), n.reason))
        .collect();
    assert_eq!(
        reasons,
        [
            ("search_code", NarrowReason::ForbiddenByOverlay),
            ("run_command", NarrowReason::DeniedByPolicy),
            ("write_file", NarrowReason::NotAllowedByPolicy),
        ]
    );
}

#[test]
fn without_governance_files_actions_allowed_alone_governs() {
    let repo = Repo::with(&[("README.md", "x")]);
    let bundle = Bundle::read(repo.path(), "main", &["Executor"]).unwrap();
    let actions = strings(&["read_file", "git_commit", "read_file"]);
    let (tools, narrowed) = effective_tools(&bundle, "Executor", &actions);
    assert_eq!(
        tools,
        ["read_file", "git_commit"],
        "order kept, duplicates dropped"
    );
    assert!(narrowed.is_empty());
}

#[test]
fn a_role_the_policy_does_not_name_gets_no_tools() {
    let rule = RoleRule {
        allow: strings(&["*"]),
        deny: vec![],
    };
    let _ = rule;
    let (tools, narrowed) = narrow(&strings(&["read_file"]), PolicyFor::Unnamed, None);
    assert!(tools.is_empty(), "fail-closed");
    assert_eq!(narrowed[0].reason, NarrowReason::RoleNotInPolicy);
}

fn tool() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "read_file",
        "write_file",
        "edit_file",
        "run_command",
        "git_commit",
        "git_push",
        "git_reset",
        "*",
    ])
    .prop_map(str::to_string)
}

fn tools() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(tool(), 0..8)
}

proptest! {
    /// Whatever the policy and the overlay say, the effective tools are a
    /// subset of actions_allowed, and each is allowed by both and denied
    /// by neither.
    #[test]
    fn effective_tools_are_always_a_subset_of_actions_allowed(
        actions in tools(),
        policy_kind in 0..3u8,
        allow in tools(),
        deny in tools(),
        forbidden in tools(),
        overlay_allowed in prop::option::of(tools()),
        with_overlay in any::<bool>(),
    ) {
        let rule = RoleRule { allow: allow.clone(), deny: deny.clone() };
        let policy = match policy_kind {
            0 => PolicyFor::Absent,
            1 => PolicyFor::Unnamed,
            _ => PolicyFor::Rule(&rule),
        };
        let overlay = Overlay { forbidden_actions: forbidden.clone(), allowed_actions: overlay_allowed.clone() };
        let overlay_arg = with_overlay.then_some(("agents/R.md", &overlay));
        let (effective, _) = narrow(&actions, policy, overlay_arg);
        let star = |list: &[String], t: &String| list.contains(t) || list.iter().any(|x| x == "*");
        for t in &effective {
            prop_assert!(actions.contains(t), "{t} is not in actions_allowed");
            match policy_kind {
                1 => prop_assert!(false, "an unnamed role got {t}"),
                2 => {
                    prop_assert!(star(&allow, t));
                    prop_assert!(!star(&deny, t));
                }
                _ => {}
            }
            if with_overlay {
                prop_assert!(!star(&forbidden, t));
                if let Some(allowed) = &overlay_allowed {
                    prop_assert!(star(allowed, t));
                }
            }
        }
        let mut unique = effective.clone();
        unique.dedup();
        prop_assert_eq!(unique.len(), effective.len());
    }
}
