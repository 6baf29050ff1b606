//! File commands honour only paths the person chose in this session: a path
//! the page makes up is refused, for reading and for writing, however it is
//! spelled.

use std::path::Path;

use playbook_studio::error::ErrorCode;
use playbook_studio::grants::{Access, Grants};

fn spelled(path: &Path) -> String {
    path.to_str().unwrap().to_string()
}

#[test]
fn a_made_up_path_is_refused_for_reading_and_writing_and_the_message_says_how_to_choose() {
    let grants = Grants::default();
    for access in [Access::Read, Access::Write] {
        let err = grants.check(access, "/etc/passwd").unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        assert!(err.message.contains("/etc/passwd"), "{}", err.message);
        assert!(err.message.contains("choose"), "{}", err.message);
        let json = serde_json::to_value(&err).unwrap();
        assert_eq!(json["code"], "forbidden", "the UI switches on this code");
    }
}

#[test]
fn a_chosen_file_is_granted_only_for_what_it_was_chosen_for() {
    let dir = tempfile::tempdir().unwrap();
    let opened = dir.path().join("team.yaml");
    std::fs::write(&opened, "id: team\n").unwrap();
    let target = dir.path().join("export.json");
    let grants = Grants::default();
    grants.allow(Access::Read, &opened);
    grants.allow(Access::Write, &target);

    assert_eq!(
        grants.check(Access::Read, &spelled(&opened)).unwrap(),
        opened
    );
    assert_eq!(
        grants.check(Access::Write, &spelled(&target)).unwrap(),
        target
    );
    assert_eq!(
        grants
            .check(Access::Write, &spelled(&opened))
            .unwrap_err()
            .code,
        ErrorCode::Forbidden,
        "a file chosen to open cannot be overwritten"
    );
    assert_eq!(
        grants
            .check(Access::Read, &spelled(&target))
            .unwrap_err()
            .code,
        ErrorCode::Forbidden,
        "an export target cannot be read back"
    );
    let sibling = dir.path().join("other.yaml");
    assert_eq!(
        grants
            .check(Access::Read, &spelled(&sibling))
            .unwrap_err()
            .code,
        ErrorCode::Forbidden,
        "a chosen file grants nothing beside it"
    );
}

#[test]
fn another_spelling_names_the_same_file_only_when_it_is_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let chosen = dir.path().join("team.yaml");
    std::fs::write(&chosen, "id: team\n").unwrap();
    let grants = Grants::default();
    grants.allow(Access::Read, &chosen);

    let roundabout = dir.path().join("sub/../team.yaml");
    assert!(grants.check(Access::Read, &spelled(&roundabout)).is_ok());
    let escape = dir.path().join("sub/../../../../etc/passwd");
    assert!(grants.check(Access::Read, &spelled(&escape)).is_err());
    let relative = "team.yaml";
    assert!(
        grants.check(Access::Read, relative).is_err(),
        "no dialog gives a relative path"
    );
    assert_eq!(
        grants.check(Access::Read, "  ").unwrap_err().code,
        ErrorCode::InvalidInput
    );
}

#[test]
fn a_linked_folder_cannot_stand_for_a_chosen_one() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&real).unwrap();
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("team.yaml"), "id: other\n").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    let grants = Grants::default();
    grants.allow(Access::Read, &real.join("team.yaml"));
    assert!(
        grants
            .check(Access::Read, &spelled(&link.join("team.yaml")))
            .is_err(),
        "the same name in another folder is another file"
    );
}
