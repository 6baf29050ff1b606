//! The file tools: each works, each is bounded, and each failure is a
//! result the agent reads.

use serde_json::json;

use crate::support::{gate, ran, setup};

#[test]
fn read_write_edit_delete_work_in_the_tasks_worktree_only() {
    let (fx, mut tools, root) = setup();
    let r = ran(gate(
        &mut tools,
        "T1",
        "write_file",
        json!({"path": "docs/new/notes.md", "content": "one two\n"}),
    ));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read_to_string(root.join("docs/new/notes.md")).unwrap(),
        "one two\n"
    );
    assert!(
        !fx.repo_dir().join("docs").exists(),
        "the person's checkout is not touched"
    );

    let r = ran(gate(
        &mut tools,
        "T1",
        "read_file",
        json!({"path": "docs/new/notes.md"}),
    ));
    assert_eq!(r["content"], "one two\n");
    assert_eq!(r["clipped"], false);

    let r = ran(gate(
        &mut tools,
        "T1",
        "edit_file",
        json!({"path": "docs/new/notes.md", "old": "two", "new": "2"}),
    ));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read_to_string(root.join("docs/new/notes.md")).unwrap(),
        "one 2\n"
    );

    let r = ran(gate(
        &mut tools,
        "T1",
        "delete_file",
        json!({"path": "docs/new/notes.md"}),
    ));
    assert_eq!(r["ok"], true, "{r}");
    assert!(!root.join("docs/new/notes.md").exists());
    let r = ran(gate(
        &mut tools,
        "T1",
        "delete_file",
        json!({"path": "docs/new/notes.md"}),
    ));
    assert_eq!(r["ok"], false, "deleting twice is a clear failure: {r}");
    let r = ran(gate(
        &mut tools,
        "T1",
        "delete_file",
        json!({"path": "src"}),
    ));
    assert!(r["error"].as_str().unwrap().contains("folder"), "{r}");
}

#[test]
fn edit_file_says_how_many_times_old_occurred() {
    let (_fx, mut tools, root) = setup();
    std::fs::write(root.join("x.txt"), "a a a").unwrap();
    let r = ran(gate(
        &mut tools,
        "T1",
        "edit_file",
        json!({"path": "x.txt", "old": "a", "new": "b"}),
    ));
    assert!(
        r["error"].as_str().unwrap().contains("occurs 3 times"),
        "{r}"
    );
    let r = ran(gate(
        &mut tools,
        "T1",
        "edit_file",
        json!({"path": "x.txt", "old": "zzz", "new": "b"}),
    ));
    assert!(
        r["error"].as_str().unwrap().contains("occurs 0 times"),
        "{r}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("x.txt")).unwrap(),
        "a a a"
    );
    let r = ran(gate(
        &mut tools,
        "T1",
        "edit_file",
        json!({"path": "missing.txt", "old": "a", "new": "b"}),
    ));
    assert_eq!(r["ok"], false, "{r}");
}

#[test]
fn read_file_is_capped_and_says_so_and_refuses_binary_and_special_files() {
    let (_fx, mut tools, root) = setup();
    std::fs::write(root.join("big.txt"), "x".repeat(3 * 1024 * 1024)).unwrap();
    let r = ran(gate(
        &mut tools,
        "T1",
        "read_file",
        json!({"path": "big.txt"}),
    ));
    assert_eq!(r["clipped"], true);
    assert_eq!(r["content"].as_str().unwrap().len(), 1024 * 1024);
    assert!(r["note"].as_str().unwrap().contains("3145728"), "{r}");

    std::fs::write(root.join("bin"), [0u8, 1, 2, 3]).unwrap();
    let r = ran(gate(&mut tools, "T1", "read_file", json!({"path": "bin"})));
    assert!(r["error"].as_str().unwrap().contains("binary"), "{r}");

    let r = ran(gate(&mut tools, "T1", "read_file", json!({"path": "src"})));
    assert_eq!(r["ok"], false, "a folder is not read: {r}");

    // A FIFO must neither block a reader nor a writer.
    let fifo = root.join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let r = ran(gate(&mut tools, "T1", "read_file", json!({"path": "pipe"})));
    assert_eq!(r["ok"], false, "{r}");
    let r = ran(gate(
        &mut tools,
        "T1",
        "write_file",
        json!({"path": "pipe", "content": "x"}),
    ));
    assert_eq!(r["ok"], false, "{r}");
    let r = ran(gate(
        &mut tools,
        "T1",
        "search_code",
        json!({"pattern": "x"}),
    ));
    assert_eq!(r["ok"], true, "search skips special files: {r}");
}

