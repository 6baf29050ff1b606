//! Opening a repository: what is refused, why, and that opening never
//! changes it.

use playbook_runner::workspace::{Repo, WorkspaceErrorKind};

use crate::support::{Fixture, Snapshot, git};

#[track_caller]
fn refused(dir: &std::path::Path, base: Option<&str>, kind: WorkspaceErrorKind) -> String {
    let err = Repo::open(dir, base).expect_err("the repository must be refused");
    assert_eq!(err.kind, kind, "{}", err.message);
    assert!(
        err.to_string().starts_with(kind.code()),
        "the code leads: {err}"
    );
    err.message
}

#[test]
fn a_clean_repository_opens_on_head_and_records_its_commit() {
    let fx = Fixture::new();
    let before = Snapshot::take(&fx.repo_dir());
    let repo = fx.open();
    assert_eq!(repo.base_sha(), git(&fx.repo_dir(), &["rev-parse", "HEAD"]));
    assert_eq!(repo.base_ref(), "HEAD");
    let on_feature = Repo::open(&fx.repo_dir(), Some("feature~1")).unwrap();
    assert_eq!(
        on_feature.base_sha(),
        git(&fx.repo_dir(), &["rev-parse", "HEAD~1"])
    );
    assert_eq!(
        Snapshot::take(&fx.repo_dir()),
        before,
        "opening changes nothing"
    );
}

#[test]
fn a_folder_that_is_not_git_is_refused_with_how_to_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let msg = refused(tmp.path(), None, WorkspaceErrorKind::NotARepository);
    assert!(msg.contains("git init"), "{msg}");
    let missing = tmp.path().join("nope");
    refused(&missing, None, WorkspaceErrorKind::NotARepository);
    let file = tmp.path().join("f");
    std::fs::write(&file, "x").unwrap();
    refused(&file, None, WorkspaceErrorKind::NotARepository);
}

#[test]
fn the_git_directory_itself_is_not_a_working_tree() {
    let fx = Fixture::new();
    refused(
        &fx.repo_dir().join(".git"),
        None,
        WorkspaceErrorKind::NotARepository,
    );
}

#[test]
fn a_repository_without_a_commit_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    git(tmp.path(), &["init", "-q"]);
    let msg = refused(tmp.path(), None, WorkspaceErrorKind::NoCommit);
    assert!(msg.contains("commit"), "{msg}");
    refused(tmp.path(), Some("main"), WorkspaceErrorKind::NoCommit);
}

#[test]
fn a_base_ref_that_is_not_a_commit_is_refused() {
    let fx = Fixture::new();
    for bad in [
        "nope",
        "--output=/tmp/x",
        "-h",
        "HEAD~99",
        "main:README.md",
        "",
        "a\0b",
    ] {
        let msg = refused(&fx.repo_dir(), Some(bad), WorkspaceErrorKind::BadBaseRef);
        assert!(msg.contains("git branch"), "{msg}");
    }
}

#[test]
fn a_dirty_tree_is_refused_naming_tracked_and_untracked_paths() {
    let fx = Fixture::new();
    let dir = fx.repo_dir();
    std::fs::write(dir.join("README.md"), "changed\n").unwrap();
    let msg = refused(&dir, None, WorkspaceErrorKind::DirtyTree);
    assert!(
        msg.contains("tracked change") && msg.contains("README.md"),
        "{msg}"
    );
    git(&dir, &["checkout", "--", "README.md"]);

    for i in 0..7 {
        std::fs::write(dir.join(format!("new{i}.txt")), "x").unwrap();
    }
    let msg = refused(&dir, None, WorkspaceErrorKind::DirtyTree);
    assert!(
        msg.contains("untracked") && msg.contains("new0.txt"),
        "{msg}"
    );
    assert!(
        msg.contains("and 2 more"),
        "only the first few are named: {msg}"
    );
}

#[test]
fn ignored_files_do_not_make_a_tree_dirty() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.repo_dir().join("target")).unwrap();
    std::fs::write(fx.repo_dir().join("target/out"), "x").unwrap();
    fx.open();
}

#[test]
fn a_staged_change_is_dirty_too() {
    let fx = Fixture::new();
    std::fs::write(fx.repo_dir().join("staged.txt"), "x").unwrap();
    git(&fx.repo_dir(), &["add", "staged.txt"]);
    refused(&fx.repo_dir(), None, WorkspaceErrorKind::DirtyTree);
}

#[test]
fn an_untracked_file_hidden_by_the_repositorys_status_config_is_still_dirty() {
    let fx = Fixture::new();
    git(
        &fx.repo_dir(),
        &["config", "status.showUntrackedFiles", "no"],
    );
    std::fs::write(fx.repo_dir().join("hidden.txt"), "x").unwrap();
    let msg = refused(&fx.repo_dir(), None, WorkspaceErrorKind::DirtyTree);
    assert!(msg.contains("hidden.txt"), "{msg}");
}

#[test]
fn a_subfolder_opens_the_repository_it_belongs_to() {
    let fx = Fixture::new();
    let repo = Repo::open(&fx.repo_dir().join("src"), None).unwrap();
    assert_eq!(repo.root(), fx.repo_dir().canonicalize().unwrap());
}

#[test]
fn the_workspace_codes_and_the_doc_list_agree() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/error-codes.md"),
    )
    .unwrap();
    let start = doc
        .find("## Workspace\n")
        .expect("docs/error-codes.md has a Workspace section");
    let body = &doc[start + 1..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    let documented: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once('`').map(|(code, _)| code))
        .collect();
    let code: Vec<&str> = WorkspaceErrorKind::ALL.iter().map(|k| k.code()).collect();
    assert_eq!(
        documented, code,
        "docs/error-codes.md (Workspace) and WorkspaceErrorKind agree"
    );
}
