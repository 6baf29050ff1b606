//! Path confinement with real symbolic links: every escape is refused before
//! the call runs, and the file system shows nothing outside was read or
//! written; a link that stays inside the worktree is fine.

use std::os::unix::fs::symlink;
use std::path::PathBuf;

use playbook_orchestrator::ErrorCode;
use playbook_orchestrator::agent::ToolResult;
use playbook_runner::workspace::confine;
use serde_json::{Value, json};

use crate::support::{Fixture, gate, ran, run};

/// A fixture with tools, the worktree of task T1, a canary file and a
/// sibling folder outside the repository.
struct World {
    fx: Fixture,
    tools: playbook_runner::workspace::WorktreeTools,
    root: PathBuf,
    canary: PathBuf,
    sibling: PathBuf,
}

fn world() -> World {
    let fx = Fixture::new();
    let (tools, shared) = fx.tools(2);
    let root = shared.lock().unwrap().acquire("T1").unwrap();
    let canary = fx.canary();
    let sibling = fx.tmp.path().join("sibling");
    std::fs::create_dir_all(&sibling).unwrap();
    std::fs::write(sibling.join("secret.txt"), "sibling secret\n").unwrap();
    World {
        fx,
        tools,
        root,
        canary,
        sibling,
    }
}

#[track_caller]
fn denied(result: ToolResult) -> String {
    match result {
        ToolResult::Denied { code, message } => {
            assert_eq!(code, ErrorCode::PathEscape, "{message}");
            message
        }
        ToolResult::Ran { result } => panic!("ran: {result}"),
    }
}

fn outside_untouched(w: &World) {
    assert_eq!(std::fs::read_to_string(&w.canary).unwrap(), "untouched\n");
    let names: Vec<_> = std::fs::read_dir(&w.sibling)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        ["secret.txt"],
        "nothing was written beside the repository"
    );
    assert_eq!(
        std::fs::read_to_string(w.sibling.join("secret.txt")).unwrap(),
        "sibling secret\n"
    );
}

/// Every read and write tool, at `path`.
fn every_tool(path: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("read_file", json!({ "path": path })),
        ("list_files", json!({ "path": path })),
        ("search_code", json!({ "pattern": "secret", "path": path })),
        ("write_file", json!({ "path": path, "content": "pwned" })),
        (
            "edit_file",
            json!({ "path": path, "old": "untouched", "new": "pwned" }),
        ),
        ("delete_file", json!({ "path": path })),
    ]
}

#[test]
fn a_link_to_etc_is_refused_for_reads_and_writes() {
    let mut w = world();
    symlink("/etc", w.root.join("etc")).unwrap();
    for (tool, args) in every_tool("etc/passwd") {
        let msg = denied(gate(&mut w.tools, "T1", tool, args));
        assert!(
            msg.contains("symbolic link") && msg.contains("/etc"),
            "{tool}: {msg}"
        );
    }
    let msg = denied(gate(
        &mut w.tools,
        "T1",
        "list_files",
        json!({ "path": "etc" }),
    ));
    assert!(msg.contains("outside"), "{msg}");
}

#[test]
fn a_link_to_a_sibling_folder_and_a_link_to_a_file_outside_are_refused() {
    let mut w = world();
    symlink(&w.sibling, w.root.join("side")).unwrap();
    symlink(&w.canary, w.root.join("canary")).unwrap();
    for path in [
        "side/secret.txt",
        "side/new.txt",
        "side/deep/new.txt",
        "canary",
    ] {
        for (tool, args) in every_tool(path) {
            denied(gate(&mut w.tools, "T1", tool, args));
        }
    }
    outside_untouched(&w);
}

#[test]
fn a_chain_of_links_ending_outside_is_refused() {
    let mut w = world();
    std::fs::create_dir(w.root.join("real")).unwrap();
    symlink(&w.sibling, w.root.join("real/out")).unwrap();
    symlink("real", w.root.join("hop1")).unwrap();
    symlink("hop1", w.root.join("hop2")).unwrap();
    for (tool, args) in every_tool("hop2/out/secret.txt") {
        denied(gate(&mut w.tools, "T1", tool, args));
    }
    // A relative link climbing out of the root.
    symlink("../../../../../../../../..", w.root.join("up")).unwrap();
    for (tool, args) in every_tool("up/etc/passwd") {
        denied(gate(&mut w.tools, "T1", tool, args));
    }
    outside_untouched(&w);
}

