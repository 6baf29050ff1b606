//! A hand-commented playbook through the app: opened from a file, edited
//! in the form, saved, autosaved, exported and reopened after a restart
//! keeps every comment and blank line; only the edited value changes.

use std::path::{Path, PathBuf};

use playbook_core::Format;
use playbook_studio::api::Include;
use playbook_studio::authored;
use playbook_studio::library::Library;
use playbook_studio::workbench;
use serde_json::{Value, json};

const SOURCE_ONLY: Include = Include {
    source: true,
    flow: false,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The lines that differ between two texts of the same number of lines.
fn changed_lines(before: &str, after: &str) -> Vec<(String, String)> {
    assert_eq!(
        before.lines().count(),
        after.lines().count(),
        "same lines:\n{before}\n---\n{after}"
    );
    before
        .lines()
        .zip(after.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// Imports `file` as the app's Open file… does, and opens it.
fn open_file(library: &Library, file: &Path) -> playbook_studio::api::Opened {
    let imported = library.import_file(file).unwrap();
    library
        .open_playbook(imported[0].saved.playbook.as_str())
        .unwrap()
}

#[test]
fn a_commented_file_edited_in_the_form_saved_and_exported_keeps_every_comment() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.db");
    let file = root().join("tests/fixtures/commented/review-loop.yaml");
    let original = std::fs::read_to_string(&file).unwrap();
    let library = Library::open(db.clone());
    let opened = open_file(&library, &file);
    let source = opened.source.clone().expect("the file's text comes along");
    assert_eq!(source.text, original);

    // The Source tab shows the text with its comments, findings located in it.
    let checked =
        workbench::check_document_in(&opened.document, Format::Yaml, SOURCE_ONLY, Some(&source))
            .unwrap();
    assert_eq!(checked.source, original);
    assert_eq!(checked.comments_kept, Some(true));

    // One field edited in the form.
    let mut document = opened.document.clone();
    document["workflow"]["build"]["roles"][0]["retry_policy"]["max_iterations"] = json!(5);
    let checked =
        workbench::check_document_in(&document, Format::Yaml, SOURCE_ONLY, Some(&source)).unwrap();
    let expected = [(
        "          max_iterations: 3   # then a person decides".to_string(),
        "          max_iterations: 5   # then a person decides".to_string(),
    )];
    assert_eq!(changed_lines(&original, &checked.source), expected);

    // Autosaved, then saved as a version.
    let draft = library
        .save_draft(
            "commented-review",
            document.clone(),
            Some(1),
            Some(source.clone()),
        )
        .unwrap();
    assert!(draft.comments_kept);
    assert_eq!(changed_lines(&original, &draft.draft.content), expected);
    let saved = library
        .save(
            "commented-review",
            opened.base,
            document.clone(),
            "five rounds",
            Some(source),
        )
        .unwrap();
    assert!(saved.comments_kept);
    assert_eq!(saved.saved.version.number, 2);
    let kept = saved.source.expect("the saved text");
    assert_eq!(changed_lines(&original, &kept.text), expected);

    // Exported through the library and through Export of the open document.
    let out = dir.path().join("exported.yaml");
    library.export("commented-review", &out).unwrap();
    let exported = std::fs::read_to_string(&out).unwrap();
    assert_eq!(changed_lines(&original, &exported), expected);
    let rendered = authored::write(&document, Some(&kept), Some(Format::Yaml)).unwrap();
    assert_eq!(rendered.text, exported);
    assert!(rendered.comments_kept);
    drop(library);

    // After a restart the comments are still there.
    let library = Library::open(db);
    library.discard_draft("commented-review").unwrap();
    let reopened = library.open_playbook("commented-review").unwrap();
    assert_eq!(reopened.source.unwrap().text, exported);
}

#[test]
fn a_draft_reopens_with_its_comments() {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::open(dir.path().join("library.db"));
    let file = root().join("tests/fixtures/commented/keys-in-own-order.yaml");
    let original = std::fs::read_to_string(&file).unwrap();
    let opened = open_file(&library, &file);
    let mut document = opened.document.clone();
    document["name"] = json!("Draft name");
    library
        .save_draft("own-order", document, Some(1), opened.source)
        .unwrap();
    let reopened = library.open_playbook("own-order").unwrap();
    let source = reopened.source.unwrap();
    assert_eq!(source.format, Format::Yaml);
    assert_eq!(
        changed_lines(&original, &source.text),
        [(
            "name: Own order  # the display name first".into(),
            "name: Draft name  # the display name first".into()
        )]
    );
    assert_eq!(reopened.draft.unwrap()["name"], "Draft name");
}

#[test]
fn an_edit_that_cannot_keep_the_layout_is_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::open(dir.path().join("library.db"));
    let opened = open_file(
        &library,
        &root().join("tests/fixtures/commented/review-loop.yaml"),
    );
    // Another format cannot carry YAML comments.
    let out =
        authored::write(&opened.document, opened.source.as_ref(), Some(Format::Json)).unwrap();
    assert!(!out.comments_kept);
    assert!(serde_json::from_str::<Value>(&out.text).is_ok());
    // A base the page made up is not trusted: the document is rendered.
    let made_up = playbook_store::Authored {
        text: "{[".into(),
        format: Format::Yaml,
    };
    let saved = library
        .save(
            "commented-review",
            1,
            opened.document.clone(),
            "",
            Some(made_up),
        )
        .unwrap();
    assert!(!saved.comments_kept);
}

/// A version records content: a save that only changed comments adds no
/// version, and the text is kept as the draft rather than lost.
#[test]
fn a_save_that_only_changes_comments_keeps_them_in_the_draft() {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::open(dir.path().join("library.db"));
    let opened = open_file(
        &library,
        &root().join("tests/fixtures/commented/review-loop.yaml"),
    );
    let mut typed = opened.source.clone().unwrap();
    typed.text = typed
        .text
        .replace("# End of the playbook.", "# Reviewed on Monday.");
    let saved = library
        .save(
            "commented-review",
            1,
            opened.document.clone(),
            "",
            Some(typed.clone()),
        )
        .unwrap();
    assert!(saved.saved.unchanged);
    assert!(saved.draft_kept);
    let reopened = library.open_playbook("commented-review").unwrap();
    assert_eq!(reopened.source.unwrap().text, typed.text);
    // Saving the text the version already has keeps no draft.
    library.discard_draft("commented-review").unwrap();
    let same = library
        .save("commented-review", 1, opened.document, "", opened.source)
        .unwrap();
    assert!(!same.draft_kept);
    assert!(
        library
            .open_playbook("commented-review")
            .unwrap()
            .draft
            .is_none()
    );
}

/// Every example and commented fixture: opened in the app and written
/// back unchanged is byte for byte the file; one edited value changes one
/// line.
#[test]
fn every_example_and_commented_fixture_round_trips_through_the_app() {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::open(dir.path().join("library.db"));
    let mut files: Vec<PathBuf> = ["playbooks", "tests/fixtures/commented"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root().join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for file in files {
        let original = std::fs::read_to_string(&file).unwrap();
        let format = Format::from_path(&file.to_string_lossy());
        let document = playbook_core::document::parse_value(&original, format).unwrap();
        let report = playbook_core::validate_value(document, &Default::default());
        let typed = serde_json::to_value(report.playbook.expect("a playbook")).unwrap();
        let base = playbook_store::Authored {
            text: original.clone(),
            format,
        };
        let same = authored::write(&typed, Some(&base), None).unwrap();
        assert!(same.comments_kept, "{}", file.display());
        assert_eq!(same.text, original, "{} unchanged", file.display());
        let mut renamed = typed.clone();
        renamed["name"] = json!("Renamed in the form");
        let edited = authored::write(&renamed, Some(&base), None).unwrap();
        assert!(edited.comments_kept, "{}", file.display());
        let changed = changed_lines(&original, &edited.text);
        assert_eq!(changed.len(), 1, "{}: {changed:?}", file.display());
        assert!(changed[0].1.contains("Renamed in the form"));
        // And the library keeps the file's text as it opens it.
        let opened = open_file(&library, &file);
        let kept = opened.source.map(|s| s.text);
        assert!(
            kept.is_none() || kept.as_deref() == Some(original.as_str()),
            "{}",
            file.display()
        );
    }
}
