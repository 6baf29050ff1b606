//! The text a version was saved from: kept beside the canonical JSON and
//! given back by export, comments, blank lines and key order included.

use playbook_core::Format;
use playbook_store::{Base, ErrorCode, Source, Store};

use crate::{id, library};

const REVIEW_LOOP: &str = include_str!("../../../../tests/fixtures/commented/review-loop.yaml");
const OWN_ORDER: &str = include_str!("../../../../tests/fixtures/commented/keys-in-own-order.yaml");
const JSON_LAYOUT: &str = include_str!("../../../../tests/fixtures/commented/layout.json");

/// Every shipped example and every commented fixture, with its format.
fn files() -> Vec<(String, String, Format)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut files = Vec::new();
    for dir in ["playbooks", "tests/fixtures/commented"] {
        let mut entries: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
            .expect("the directory exists")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.is_file())
            .collect();
        entries.sort();
        for path in entries {
            let text = std::fs::read_to_string(&path).expect("UTF-8 text");
            let format = Format::from_path(&path.to_string_lossy());
            files.push((path.display().to_string(), text, format));
        }
    }
    files
}

fn lines_differing(a: &str, b: &str) -> Vec<(String, String)> {
    assert_eq!(a.lines().count(), b.lines().count(), "{a}\n---\n{b}");
    a.lines()
        .zip(b.lines())
        .filter(|(x, y)| x != y)
        .map(|(x, y)| (x.to_string(), y.to_string()))
        .collect()
}

#[test]
fn every_example_and_commented_file_exports_as_it_was_imported() {
    let (dir, mut store) = library();
    for (name, text, format) in files() {
        let imported = store
            .import(&[Source {
                name: name.clone(),
                text: text.clone(),
                format,
            }])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let saved = &imported[0].saved;
        if imported[0].outcome == playbook_store::ImportOutcome::Unchanged {
            // The seeded copy of an example already holds this content.
            continue;
        }
        let exported = store.export(&saved.playbook, None, format).unwrap();
        assert_eq!(exported, text, "{name} comes back byte for byte");
        // The other format is the canonical render, and both read back as
        // the same version.
        let other = match format {
            Format::Yaml => Format::Json,
            Format::Json => Format::Yaml,
        };
        for (text, format) in [
            (exported, format),
            (store.export(&saved.playbook, None, other).unwrap(), other),
        ] {
            let mut again =
                Store::open(dir.path().join(format!("again-{}.db", format.extension()))).unwrap();
            let copy = again
                .import(&[Source {
                    name: name.clone(),
                    text,
                    format,
                }])
                .unwrap();
            assert_eq!(
                copy[0].saved.version.content_hash, saved.version.content_hash,
                "{name} as {format:?} is the same version"
            );
        }
    }
}

#[test]
fn the_canonical_json_stays_the_identity_of_a_version() {
    let (_dir, mut store) = library();
    let saved = store
        .create_from_text(REVIEW_LOOP, Format::Yaml, "first")
        .unwrap();
    let pid = saved.playbook.clone();
    // The same content with other comments is no new version.
    let recommented = REVIEW_LOOP.replace("# shown in the library", "# renamed comment");
    let again = store
        .save_version(&pid, Base::Latest, &recommented, Format::Yaml, "")
        .unwrap();
    assert!(again.unchanged);
    assert_eq!(again.version.content_hash, saved.version.content_hash);
    let version = store.version(&pid, None).unwrap();
    assert_eq!(
        version.authored.unwrap().text,
        REVIEW_LOOP,
        "versions are immutable"
    );
    assert_eq!(version.content, crate::canonical(REVIEW_LOOP));
}

#[test]
fn an_edited_version_exports_with_only_the_edited_value_changed() {
    let (_dir, mut store) = library();
    let saved = store.create_from_text(OWN_ORDER, Format::Yaml, "").unwrap();
    let pid = saved.playbook;
    let edited = OWN_ORDER.replace("name: Own order", "name: Renamed");
    store
        .save_version(&pid, Base::Latest, &edited, Format::Yaml, "")
        .unwrap();
    assert_eq!(store.export(&pid, None, Format::Yaml).unwrap(), edited);
    assert_eq!(
        store.export(&pid, Some(1), Format::Yaml).unwrap(),
        OWN_ORDER
    );
    // Rename and restore are built in code; they keep the text too.
    store.rename(&pid, "Third name").unwrap();
    let renamed = store.export(&pid, None, Format::Yaml).unwrap();
    assert_eq!(
        lines_differing(OWN_ORDER, &renamed),
        [(
            "name: Own order  # the display name first".into(),
            "name: Third name  # the display name first".into()
        )]
    );
    store.restore(&pid, 1, None).unwrap();
    assert_eq!(store.export(&pid, None, Format::Yaml).unwrap(), OWN_ORDER);
    // A duplicate keeps the comments, with its own id and name.
    let copy = store.duplicate(&pid, &id("own-order-copy"), None).unwrap();
    let copied = store.export(&copy.playbook, None, Format::Yaml).unwrap();
    assert_eq!(lines_differing(OWN_ORDER, &copied).len(), 2, "{copied}");
    assert!(copied.starts_with("# The author's key order"));
}

