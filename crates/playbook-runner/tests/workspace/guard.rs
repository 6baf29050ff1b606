//! What a program of an agent can change in the person's repository outside
//! the run's branches and worktrees: the git directory's configuration and
//! hooks are put back (and held against the step), other refs and HEAD are
//! reported once and left; a task's branch lists every path it changes.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use playbook_orchestrator::agent::Tools;
use playbook_runner::workspace::{Guard, WorktreeTools, Worktrees};
use serde_json::json;

use crate::support::{Fixture, gate, git, ran};

/// An executable script at `path` that appends its name and arguments to
/// `log`: a program git could be made to run.
fn planted(path: &Path, log: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(
        path,
        format!(
            "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> '{}'\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_path_buf()
}

/// The tools of a run on `fx` with its guard, sharing the run's record of
/// its worktrees as `playbook run` does.
fn guarded_run(fx: &Fixture, run_id: &str) -> (WorktreeTools, Arc<Mutex<Worktrees>>) {
    let repo = fx.open();
    let shared = Arc::new(Mutex::new(Worktrees::new(&repo, run_id, 2).unwrap()));
    let guard = Guard::snapshot(&repo, run_id).unwrap();
    (
        WorktreeTools::new(shared.clone(), Vec::new()).with_guard(guard),
        shared,
    )
}

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

#[test]
fn a_worktrees_own_git_files_changed_by_a_program_are_put_back_and_said() {
    let fx = Fixture::new();
    let dir = fx.repo_dir();
    // What `git sparse-checkout` turns on: each worktree reads its own
    // `config.worktree` too.
    git(&dir, &["config", "extensions.worktreeConfig", "true"]);
    let (mut tools, shared) = guarded_run(&fx, "run12345abcdef");
    let worktree = shared.lock().unwrap().acquire("T1").unwrap();
    let admin = PathBuf::from(git(&worktree, &["rev-parse", "--absolute-git-dir"]));
    let dot_git = std::fs::read(worktree.join(".git")).unwrap();
    let log = fx.tmp.path().join("ran.log");
    let program = planted(&fx.tmp.path().join("fsmonitor"), &log);

    // What an agent's process can do from its worktree: a monitor program in
    // the worktree's own configuration, the worktree's `.git` sent to
    // another repository, the main git directory sent to another common one.
    std::fs::write(
        admin.join("config.worktree"),
        format!("[core]\n\tfsmonitor = {}\n", program.display()),
    )
    .unwrap();
    std::fs::write(worktree.join(".git"), "gitdir: /tmp/elsewhere.git\n").unwrap();
    std::fs::write(admin.join("commondir"), "../../../elsewhere\n").unwrap();
    std::fs::write(dir.join(".git/commondir"), "/tmp/elsewhere\n").unwrap();

    let changes = tools.outside_changes();
    assert_eq!(changes.len(), 1, "{changes:?}");
    let change = &changes[0];
    assert!(change.violation, "{change:?}");
    for said in [
        "`worktrees/T1/config.worktree` was added (+ [core] fsmonitor = ",
        "`worktrees/T1/commondir` was changed",
        &format!("`{}` was changed", worktree.join(".git").display()),
        "`commondir` was added",
        "put back as it was",
    ] {
        assert!(change.message.contains(said), "{said}: {}", change.message);
    }
    assert!(!admin.join("config.worktree").exists());
    assert_eq!(
        std::fs::read_to_string(admin.join("commondir")).unwrap(),
        "../..\n"
    );
    assert_eq!(std::fs::read(worktree.join(".git")).unwrap(), dot_git);
    assert!(!dir.join(".git/commondir").exists());
    assert!(tools.outside_changes().is_empty(), "put back: nothing left");

    // The task ends as usual, and the program never ran.
    assert_eq!(tools.branch_paths("T1"), Ok(Vec::new()));
    shared.lock().unwrap().finish("T1", true).unwrap();
    assert!(!worktree.exists());
    assert!(!log.exists(), "{}", std::fs::read_to_string(&log).unwrap());
}

#[test]
fn the_runners_own_git_never_starts_a_program_a_configuration_names() {
    let fx = Fixture::new();
    let dir = fx.repo_dir();
    git(&dir, &["config", "extensions.worktreeConfig", "true"]);
    let log = fx.tmp.path().join("ran.log");
    let hooks = dir.join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    for hook in ["post-checkout", "reference-transaction", "pre-commit"] {
        planted(&hooks.join(hook), &log);
    }
    // No guard: nothing puts the configuration back, so only what the
    // runner's own git is told on its command line stands between.
    let (mut tools, shared) = fx.tools(1);
    ran(gate(
        &mut tools,
        "T1",
        "write_file",
        json!({"path": "src/new.rs", "content": "x"}),
    ));
    assert!(
        !log.exists(),
        "`git worktree add` ran hooks: {}",
        std::fs::read_to_string(&log).unwrap()
    );
    let worktree = shared.lock().unwrap().path_for("T1");
    let admin = PathBuf::from(git(&worktree, &["rev-parse", "--absolute-git-dir"]));
    let program = planted(&fx.tmp.path().join("fsmonitor"), &log);
    std::fs::write(
        admin.join("config.worktree"),
        format!("[core]\n\tfsmonitor = {}\n", program.display()),
    )
    .unwrap();
    assert_eq!(tools.branch_paths("T1").unwrap(), ["src/new.rs"]);
    assert!(
        !log.exists(),
        "`git status` ran the monitor: {}",
        std::fs::read_to_string(&log).unwrap()
    );

    // The agent's own commit is held to the person's commit hooks.
    let c = ran(gate(
        &mut tools,
        "T1",
        "git_commit",
        json!({"message": "new"}),
    ));
    assert_eq!(c["committed"], true, "{c}");
    let after_commit = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(after_commit.contains("pre-commit"), "{after_commit}");
    assert!(!after_commit.contains("fsmonitor"), "{after_commit}");

    // `git worktree remove` looks at the worktree's status first.
    shared.lock().unwrap().finish("T1", true).unwrap();
    assert!(!worktree.exists());
    assert_eq!(std::fs::read_to_string(&log).unwrap(), after_commit);
}

#[test]
fn another_runs_branches_and_worktrees_are_not_this_runs_doing() {
    let fx = Fixture::new();
    let dir = fx.repo_dir();
    let (mut tools, _shared) = guarded_run(&fx, "runaaaa1xyz");
    // A second run on the same repository, started after this one; its
    // task commits, and its agent changes its own worktree's git files
    // (its own guard's business).
    let mut other = Worktrees::new(&fx.open(), "runbbbb2xyz", 1).unwrap();
    let path = other.acquire("T1").unwrap();
    std::fs::write(path.join("b.txt"), "b").unwrap();
    git(&path, &["add", "b.txt"]);
    git(&path, &["commit", "-q", "-m", "b"]);
    let admin = PathBuf::from(git(&path, &["rev-parse", "--absolute-git-dir"]));
    std::fs::write(admin.join("config.worktree"), "[core]\n\tbare = false\n").unwrap();
    assert!(tools.outside_changes().is_empty());
    assert!(admin.join("config.worktree").exists(), "left to its run");

    // Once it has ended too, its branches stay its own.
    other.finish("T1", true).unwrap();
    drop(other);
    git(&dir, &["branch", "-f", "playbook/runbbbb2/T1", "main"]);
    assert!(tools.outside_changes().is_empty());

    // A branch under the same prefix that no run made is reported.
    git(&dir, &["branch", "playbook/zzzz9999/T1"]);
    let changes = tools.outside_changes();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert!(
        changes[0]
            .message
            .contains("`refs/heads/playbook/zzzz9999/T1` was created"),
        "{}",
        changes[0].message
    );
}
