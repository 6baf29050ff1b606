//! Worktrees: one per task on its own branch, outside the person's checkout;
//! a whole run leaves the person's repository exactly as it was.

use playbook_runner::workspace::{Uncommitted, WorkspaceErrorKind, Worktrees};
use serde_json::json;

use crate::support::{Fixture, Snapshot, gate, git, ran};

#[test]
fn a_task_gets_its_own_branch_from_the_base_outside_the_checkout() {
    let fx = Fixture::new();
    let repo = fx.open();
    let before = Snapshot::take(&fx.repo_dir());
    let mut wt = Worktrees::new(&repo, "run12345abcdef", 2).unwrap();
    let path = wt.acquire("T1").unwrap();
    assert_eq!(wt.branch_for("T1"), "playbook/run12345/T1");
    assert_eq!(path, wt.acquire("T1").unwrap(), "acquire is idempotent");
    let common = fx.repo_dir().join(".git").canonicalize().unwrap();
    assert!(
        path.starts_with(common.join("playbook/worktrees/run12345")),
        "{}",
        path.display()
    );
    assert_eq!(git(&path, &["rev-parse", "HEAD"]), repo.base_sha());
    assert_eq!(
        git(&path, &["symbolic-ref", "HEAD"]),
        "refs/heads/playbook/run12345/T1"
    );
    assert_eq!(
        git(
            &fx.repo_dir(),
            &["status", "--porcelain", "--untracked-files=all"]
        ),
        "",
        "the person's status never shows a worktree"
    );
    assert_eq!(
        Snapshot::take(&fx.repo_dir()).without_run_branches(),
        before
    );
}

#[test]
fn more_live_worktrees_than_max_parallel_is_an_error() {
    let fx = Fixture::new();
    let mut wt = Worktrees::new(&fx.open(), "r1", 2).unwrap();
    wt.acquire("A").unwrap();
    wt.acquire("B").unwrap();
    let err = wt.acquire("C").unwrap_err();
    assert_eq!(err.kind, WorkspaceErrorKind::TooManyWorktrees, "{err}");
    wt.finish("A", false).unwrap();
    wt.acquire("C").expect("a finished task frees its slot");
}

#[test]
fn hostile_task_and_run_ids_are_refused() {
    let fx = Fixture::new();
    let repo = fx.open();
    assert_eq!(
        Worktrees::new(&repo, "../x", 1).unwrap_err().kind,
        WorkspaceErrorKind::BadId
    );
    let mut wt = Worktrees::new(&repo, "r1", 4).unwrap();
    for bad in [
        "../escape",
        "a/b",
        "-b",
        ".git",
        "x.lock",
        "",
        "a b",
        "a\nb",
    ] {
        let err = wt.acquire(bad).unwrap_err();
        assert_eq!(err.kind, WorkspaceErrorKind::BadId, "{bad:?}");
    }
    assert!(!fx.tmp.path().join("escape").exists());
}