#[test]
fn a_hard_link_to_a_file_outside_the_worktree_is_replaced_not_written_through() {
    // A program linked a file outside the worktree (the person's checkout,
    // a package manager's store) into it: a write must change the
    // worktree's name only, keep the file's mode, and say so.
    use std::os::unix::fs::PermissionsExt;
    let (fx, mut tools, root) = setup();
    let outside = fx.canary();
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::hard_link(&outside, root.join("linked.sh")).unwrap();
    std::fs::hard_link(&outside, root.join("edited.sh")).unwrap();
    let r = ran(gate(
        &mut tools,
        "T1",
        "write_file",
        json!({"path": "linked.sh", "content": "written\n"}),
    ));
    assert_eq!(r["ok"], true, "{r}");
    let note = r["note"].as_str().unwrap_or_default();
    assert!(note.contains("2 other hard link(s)"), "{r}");
    let r = ran(gate(
        &mut tools,
        "T1",
        "edit_file",
        json!({"path": "edited.sh", "old": "untouched", "new": "edited"}),
    ));
    assert_eq!(r["ok"], true, "{r}");
    assert!(r["note"].as_str().is_some(), "{r}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "untouched\n");
    assert_eq!(
        std::fs::read_to_string(root.join("linked.sh")).unwrap(),
        "written\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("edited.sh")).unwrap(),
        "edited\n"
    );
    for name in ["linked.sh", "edited.sh"] {
        let meta = std::fs::metadata(root.join(name)).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o755, "{name}");
    }
    // Reading through a hard link reads the worktree's name, which is what
    // the agent's own process could read too.
    let r = ran(gate(
        &mut tools,
        "T1",
        "read_file",
        json!({"path": "linked.sh"}),
    ));
    assert_eq!(r["content"], "written\n", "{r}");
}

#[test]
fn list_files_is_recursive_excludes_git_and_is_capped() {
    let (_fx, mut tools, root) = setup();
    let r = ran(gate(&mut tools, "T1", "list_files", json!({})));
    let files: Vec<&str> = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(files, [".gitignore", "README.md", "src/lib.rs"], "{r}");
    let r = ran(gate(&mut tools, "T1", "list_files", json!({"path": "src"})));
    assert_eq!(r["files"], json!(["src/lib.rs"]));

    std::fs::create_dir(root.join("many")).unwrap();
    for i in 0..5100 {
        std::fs::write(root.join(format!("many/f{i}")), "").unwrap();
    }
    let r = ran(gate(
        &mut tools,
        "T1",
        "list_files",
        json!({"path": "many"}),
    ));
    assert_eq!(r["files"].as_array().unwrap().len(), 5000);
    assert_eq!(r["clipped"], true);
    let r = ran(gate(
        &mut tools,
        "T1",
        "list_files",
        json!({"path": "nope"}),
    ));
    assert_eq!(r["ok"], false, "{r}");
}

#[test]
fn search_code_finds_matches_skips_binary_and_huge_files_and_refuses_bad_patterns() {
    let (_fx, mut tools, root) = setup();
    std::fs::write(root.join("bin.dat"), b"answer\0answer").unwrap();
    std::fs::write(root.join("huge.txt"), "answer\n".repeat(300_000)).unwrap();
    let r = ran(gate(
        &mut tools,
        "T1",
        "search_code",
        json!({"pattern": "ans\\w+"}),
    ));
    assert_eq!(
        r["matches"],
        json!([{"path": "src/lib.rs", "line": 1, "text": "pub fn answer() -> u32 { 41 }"}]),
        "{r}"
    );
    assert_eq!(r["skipped_files"], 1, "the huge file is skipped: {r}");

    std::fs::write(root.join("many.txt"), "hit\n".repeat(2000)).unwrap();
    let r = ran(gate(
        &mut tools,
        "T1",
        "search_code",
        json!({"pattern": "hit"}),
    ));
    assert_eq!(r["matches"].as_array().unwrap().len(), 500);
    assert_eq!(r["clipped"], true);

    let r = ran(gate(
        &mut tools,
        "T1",
        "search_code",
        json!({"pattern": "(unclosed"}),
    ));
    assert!(
        r["error"].as_str().unwrap().contains("regular expression"),
        "{r}"
    );
    let r = ran(gate(
        &mut tools,
        "T1",
        "search_code",
        json!({"pattern": "a{1000}{1000}{1000}"}),
    ));
    assert_eq!(
        r["ok"], false,
        "a pattern too big to compile is refused: {r}"
    );
}

#[test]
fn wrong_arguments_and_unknown_tools_are_results_not_panics() {
    let (_fx, mut tools, _root) = setup();
    for (tool, args) in [
        ("read_file", json!({})),
        ("read_file", json!({"path": 3})),
        ("write_file", json!({"path": "a"})),
        ("write_file", json!({"path": "a", "content": 1})),
        ("edit_file", json!({"path": "a", "old": "x"})),
        ("search_code", json!({})),
        ("search_code", json!({"pattern": ""})),
        ("run_command", json!({})),
        ("run_command", json!({"argv": []})),
        ("run_command", json!({"argv": [1]})),
        (
            "run_command",
            json!({"argv": ["true"], "timeout_seconds": 0}),
        ),
        (
            "run_command",
            json!({"argv": ["true"], "timeout_seconds": 99999}),
        ),
        (
            "run_command",
            json!({"argv": ["definitely-not-a-program-xyz"]}),
        ),
        ("git_commit", json!({})),
        ("git_reset", json!({})),
        ("git_checkout", json!({"ref": "HEAD", "paths": "x"})),
        ("deploy", json!({})),
        ("read_file", json!(null)),
    ] {
        let r = ran(gate(&mut tools, "T1", tool, args.clone()));
        assert_eq!(r["ok"], false, "{tool} {args}: {r}");
        assert!(
            !r["error"].as_str().unwrap_or_default().is_empty(),
            "{tool}: {r}"
        );
    }
}
