//! The template editor's round trips: check a template on its own, save
//! versions with a base, compare two versions, remove.

use playbook_core::RoleMode;
use playbook_studio::error::ErrorCode;
use playbook_studio::library::Library;
use playbook_studio::workbench;
use serde_json::json;

#[test]
fn a_template_is_checked_with_pointers_into_the_role() {
    let mut reviewer = serde_json::to_value(workbench::role_template(RoleMode::Reviewer)).unwrap();
    reviewer["retry_policy"]["max_iterations"] = json!(0);
    let checked = workbench::check_template(reviewer);
    assert!(!checked.allow);
    assert!(
        checked
            .findings
            .iter()
            .any(|f| f.code.as_str() == "PB402" && f.path == "/retry_policy/max_iterations"),
        "{:#?}",
        checked.findings
    );
}

#[test]
fn saving_edits_of_a_team_template_adds_versions_and_refuses_a_stale_base() {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::open(dir.path().join("library.db"));
    let mut role = workbench::role_template(RoleMode::Worker);
    role.name = "backend-worker".into();
    let v1 = library
        .save_template("team-backend", &role, "first", None)
        .unwrap();
    assert_eq!(v1.version.number, 1);

    let opened = library.open_template("team-backend", None).unwrap();
    assert_eq!(opened.role, role);
    assert_eq!(opened.version.as_ref().map(|v| v.number), Some(1));

    role.responsibilities = Some("Build the backend task; keep the API stable.".into());
    let v2 = library
        .save_template("team-backend", &role, "api", Some(1))
        .unwrap();
    assert_eq!(v2.version.number, 2);

    let stale = library
        .save_template("team-backend", &role, "from an old window", Some(1))
        .unwrap_err();
    assert_eq!(stale.code, ErrorCode::Conflict);

    let comparison = library.compare_templates("team-backend", 1, 2).unwrap();
    assert_eq!(
        comparison.diff.sentences().collect::<Vec<_>>(),
        ["responsibilities of backend-worker changed"]
    );
    assert!(comparison.to_text.contains("keep the API stable"));
    assert_eq!(library.template_history("team-backend").unwrap().len(), 2);

    library.delete_template("team-backend").unwrap();
    assert_eq!(
        library
            .open_template("team-backend", None)
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
}

#[test]
fn a_built_in_template_opens_without_a_version_and_cannot_be_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::open(dir.path().join("library.db"));
    let opened = library.open_template("tester", None).unwrap();
    assert!(opened.version.is_none());
    let refused = library
        .save_template("tester", &opened.role, "", None)
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    assert!(refused.message.contains("built-in"), "{}", refused.message);
}