#[test]
fn a_whole_cycle_leaves_the_persons_repository_exactly_as_it_was() {
    let fx = Fixture::new();
    let dir = fx.repo_dir();
    let before = Snapshot::take(&dir);
    let (mut tools, shared) = fx.tools(3);

    // T1 commits work and passes; T2 commits and fails; T3 does nothing.
    ran(gate(
        &mut tools,
        "T1",
        "write_file",
        json!({"path": "src/new.rs", "content": "// new\n"}),
    ));
    let c = ran(gate(
        &mut tools,
        "T1",
        "git_commit",
        json!({"message": "add new"}),
    ));
    assert_eq!(c["committed"], true, "{c}");
    ran(gate(
        &mut tools,
        "T2",
        "edit_file",
        json!({"path": "README.md", "old": "demo", "new": "Demo"}),
    ));
    ran(gate(
        &mut tools,
        "T2",
        "git_commit",
        json!({"message": "rename"}),
    ));
    ran(gate(
        &mut tools,
        "T3",
        "read_file",
        json!({"path": "README.md"}),
    ));

    let (t1, t2, t3) = {
        let mut w = shared.lock().unwrap();
        let paths = (
            w.worktree_for("T1").unwrap(),
            w.worktree_for("T2").unwrap(),
            w.worktree_for("T3").unwrap(),
        );
        w.finish("T1", true).unwrap();
        w.finish("T2", false).unwrap();
        w.finish("T3", true).unwrap();
        paths
    };
    assert!(!t1.exists(), "a passed task's clean worktree is removed");
    assert!(t2.exists(), "a failed task's worktree stays for inspection");
    assert!(!t3.exists());
    let branches = git(
        &dir,
        &[
            "branch",
            "--list",
            "playbook/*",
            "--format=%(refname:short)",
        ],
    );
    assert!(branches.contains("playbook/run12345/T1"), "{branches}");
    assert_eq!(
        git(&dir, &["log", "-1", "--format=%s", "playbook/run12345/T1"]),
        "add new",
        "the passed task's branch keeps its commit"
    );
    assert_eq!(
        git(&dir, &["rev-parse", "main"]),
        before.head_sha,
        "never merged"
    );

    // The run is over: `clean` leaves a live run alone.
    drop((tools, shared));
    let repo = fx.open();
    let report = Worktrees::clean(&repo, false).unwrap();
    assert!(report.problems.is_empty(), "{report:?}");
    assert_eq!(report.removed_worktrees.len(), 1, "{report:?}");
    assert!(!t2.exists());
    let mut kept = report.kept_branches.clone();
    kept.sort();
    assert_eq!(kept, ["playbook/run12345/T1", "playbook/run12345/T2"]);
    assert_eq!(report.deleted_branches, ["playbook/run12345/T3"]);

    let again = Worktrees::clean(&repo, false).unwrap();
    assert!(again.removed_worktrees.is_empty() && again.deleted_branches.is_empty());
    assert!(again.problems.is_empty(), "{again:?}");

    assert_eq!(Snapshot::take(&dir).without_run_branches(), before);
    assert_eq!(
        git(&dir, &["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        1
    );
}

#[test]
fn a_passed_task_with_uncommitted_changes_keeps_its_worktree() {
    let fx = Fixture::new();
    let (mut tools, shared) = fx.tools(1);
    ran(gate(
        &mut tools,
        "T1",
        "write_file",
        json!({"path": "wip.txt", "content": "wip"}),
    ));
    let mut w = shared.lock().unwrap();
    let path = w.worktree_for("T1").unwrap();
    w.finish("T1", true).unwrap();
    assert!(
        path.join("wip.txt").exists(),
        "uncommitted work is never thrown away by finish"
    );
}

#[test]
fn commits_carry_an_identity_without_writing_any_config() {
    let fx = Fixture::new();
    let config_before = std::fs::read(fx.repo_dir().join(".git/config")).unwrap();
    let (mut tools, _shared) = fx.tools(1);
    ran(gate(
        &mut tools,
        "T1",
        "write_file",
        json!({"path": "a.txt", "content": "a"}),
    ));
    let c = ran(gate(
        &mut tools,
        "T1",
        "git_commit",
        json!({"message": "a"}),
    ));
    assert_eq!(c["committed"], true, "{c}");
    let author = git(
        &fx.repo_dir(),
        &["log", "-1", "--format=%an <%ae>", "playbook/run12345/T1"],
    );
    assert!(!author.trim().is_empty() && author != " <>", "{author}");
    assert_eq!(
        std::fs::read(fx.repo_dir().join(".git/config")).unwrap(),
        config_before
    );
}

#[test]
fn a_worktree_folder_deleted_behind_the_runs_back_is_made_again() {
    let fx = Fixture::new();
    let mut wt = Worktrees::new(&fx.open(), "r1", 1).unwrap();
    let path = wt.acquire("T1").unwrap();
    wt.finish("T1", false).unwrap();
    std::fs::remove_dir_all(&path).unwrap();
    let again = wt.acquire("T1").unwrap();
    assert_eq!(again, path);
    assert!(again.join("README.md").is_file());
}

#[test]
fn the_persons_own_worktrees_are_never_pruned_even_when_their_folder_is_missing() {
    let fx = Fixture::new();
    let dir = fx.repo_dir();
    let elsewhere = fx.tmp.path().join("my-worktree");
    git(
        &dir,
        &[
            "worktree",
            "add",
            "-q",
            elsewhere.to_str().unwrap(),
            "feature",
        ],
    );
    // Like a worktree on a drive that is not mounted right now.
    std::fs::rename(&elsewhere, fx.tmp.path().join("unmounted")).unwrap();
    let (mut tools, shared) = fx.tools(1);
    ran(gate(
        &mut tools,
        "T1",
        "write_file",
        json!({"path": "x", "content": "x"}),
    ));
    shared.lock().unwrap().finish("T1", false).unwrap();
    drop((tools, shared));
    Worktrees::clean(&fx.open(), true).unwrap();
    let list = git(&dir, &["worktree", "list", "--porcelain"]);
    assert!(list.contains("my-worktree"), "{list}");
}

#[test]
fn clean_leaves_a_live_run_alone_and_names_uncommitted_work_before_discarding_it() {
    let fx = Fixture::new();
    let mut wt = Worktrees::new(&fx.open(), "r1", 1).unwrap();
    let path = wt.acquire("T1").unwrap();
    std::fs::write(path.join("README.md"), "half done").unwrap();
    std::fs::write(path.join("untracked"), "x").unwrap();
    let branch = "refs/heads/playbook/r1/T1";
    let tip = git(&fx.repo_dir(), &["rev-parse", branch]);

    // While the run goes on, nothing of it is touched, even with --force:
    // its worktree is at work.
    let report = Worktrees::clean(&fx.open(), true).unwrap();
    assert_eq!(report.live_runs, ["r1"], "{report:?}");
    assert!(
        report.removed_worktrees.is_empty() && report.deleted_branches.is_empty(),
        "{report:?}"
    );
    assert_eq!(
        std::fs::read_to_string(path.join("README.md")).unwrap(),
        "half done"
    );
    assert_eq!(git(&fx.repo_dir(), &["rev-parse", branch]), tip);
    assert!(git(&path, &["rev-parse", "--is-inside-work-tree"]) == "true");

    // Over, and failed: its worktree holds work never committed. Kept, and
    // the work is named; so is its branch, which the worktree is on.
    wt.finish("T1", false).unwrap();
    drop(wt);
    let report = Worktrees::clean(&fx.open(), false).unwrap();
    let work = Uncommitted {
        worktree: path.clone(),
        paths: vec!["README.md".into(), "untracked".into()],
    };
    assert_eq!(
        report.kept_worktrees,
        std::slice::from_ref(&work),
        "{report:?}"
    );
    assert!(report.live_runs.is_empty() && report.removed_worktrees.is_empty());
    assert!(report.deleted_branches.is_empty(), "{report:?}");
    assert_eq!(
        git(&fx.repo_dir(), &["rev-parse", branch]),
        tip,
        "its branch stays with it"
    );
    assert!(path.join("untracked").is_file());

    // --force discards it, and says what was discarded.
    let report = Worktrees::clean(&fx.open(), true).unwrap();
    assert_eq!(
        report.removed_worktrees,
        std::slice::from_ref(&path),
        "{report:?}"
    );
    assert_eq!(report.discarded, [work]);
    assert!(!path.exists());
    assert_eq!(
        report.deleted_branches,
        ["playbook/r1/T1"],
        "no commit: deleted"
    );
    assert!(
        !fx.repo_dir().join(".git/playbook/live/r1").exists(),
        "the run's mark goes with the last of its worktrees and branches"
    );
}

/// Runs in a child process whose git has no configuration at all, so the
/// identity fallback is what commits carry.
#[test]
fn without_a_configured_identity_commits_use_the_agents() {
    if std::env::var_os("PLAYBOOK_TEST_NO_GIT_IDENTITY").is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "worktrees::without_a_configured_identity_commits_use_the_agents",
                "--nocapture",
            ])
            .env("PLAYBOOK_TEST_NO_GIT_IDENTITY", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("EMAIL")
            .env_remove("GIT_AUTHOR_NAME")
            .env_remove("GIT_AUTHOR_EMAIL")
            .env_remove("GIT_COMMITTER_NAME")
            .env_remove("GIT_COMMITTER_EMAIL")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("1 passed"), "{text}");
        return;
    }
    let fx = Fixture::new();
    let config_before = std::fs::read(fx.repo_dir().join(".git/config")).unwrap();
    let repo = fx.open();
    assert!(!repo.identity_args().is_empty());
    let (mut tools, _shared) = fx.tools(1);
    ran(gate(
        &mut tools,
        "T1",
        "write_file",
        json!({"path": "a.txt", "content": "a"}),
    ));
    let c = ran(gate(
        &mut tools,
        "T1",
        "git_commit",
        json!({"message": "a"}),
    ));
    assert_eq!(c["committed"], true, "{c}");
    let author = git(
        &fx.repo_dir(),
        &["log", "-1", "--format=%an <%ae>", "playbook/run12345/T1"],
    );
    assert_eq!(author, "Playbook Studio agent <agent@playbook.invalid>");
    assert_eq!(
        std::fs::read(fx.repo_dir().join(".git/config")).unwrap(),
        config_before
    );
}