#[test]
fn a_dangling_link_is_refused_because_its_end_cannot_be_checked() {
    let mut w = world();
    let target = w.fx.tmp.path().join("not-yet");
    symlink(&target, w.root.join("dangling")).unwrap();
    denied(gate(
        &mut w.tools,
        "T1",
        "write_file",
        json!({"path": "dangling", "content": "x"}),
    ));
    denied(gate(
        &mut w.tools,
        "T1",
        "write_file",
        json!({"path": "dangling/x", "content": "x"}),
    ));
    assert!(!target.exists(), "nothing was created through the link");
}

#[test]
fn a_link_to_a_folder_inside_the_root_is_fine() {
    let mut w = world();
    symlink("src", w.root.join("code")).unwrap();
    let r = ran(gate(
        &mut w.tools,
        "T1",
        "read_file",
        json!({"path": "code/lib.rs"}),
    ));
    assert_eq!(r["ok"], true, "{r}");
    assert!(r["content"].as_str().unwrap().contains("answer"));
    let r = ran(gate(
        &mut w.tools,
        "T1",
        "write_file",
        json!({"path": "code/more.rs", "content": "x"}),
    ));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read_to_string(w.root.join("src/more.rs")).unwrap(),
        "x"
    );
}

#[test]
fn writing_through_a_link_in_the_last_component_is_refused_not_followed() {
    let mut w = world();
    symlink("README.md", w.root.join("readme-link")).unwrap();
    let r = ran(gate(
        &mut w.tools,
        "T1",
        "write_file",
        json!({"path": "readme-link", "content": "x"}),
    ));
    assert_eq!(r["ok"], false, "{r}");
    assert!(
        r["error"].as_str().unwrap().contains("symbolic link"),
        "{r}"
    );
    assert_eq!(
        std::fs::read_to_string(w.root.join("README.md")).unwrap(),
        "# demo\n"
    );
    // Reading follows a link that stays inside.
    let r = ran(gate(
        &mut w.tools,
        "T1",
        "read_file",
        json!({"path": "readme-link"}),
    ));
    assert_eq!(r["content"], "# demo\n", "{r}");
}

#[test]
fn text_escapes_are_refused_by_the_tools_too() {
    let mut w = world();
    for path in [
        "/etc/passwd",
        "../canary.txt",
        "../../canary.txt",
        "src/../../canary.txt",
        ".git/config",
        ".GIT/HEAD",
        "src/.Git/x",
        "a\0b",
        "..\\canary.txt",
        "C:\\Windows",
    ] {
        for (tool, args) in every_tool(path) {
            let c = crate::support::ctx("T1", playbook_orchestrator::toolset::TaskKind::EditRepo);
            let call = crate::support::call(tool, args);
            let denial = playbook_orchestrator::agent::Tools::check(&mut w.tools, &c, &call);
            assert!(denial.is_err(), "{tool} {path:?}");
            // `run` confines on its own too: a caller that skipped `check`
            // still cannot escape.
            let r = run(&mut w.tools, "T1", tool, call.args.clone());
            assert_eq!(r["ok"], false, "{tool} {path:?}: {r}");
        }
    }
    outside_untouched(&w);
    let git_dir = w.root.join(".git");
    assert!(
        git_dir.is_file(),
        "the worktree's .git file was not replaced"
    );
}

#[test]
fn a_link_planted_after_the_check_is_refused_at_run_time() {
    let mut w = world();
    std::fs::create_dir(w.root.join("dir")).unwrap();
    let c = crate::support::ctx("T1", playbook_orchestrator::toolset::TaskKind::EditRepo);
    let call = crate::support::call(
        "write_file",
        json!({"path": "dir/x.txt", "content": "pwned"}),
    );
    playbook_orchestrator::agent::Tools::check(&mut w.tools, &c, &call).unwrap();
    std::fs::remove_dir(w.root.join("dir")).unwrap();
    symlink(&w.sibling, w.root.join("dir")).unwrap();
    let r = crate::support::block_on(playbook_orchestrator::agent::Tools::run(
        &mut w.tools,
        &c,
        &call,
    ));
    assert_eq!(r["ok"], false, "{r}");
    outside_untouched(&w);
}

#[test]
fn confine_keeps_the_engines_normalized_path() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let c = confine(&root, "./src//x/../a.rs", false).unwrap();
    assert_eq!(c.rel, "src/a.rs");
    assert_eq!(c.abs, root.join("src/a.rs"));
    assert!(
        confine(&root, ".", false).is_err(),
        "the root is not a file"
    );
    assert_eq!(confine(&root, ".", true).unwrap().abs, root);
}

