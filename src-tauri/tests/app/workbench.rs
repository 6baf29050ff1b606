//! The editor's round trips: form document → text → findings, source text →
//! document, and the flow graph the UI draws.

use playbook_core::{Format, RoleMode};
use playbook_studio::api::{FlowEdgeKind, Include};
use playbook_studio::workbench;
use serde_json::{Value, json};

const LOOP: &str = "schema_version: \"1.0.0\"\nid: demo\nname: Demo\nworkflow:\n  build:\n    roles:\n      - name: coder\n        mode: worker\n        handoff_to: [checker]\n      - name: checker\n        mode: reviewer\n        handoff_to: [coder]\n";

/// What the Source tab and the Flow graph tab ask for.
const EVERYTHING: Include = Include {
    source: true,
    flow: true,
};

fn document(text: &str) -> Value {
    yaml_serde::from_str(text).unwrap()
}

#[track_caller]
fn codes(checked: &playbook_studio::api::Checked) -> Vec<&'static str> {
    checked.findings.iter().map(|f| f.code.as_str()).collect()
}

#[test]
fn a_loop_without_max_iterations_is_an_unbounded_loop_on_the_retry_field() {
    let checked = workbench::check_document(&document(LOOP), Format::Yaml, EVERYTHING).unwrap();
    let finding = checked
        .findings
        .iter()
        .find(|f| f.code.as_str() == "PB302")
        .expect("a handoff cycle without a retry bound must be reported");
    // The UI puts the hint next to the field this pointer names.
    assert!(
        finding.path.ends_with("/retry_policy/max_iterations"),
        "{}",
        finding.path
    );
    assert!(
        finding.location.is_some(),
        "form edits are located in the rendered source too"
    );
    assert!(
        !checked.allow,
        "an unbounded loop is an error and blocks a run"
    );
    let flow = checked
        .flow
        .expect("a structurally valid document has a flow graph");
    assert_eq!(flow.loops.len(), 1);
    assert_eq!(flow.loops[0].bound, None, "no role of the loop bounds it");
}

#[test]
fn setting_max_iterations_bounds_the_loop_in_the_graph() {
    let mut doc = document(LOOP);
    doc["workflow"]["build"]["roles"][1]["retry_policy"] =
        json!({"max_iterations": 3, "escalate_on": ["retry_limit"]});
    let checked = workbench::check_document(&doc, Format::Yaml, EVERYTHING).unwrap();
    assert!(!codes(&checked).contains(&"PB302"), "{:?}", codes(&checked));
    let flow = checked.flow.unwrap();
    assert_eq!(
        flow.loops[0].bound,
        Some(3),
        "the loop is drawn with its retry bound"
    );
    assert!(
        flow.edges
            .iter()
            .all(|e| e.kind == FlowEdgeKind::Handoff && e.in_loop == Some(0)),
        "both handoffs belong to the loop"
    );
}

#[test]
fn a_value_of_the_wrong_type_keeps_its_text_and_reports_the_field() {
    let mut doc = document(LOOP);
    doc["workflow"]["build"]["roles"][0]["handoff_to"] = json!("checker");
    let checked = workbench::check_document(&doc, Format::Yaml, EVERYTHING).unwrap();
    assert!(
        !checked.structurally_valid,
        "a wrong type is not a typed playbook"
    );
    assert!(
        checked.source.contains("handoff_to: checker"),
        "the source shows what the user has"
    );
    assert!(
        checked
            .findings
            .iter()
            .any(|f| f.code.as_str() == "PB002" && f.path == "/workflow/build/roles/0/handoff_to"),
        "{:?}",
        checked.findings
    );
}

#[test]
fn invalid_yaml_in_the_source_tab_gives_a_located_syntax_finding_and_no_playbook() {
    let checked = workbench::check_source("id: x\nname: [unclosed\n", Format::Yaml);
    assert!(
        checked.playbook.is_none(),
        "the form keeps its last valid document"
    );
    let finding = &checked.findings[0];
    assert_eq!(finding.code.as_str(), "PB001");
    assert!(
        finding.location.is_some(),
        "the Source tab can jump to the error"
    );
}

#[test]
fn canonical_source_parses_back_to_the_same_playbook() {
    let checked = workbench::check_document(&document(LOOP), Format::Yaml, EVERYTHING).unwrap();
    let again = workbench::check_source(&checked.source, Format::Yaml);
    let typed = again.playbook.expect("the canonical text parses");
    assert_eq!(
        serde_json::to_value(typed).unwrap(),
        document(LOOP),
        "Source and form stay in sync both ways"
    );
}

#[test]
fn every_role_template_validates_its_own_mode() {
    for mode in RoleMode::ALL {
        let role = workbench::role_template(mode);
        assert_eq!(role.mode, Some(mode), "the {mode} template has its mode");
    }
}