#[test]
fn clean_works_while_the_person_has_changes_in_progress() {
    let fx = Fixture::new();
    let mut wt = Worktrees::new(&fx.open(), "r1", 1).unwrap();
    let path = wt.acquire("T1").unwrap();
    wt.finish("T1", false).unwrap();
    drop(wt);
    std::fs::write(fx.repo_dir().join("README.md"), "my own edit\n").unwrap();
    std::fs::write(fx.repo_dir().join("mine.txt"), "mine\n").unwrap();
    let before = Snapshot::take(&fx.repo_dir()).without_run_branches();
    let repo = playbook_runner::workspace::Repo::open_for_clean(&fx.repo_dir()).unwrap();
    let report = Worktrees::clean(&repo, false).unwrap();
    assert!(!path.exists(), "{report:?}");
    assert_eq!(
        Snapshot::take(&fx.repo_dir()),
        before,
        "the person's changes are untouched"
    );
    assert_eq!(
        Worktrees::new(&repo, "r2", 1).unwrap_err().kind,
        WorkspaceErrorKind::BadBaseRef,
        "a repository opened for cleaning cannot start a run"
    );
}

#[test]
fn a_task_that_leaves_its_stage_frees_its_place_and_comes_back_on_its_branch() {
    use playbook_orchestrator::agent::{Release, Tools};
    let fx = Fixture::new();
    let before = Snapshot::take(&fx.repo_dir());
    // The default cap: one task at work at a time.
    let (mut tools, shared) = fx.tools(1);
    for task in ["T1", "T2", "T3"] {
        ran(gate(
            &mut tools,
            task,
            "write_file",
            json!({"path": format!("{task}.txt"), "content": task}),
        ));
        ran(gate(
            &mut tools,
            task,
            "git_commit",
            json!({"message": format!("work of {task}")}),
        ));
        let path = shared.lock().unwrap().path_for(task);
        tools.release(task, Release::LeftStage);
        // Its work is on its branch, so its clean worktree is gone.
        assert!(!path.exists(), "{}", path.display());
        assert!(!shared.lock().unwrap().is_live(task));
    }
    // The next stage: each comes back, one after another, on its branch.
    for task in ["T1", "T2", "T3"] {
        let read = ran(gate(
            &mut tools,
            task,
            "read_file",
            json!({"path": format!("{task}.txt")}),
        ));
        assert_eq!(read["content"], task, "{read}");
        let other = ran(gate(&mut tools, task, "list_files", json!({})));
        assert_eq!(
            other["files"]
                .as_array()
                .map(|f| f.iter().filter(|f| f.to_string().contains(".txt")).count()),
            Some(1),
            "only its own work: {other}"
        );
        tools.release(task, Release::Ended { passed: true });
    }
    // A task at work holds the only place until it is released.
    ran(gate(&mut tools, "T4", "list_files", json!({})));
    let refused = shared.lock().unwrap().acquire("T5").unwrap_err();
    assert_eq!(refused.kind, WorkspaceErrorKind::TooManyWorktrees);
    tools.release("T4", Release::Ended { passed: false });
    shared
        .lock()
        .unwrap()
        .acquire("T5")
        .expect("a failed task frees its place too");
    assert!(
        shared.lock().unwrap().path_for("T4").exists(),
        "a failed task's worktree is kept"
    );
    assert_eq!(
        Snapshot::take(&fx.repo_dir()).without_run_branches(),
        before
    );
}

#[test]
fn a_task_that_leaves_with_uncommitted_changes_finds_them_in_the_next_stage() {
    use playbook_orchestrator::agent::{Release, Tools};
    let fx = Fixture::new();
    let (mut tools, shared) = fx.tools(1);
    ran(gate(
        &mut tools,
        "T1",
        "write_file",
        json!({"path": "wip.txt", "content": "wip"}),
    ));
    tools.release("T1", Release::LeftStage);
    assert!(!shared.lock().unwrap().is_live("T1"));
    let read = ran(gate(
        &mut tools,
        "T1",
        "read_file",
        json!({"path": "wip.txt"}),
    ));
    assert_eq!(read["content"], "wip", "{read}");
}
