//! Reading the context bundle at the run's commit.

use playbook_runner::context::{Bundle, ContextError, ItemKind};

use crate::Repo;

#[test]
fn a_repository_without_governance_files_reads_as_all_absent() {
    let repo = Repo::with(&[("README.md", "hi")]);
    let bundle = Bundle::read(repo.path(), "main", &["Executor"]).unwrap();
    assert!(bundle.items.is_empty(), "nothing to read");
    assert!(!bundle.governed());
    assert_eq!(
        bundle.absent,
        ["AGENTS.md", "agents/Executor.md", "policy/*.json"],
        "the run says which files were absent"
    );
    assert!(bundle.permissions.is_none());
}

#[test]
fn every_file_is_read_at_the_commit_with_its_sha256() {
    let repo = Repo::with(&[
        ("AGENTS.md", "# rules\n"),
        ("agents/Executor.md", "# executor\n"),
        ("agents/reviewer.md", "# reviewer\n"),
        (
            "policy/role-permissions.json",
            r#"{"roles": {"Executor": {"allow": ["*"]}, "Reviewer": {"allow": ["read_file"]}}}"#,
        ),
        ("policy/other.json", "{\"a\": 1}"),
    ]);
    let bundle = Bundle::read(repo.path(), "main", &["Executor", "Reviewer"]).unwrap();
    let files = bundle.files();
    let paths: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        paths,
        [
            "AGENTS.md",
            "agents/Executor.md",
            "agents/reviewer.md",
            "policy/other.json",
            "policy/role-permissions.json"
        ],
        "AGENTS.md, overlays in role order (case-insensitive match for Reviewer), policies by name"
    );
    use sha2::Digest;
    let expected: String = sha2::Sha256::digest(b"# rules\n")
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        files["AGENTS.md"], expected,
        "the hash is of the committed bytes"
    );
    assert!(matches!(&bundle.items[2].kind, ItemKind::RoleOverlay { role } if role == "Reviewer"));
    assert!(bundle.governed());
    assert_eq!(bundle.absent, Vec::<String>::new());
    assert_eq!(bundle.commit, repo.git(&["rev-parse", "HEAD"]));
}

#[test]
fn an_uncommitted_edit_does_not_change_the_bundle() {
    let repo = Repo::with(&[("AGENTS.md", "committed\n")]);
    let before = Bundle::read(repo.path(), "main", &[]).unwrap();
    repo.write("AGENTS.md", "edited, not committed\n");
    repo.write("agents/Executor.md", "new, not committed\n");
    let after = Bundle::read(repo.path(), "main", &["Executor"]).unwrap();
    assert_eq!(
        before.files(),
        after.files(),
        "the working tree is never read"
    );
    assert_eq!(after.agents_md().unwrap().text, "committed\n");
}

#[test]
fn a_role_without_its_file_in_agents_is_an_error_naming_it_and_the_files_that_exist() {
    let repo = Repo::with(&[("agents/Reviewer.md", "r"), ("agents/Tester.md", "t")]);
    let err = Bundle::read(repo.path(), "main", &["Reviewer", "Executor"]).unwrap_err();
    assert!(matches!(err, ContextError::RoleFileMissing { ref role, .. } if role == "Executor"));
    let text = err.to_string();
    assert!(
        text.contains("`Executor`")
            && text.contains("agents/Reviewer.md")
            && text.contains("agents/Tester.md"),
        "{text}"
    );
}

#[test]
fn role_files_that_match_only_by_case_and_are_several_are_ambiguous() {
    let repo = Repo::with(&[("agents/REVIEWER.md", "a"), ("agents/reviewer.md", "b")]);
    let err = Bundle::read(repo.path(), "main", &["Reviewer"]).unwrap_err();
    assert!(
        matches!(err, ContextError::AmbiguousRoleFile { .. }),
        "{err}"
    );
    // An exact match wins over the others.
    let repo = Repo::with(&[
        ("agents/REVIEWER.md", "a"),
        ("agents/Reviewer.md", "b"),
        ("agents/reviewer.md", "c"),
    ]);
    let bundle = Bundle::read(repo.path(), "main", &["Reviewer"]).unwrap();
    assert_eq!(bundle.role_file("Reviewer").unwrap().text, "b");
}

