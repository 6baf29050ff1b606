//! Regressions from a hostile sweep of the semantic diff: each test names
//! the defect it pins, on the sweep's team playbook, and holds the claims to
//! the edit with [`check_claims`] where they speak of roles.

use serde_json::json;

use super::claims_tests::{check_claims, rename, role_mut, sentences};
use super::diff;
use crate::document::{self, Format};
use crate::model::{Playbook, Role};

const BASE: &str = r#"
schema_version: 1.0.0
id: team
name: Team
workflow:
  plan:
    stage_policy:
      exit_gate: plan_ready
    roles:
      - name: architect
        responsibilities: Turn the goal into a spec and tasks.
        allowed_agents: [claude]
        mode: planner
        inputs_required: [goal]
        outputs_contract: {type: plan_result, required: [spec_path, tasks]}
        actions_allowed: [read_file, write_file]
        gates: {requires_user_approval: true, pass_condition: plan_ready}
        handoff_to: [coder]
  build:
    stage_policy:
      exit_gate: review_passed
    roles:
      - name: coder
        responsibilities: Implement the task and commit.
        allowed_agents: [claude, codex]
        mode: worker
        inputs_required: [task, spec_path]
        outputs_contract: {type: work_result, required: [commit_sha, summary]}
        actions_allowed: [read_file, write_file, edit_file, git_commit]
        gates: {requires_user_approval: true, pass_condition: "size(commit_sha) > 0"}
        handoff_to: [critic]
        x_scope: {lock_scope: [src/], forbidden_scope: [secrets/]}
      - name: critic
        responsibilities: Review the commit against the spec.
        allowed_agents: [claude]
        mode: reviewer
        inputs_required: [spec_path, commit_sha]
        outputs_contract: {type: review_result, required: [verdict, issues]}
        actions_allowed: [read_file, git_diff]
        gates: {requires_user_approval: false, pass_condition: review_passed}
        handoff_to: [coder]
        retry_policy: {max_iterations: 3, escalate_on: [retry_limit]}
  test:
    stage_policy:
      exit_gate: tests_green
    roles:
      - name: qa
        responsibilities: Run the whole suite and report failures.
        allowed_agents: [codex]
        mode: tester
        inputs_required: [commit_sha]
        outputs_contract: {type: test_result, required: [failed_cases, report]}
        actions_allowed: [read_file, run_tests]
        gates: {requires_user_approval: false, pass_condition: tests_green}
        handoff_to: []
  extra:
    enabled: false
    roles:
      - name: deployer
        mode: worker
        actions_allowed: [run_command, git_push]
        handoff_to: []
"#;

fn base() -> Playbook {
    let value = document::parse_value(BASE, Format::Yaml).expect("the base parses");
    document::from_value(value).expect("the base is a playbook")
}

fn role(value: serde_json::Value) -> Role {
    serde_json::from_value(value).expect("a role")
}

fn roles_of<'a>(p: &'a mut Playbook, stage: &str) -> &'a mut Vec<Role> {
    p.workflow
        .get_mut(stage)
        .expect("stage")
        .roles
        .get_or_insert_with(Vec::new)
}

/// The diff's sentences from `old` to `new`, `WIDENS: ` before each
/// widening one, after checking its claims give `new`.
#[track_caller]
fn said(old: &Playbook, new: &Playbook) -> Vec<String> {
    let d = diff(old, new);
    check_claims(old, new, &d);
    sentences(&d)
}