#[test]
fn without_source_the_form_check_sends_neither_text_nor_playbook_back() {
    let checked =
        workbench::check_document(&document(LOOP), Format::Yaml, Include::default()).unwrap();
    assert!(
        checked.source.is_empty(),
        "the text is rendered only for the Source tab"
    );
    assert!(
        checked.flow.is_none(),
        "the graph is built only for the Flow graph tab"
    );
    assert!(
        checked.playbook.is_none(),
        "the UI already holds the document"
    );
    assert!(checked.structurally_valid);
    assert!(
        checked.findings.iter().any(|f| f.code.as_str() == "PB302"),
        "findings do not depend on the source"
    );
}

mod document_changes {
    use playbook_studio::api::DocumentChange;
    use playbook_studio::error::ErrorCode;
    use playbook_studio::workbench::LastChecked;
    use serde_json::{Value, json};

    fn patch(base: u64, pointer: &str, value: Option<Value>) -> DocumentChange {
        DocumentChange::Patch {
            base,
            revision: base + 1,
            pointer: pointer.into(),
            value,
        }
    }

    /// The document a change gives, as the check sees it.
    trait CheckClone {
        fn check_clone(
            &self,
            change: DocumentChange,
        ) -> Result<Value, playbook_studio::error::AppError>;
    }

    impl CheckClone for LastChecked {
        fn check_clone(
            &self,
            change: DocumentChange,
        ) -> Result<Value, playbook_studio::error::AppError> {
            self.check(change, Value::clone)
        }
    }

    fn start() -> LastChecked {
        let last = LastChecked::default();
        let document =
            json!({"id": "d", "workflow": {"build": {"roles": [{"name": "a", "x/y": 1}]}}});
        last.check_clone(DocumentChange::Whole {
            revision: 1,
            document,
        })
        .unwrap();
        last
    }

    #[test]
    fn a_keystroke_sends_one_field_and_the_backend_rebuilds_the_document() {
        let last = start();
        let doc = last
            .check_clone(patch(1, "/workflow/build/roles/0/name", Some(json!("ab"))))
            .unwrap();
        assert_eq!(doc["workflow"]["build"]["roles"][0]["name"], "ab");
        // Removing a field, an escaped key, appending to a list.
        let doc = last
            .check_clone(patch(2, "/workflow/build/roles/0/x~1y", None))
            .unwrap();
        assert!(doc["workflow"]["build"]["roles"][0].get("x/y").is_none());
        let doc = last
            .check_clone(patch(
                3,
                "/workflow/build/roles/1",
                Some(json!({"name": "b"})),
            ))
            .unwrap();
        assert_eq!(doc["workflow"]["build"]["roles"][1]["name"], "b");
    }

    #[test]
    fn a_change_to_another_revision_is_stale_and_the_whole_document_recovers() {
        let last = start();
        let stale = last
            .check_clone(patch(7, "/id", Some(json!("e"))))
            .unwrap_err();
        assert_eq!(stale.code, ErrorCode::Stale);
        // A pointer whose parent is missing is stale too, and the copy is dropped.
        let missing = last
            .check_clone(patch(1, "/workflow/test/roles/0", Some(json!({}))))
            .unwrap_err();
        assert_eq!(missing.code, ErrorCode::Stale);
        assert_eq!(
            last.check_clone(patch(1, "/id", Some(json!("e"))))
                .unwrap_err()
                .code,
            ErrorCode::Stale
        );
        let whole = last
            .check_clone(DocumentChange::Whole {
                revision: 9,
                document: json!({"id": "f"}),
            })
            .unwrap();
        assert_eq!(whole["id"], "f");
        assert_eq!(
            last.check_clone(patch(9, "/id", Some(json!("g")))).unwrap()["id"],
            "g"
        );
    }

    /// Many changes, some removing and appending, and whole documents in
    /// between: each change must give exactly the document the page has.
    #[test]
    fn changes_in_quick_succession_give_the_page_s_document_every_time() {
        let last = start();
        let mut expected =
            json!({"id": "d", "workflow": {"build": {"roles": [{"name": "a", "x/y": 1}]}}});
        for revision in 1..300u64 {
            let (pointer, value) = match revision % 4 {
                0 => ("/id".to_string(), Some(json!(format!("id{revision}")))),
                1 => (
                    format!(
                        "/workflow/build/roles/{}",
                        expected["workflow"]["build"]["roles"]
                            .as_array()
                            .unwrap()
                            .len()
                    ),
                    Some(json!({"name": format!("r{revision}")})),
                ),
                2 => (
                    "/workflow/build/roles/0/name".to_string(),
                    Some(json!(revision)),
                ),
                _ => ("/workflow/build/roles/1".to_string(), None),
            };
            let (cut, key) = pointer.rsplit_once('/').unwrap();
            let parent = expected.pointer_mut(cut).unwrap();
            match (parent, &value) {
                (Value::Object(map), Some(v)) => {
                    map.insert(key.to_string(), v.clone());
                }
                (Value::Array(items), Some(v)) => items.push(v.clone()),
                (Value::Array(items), None) => {
                    items.remove(key.parse::<usize>().unwrap());
                }
                _ => unreachable!(),
            }
            let got = last.check_clone(patch(revision, &pointer, value)).unwrap();
            assert_eq!(got, expected, "revision {}", revision + 1);
            if revision % 50 == 0 {
                // A whole document replaces the held one.
                expected["id"] = json!(format!("whole{revision}"));
                let whole = last
                    .check_clone(DocumentChange::Whole {
                        revision: revision + 1,
                        document: expected.clone(),
                    })
                    .unwrap();
                assert_eq!(whole, expected);
                let same = last
                    .check_clone(patch(revision + 1, "/name", Some(json!("n"))))
                    .unwrap();
                expected["name"] = json!("n");
                assert_eq!(same, expected);
                // Back to the numbering of the loop.
                last.check_clone(DocumentChange::Whole {
                    revision: revision + 1,
                    document: expected.clone(),
                })
                .unwrap();
            }
        }
    }