#[test]
fn json_text_keeps_its_layout_and_yaml_is_rendered() {
    let (_dir, mut store) = library();
    let saved = store
        .create_from_text(JSON_LAYOUT, Format::Json, "")
        .unwrap();
    assert_eq!(
        store.export(&saved.playbook, None, Format::Json).unwrap(),
        JSON_LAYOUT
    );
    let yaml = store.export(&saved.playbook, None, Format::Yaml).unwrap();
    assert!(
        yaml.starts_with("schema_version: 1.0.0\nid: json-layout\n"),
        "{yaml}"
    );
}

#[test]
fn a_kept_text_that_no_longer_reads_as_its_version_is_not_exported() {
    let (dir, mut store) = library();
    let saved = store
        .create_from_text(REVIEW_LOOP, Format::Yaml, "")
        .unwrap();
    drop(store);
    {
        // Only a broken or tampered file can do this: versions are immutable.
        let conn = rusqlite::Connection::open(dir.path().join("library.db")).unwrap();
        conn.execute_batch(
            "DROP TRIGGER versions_are_immutable;
             UPDATE versions SET source = '# kept\nid: [' WHERE source IS NOT NULL;",
        )
        .unwrap();
    }
    let store = Store::open(dir.path().join("library.db")).unwrap();
    let exported = store.export(&saved.playbook, None, Format::Yaml).unwrap();
    assert!(
        !exported.contains('#'),
        "the canonical render, not the tampered text"
    );
    assert_eq!(
        exported,
        store
            .version(&saved.playbook, None)
            .map(|v| {
                let playbook = playbook_core::document::from_value(
                    playbook_core::document::parse_value(&v.content, Format::Json).unwrap(),
                )
                .unwrap();
                playbook_core::document::to_string(&playbook, Format::Yaml).unwrap()
            })
            .unwrap()
    );
}

/// A kept text is only layout: whatever values it holds, the export reads
/// as the version.
#[test]
fn a_kept_text_is_rewritten_to_the_values_of_its_version() {
    let (dir, mut store) = library();
    let saved = store
        .create_from_text(REVIEW_LOOP, Format::Yaml, "")
        .unwrap();
    drop(store);
    {
        let conn = rusqlite::Connection::open(dir.path().join("library.db")).unwrap();
        conn.execute_batch(
            "DROP TRIGGER versions_are_immutable;
             UPDATE versions SET source = replace(source, 'max_iterations: 3', 'max_iterations: 9')
               WHERE source IS NOT NULL;",
        )
        .unwrap();
    }
    let store = Store::open(dir.path().join("library.db")).unwrap();
    assert_eq!(
        store.export(&saved.playbook, None, Format::Yaml).unwrap(),
        REVIEW_LOOP
    );
}

/// A text the reader normalises (an agenterm file's
/// `max_parallel_worktrees: 0` is "not set", a count written `3.0` is 3)
/// already reads as its version, yet export rewrote it to the canonical
/// values and dropped the author's line: agenterm's own `tdd.yaml` came
/// back 32 bytes short. What reads as the version is given back as it is.
#[test]
fn a_text_that_reads_as_its_version_exports_byte_for_byte() {
    let legacy = "---
# An agenterm playbook: no schema_version.
id: legacy-zero
name: Legacy zero
workflow:
  build:
    enabled: true
    stage_policy:
      max_parallel_worktrees: 0   # agenterm's \"not set\"
    roles:
      - name: worker
        mode: worker
        actions_allowed: [read_file]
        retry_policy:
          max_iterations: 3.0
          escalate_on: [retry_limit]
";
    let json = r#"{"schema_version": "1.0.0", "id": "float-count", "name": "Float count",
 "workflow": {"build": {"roles": [{"name": "worker", "mode": "worker",
   "retry_policy": {"max_iterations": 3.0, "escalate_on": ["retry_limit"]}}]}}}
"#;
    let (_dir, mut store) = library();
    for (text, format) in [(legacy, Format::Yaml), (json, Format::Json)] {
        let saved = store.create_from_text(text, format, "").unwrap();
        assert_eq!(
            store.export(&saved.playbook, None, format).unwrap(),
            text,
            "comes back byte for byte"
        );
    }
}