/// Sweep defect 1: a second role named `coder` (another stage, mutating
/// tools, no approval) was skipped by the comparison: "no changes".
#[test]
fn a_role_under_a_name_another_role_holds_is_accounted_for() {
    let old = base();
    let mut new = old.clone();
    roles_of(&mut new, "test").push(role(json!({
        "name": "coder", "mode": "worker",
        "actions_allowed": ["run_command", "git_push", "deploy"], "handoff_to": []
    })));
    assert_eq!(
        said(&old, &new),
        ["WIDENS: role coder (2nd of that name, stage test) added"]
    );
    // Its later edits are told on it, apart from the first coder.
    let mut newer = new.clone();
    roles_of(&mut newer, "test")[1]
        .actions_allowed
        .get_or_insert_with(Vec::new)
        .push("merge_worktree".into());
    roles_of(&mut newer, "build")[0].allowed_agents = Some(vec!["claude".into()]);
    assert_eq!(
        said(&new, &newer),
        [
            "WIDENS: coder (2nd of that name, stage test) may now use merge_worktree",
            "allowed_agents of coder (1st of that name, stage build) [claude, codex] → [claude]",
        ]
    );
    assert_eq!(
        said(&newer, &old),
        [
            "WIDENS: allowed_agents of coder [claude] → [claude, codex]",
            "role coder (2nd of that name, stage test) removed",
        ]
    );
    // A copy placed first takes the first place of the name, and with it
    // every handoff to the name (a handoff reaches the first holder): the
    // claims say so on both coders.
    let mut before = old.clone();
    let copy = role(json!({"name": "coder", "mode": "worker", "actions_allowed": ["deploy"]}));
    roles_of(&mut before, "plan").insert(0, copy);
    assert_eq!(
        said(&old, &before),
        [
            "WIDENS: role coder (1st of that name, stage plan) added",
            "handoff architect → coder (1st of that name, stage plan) added",
            "handoff coder (1st of that name, stage plan) → architect added (next role of the stage)",
            "handoff critic → coder (1st of that name, stage plan) added",
            "handoff architect → coder (2nd of that name, stage build) removed",
            "handoff critic → coder (2nd of that name, stage build) removed",
        ]
    );
}

/// Sweep defect 2: a wider `x_scope` (which the exported gate hook
/// enforces) read as a generic extension change, not widening.
#[test]
fn a_write_scope_that_lets_more_through_is_widening_and_a_narrower_one_is_not() {
    let old = base();
    let scoped = |scope: serde_json::Value| {
        let mut new = old.clone();
        match scope {
            serde_json::Value::Null => {
                role_mut(&mut new, "coder").extra.shift_remove("x_scope");
            }
            scope => {
                role_mut(&mut new, "coder")
                    .extra
                    .insert("x_scope".into(), scope);
            }
        }
        said(&old, &new)
    };
    assert_eq!(
        scoped(json!({"lock_scope": ["src/", "/"], "forbidden_scope": []})),
        [
            "WIDENS: x_scope.forbidden_scope of coder [secrets/] → []",
            "WIDENS: x_scope.lock_scope of coder [src/] → [src/, /]",
        ]
    );
    for (scope, widens) in [
        (
            json!({"lock_scope": ["src/", "**"], "forbidden_scope": ["secrets/"]}),
            true,
        ),
        (
            json!({"lock_scope": ["."], "forbidden_scope": ["secrets/"]}),
            true,
        ),
        (
            json!({"lock_scope": ["src/", "docs"], "forbidden_scope": ["secrets/"]}),
            true,
        ),
        (json!({"forbidden_scope": ["secrets/"]}), true),
        (
            json!({"lock_scope": ["src/"], "forbidden_scope": ["secrets/keys"]}),
            true,
        ),
        (json!({"lock_scope": ["src/"]}), true),
        (serde_json::Value::Null, true),
        (
            json!({"lock_scope": ["src/a"], "forbidden_scope": ["secrets/"]}),
            false,
        ),
        (
            json!({"lock_scope": ["src/**"], "forbidden_scope": ["secrets", "tmp"]}),
            false,
        ),
        (
            json!({"lock_scope": "src", "forbidden_scope": ["secrets/"]}),
            false,
        ),
        // A shape the gate cannot read refuses every write.
        (json!("src"), false),
        (json!({"lock_scope": ["src/"], "forbidden_scope": 3}), false),
    ] {
        let told = scoped(scope.clone());
        assert!(!told.is_empty(), "{scope}: something changed");
        assert_eq!(
            told.iter().any(|s| s.starts_with("WIDENS: ")),
            widens,
            "{scope}: {told:#?}"
        );
    }
    // The parent directory of an entry is wider; a scope set where there
    // was none confines.
    let mut parent = old.clone();
    role_mut(&mut parent, "critic")
        .extra
        .insert("x_scope".into(), json!({"lock_scope": ["src/a/b"]}));
    let mut wider = parent.clone();
    role_mut(&mut wider, "critic")
        .extra
        .insert("x_scope".into(), json!({"lock_scope": ["src/a"]}));
    assert_eq!(
        said(&parent, &wider),
        ["WIDENS: x_scope.lock_scope of critic [src/a/b] → [src/a]"]
    );
    assert_eq!(
        said(&old, &parent),
        ["x_scope.lock_scope of critic set to [src/a/b]"]
    );
}