#[test]
fn malformed_policy_json_names_the_file_and_line() {
    let repo = Repo::with(&[("policy/broken.json", "{\n  \"a\": 1,\n  \"b\": \n}\n")]);
    let err = Bundle::read(repo.path(), "main", &[]).unwrap_err();
    let ContextError::MalformedPolicy { path, line, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(path, "policy/broken.json");
    assert!(*line >= 3, "the error points at the broken line: {err}");
    // Duplicate keys are refused by the core's reader.
    let repo = Repo::with(&[("policy/dup.json", r#"{"a": 1, "a": 2}"#)]);
    assert!(
        Bundle::read(repo.path(), "main", &[])
            .unwrap_err()
            .to_string()
            .contains("policy/dup.json")
    );
}

#[test]
fn oversized_binary_and_symlinked_context_files_are_refused() {
    let big = "x".repeat(1024 * 1024 + 1);
    let repo = Repo::with(&[("AGENTS.md", &big)]);
    assert!(matches!(
        Bundle::read(repo.path(), "main", &[]).unwrap_err(),
        ContextError::TooLarge { .. }
    ));

    let repo = Repo::with(&[]);
    std::fs::write(repo.path().join("AGENTS.md"), [0xff, 0xfe, 0x00]).unwrap();
    repo.commit(&[]);
    assert!(matches!(
        Bundle::read(repo.path(), "main", &[]).unwrap_err(),
        ContextError::NotUtf8 { .. }
    ));

    let repo = Repo::with(&[("secret.txt", "s")]);
    std::os::unix::fs::symlink("/etc/passwd", repo.path().join("AGENTS.md")).unwrap();
    repo.commit(&[]);
    let err = Bundle::read(repo.path(), "main", &[]).unwrap_err();
    assert!(matches!(err, ContextError::NotAFile { .. }), "{err}");
}

#[test]
fn a_policy_that_does_not_name_a_running_role_refuses_the_run() {
    let repo = Repo::with(&[(
        "policy/role-permissions.json",
        r#"{"roles": {"Executor": {"allow": ["read_file"]}}}"#,
    )]);
    let err = Bundle::read(repo.path(), "main", &["Executor", "Reviewer"]).unwrap_err();
    assert!(
        matches!(err, ContextError::RoleNotInPolicy { ref role, .. } if role == "Reviewer"),
        "{err}"
    );
    assert!(
        err.to_string().contains("Executor"),
        "names the roles it does name: {err}"
    );
}

#[test]
fn a_malformed_permissions_policy_or_overlay_front_matter_is_an_error_naming_the_file() {
    for policy in [
        r#"{"roles": {"Executor": {"deny": ["git_push"]}}}"#,
        r#"{"roles": {"Executor": {"allow": "read_file"}}}"#,
        r#"{"role": {}}"#,
        r#"[]"#,
        r#"{"roles": {"Executor": {"allow": [""]}}}"#,
    ] {
        let repo = Repo::with(&[("policy/role-permissions.json", policy)]);
        let err = Bundle::read(repo.path(), "main", &["Executor"]).unwrap_err();
        assert!(
            err.to_string().contains("policy/role-permissions.json"),
            "{policy}: {err}"
        );
    }
    let repo = Repo::with(&[(
        "agents/Executor.md",
        "---\nforbiden_actions: [git_commit]\n---\n",
    )]);
    let err = Bundle::read(repo.path(), "main", &["Executor"]).unwrap_err();
    assert!(err.to_string().contains("agents/Executor.md"), "{err}");
}

#[test]
fn extension_keys_in_the_permissions_policy_are_ignored() {
    let repo = Repo::with(&[(
        "policy/role-permissions.json",
        r#"{"x_note": 1, "roles": {"Executor": {"allow": ["read_file"], "x_why": "audit"}}}"#,
    )]);
    let bundle = Bundle::read(repo.path(), "main", &["Executor"]).unwrap();
    assert_eq!(
        bundle.permissions.unwrap().roles["Executor"].allow,
        ["read_file"]
    );
}

#[test]
fn refs_that_do_not_exist_or_look_like_options_are_clear_errors() {
    let repo = Repo::with(&[("README.md", "hi")]);
    for bad in ["--output=/tmp/x", "", "main:AGENTS.md", "a b", "main\n"] {
        assert!(
            matches!(
                Bundle::read(repo.path(), bad, &[]).unwrap_err(),
                ContextError::BadRef { .. }
            ),
            "{bad:?}"
        );
    }
    assert!(matches!(
        Bundle::read(repo.path(), "nope", &[]).unwrap_err(),
        ContextError::MissingRef { .. }
    ));
    let not_git = tempfile::tempdir().unwrap();
    assert!(Bundle::read(not_git.path(), "main", &[]).is_err());
    assert!(matches!(
        Bundle::read(repo.path(), "main", &[""]).unwrap_err(),
        ContextError::BadRole { .. }
    ));
}

#[test]
fn an_inherited_git_dir_does_not_redirect_the_reader() {
    let repo = Repo::with(&[("AGENTS.md", "mine")]);
    let other = Repo::with(&[("AGENTS.md", "other")]);
    // SAFETY: tests of this binary read GIT_DIR nowhere else; the variable
    // is removed again at once.
    unsafe { std::env::set_var("GIT_DIR", other.path().join(".git")) };
    let bundle = Bundle::read(repo.path(), "main", &[]);
    unsafe { std::env::remove_var("GIT_DIR") };
    assert_eq!(bundle.unwrap().agents_md().unwrap().text, "mine");
}

#[test]
fn the_bundle_as_a_whole_is_capped() {
    let part = "y".repeat(900 * 1024);
    let files: Vec<(String, String)> = (0..10)
        .map(|i| {
            (
                format!("policy/p{i}.json"),
                format!("{{\"a\": \"{part}\"}}"),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let repo = Repo::with(&refs);
    let err = Bundle::read(repo.path(), "main", &[]).unwrap_err();
    assert!(matches!(err, ContextError::TooLarge { .. }), "{err}");
}
