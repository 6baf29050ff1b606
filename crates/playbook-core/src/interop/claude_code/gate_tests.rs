//! The gate's decisions on paths that reach what a role may not change
//! from the side: a directory that holds a forbidden path, and `.git` below
//! the project's top.

use serde_json::json;

use super::gate::{GateInput, Permission, Scopes, decide};
use crate::{Format, Options, Playbook, validate_source};

const CWD: &str = "/work/proj";

/// A writer held to `src/` with `src/secret/` forbidden (the tester's
/// playbook), with the deletion and restore tools behind `Bash`.
fn playbook() -> Playbook {
    let text = "\
schema_version: 1.0.0
id: gatepb
name: Gate
workflow:
  build:
    roles:
      - name: writer
        mode: worker
        responsibilities: Edit src only.
        outputs_contract:
          required: [summary]
        actions_allowed: [read_file, write_file, edit_file, git_diff, git_status, git_commit, delete_file, git_reset, git_checkout, run_tests]
        gates:
          requires_user_approval: false
        x_scope:
          lock_scope: [src/]
          forbidden_scope: [src/secret/]
";
    validate_source(text, Format::Yaml, &Options::default())
        .playbook
        .expect("the playbook reads")
}

fn decision(tool: &str, tool_input: serde_json::Value, scopes: &Scopes) -> (Permission, String) {
    let input = GateInput {
        tool_name: tool.into(),
        tool_input,
        cwd: Some(CWD.into()),
        agent_type: Some("writer".into()),
    };
    let d = decide(&playbook(), None, &input, scopes, false);
    (d.permission.expect("a decision"), d.reason)
}

fn bash(command: &str) -> (Permission, String) {
    decision("Bash", json!({ "command": command }), &Scopes::default())
}

fn write(path: &str) -> (Permission, String) {
    decision(
        "Write",
        json!({ "file_path": path, "content": "x" }),
        &Scopes::default(),
    )
}

#[test]
fn removing_or_restoring_a_directory_that_holds_a_forbidden_path_is_denied() {
    for command in [
        "rm -rf src",
        "rm -r src/",
        "rm -rf ./src",
        "rm -rf src/.",
        "rm -R SRC",
        "git rm -r src",
        "git rm -r -f src/",
        "git checkout HEAD -- src",
        "git restore src",
        "git restore -- src/secret/../",
    ] {
        let (p, why) = bash(command);
        assert_eq!(p, Permission::Deny, "{command}: {why}");
        assert!(why.contains("holds `src/secret/`"), "{command}: {why}");
        assert!(
            !why.contains("` is in the forbidden_scope"),
            "{command}: {why}"
        );
    }
    // Inside the forbidden path: the message says so.
    let (p, why) = bash("rm -rf src/secret/k");
    assert_eq!(p, Permission::Deny);
    assert!(
        why.contains("`src/secret/k` is in the forbidden_scope"),
        "{why}"
    );
    // Beside it, within the lock_scope: allowed.
    for command in [
        "rm -rf src/other",
        "rm src/a.txt",
        "git rm -r src/secretive",
    ] {
        let (p, why) = bash(command);
        assert_eq!(p, Permission::Allow, "{command}: {why}");
    }
}

#[test]
fn a_forbidden_path_given_on_the_command_line_is_held_both_ways_too() {
    let scopes = Scopes {
        forbidden_scope: vec!["./src/keys/**".into()],
        ..Default::default()
    };
    let (p, why) = decision("Bash", json!({"command": "rm -rf src"}), &scopes);
    assert_eq!(p, Permission::Deny, "{why}");
    assert!(why.contains("holds `./src/keys/**`"), "{why}");
}

#[test]
fn writing_into_a_git_directory_at_any_depth_is_denied() {
    for path in [
        "/work/proj/src/.git/hooks/pre-commit",
        "/work/proj/src/.GIT/config",
        "src/sub/.git/config",
        "src/.git./config",
        "src/.git /config",
        "src/GIT~1/config",
        "src/.g\u{200c}it/config",
        "/work/proj/.git/config",
    ] {
        let (p, why) = write(path);
        assert_eq!(p, Permission::Deny, "{path}: {why}");
        assert!(why.contains("`.git`"), "{path}: {why}");
    }
    for command in ["rm src/.git", "rm -rf src/.git", "git rm -r src/.Git/hooks"] {
        let (p, why) = bash(command);
        assert_eq!(p, Permission::Deny, "{command}: {why}");
        assert!(why.contains("`.git`"), "{command}: {why}");
    }
    // Names that only look like it are files like any other.
    for path in ["src/.gitignore", "src/a.git", "src/.github/x", "src/git/x"] {
        let (p, why) = write(path);
        assert_eq!(p, Permission::Allow, "{path}: {why}");
    }
}

/// A subagent's `tools` may name a whole MCP server, as published ones do
/// (`tools: Read, Write, Bash, mcp__prompt-to-asset`), or write it
/// `mcp__server__*`, as Claude Code's permission rules do: every tool of
/// that server is the role's. The gate used to compare names exactly and
/// denied every call the subagent was given. A name only the server's
/// prefix of (`mcp__assetsX__…`), another server, and a tool name that
/// would let a server `assets__x` pass for `assets` are still denied.
#[test]
fn a_whole_mcp_server_in_tools_grants_its_tools_only() {
    let text = "\
schema_version: 1.0.0
id: mcp
name: MCP
workflow:
  build:
    roles:
      - name: artist
        mode: worker
        responsibilities: Make assets.
        actions_allowed: [read_file, mcp__prompt-to-asset]
        x_claude_code:
          tools_unmapped: [mcp__github__*]
";
    let playbook = validate_source(text, Format::Yaml, &Options::default())
        .playbook
        .expect("the playbook reads");
    let call = |tool: &str| {
        let input = GateInput {
            tool_name: tool.into(),
            tool_input: json!({}),
            cwd: Some(CWD.into()),
            agent_type: Some("artist".into()),
        };
        let d = decide(&playbook, None, &input, &Scopes::default(), false);
        (d.permission.expect("a decision"), d.reason)
    };
    for granted in [
        "mcp__prompt-to-asset__generate_asset",
        "mcp__github__get_pull_request",
    ] {
        let (p, why) = call(granted);
        assert_eq!(p, Permission::Allow, "{granted}: {why}");
    }
    for refused in [
        "mcp__prompt-to-assetX__generate",
        "mcp__prompt-to-asset__",
        "mcp__prompt-to-asset__x__y",
        "mcp__gitlab__get_merge_request",
        "mcp__github",
    ] {
        let (p, why) = call(refused);
        assert_eq!(p, Permission::Deny, "{refused}: {why}");
    }
}