#[test]
fn a_version_2_library_opens_migrates_and_keeps_text_from_then_on() {
    let (dir, mut store) = library();
    let saved = store
        .create_from_text(REVIEW_LOOP, Format::Yaml, "")
        .unwrap();
    let pid = saved.playbook;
    store
        .save_draft(&pid, "id: commented-review\n# typed\n", Some(1), None)
        .unwrap();
    drop(store);
    let path = dir.path().join("library.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        crate::as_of_version_2(&conn);
    }
    let mut store = Store::open(&path).unwrap();
    let version = store.version(&pid, None).unwrap();
    assert_eq!(version.authored, None, "versions saved before keep no text");
    assert_eq!(version.info.content_hash, saved.version.content_hash);
    let draft = store.draft(&pid).unwrap().unwrap();
    assert_eq!(
        (draft.content.as_str(), draft.format),
        ("id: commented-review\n# typed\n", Format::Yaml)
    );
    let exported = store.export(&pid, None, Format::Yaml).unwrap();
    assert!(!exported.contains('#'), "the canonical render");
    let next = REVIEW_LOOP.replace("max_iterations: 3", "max_iterations: 4");
    store
        .save_version(&pid, Base::Latest, &next, Format::Yaml, "")
        .unwrap();
    assert_eq!(store.export(&pid, None, Format::Yaml).unwrap(), next);
    assert_eq!(playbook_store::schema_version(), 4);
}

#[test]
fn drafts_keep_their_format() {
    let (_dir, mut store) = library();
    let saved = store
        .create_from_text(REVIEW_LOOP, Format::Yaml, "")
        .unwrap();
    // JSON that does not start with `{` would be sniffed as YAML.
    let text = "\n\n  {\"id\": \"commented-review\"}";
    let draft = store
        .save_draft_as(&saved.playbook, text, Format::Json, Some(1), None)
        .unwrap();
    assert_eq!(draft.format, Format::Json);
    assert_eq!(
        store.draft(&saved.playbook).unwrap().unwrap().format,
        Format::Json
    );
    let huge = "#".repeat(playbook_core::document::MAX_DOCUMENT_BYTES + 1);
    let refused = store.save_draft_as(&saved.playbook, &huge, Format::Yaml, Some(1), None);
    assert_eq!(refused.unwrap_err().code(), ErrorCode::InvalidPlaybook);
}

#[test]
fn text_that_is_already_canonical_is_not_kept_twice() {
    let (_dir, mut store) = library();
    let canonical = crate::canonical(REVIEW_LOOP);
    let saved = store
        .create_from_text(&canonical, Format::Json, "")
        .unwrap();
    assert_eq!(store.version(&saved.playbook, None).unwrap().authored, None);
}

#[test]
fn a_numbered_copy_of_a_commented_playbook_keeps_its_comments() {
    let (_dir, mut store) = library();
    let saved = store
        .create_from_text(REVIEW_LOOP, Format::Yaml, "")
        .unwrap();
    let playbook = store.playbook(&saved.playbook, None).unwrap();
    let authored = store.version(&saved.playbook, None).unwrap().authored;
    let copy = store
        .create_unique_from(playbook, "copy", authored)
        .unwrap();
    assert_eq!(copy.playbook.as_str(), "commented-review-2");
    let text = store.export(&copy.playbook, None, Format::Yaml).unwrap();
    assert_eq!(
        lines_differing(REVIEW_LOOP, &text),
        [
            (
                "id: commented-review".to_string(),
                "id: commented-review-2".to_string()
            ),
            (
                "name: Commented review   # shown in the library".to_string(),
                "name: Commented review (2)   # shown in the library".to_string()
            )
        ]
    );
}

/// Files as editors leave them: a byte-order mark, CRLF line ends, tabs in
/// comments, non-ASCII text, anchors and aliases; each comes back as it was.
#[test]
fn awkward_but_valid_files_come_back_byte_for_byte() {
    let texts = [
        "\u{feff}# bom\r\nid: bom\r\nname: Bom  # crlf\r\nworkflow: {}\r\n".to_string(),
        "id: uni\nname: \"Équipe 🚀\"\t# tab then comment\nworkflow: {}\n".to_string(),
        "id: alias\nname: A\nx_shared: &tools [read_file]\nx_again: *tools\nworkflow: {}\n"
            .to_string(),
        "id: nofinal\nname: N\nworkflow: {}  # no final newline".to_string(),
    ];
    let (_dir, mut store) = library();
    for text in texts {
        let saved = store
            .create_from_text(&text, Format::Yaml, "")
            .unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(
            store.export(&saved.playbook, None, Format::Yaml).unwrap(),
            text
        );
    }
}

/// Text the store would not keep as a playbook is never kept as its text;
/// a key given twice is refused by the reader, so its export is canonical.
#[test]
fn hostile_texts_are_refused_or_exported_canonically() {
    let (_dir, mut store) = library();
    for bad in [
        "id: [".to_string(),
        format!("id: deep\nname: D\nworkflow: {}\n", "[".repeat(200)),
        "a: &a [*a, *a]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\nid: bomb\n".to_string(),
        format!(
            "# {}\nid: big\nname: B\nworkflow: {{}}\n",
            "x".repeat(playbook_core::document::MAX_DOCUMENT_BYTES)
        ),
    ] {
        assert!(store.create_from_text(&bad, Format::Yaml, "").is_err());
    }
    let twice = "id: twice\nname: A\nname: B  # which one?\nworkflow: {}\n";
    if let Ok(saved) = store.create_from_text(twice, Format::Yaml, "") {
        let exported = store.export(&saved.playbook, None, Format::Yaml).unwrap();
        assert!(!exported.contains("which one"), "{exported}");
    }
}
