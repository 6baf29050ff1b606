//! The mandatory preflight: issue template present and unchanged, project
//! schema matching.

use std::path::Path;

use playbook_runner::context::preflight;

use crate::Repo;

const TEMPLATE: &str = ".github/ISSUE_TEMPLATE/milestone-task.yml";
const TEMPLATE_TEXT: &str = "name: Milestone task\n";

fn sha(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn detail<'r>(
    report: &'r playbook_runner::context::PreflightReport,
    name: &str,
) -> &'r playbook_runner::context::PreflightCheckResult {
    report.checks.iter().find(|c| c.name == name).unwrap()
}

#[test]
fn without_governance_files_the_checks_are_not_applicable_and_pass() {
    let repo = Repo::with(&[("README.md", "x")]);
    let report = preflight(repo.path(), "main", None);
    assert!(!report.governed);
    assert!(report.passed());
    assert!(
        report
            .checks
            .iter()
            .all(|c| !c.applicable && c.detail.starts_with("not applicable"))
    );
}

#[test]
fn a_governed_repository_without_the_issue_template_is_a_hard_stop() {
    let repo = Repo::with(&[("AGENTS.md", "rules")]);
    let report = preflight(repo.path(), "main", None);
    assert!(!report.passed());
    let check = detail(&report, "issue_template");
    assert!(
        !check.passed && check.detail.contains(TEMPLATE),
        "{check:?}"
    );
    assert!(
        detail(&report, "project_schema").passed,
        "no project schema policy: not applicable"
    );
}

#[test]
fn the_template_present_pinned_and_clean_passes() {
    let pin = format!("{{\"issue_template_sha256\": \"{}\"}}", sha(TEMPLATE_TEXT));
    let repo = Repo::with(&[(TEMPLATE, TEMPLATE_TEXT), ("policy/preflight.json", &pin)]);
    let report = preflight(repo.path(), "main", None);
    assert!(report.passed(), "{report:?}");
    assert_eq!(report.results().len(), 2);
}

#[test]
fn a_template_that_differs_from_its_pin_names_both_hashes() {
    let pin = format!("{{\"issue_template_sha256\": \"{}\"}}", sha("old\n"));
    let repo = Repo::with(&[(TEMPLATE, TEMPLATE_TEXT), ("policy/preflight.json", &pin)]);
    let check = detail(&preflight(repo.path(), "main", None), "issue_template").clone();
    assert!(!check.passed);
    assert!(
        check.detail.contains(&sha("old\n")) && check.detail.contains(&sha(TEMPLATE_TEXT)),
        "{}",
        check.detail
    );
}

#[test]
fn an_uncommitted_edit_or_deletion_of_the_template_is_drift_naming_both_hashes() {
    let repo = Repo::with(&[("AGENTS.md", "rules"), (TEMPLATE, TEMPLATE_TEXT)]);
    repo.write(TEMPLATE, "edited\n");
    let check = detail(&preflight(repo.path(), "main", None), "issue_template").clone();
    assert!(!check.passed);
    assert!(
        check.detail.contains(&sha("edited\n")) && check.detail.contains(&sha(TEMPLATE_TEXT)),
        "{}",
        check.detail
    );

    std::fs::remove_file(repo.path().join(TEMPLATE)).unwrap();
    let check = detail(&preflight(repo.path(), "main", None), "issue_template").clone();
    assert!(
        !check.passed && check.detail.contains("missing from the working tree"),
        "{}",
        check.detail
    );
}

#[test]
fn a_malformed_pin_fails_the_check_naming_the_policy_file() {
    let repo = Repo::with(&[
        (TEMPLATE, TEMPLATE_TEXT),
        ("policy/preflight.json", "{\"issue_template_sha\": 1}"),
    ]);
    let check = detail(&preflight(repo.path(), "main", None), "issue_template").clone();
    assert!(
        !check.passed && check.detail.contains("policy/preflight.json"),
        "{}",
        check.detail
    );
}

const SCHEMA: &str = r#"{"project": "Roadmap", "fields": {"Status": ["Todo", "Doing", "Done"], "Size": ["S", "M"]}}"#;

fn governed_with_schema() -> Repo {
    Repo::with(&[
        (TEMPLATE, TEMPLATE_TEXT),
        ("policy/project-schema.json", SCHEMA),
    ])
}