#[test]
fn spellings_of_git_that_other_file_systems_fold_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    for bad in [
        ".git/config",
        ".Git/x",
        "sub/.GIT/hooks/pre-commit",
        ".git./config",
        ".git /config",
        "GIT~1/config",
        ".g\u{200c}it/config",
        "\u{feff}.git/HEAD",
    ] {
        assert!(confine(&root, bad, false).is_err(), "{bad:?}");
    }
    for good in [
        ".gitignore",
        ".github/workflows/ci.yml",
        "git/x",
        ".gitmodules",
        "a.git",
    ] {
        assert!(confine(&root, good, false).is_ok(), "{good:?}");
    }
}

#[test]
fn git_checkout_paths_are_confined_too() {
    let mut w = world();
    symlink(&w.sibling, w.root.join("side")).unwrap();
    for paths in [
        json!(["side/secret.txt"]),
        json!(["../canary.txt"]),
        json!([".git/HEAD"]),
    ] {
        let args = json!({"ref": "HEAD", "paths": paths});
        let c = crate::support::ctx("T1", playbook_orchestrator::toolset::TaskKind::Git);
        let call = crate::support::call("git_checkout", args.clone());
        let denial = playbook_orchestrator::agent::Tools::check(&mut w.tools, &c, &call);
        assert!(denial.is_err(), "{paths}");
        assert_eq!(run(&mut w.tools, "T1", "git_checkout", args)["ok"], false);
    }
    outside_untouched(&w);
}

#[test]
fn a_link_into_a_nested_git_folder_is_refused() {
    let mut w = world();
    std::fs::create_dir_all(w.root.join("vendor/lib/.git")).unwrap();
    std::fs::write(w.root.join("vendor/lib/.git/config"), "[core]\n").unwrap();
    symlink("vendor/lib/.git", w.root.join("gitlink")).unwrap();
    symlink("vendor/lib/.git/config", w.root.join("cfglink")).unwrap();
    denied(gate(
        &mut w.tools,
        "T1",
        "write_file",
        json!({"path": "gitlink/config", "content": "x"}),
    ));
    denied(gate(
        &mut w.tools,
        "T1",
        "write_file",
        json!({"path": "gitlink/hooks/post-checkout", "content": "x"}),
    ));
    let r = ran(gate(
        &mut w.tools,
        "T1",
        "read_file",
        json!({"path": "cfglink"}),
    ));
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(
        std::fs::read_to_string(w.root.join("vendor/lib/.git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!w.root.join("vendor/lib/.git/hooks").exists());
}

/// Every path of up to four components drawn from a hostile alphabet, over
/// a tree with links in, out, in a loop and dangling: whatever `confine`
/// accepts resolves inside the root and outside any `.git`.
#[test]
fn whatever_confine_accepts_stays_inside_the_root() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let root = base.join("root");
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::create_dir_all(base.join("outside")).unwrap();
    std::fs::write(root.join("a/f"), "x").unwrap();
    symlink(base.join("outside"), root.join("out")).unwrap();
    symlink("a", root.join("in")).unwrap();
    symlink("../..", root.join("a/up")).unwrap();
    symlink("loop", root.join("loop")).unwrap();
    symlink(base.join("nowhere"), root.join("dangling")).unwrap();
    let alphabet = [
        "a", "b", "f", "..", ".", "out", "in", "up", "loop", "dangling", ".git", "",
    ];
    let mut accepted = 0;
    let mut paths = vec![String::new()];
    for _ in 0..4 {
        let mut next = Vec::new();
        for p in &paths {
            for c in alphabet {
                next.push(if p.is_empty() {
                    c.to_string()
                } else {
                    format!("{p}/{c}")
                });
            }
        }
        paths = next;
        for raw in &paths {
            let Ok(c) = confine(&root, raw, true) else {
                continue;
            };
            accepted += 1;
            let parent = c.abs.parent().unwrap_or(&c.abs);
            // The nearest existing ancestor of what would be opened.
            let mut probe = parent.to_path_buf();
            while !probe.exists() {
                probe.pop();
            }
            let real = probe.canonicalize().unwrap();
            assert!(
                real.starts_with(&root) || c.rel.is_empty(),
                "{raw:?} -> {}",
                c.abs.display()
            );
            assert!(
                !real
                    .strip_prefix(&root)
                    .unwrap_or(&real)
                    .components()
                    .any(|x| x.as_os_str() == ".git"),
                "{raw:?}"
            );
            if let Ok(full) = c.abs.canonicalize() {
                assert!(full.starts_with(&root), "{raw:?} -> {}", full.display());
            }
        }
    }
    assert!(
        accepted > 1000,
        "the alphabet is not all refused: {accepted}"
    );
}