    #[test]
    fn the_root_cannot_be_patched() {
        let last = start();
        assert_eq!(
            last.check_clone(patch(1, "", Some(json!({}))))
                .unwrap_err()
                .code,
            ErrorCode::Stale
        );
    }
}

#[test]
fn a_quick_fix_clears_its_finding_and_adds_no_error() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../playbooks/tdd.yaml"),
    )
    .unwrap();
    let mut document =
        playbook_core::document::parse_value(&text, Format::Yaml).expect("tdd parses");
    let reviewer = document
        .pointer_mut("/workflow/build/roles/2/retry_policy")
        .and_then(Value::as_object_mut)
        .expect("the reviewer has a retry policy");
    reviewer.remove("max_iterations");
    let options = playbook_core::Options::default();
    let report = playbook_core::validate_value(document.clone(), &options);
    let unbounded = report
        .findings
        .iter()
        .find(|f| f.code.as_str() == "PB302")
        .expect("the loop is unbounded")
        .clone();
    assert!(workbench::fixable_codes().contains(&unbounded.code));

    let fixes = workbench::quick_fixes(&document, &unbounded);
    let fix = fixes.first().expect("the unbounded loop has a fix");
    let fixed = workbench::apply_fix(document, fix).unwrap();
    let after = playbook_core::validate_value(fixed, &options);
    assert!(
        !after.findings.iter().any(|f| f.code == unbounded.code),
        "{} clears the finding",
        fix.title
    );
    assert!(after.allow(), "and adds no error: {:?}", after.findings);
}

#[test]
fn a_fix_that_does_not_fit_the_document_is_refused_in_words() {
    let fix: playbook_core::fix::Fix = serde_json::from_value(json!({
        "title": "Remove a field that is not there",
        "code": "PB302",
        "path": "/nowhere",
        "ops": [{ "op": "remove", "path": "/nowhere/at/all" }]
    }))
    .unwrap();
    let err = workbench::apply_fix(json!({ "id": "x" }), &fix).unwrap_err();
    assert!(err.message.contains("does not apply"), "{}", err.message);
}

#[test]
fn the_source_tabs_session_answers_each_keystroke_as_a_fresh_check_does() {
    let session = workbench::SourceSession::default();
    let mut text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../playbooks/tdd.yaml"),
    )
    .unwrap();
    // Type a role name out and back, one character at a time, through a
    // state with findings (an unknown handoff target) and one that does
    // not parse, then switch the format.
    let at = text.find("handoff_to: [").unwrap() + "handoff_to: [".len();
    for step in 0..12 {
        if step < 6 {
            text.insert(at, 'z');
        } else {
            text.remove(at);
        }
        let got = session.check(&text, Format::Yaml, EVERYTHING);
        let fresh = workbench::check_source(&text, Format::Yaml);
        assert_eq!(got.findings, fresh.findings, "keystroke {step}");
        assert_eq!(got.playbook, fresh.playbook, "keystroke {step}");
    }
    let broken = format!("{text}  bad: [unclosed\n");
    assert_eq!(
        codes(&session.check(&broken, Format::Yaml, EVERYTHING)),
        codes(&workbench::check_source(&broken, Format::Yaml))
    );
    let json = serde_json::to_string(&document(LOOP)).unwrap();
    assert_eq!(
        session.check(&json, Format::Json, EVERYTHING).playbook,
        workbench::check_source(&json, Format::Json).playbook
    );
}

#[test]
fn the_source_tabs_keystroke_answer_carries_neither_its_text_nor_the_graph_unless_asked() {
    let session = workbench::SourceSession::default();
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../playbooks/tdd.yaml"),
    )
    .unwrap();
    let lean = session.check(&text, Format::Yaml, Include::default());
    assert_eq!(lean.source, "");
    assert!(lean.flow.is_none());
    // What the page needs from it is all there: the playbook and the located findings.
    let full = session.check(&text, Format::Yaml, EVERYTHING);
    assert_eq!(full.source, text);
    assert!(full.flow.is_some());
    assert_eq!(lean.playbook, full.playbook);
    assert!(lean.playbook.is_some());
    assert_eq!(lean.findings, full.findings);
    assert_eq!(
        (lean.allow, lean.structurally_valid),
        (full.allow, full.structurally_valid)
    );
}