/// Sweep defect 3: a role moved out of a disabled stage runs again, and
/// that was not widening (adding it there was already judged).
#[test]
fn a_role_moved_out_of_a_disabled_stage_into_the_flow_widens() {
    let old = base();
    let mut new = old.clone();
    let deployer = roles_of(&mut new, "extra").remove(0);
    roles_of(&mut new, "test").push(deployer);
    assert_eq!(
        said(&old, &new),
        ["WIDENS: role deployer moved from stage extra (disabled) to stage test"]
    );
    // Back into the disabled stage: it no longer runs, and held no gate.
    assert_eq!(
        said(&new, &old),
        ["role deployer moved from stage test to stage extra (disabled)"]
    );
    // A role whose gate guarded the flow moved out of it: its gate goes.
    let mut parked = old.clone();
    let critic = roles_of(&mut parked, "build").remove(1);
    roles_of(&mut parked, "extra").push(critic);
    let told = said(&old, &parked);
    assert_eq!(
        told[0],
        "WIDENS: role critic moved from stage build to stage extra (disabled)"
    );
}

/// Sweep defect 4: similarity ran Levenshtein over whole texts, quadratic
/// in their length, for every candidate pair: 100 renamed roles with 2 KB
/// of prose took minutes. Texts past a bound are compared through a sketch
/// of fixed size ([`super::similarity`], whose tests pin the bound), so
/// this diff of 100 × 100 candidate pairs over 20 KB texts, billions of
/// edit steps apiece before, does a bounded amount of work per pair.
#[test]
fn renames_among_many_roles_with_long_prose_are_found_with_bounded_work() {
    let prose = |i: usize, edited: bool| -> String {
        let mut text: String = (0..2500).map(|w| format!("r{i}w{w} ")).collect();
        if edited {
            text.push_str("and one more sentence at the end.");
        }
        text
    };
    let team = |prefix: &str, edited: bool| -> Playbook {
        let roles: Vec<serde_json::Value> = (0..100)
            .map(|i| {
                json!({"name": format!("{prefix}{i}"), "mode": "worker",
                       "responsibilities": prose(i, edited), "actions_allowed": ["read_file"]})
            })
            .collect();
        serde_json::from_value(json!({
            "schema_version": "1.0.0", "id": "many", "name": "Many",
            "workflow": {"work": {"roles": roles}}
        }))
        .expect("a playbook")
    };
    let (old, new) = (team("a", false), team("b", true));
    let d = diff(&old, &new);
    let renames: Vec<&str> = d
        .sentences()
        .filter(|s| s.contains(" renamed to "))
        .collect();
    assert_eq!(renames.len(), 100, "each role is its renamed self");
    assert!(renames.contains(&"role a42 renamed to b42"));
    check_claims(&old, &new, &d);
}