fn project_file(dir: &Path, text: &str) -> std::path::PathBuf {
    let path = dir.join("project.json");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_project_schema_without_a_project_description_asks_for_one() {
    let repo = governed_with_schema();
    let check = detail(&preflight(repo.path(), "main", None), "project_schema").clone();
    assert!(
        !check.passed && check.detail.contains("--project FILE"),
        "{}",
        check.detail
    );
}

#[test]
fn a_matching_project_passes_whatever_the_option_order() {
    let repo = governed_with_schema();
    let dir = tempfile::tempdir().unwrap();
    let file = project_file(
        dir.path(),
        r#"{"project": "Roadmap", "fields": {"Size": ["M", "S"], "Status": ["Done", "Todo", "Doing"]}}"#,
    );
    let report = preflight(repo.path(), "main", Some(&file));
    assert!(report.passed(), "{report:?}");
}

#[test]
fn every_mismatch_of_the_project_is_named() {
    let repo = governed_with_schema();
    let dir = tempfile::tempdir().unwrap();
    let file = project_file(
        dir.path(),
        r#"{"project": "Other", "fields": {"Status": ["Todo", "Done", "Blocked"], "Owner": []}}"#,
    );
    let check = detail(
        &preflight(repo.path(), "main", Some(&file)),
        "project_schema",
    )
    .clone();
    assert!(!check.passed);
    for needle in [
        "`Other`",
        "`Roadmap`",
        "lacks option `Doing`",
        "option `Blocked`",
        "field `Size` is missing",
        "field `Owner`",
    ] {
        assert!(
            check.detail.contains(needle),
            "{needle} in {}",
            check.detail
        );
    }
}

#[test]
fn a_malformed_project_description_or_schema_fails_the_check_clearly() {
    let repo = governed_with_schema();
    let dir = tempfile::tempdir().unwrap();
    for text in [
        "{",
        "[]",
        r#"{"project": "Roadmap", "fields": {"Status": "Todo"}}"#,
        r#"{"project": 1}"#,
    ] {
        let file = project_file(dir.path(), text);
        let check = detail(
            &preflight(repo.path(), "main", Some(&file)),
            "project_schema",
        )
        .clone();
        assert!(
            !check.passed && check.detail.contains("project.json"),
            "{text}: {}",
            check.detail
        );
    }
    let missing = dir.path().join("nope.json");
    assert!(
        !detail(
            &preflight(repo.path(), "main", Some(&missing)),
            "project_schema"
        )
        .passed
    );
    let bad = Repo::with(&[
        (TEMPLATE, TEMPLATE_TEXT),
        ("policy/project-schema.json", "{\"project\": "),
    ]);
    let check = detail(&preflight(bad.path(), "main", None), "project_schema").clone();
    assert!(
        !check.passed && check.detail.contains("policy/project-schema.json"),
        "{}",
        check.detail
    );
}

#[test]
fn a_bad_ref_or_a_directory_that_is_not_git_is_a_failed_check_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let report = preflight(dir.path(), "main", None);
    assert!(!report.passed() && report.checks[0].name == "repository");
    let repo = Repo::with(&[("README.md", "x")]);
    assert!(!preflight(repo.path(), "-x", None).passed());
}

#[test]
fn the_working_tree_is_compared_at_the_repository_root_even_from_a_subdirectory() {
    let repo = Repo::with(&[
        ("AGENTS.md", "rules"),
        (TEMPLATE, TEMPLATE_TEXT),
        ("src/lib.rs", ""),
    ]);
    let report = preflight(&repo.path().join("src"), "main", None);
    assert!(report.passed(), "{report:?}");
}

#[test]
fn the_preflight_reads_the_given_ref_not_the_checked_out_one() {
    let repo = Repo::with(&[("AGENTS.md", "rules"), (TEMPLATE, TEMPLATE_TEXT)]);
    repo.git(&["checkout", "-q", "-b", "bare"]);
    repo.git(&["rm", "-q", "AGENTS.md"]);
    repo.git(&["commit", "-q", "-m", "no governance"]);
    assert!(!preflight(repo.path(), "bare", None).governed);
    assert!(preflight(repo.path(), "main", None).governed);
}
