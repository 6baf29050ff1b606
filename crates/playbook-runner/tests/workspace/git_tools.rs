//! The git tools: commits land on the task's branch only; history moves
//! stay within the task's own history; nothing is pushed.

use serde_json::json;

use crate::support::{Snapshot, git, run, setup};

#[test]
fn status_diff_and_commit_work_on_the_task_branch() {
    let (fx, mut tools, root) = setup();
    let before = Snapshot::take(&fx.repo_dir()).without_run_branches();
    let r = run(&mut tools, "T1", "git_status", json!({}));
    assert_eq!(r["clean"], true, "{r}");

    std::fs::write(root.join("README.md"), "# changed\n").unwrap();
    std::fs::write(root.join("added.txt"), "new\n").unwrap();
    let r = run(&mut tools, "T1", "git_status", json!({}));
    assert_eq!(r["clean"], false, "{r}");
    let r = run(&mut tools, "T1", "git_diff", json!({}));
    assert!(r["diff"].as_str().unwrap().contains("+# changed"), "{r}");
    assert_eq!(r["untracked"], json!(["added.txt"]));

    let r = run(
        &mut tools,
        "T1",
        "git_commit",
        json!({"message": "change readme"}),
    );
    assert_eq!(r["committed"], true, "{r}");
    assert_eq!(git(&root, &["log", "-1", "--format=%s"]), "change readme");
    let r = run(&mut tools, "T1", "git_commit", json!({"message": "again"}));
    assert_eq!(
        r["committed"], false,
        "nothing to commit is a clear result: {r}"
    );
    assert!(r["note"].as_str().unwrap().contains("nothing to commit"));

    let r = run(&mut tools, "T1", "git_diff", json!({"ref": "HEAD"}));
    assert_eq!(r["diff"], "", "{r}");
    let r = run(
        &mut tools,
        "T1",
        "git_diff",
        json!({"ref": "--output=/tmp/pwned"}),
    );
    assert_eq!(r["ok"], false, "an option is never taken for a ref: {r}");

    assert_eq!(
        Snapshot::take(&fx.repo_dir()).without_run_branches(),
        before
    );
}

#[test]
fn checkpoint_reset_and_checkout_stay_in_the_tasks_history() {
    let (fx, mut tools, root) = setup();
    let base = git(&root, &["rev-parse", "HEAD"]);
    std::fs::write(root.join("a.txt"), "one\n").unwrap();
    let r = run(
        &mut tools,
        "T1",
        "git_checkpoint",
        json!({"label": "first draft"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let first = r["commit"].as_str().unwrap().to_string();
    assert_eq!(
        git(&root, &["log", "-1", "--format=%s"]),
        "checkpoint: first draft"
    );
    std::fs::write(root.join("a.txt"), "two\n").unwrap();
    run(&mut tools, "T1", "git_commit", json!({"message": "two"}));

    // Restore one file from the checkpoint: HEAD does not move.
    let tip = git(&root, &["rev-parse", "HEAD"]);
    let r = run(
        &mut tools,
        "T1",
        "git_checkout",
        json!({"ref": first, "paths": ["a.txt"]}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(git(&root, &["rev-parse", "HEAD"]), tip);
    assert_eq!(
        git(&root, &["symbolic-ref", "HEAD"]),
        "refs/heads/playbook/run12345/T1"
    );

    let r = run(&mut tools, "T1", "git_reset", json!({"ref": base}));
    assert_eq!(r["ok"], true, "reset to the base is allowed: {r}");
    assert!(!root.join("a.txt").exists());
    assert_eq!(git(&root, &["rev-parse", "HEAD"]), base);

    let main_before = git(&fx.repo_dir(), &["rev-parse", "main"]);
    let feature_before = git(&fx.repo_dir(), &["rev-parse", "feature"]);
    for bad in [
        "HEAD~1",
        "main~1",
        "feature~1",
        &format!("{base}^"),
        "nope",
        "-h",
    ] {
        let r = run(&mut tools, "T1", "git_reset", json!({"ref": bad}));
        assert_eq!(r["ok"], false, "{bad}: {r}");
        assert_eq!(
            git(&root, &["rev-parse", "HEAD"]),
            base,
            "{bad}: HEAD did not move"
        );
        let r = run(&mut tools, "T1", "git_checkout", json!({"ref": bad}));
        assert_eq!(r["ok"], false, "{bad}: {r}");
    }
    assert_eq!(git(&fx.repo_dir(), &["rev-parse", "main"]), main_before);
    assert_eq!(
        git(&fx.repo_dir(), &["rev-parse", "feature"]),
        feature_before
    );
}

#[test]
fn reset_to_another_branch_is_refused() {
    let (fx, mut tools, root) = setup();
    let dir = fx.repo_dir();
    // A commit on another branch, not an ancestor of the task's tip.
    git(&dir, &["switch", "-q", "feature"]);
    std::fs::write(dir.join("f.txt"), "f").unwrap();
    git(&dir, &["add", "f.txt"]);
    git(&dir, &["commit", "-q", "-m", "feature work"]);
    git(&dir, &["switch", "-q", "main"]);
    let r = run(&mut tools, "T1", "git_reset", json!({"ref": "feature"}));
    assert!(r["error"].as_str().unwrap().contains("own history"), "{r}");
    assert!(!root.join("f.txt").exists());
}

#[test]
fn commits_refuse_a_worktree_switched_off_its_branch() {
    let (_fx, mut tools, root) = setup();
    git(&root, &["switch", "-q", "--detach"]);
    std::fs::write(root.join("x"), "x").unwrap();
    let r = run(&mut tools, "T1", "git_commit", json!({"message": "x"}));
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("not on the task's branch"),
        "{r}"
    );
}

#[test]
fn push_never_runs() {
    let (fx, mut tools, _root) = setup();
    let remote = fx.tmp.path().join("remote.git");
    git(
        fx.tmp.path(),
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    git(
        &fx.repo_dir(),
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    let r = run(&mut tools, "T1", "git_push", json!({}));
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(
        git(&remote, &["for-each-ref"]),
        "",
        "the remote received nothing"
    );
}