/// Sweep defect 5: two roles that swapped names (handoffs rewritten,
/// places and contracts kept) read as ~28 changes, six falsely widening.
#[test]
fn roles_that_swapped_names_are_renames_and_nothing_else() {
    let old = base();
    let mut new = old.clone();
    rename(&mut new, "coder", "\u{0}");
    rename(&mut new, "critic", "coder");
    rename(&mut new, "\u{0}", "critic");
    assert_eq!(
        said(&old, &new),
        [
            "role coder renamed to critic",
            "role critic renamed to coder"
        ]
    );
    // Three names rotated, each role keeping its place and contract.
    let mut rotated = old.clone();
    rename(&mut rotated, "architect", "\u{0}");
    rename(&mut rotated, "critic", "architect");
    rename(&mut rotated, "coder", "critic");
    rename(&mut rotated, "\u{0}", "coder");
    assert_eq!(
        said(&old, &rotated),
        [
            "role architect renamed to coder",
            "role coder renamed to critic",
            "role critic renamed to architect",
        ]
    );
    // Names swapped but the handoffs left alone: the roles handing off
    // kept the names, which outranks places and contracts, so the roles
    // are the names' holders with their contracts changed.
    let mut names_only = old.clone();
    roles_of(&mut names_only, "build")[0].name = "critic".into();
    roles_of(&mut names_only, "build")[1].name = "coder".into();
    let told = said(&old, &names_only);
    assert!(!told.iter().any(|s| s.contains("renamed")), "{told:#?}");
}

/// Sweep defect 6: `architect` replaced by a new planner and `critic`
/// renamed to the freed name; "handoff architect → coder removed" spoke of
/// the removed architect while the new architect has that very edge.
#[test]
fn a_freed_name_taken_names_the_removed_role_apart_and_its_edges_go_with_it() {
    let old = base();
    let mut new = old.clone();
    roles_of(&mut new, "plan")[0] = role(json!({
        "name": "scout", "mode": "planner", "responsibilities": "Collect context.",
        "actions_allowed": ["read_file"],
        "outputs_contract": {"type": "plan_result", "required": ["spec_path", "tasks"]},
        "handoff_to": ["coder"]
    }));
    rename(&mut new, "critic", "architect");
    assert_eq!(
        said(&old, &new),
        [
            "WIDENS: role architect removed from stage plan (its pass condition \"plan_ready\" goes with it; the name now belongs to critic, renamed)",
            "role scout added to stage plan",
            "role critic renamed to architect",
            "handoff scout → coder added",
        ]
    );
}

