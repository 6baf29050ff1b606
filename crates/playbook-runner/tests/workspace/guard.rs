//! What a program of an agent can change in the person's repository outside
//! the run's branches and worktrees: the git directory's configuration and
//! hooks are put back (and held against the step), other refs and HEAD are
//! reported once and left; a task's branch lists every path it changes.

use playbook_orchestrator::agent::Tools;
use playbook_runner::workspace::Guard;
use serde_json::json;

use crate::support::{Fixture, gate, git, ran};

#[test]
fn config_hooks_and_info_changed_by_a_program_are_put_back_and_said() {
    let fx = Fixture::new();
    let repo = fx.open();
    let dir = fx.repo_dir();
    let common = dir.join(".git");
    std::fs::create_dir_all(common.join("hooks")).unwrap();
    std::fs::write(common.join("hooks/pre-push"), "#!/bin/sh\nexit 0\n").unwrap();
    let config = std::fs::read(common.join("config")).unwrap();
    let mut guard = Guard::snapshot(&repo, "run12345abcdef").unwrap();
    assert!(guard.check(&[]).is_empty(), "nothing changed yet");

    // What `run_command` could do from a worktree, done with real git and
    // real files.
    git(&dir, &["config", "core.hooksPath", "/tmp/elsewhere"]);
    git(&dir, &["config", "alias.st", "!touch /tmp/owned"]);
    std::fs::write(
        common.join("hooks/post-checkout"),
        "#!/bin/sh\necho owned\n",
    )
    .unwrap();
    std::fs::write(common.join("hooks/pre-push"), "#!/bin/sh\necho owned\n").unwrap();
    std::fs::create_dir_all(common.join("info")).unwrap();
    std::fs::write(common.join("info/attributes"), "* filter=evil\n").unwrap();

    let changes = guard.check(&[]);
    assert_eq!(changes.len(), 1, "{changes:?}");
    let change = &changes[0];
    assert!(change.violation);
    for said in [
        "hooksPath = /tmp/elsewhere",
        "[alias]",
        "`hooks/post-checkout` was added",
        "`hooks/pre-push` was changed",
        "`info/attributes` was added",
        "put back",
    ] {
        assert!(change.message.contains(said), "{said}: {}", change.message);
    }
    assert_eq!(std::fs::read(common.join("config")).unwrap(), config);
    assert!(!common.join("hooks/post-checkout").exists());
    assert_eq!(
        std::fs::read_to_string(common.join("hooks/pre-push")).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
    assert!(!common.join("info/attributes").exists());
    assert!(guard.check(&[]).is_empty(), "put back: nothing left to say");
}

#[test]
fn a_hooks_folder_swapped_for_a_link_is_put_back_without_following_it() {
    let fx = Fixture::new();
    let repo = fx.open();
    let common = fx.repo_dir().join(".git");
    std::fs::create_dir_all(common.join("hooks")).unwrap();
    std::fs::write(common.join("hooks/pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
    let mut guard = Guard::snapshot(&repo, "run12345abcdef").unwrap();
    // The link's target holds the canary: removing the link must not touch it.
    let elsewhere = fx.tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("keep.txt"), "keep").unwrap();
    std::fs::rename(common.join("hooks"), fx.tmp.path().join("old-hooks")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, common.join("hooks")).unwrap();
    let changes = guard.check(&[]);
    assert!(changes[0].violation, "{changes:?}");
    assert!(
        std::fs::symlink_metadata(common.join("hooks"))
            .unwrap()
            .is_dir()
    );
    assert_eq!(
        std::fs::read_to_string(common.join("hooks/pre-commit")).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("keep.txt")).unwrap(),
        "keep"
    );
}

#[test]
fn refs_and_head_that_move_are_said_once_and_left() {
    let fx = Fixture::new();
    let repo = fx.open();
    let dir = fx.repo_dir();
    let mut guard = Guard::snapshot(&repo, "run12345abcdef").unwrap();
    let first = git(&dir, &["rev-parse", "HEAD~1"]);
    let feature = git(&dir, &["rev-parse", "feature"]);
    git(&dir, &["update-ref", "refs/heads/main", &first]);
    git(&dir, &["branch", "-D", "feature"]);
    git(&dir, &["tag", "planted"]);
    // The run's own branches move all the time: never said.
    git(&dir, &["branch", "playbook/run12345/T1"]);
    let changes = guard.check(&[]);
    assert_eq!(changes.len(), 1, "{changes:?}");
    let change = &changes[0];
    assert!(!change.violation, "the person may have done it");
    for said in [
        "`refs/heads/main` moved",
        &format!("`refs/heads/feature` was deleted (it named {feature}"),
        "`refs/tags/planted` was created",
    ] {
        assert!(change.message.contains(said), "{said}: {}", change.message);
    }
    assert!(!change.message.contains("playbook/run12345"));
    // Left as they are.
    assert_eq!(git(&dir, &["rev-parse", "main"]), first);
    git(&dir, &["switch", "-q", "-c", "other"]);
    let changes = guard.check(&[]);
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert!(
        changes[0]
            .message
            .contains("HEAD changed from `ref: refs/heads/main` to `ref: refs/heads/other`")
            && changes[0]
                .message
                .contains("`refs/heads/other` was created"),
        "{}",
        changes[0].message
    );
    assert!(guard.check(&[]).is_empty(), "each move is said once");
}

#[test]
fn a_branch_lists_what_it_changes_committed_or_not() {
    let fx = Fixture::new();
    let (mut tools, shared) = fx.tools(2);
    assert_eq!(
        tools.branch_paths("T1"),
        Ok(Vec::new()),
        "no worktree, no branch: nothing, and nothing made"
    );
    assert!(!shared.lock().unwrap().had_worktree("T1"));
    ran(gate(
        &mut tools,
        "T1",
        "write_file",
        json!({"path": "src/new.rs", "content": "x"}),
    ));
    let path = shared.lock().unwrap().path_for("T1");
    // A commit the gateway never saw, then an uncommitted change.
    std::fs::write(path.join("README.md"), "defaced\n").unwrap();
    git(&path, &["add", "README.md"]);
    git(
        &path,
        &[
            "-c",
            "user.name=a",
            "-c",
            "user.email=a@b",
            "commit",
            "-q",
            "-m",
            "sneaky",
        ],
    );
    std::fs::remove_file(path.join("src/lib.rs")).unwrap();
    assert_eq!(
        tools.branch_paths("T1").unwrap(),
        ["README.md", "src/lib.rs", "src/new.rs"]
    );
    // A branch deleted behind the run's back cannot be checked: an error.
    let branch = shared.lock().unwrap().branch_for("T1");
    git(
        &fx.repo_dir(),
        &["update-ref", "-d", &format!("refs/heads/{branch}")],
    );
    let err = tools.branch_paths("T1").unwrap_err();
    assert!(err.contains("no longer exists"), "{err}");
}

#[test]
fn processes_of_the_run_that_outlive_their_invocation_are_killed_and_named() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Command;
    let fx = Fixture::new();
    // A run id of its own: the other tests' guards look for theirs, in
    // this same process, at the same time.
    let mut guard = Guard::snapshot(&fx.open(), "strays99abcdef").unwrap();
    let at_work = fx.tmp.path().join("at-work");
    let kept = fx.tmp.path().join("kept");
    std::fs::create_dir_all(&at_work).unwrap();
    std::fs::create_dir_all(&kept).unwrap();
    // Started after the run: one carrying its id (an agent's child), one
    // working in a task's worktree (a `run_command` child), and a person's
    // shell in the kept worktree of a task that ended.
    let mut by_id = Command::new("sleep")
        .arg("300")
        .env("PLAYBOOK_RUN_ID", "strays99abcdef")
        .spawn()
        .unwrap();
    let mut in_worktree = Command::new("sleep")
        .arg("301")
        .current_dir(&at_work)
        .spawn()
        .unwrap();
    let mut persons = Command::new("sleep")
        .arg("302")
        .current_dir(&kept)
        .spawn()
        .unwrap();
    // Each has become `sleep` (its environment and folder are set then).
    for child in [&by_id, &in_worktree, &persons] {
        let cmdline = format!("/proc/{}/cmdline", child.id());
        let started = std::time::Instant::now();
        while !std::fs::read(&cmdline)
            .unwrap_or_default()
            .starts_with(b"sleep")
        {
            assert!(started.elapsed().as_secs() < 10, "sleep did not start");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    let live = [at_work.canonicalize().unwrap()];
    let changes = guard.check(&live);
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert!(!changes[0].violation);
    let message = &changes[0].message;
    assert!(
        message.contains("2 process(es)")
            && message.contains("sleep 300")
            && message.contains("sleep 301")
            && !message.contains("sleep 302"),
        "{message}"
    );
    assert_eq!(by_id.wait().unwrap().signal(), Some(9));
    assert_eq!(in_worktree.wait().unwrap().signal(), Some(9));
    assert!(persons.try_wait().unwrap().is_none(), "left alone");
    persons.kill().unwrap();
    persons.wait().unwrap();
    assert!(guard.check(&live).is_empty());
}
