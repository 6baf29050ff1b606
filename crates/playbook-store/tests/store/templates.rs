//! Role templates: built-in and the team's own, with history.

use playbook_core::model::RoleMode;
use playbook_core::templates::role_template;
use playbook_store::{Base, ErrorCode, TemplateSource};

use crate::library;

#[test]
fn built_in_templates_are_listed_before_any_are_saved() {
    let (_dir, store) = library();
    let builtin: Vec<String> = store
        .templates()
        .unwrap()
        .into_iter()
        .filter(|t| t.source == TemplateSource::Builtin)
        .map(|t| t.name)
        .collect();
    assert_eq!(builtin, ["planner", "worker", "reviewer", "tester"]);
    let worker = store.template_role("worker", None).unwrap();
    assert_eq!(
        worker,
        role_template(RoleMode::Worker),
        "built-ins come from the core unchanged"
    );
}

#[test]
fn a_team_template_keeps_its_versions() {
    let (_dir, mut store) = library();
    let mut role = role_template(RoleMode::Reviewer);
    role.name = "security-reviewer".into();
    let v1 = store
        .save_template("security-reviewer", &role, Base::Latest, "first")
        .unwrap();
    assert_eq!(v1.version.number, 1);

    role.actions_allowed
        .get_or_insert_with(Vec::new)
        .push("run_scanner".into());
    let v2 = store
        .save_template("security-reviewer", &role, Base::Version(1), "scanner")
        .unwrap();
    assert_eq!((v2.version.number, v2.version.parent), (2, Some(1)));

    let stale = store.save_template(
        "security-reviewer",
        &role_template(RoleMode::Reviewer),
        Base::Version(1),
        "",
    );
    assert_eq!(
        stale.unwrap_err().code(),
        ErrorCode::ConcurrencyConflict,
        "templates have optimistic concurrency too"
    );

    assert_eq!(
        store.template_history("security-reviewer").unwrap().len(),
        2
    );
    let old = store.template_role("security-reviewer", Some(1)).unwrap();
    assert!(
        !old.actions_allowed().contains(&"run_scanner".to_string()),
        "old versions stay as they were"
    );
    let diff = store.template_diff("security-reviewer", 1, 2).unwrap();
    assert_eq!(
        diff.sentences().collect::<Vec<_>>(),
        ["security-reviewer may now use run_scanner"]
    );
    let listed = store.templates().unwrap();
    let team = listed
        .iter()
        .find(|t| t.name == "security-reviewer")
        .unwrap();
    assert_eq!(
        (team.source, team.latest, team.mode),
        (TemplateSource::Team, 2, Some(RoleMode::Reviewer))
    );

    store.delete_template("security-reviewer").unwrap();
    assert!(
        store
            .templates()
            .unwrap()
            .iter()
            .all(|t| t.name != "security-reviewer")
    );
}

#[test]
fn built_in_names_cannot_be_taken_by_team_templates() {
    let (_dir, mut store) = library();
    let error = store
        .save_template("worker", &role_template(RoleMode::Worker), Base::Latest, "")
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidName);
}

#[test]
fn a_role_file_that_is_not_a_role_is_refused() {
    let (_dir, mut store) = library();
    let error = store
        .save_template_text(
            "t",
            "just text",
            playbook_core::Format::Yaml,
            Base::Latest,
            "",
        )
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidPlaybook, "{error}");
    assert_eq!(store.templates().unwrap().len(), 4, "nothing was added");
}