/// Sweep defect 7: gates weakened without the word: a pass condition
/// replaced by one that always holds, a policy override removed (the
/// built-in applies), a gated stage or reviewer removed.
#[test]
fn a_gate_weakened_or_removed_with_its_owner_is_widening() {
    type Edit = fn(&mut Playbook);
    let cases: [(&str, Edit, Edit, bool); 14] = [
        (
            "pass condition → always",
            |_| {},
            |p| {
                role_mut(p, "critic").gates.as_mut().unwrap().pass_condition = Some("always".into())
            },
            true,
        ),
        (
            "pass condition → true",
            |_| {},
            |p| role_mut(p, "critic").gates.as_mut().unwrap().pass_condition = Some("true".into()),
            true,
        ),
        (
            "pass condition → a constant",
            |_| {},
            |p| {
                role_mut(p, "critic").gates.as_mut().unwrap().pass_condition =
                    Some("(1 == 1)".into())
            },
            true,
        ),
        (
            "pass condition → another check",
            |_| {},
            |p| {
                role_mut(p, "critic").gates.as_mut().unwrap().pass_condition =
                    Some("verdict == \"pass\" && size(issues) == 0".into())
            },
            false,
        ),
        (
            "manual gate → a check",
            |p| {
                role_mut(p, "critic").gates.as_mut().unwrap().pass_condition =
                    Some("user_approved".into())
            },
            |p| {
                role_mut(p, "critic").gates.as_mut().unwrap().pass_condition =
                    Some("review_passed".into())
            },
            true,
        ),
        (
            "override of a built-in removed",
            |p| {
                p.policies = Some(
                    [(
                        "review_passed".to_string(),
                        "verdict == \"pass\" && size(issues) == 0".to_string(),
                    )]
                    .into_iter()
                    .collect(),
                )
            },
            |p| p.policies = None,
            true,
        ),
        (
            "override equal to the built-in removed",
            |p| {
                p.policies = Some(
                    [(
                        "review_passed".to_string(),
                        "verdict == \"pass\"".to_string(),
                    )]
                    .into_iter()
                    .collect(),
                )
            },
            |p| p.policies = None,
            false,
        ),
        (
            "built-in overridden by true",
            |_| {},
            |p| {
                p.policies = Some(
                    [("review_passed".to_string(), "true".to_string())]
                        .into_iter()
                        .collect(),
                )
            },
            true,
        ),
        (
            "policy changed to always",
            |p| {
                p.policies = Some(
                    [("signed".to_string(), "user_approved".to_string())]
                        .into_iter()
                        .collect(),
                );
                role_mut(p, "critic").gates.as_mut().unwrap().pass_condition = Some("signed".into())
            },
            |p| {
                p.policies = Some(
                    [("signed".to_string(), "always".to_string())]
                        .into_iter()
                        .collect(),
                )
            },
            true,
        ),
        (
            "gated stage removed",
            |_| {},
            |p| {
                p.workflow.shift_remove("test");
            },
            true,
        ),
        (
            "gated reviewer removed",
            |_| {},
            |p| {
                roles_of(p, "build").remove(1);
                role_mut(p, "coder").handoff_to = Some(vec![]);
            },
            true,
        ),
        (
            "ungated role removed",
            |_| {},
            |p| {
                roles_of(p, "extra").clear();
            },
            false,
        ),
        (
            "gated stage disabled",
            |_| {},
            |p| p.workflow.get_mut("test").unwrap().enabled = Some(false),
            true,
        ),
        (
            "stage gate → always",
            |_| {},
            |p| {
                p.workflow
                    .get_mut("build")
                    .unwrap()
                    .stage_policy
                    .as_mut()
                    .unwrap()
                    .exit_gate = Some("always".into())
            },
            true,
        ),
    ];
    for (what, setup, edit, widens) in cases {
        let mut old = base();
        setup(&mut old);
        let mut new = old.clone();
        edit(&mut new);
        let told = said(&old, &new);
        assert!(!told.is_empty(), "{what}: something changed");
        assert_eq!(
            told.iter().any(|s| s.starts_with("WIDENS: ")),
            widens,
            "{what}: {told:#?}"
        );
    }
    // The words say what went.
    let old = base();
    let mut new = old.clone();
    new.workflow.shift_remove("test");
    assert_eq!(
        said(&old, &new)[..2],
        [
            "WIDENS: stage test removed (its exit gate \"tests_green\" goes with it)",
            "WIDENS: role qa removed from stage test (its pass condition \"tests_green\" goes with it)",
        ]
    );
    let mut new = old.clone();
    new.policies = Some(
        [("review_passed".to_string(), "x == 1".to_string())]
            .into_iter()
            .collect(),
    );
    assert_eq!(
        said(&new, &old),
        [
            "WIDENS: policy review_passed removed (was \"x == 1\"; the built-in review_passed applies)"
        ]
    );
}

/// A value longer than a sentence quotes was cut at 77 characters wherever
/// that fell, inside a credential too: `sk-ant-api03-A1...` no longer reads
/// as a key to the redactor the CLI runs on every sentence, so the key's
/// prefix and first characters were printed. The cut now leaves out the
/// word it would split, as the validator's messages quote values.
#[test]
fn a_long_value_is_never_cut_inside_a_word() {
    let old = base();
    let mut new = old.clone();
    let key = format!("sk-ant-api03-{}", "A1b2C3d4E5".repeat(8));
    new.description = Some(format!("{} {key} tail", "x".repeat(60)));
    let told = said(&old, &new);
    assert_eq!(
        told,
        [format!(
            "playbook description set to \"{} ...",
            "x".repeat(60)
        )]
    );
    // A cut between words keeps the whole of the words before it.
    let mut new = old.clone();
    new.description = Some(format!("{} words after the cut", "ab ".repeat(30)));
    let told = said(&old, &new);
    assert!(told[0].ends_with("ab ab ..."), "{told:?}");
    for sentence in &told {
        assert!(!sentence.contains("sk-ant"), "{sentence}");
    }
}
