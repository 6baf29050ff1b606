use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

const COMMENTED: &str = r#"# Head comment: who owns this playbook.
schema_version: "1.0.0"   # quoted on purpose
id: demo
name: Demo team

# The stages, in order.
workflow:
  plan:
    roles:
      # The planner reads the spec.
      - name: planner
        mode: plan   # inline
        actions_allowed: [read_repo, write_plan]  # flow list

      - name: coder
        handoff_to:
          - reviewer   # after coding
        retry_policy: {max_iterations: 3, escalate_on: [retry_limit]}
  # Between stages.
  review:
    enabled: true
    roles:
      - name: reviewer
        outputs_contract:
          required: [verdict]
        suggested_prompt: |
          Review the change.
          # not a comment: block text
# Tail comment.
"#;

const COMMENTED_JSON: &str = r#"{
  "schema_version": "1.0.0",
  "id": "demo",
  "workflow": {
    "plan": {"roles": [{"name": "planner", "actions_allowed": ["read_repo"]}]},
    "build": {
      "roles": [
        {"name": "coder", "handoff_to": []}
      ]
    }
  }
}
"#;

#[track_caller]
fn edit(text: &str, ops: &[Op]) -> String {
    let edited = apply(text, Format::Yaml, ops).expect("edits");
    assert!(
        edited.preserved,
        "fell back to a full render:\n{}",
        edited.text
    );
    edited.text
}

#[track_caller]
fn comments_kept(before: &str, after: &str) {
    for line in before.lines().filter(|l| l.trim_start().starts_with('#')) {
        assert!(after.contains(line), "lost {line:?} in\n{after}");
    }
}

#[test]
fn replacing_a_scalar_changes_only_its_text() {
    let after = edit(
        COMMENTED,
        &[Op::Replace {
            path: "/workflow/plan/roles/0/mode".into(),
            value: json!("build"),
        }],
    );
    assert_eq!(
        after,
        COMMENTED.replace("mode: plan   # inline", "mode: build   # inline")
    );
}

#[test]
fn quoting_of_the_replaced_value_is_kept() {
    let after = edit(
        COMMENTED,
        &[Op::Replace {
            path: "/schema_version".into(),
            value: json!("1.1.0"),
        }],
    );
    assert!(after.contains("schema_version: \"1.1.0\"   # quoted on purpose"));
}

#[test]
fn adding_keys_and_items_follows_the_surrounding_style() {
    let after = edit(
        COMMENTED,
        &[
            Op::Add {
                path: "/workflow/plan/roles/1/handoff_to/-".into(),
                value: json!("tester"),
            },
            Op::Add {
                path: "/workflow/plan/roles/0/actions_allowed/-".into(),
                value: json!("run_tests"),
            },
            Op::Add {
                path: "/workflow/plan/roles/1/retry_policy/escalate_on/-".into(),
                value: json!("test_failure"),
            },
            Op::Add {
                path: "/workflow/review/roles/0/outputs_contract/fields".into(),
                value: json!({"verdict": "string"}),
            },
            Op::Add {
                path: "/policies".into(),
                value: json!({"plan_ready": "output.ok == true"}),
            },
        ],
    );
    comments_kept(COMMENTED, &after);
    assert!(after.contains("          - reviewer   # after coding\n          - tester\n"));
    assert!(after.contains("actions_allowed: [read_repo, write_plan, run_tests]  # flow list"));
    assert!(after.contains("escalate_on: [retry_limit, test_failure]}"));
    assert!(after.contains(
        "          required: [verdict]\n          fields:\n            verdict: string\n"
    ));
    assert!(after.contains("\npolicies:\n  plan_ready: output.ok == true\n"));
}

#[test]
fn removing_keys_and_items_keeps_the_neighbours_comments() {
    let after = edit(
        COMMENTED,
        &[
            Op::Remove {
                path: "/workflow/plan/roles/0/mode".into(),
            },
            Op::Remove {
                path: "/workflow/plan/roles/1/handoff_to/0".into(),
            },
            Op::Remove {
                path: "/workflow/review/enabled".into(),
            },
        ],
    );
    comments_kept(COMMENTED, &after);
    assert!(!after.contains("mode: plan"));
    assert!(after.contains("handoff_to: []"));
    assert!(!after.contains("enabled: true"));
}

#[test]
fn removing_the_first_key_of_an_item_keeps_the_dash() {
    let after = edit(
        COMMENTED,
        &[Op::Remove {
            path: "/workflow/plan/roles/0/name".into(),
        }],
    );
    assert!(after.contains("      - mode: plan   # inline\n"), "{after}");
}

#[test]
fn inserting_and_removing_whole_roles() {
    let after = edit(
        COMMENTED,
        &[
            Op::Add {
                path: "/workflow/plan/roles/1".into(),
                value: json!({"name": "tester", "mode": "test"}),
            },
            Op::Remove {
                path: "/workflow/plan/roles/0".into(),
            },
        ],
    );
    assert!(
        after.contains("      - name: tester\n        mode: test\n"),
        "{after}"
    );
    assert!(!after.contains("name: planner"));
    assert!(after.contains("# The stages, in order."));
}

#[test]
fn json_documents_keep_their_layout() {
    let ops = [
        Op::Add {
            path: "/workflow/build/roles/0/handoff_to/-".into(),
            value: json!("reviewer"),
        },
        Op::Add {
            path: "/workflow/build/roles/0/retry_policy".into(),
            value: json!({"max_iterations": 3}),
        },
        Op::Replace {
            path: "/id".into(),
            value: json!("renamed"),
        },
    ];
    let edited = apply(COMMENTED_JSON, Format::Json, &ops).unwrap();
    assert!(edited.preserved, "{}", edited.text);
    assert!(edited.text.contains("\"handoff_to\": [\"reviewer\"]"));
    assert!(edited.text.contains("\"id\": \"renamed\",\n"));
    assert!(edited.text.contains(
        "\"plan\": {\"roles\": [{\"name\": \"planner\", \"actions_allowed\": [\"read_repo\"]}]},"
    ));
}

/// Regression: in JSON indented with tabs (`json.dumps(indent="\t")`,
/// many editors' setting), added members were indented with spaces, a
/// mix of both in one file.
#[test]
fn json_indented_with_tabs_gets_tabs() {
    let text = "{\r\n\t\"id\": \"demo\",\r\n\t\"workflow\": {\r\n\t\t\"b\": {\r\n\t\t\t\"roles\": [\r\n\t\t\t\t{\r\n\t\t\t\t\t\"name\": \"w\",\r\n\t\t\t\t\t\"inputs_required\": [\r\n\t\t\t\t\t\t\"task\"\r\n\t\t\t\t\t],\r\n\t\t\t\t\t\"gates\": {\r\n\t\t\t\t\t\t\"pass_condition\": \"always\"\r\n\t\t\t\t\t}\r\n\t\t\t\t}\r\n\t\t\t]\r\n\t\t}\r\n\t}\r\n}\r\n";
    let ops = [
        Op::Add {
            path: "/workflow/b/roles/0/inputs_required/-".into(),
            value: json!("spec_path"),
        },
        Op::Add {
            path: "/workflow/b/roles/0/gates/requires_user_approval".into(),
            value: json!(true),
        },
        Op::Add {
            path: "/workflow/b/roles/0/outputs_contract".into(),
            value: json!({"required": ["commit_sha"]}),
        },
    ];
    let edited = apply(text, Format::Json, &ops).unwrap();
    assert!(edited.preserved, "{}", edited.text);
    for line in edited.text.lines() {
        let indent = &line[..line.len() - line.trim_start().len()];
        assert!(
            indent.chars().all(|c| c == '\t'),
            "{line:?} in\n{}",
            edited.text
        );
    }
    assert!(
        edited
            .text
            .contains("\t\t\t\t\t\t\"task\",\r\n\t\t\t\t\t\t\"spec_path\"\r\n"),
        "{}",
        edited.text
    );
    // Every line the edit did not touch is as it was.
    for line in text.lines().filter(|l| !l.ends_with(['"', '}'])) {
        assert!(edited.text.contains(line), "{line:?}");
    }
}

#[test]
fn rewrite_keeps_comments_of_a_whole_new_document() {
    let mut value = document::parse_value(COMMENTED, Format::Yaml).unwrap();
    value["name"] = json!("Renamed team");
    value["workflow"]["plan"]["roles"][1]["retry_policy"]["max_iterations"] = json!(5);
    value["workflow"]["review"]["roles"][0]["outputs_contract"]["required"] =
        json!(["verdict", "notes"]);
    let edited = rewrite(COMMENTED, Format::Yaml, &value).unwrap();
    assert!(edited.preserved);
    comments_kept(COMMENTED, &edited.text);
    assert_eq!(
        document::parse_value(&edited.text, Format::Yaml).unwrap(),
        value
    );
    assert!(
        edited
            .text
            .contains("{max_iterations: 5, escalate_on: [retry_limit]}")
    );
}

#[test]
fn unreadable_text_and_missing_paths_are_errors() {
    assert!(matches!(
        apply("a: [", Format::Yaml, &[]),
        Err(EditError::Unreadable(_))
    ));
    let missing = apply("a: 1\n", Format::Yaml, &[Op::Remove { path: "/b".into() }]);
    assert!(matches!(missing, Err(EditError::Path { .. })));
}

#[test]
fn shapes_the_span_editor_cannot_handle_fall_back_to_a_full_render() {
    // An alias shares its anchor's value: there is no span of its own.
    let text = "# c\na: &x 1\nb: *x\n";
    let ops = [Op::Replace {
        path: "/b".into(),
        value: json!(2),
    }];
    let edited = apply(text, Format::Yaml, &ops).unwrap();
    assert!(!edited.preserved);
    assert_eq!(
        document::parse_value(&edited.text, Format::Yaml).unwrap(),
        json!({"a": 1, "b": 2})
    );
}

#[test]
fn the_whole_document_replaced_keeps_its_head_comment() {
    let ops = [Op::Replace {
        path: "".into(),
        value: json!([1]),
    }];
    let edited = apply("# c\na: 1\n", Format::Yaml, &ops).unwrap();
    assert!(edited.preserved);
    assert_eq!(edited.text, "# c\n- 1\n");
}

#[test]
fn awkward_values_round_trip() {
    for value in [
        json!("true"),
        json!("a: b"),
        json!("# hash"),
        json!("line 1\nline 2\n"),
        json!("  padded "),
        json!(""),
        json!(null),
        json!(1.5),
        json!("é ü 漢字"),
        json!({"k: x": [1, {"y": "z"}]}),
        json!([]),
        json!({}),
    ] {
        for path in [
            "/workflow/plan/roles/0/mode",
            "/workflow/plan/roles/0/actions_allowed/1",
            "/workflow/plan/roles/1/retry_policy/max_iterations",
            "/workflow/review/roles/0/suggested_prompt",
            "/workflow/plan/roles/1/handoff_to",
            "/workflow/review",
        ] {
            let ops = [Op::Replace {
                path: path.into(),
                value: value.clone(),
            }];
            let edited = apply(COMMENTED, Format::Yaml, &ops).unwrap();
            assert!(edited.preserved, "{path} = {value}:\n{}", edited.text);
            comments_kept(
                &COMMENTED.replace("          # not a comment: block text\n", ""),
                &edited.text,
            );
        }
    }
}

#[test]
fn a_change_of_everything_stays_fast_and_keeps_the_head_comment() {
    // 3 000 roles, every one renamed: one op each would re-read 400 KB
    // 3 000 times; coarser replacements keep it linear (no clock is
    // asserted: the quadratic way would make this test run for minutes).
    let roles: String = (0..3000)
        .map(|i| format!("      - name: r{i}   # role {i}\n        mode: worker\n"))
        .collect();
    let text = format!("# head\nid: big\nworkflow:\n  build:\n    roles:\n{roles}");
    let mut value = document::parse_value(&text, Format::Yaml).unwrap();
    for role in value["workflow"]["build"]["roles"].as_array_mut().unwrap() {
        role["name"] = json!(format!("{}x", role["name"].as_str().unwrap()));
    }
    let edited = rewrite(&text, Format::Yaml, &value).unwrap();
    assert_eq!(
        document::parse_value(&edited.text, Format::Yaml).unwrap(),
        value
    );
    assert!(
        edited.text.starts_with("# head\nid: big\n"),
        "{}",
        &edited.text[..200]
    );
}

#[test]
fn an_edit_is_one_small_change_for_editors() {
    let old = "# é\nname: Démo  # x\nid: d\n";
    let edited = apply(
        old,
        Format::Yaml,
        &[Op::Replace {
            path: "/name".into(),
            value: json!("Déma"),
        }],
    )
    .unwrap();
    let change = TextChange::between(old, &edited.text).unwrap();
    assert_eq!(&old[change.start..change.end], "o");
    assert_eq!(change.text, "a");
    assert_eq!(change.apply(old).unwrap(), edited.text);
    assert_eq!(TextChange::between(old, old), None);
    // Multi-byte characters are never split.
    let change = TextChange::between("aé", "aè").unwrap();
    assert_eq!(
        (change.start, change.end, change.text.as_str()),
        (1, 3, "è")
    );
}

proptest! {
    #[test]
    fn a_change_between_any_texts_rebuilds_the_new_one(old in "\\PC{0,20}", new in "\\PC{0,20}") {
        match TextChange::between(&old, &new) {
            Some(change) => prop_assert_eq!(change.apply(&old).unwrap(), new),
            None => prop_assert_eq!(old, new),
        }
    }
}

#[test]
fn reordered_stages_are_written_in_their_new_order() {
    // Stage order is run order: a form that moves `review` before `plan`
    // must get a file that reads in that order, not the old text.
    let old = document::parse_value(COMMENTED, Format::Yaml).unwrap();
    let mut workflow = serde_json::Map::new();
    workflow.insert("review".into(), old["workflow"]["review"].clone());
    workflow.insert("plan".into(), old["workflow"]["plan"].clone());
    let mut new = old.clone();
    new["workflow"] = Value::Object(workflow);
    let edited = rewrite(COMMENTED, Format::Yaml, &new).unwrap();
    let read = document::parse_value(&edited.text, Format::Yaml).unwrap();
    let order: Vec<&String> = read["workflow"].as_object().unwrap().keys().collect();
    assert_eq!(order, ["review", "plan"]);
    assert!(edited.preserved);
    assert!(edited.text.starts_with("# Head comment"));
    // A key added in the middle of a mapping also keeps its place.
    let mut middle = serde_json::Map::new();
    for (k, v) in old.as_object().unwrap() {
        middle.insert(k.clone(), v.clone());
        if k == "id" {
            middle.insert("description".into(), json!("inserted"));
        }
    }
    let edited = rewrite(COMMENTED, Format::Yaml, &Value::Object(middle.clone())).unwrap();
    let read = document::parse_value(&edited.text, Format::Yaml).unwrap();
    assert!(diff::identical(&read, &Value::Object(middle)));
}

/// Every pointer of a value, with the value there.
fn pointers(value: &Value, path: String, out: &mut Vec<(String, Value)>) {
    out.push((path.clone(), value.clone()));
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                pointers(
                    v,
                    format!("{path}/{}", crate::finding::escape_pointer(k)),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointers(v, format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-z_]{1,8}".prop_map(Value::from),
        "[ -~]{0,12}".prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random edits of values and keys: the text reads as the target value,
    /// and the comments outside the edited entry are all still there.
    #[test]
    fn random_edits_read_as_intended_and_keep_comments(
        yaml in any::<bool>(),
        pick in any::<prop::sample::Index>(),
        kind in 0u8..5,
        new in value(),
        key in "[a-z_]{1,8}",
    ) {
        let (text, format) = if yaml {
            (COMMENTED, Format::Yaml)
        } else {
            (COMMENTED_JSON, Format::Json)
        };
        let old = document::parse_value(text, format).unwrap();
        let mut all = Vec::new();
        pointers(&old, String::new(), &mut all);
        let (path, at) = all[pick.index(all.len())].clone();
        prop_assume!(!path.is_empty());
        let op = match (kind, &at) {
            (0, _) => Op::Replace { path: path.clone(), value: new },
            (1, Value::Object(_)) => Op::Add { path: format!("{path}/{key}"), value: new },
            (1, Value::Array(items)) => Op::Add { path: format!("{path}/{}", items.len() / 2), value: new },
            (2, Value::Array(_)) => Op::Add { path: format!("{path}/-"), value: new },
            (4, _) => {
                let (parent, _) = apply::split_last(&path).unwrap();
                prop_assume!(old.pointer(&parent).is_some_and(Value::is_object));
                Op::Rename { path: path.clone(), to: format!("x_{key}") }
            }
            _ => Op::Remove { path: path.clone() },
        };
        // A removal or a rename never loses a comment, of the member that
        // stays or of the one that goes.
        let keeps_every_comment = matches!(op, Op::Remove { .. } | Op::Rename { .. });
        let mut target = old.clone();
        patch(&mut target, &op).unwrap();
        // The text an op may rewrite: a replaced value, or the collection a
        // member leaves (its last member leaves `{}` or `[]`); an insertion
        // rewrites nothing.
        let tree = spans::Tree::new(text).unwrap();
        let region = match &op {
            Op::Replace { path, .. } => Some(path.clone()),
            Op::Remove { path } => apply::split_last(path).map(|(parent, _)| parent),
            Op::Add { path, .. } => tree.resolve(path).map(|_| path.clone()),
            Op::Rename { .. } => None,
        }
        .and_then(|p| tree.resolve(&p))
        .map(|(id, _)| (tree.nodes[id].start, tree.nodes[id].end));
        let edited = apply(text, format, &[op]).unwrap();
        prop_assert_eq!(document::parse_value(&edited.text, format).unwrap(), target);
        prop_assert!(edited.preserved, "fell back:\n{}", edited.text);
        prop_assert!(!keeps_every_comment || edited.comments_kept(), "lost a comment:\n{}", edited.text);
        // The accounting is the comments themselves: kept means all there.
        prop_assert_eq!(edited.comments_kept(), keeps_comments(text, &edited.text));
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let inside = region.is_some_and(|(start, end)| offset + line.len() > start && offset <= end);
            if line.trim_start().starts_with('#') && !inside {
                prop_assert!(edited.text.contains(line), "lost {:?}:\n{}", line, edited.text);
            }
            offset += line.len();
        }
    }

    /// A whole new document written over commented text reads as itself.
    #[test]
    fn rewrite_reads_as_the_new_value(new in value(), pick in any::<prop::sample::Index>()) {
        let old = document::parse_value(COMMENTED, Format::Yaml).unwrap();
        let mut all = Vec::new();
        pointers(&old, String::new(), &mut all);
        let (path, _) = all[pick.index(all.len())].clone();
        prop_assume!(!path.is_empty());
        let mut target = old.clone();
        patch(&mut target, &Op::Replace { path, value: new }).unwrap();
        let edited = rewrite(COMMENTED, Format::Yaml, &target).unwrap();
        prop_assert_eq!(document::parse_value(&edited.text, Format::Yaml).unwrap(), target);
        prop_assert!(edited.text.starts_with("# Head comment"));
    }
}

fn unicode_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-zé漢_ -]{0,10}".prop_map(Value::from),
        "\\PC{0,8}".prop_map(Value::from),
        "[a-z]{1,5}\n[a-z ]{0,5}".prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f32>().prop_map(|f| Value::from(f64::from(f))),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
    ]
}

fn document_value() -> impl Strategy<Value = Value> {
    let inner = unicode_leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-zé_]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    prop::collection::btree_map("[a-z]{1,6}", inner, 1..5)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

/// Puts a comment line before some lines (indented like them) and after
/// some values, where YAML allows one.
fn comment(text: &str, every: usize) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        if i % every == 0 && !line.trim_start().starts_with(['|', '>']) {
            out.push_str(&format!("{}# c{i}\n", " ".repeat(indent)));
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Any document, any op: no panic, and the text reads as the target
    /// (kept layout or, failing that, a full render that says so).
    #[test]
    fn any_document_any_edit_reads_as_intended(
        doc in document_value(),
        json in any::<bool>(),
        every in 1usize..4,
        pick in any::<prop::sample::Index>(),
        kind in 0u8..4,
        new in unicode_leaf().prop_recursive(2, 6, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
                prop::collection::btree_map("[a-z]{1,4}", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        }),
    ) {
        let (text, format) = if json {
            (serde_json::to_string_pretty(&doc).unwrap(), Format::Json)
        } else {
            (comment(&yaml_serde::to_string(&doc).unwrap(), every), Format::Yaml)
        };
        let Ok(old) = document::parse_value(&text, format) else {
            // The writer's own output may hold what the reader refuses
            // (e.g. a non-finite float); nothing to edit then.
            return Ok(());
        };
        let mut all = Vec::new();
        pointers(&old, String::new(), &mut all);
        // The root (first) is not edited by pointer; every other node is.
        let (path, at) = all[1 + pick.index(all.len() - 1)].clone();
        let op = match (kind, &at) {
            (0, _) => Op::Replace { path, value: new },
            (1, Value::Object(_)) => Op::Add { path: format!("{path}/k"), value: new },
            (1 | 2, Value::Array(items)) => Op::Add { path: format!("{path}/{}", items.len() / 2), value: new },
            _ => Op::Remove { path },
        };
        let mut target = old.clone();
        patch(&mut target, &op).unwrap();
        let edited = apply(&text, format, &[op]).unwrap();
        prop_assert_eq!(document::parse_value(&edited.text, format).unwrap(), target);
        prop_assert!(edited.preserved, "fell back: {}\n=>\n{}", text, edited.text);
        if edited.preserved && !json {
            // The head comment is outside any edit.
            prop_assert!(edited.text.starts_with("# c0\n") || !text.starts_with("# c0\n"));
        }
    }

    /// Hostile text never panics the editor: it either parses and edits,
    /// or is refused.
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,80}", path in "(/[a-z0-9]{0,3}){0,3}", new in unicode_leaf()) {
        for format in [Format::Yaml, Format::Json] {
            let _ = apply(&text, format, &[Op::Replace { path: path.clone(), value: new.clone() }]);
            let _ = apply(&text, format, &[Op::Add { path: format!("{path}/x"), value: new.clone() }]);
            let _ = apply(&text, format, &[Op::Remove { path: path.clone() }]);
            let _ = rewrite(&text, format, &new);
            let _ = tidy(&text, format, &new);
            let _ = remove_duplicate_key(&text, format, &path, false);
            let _ = remove_duplicate_key(&text, format, &path, true);
        }
    }
}

/// An edit that writes over a span holding a comment says so: the text is
/// still edited in place, but its comments are not all kept, so the app
/// warns and `fmt` keeps the file as it was rather than lose the comment.
#[test]
fn a_replaced_collection_that_held_a_comment_is_not_called_kept() {
    let text = "id: demo\nworkflow:\n  plan:\n    roles:\n      # plans first\n      - name: planner\n  build:\n    roles:\n      - name: coder  # writes code\n";
    let mut moved = document::parse_value(text, Format::Yaml).unwrap();
    let workflow = moved["workflow"].as_object().unwrap().clone();
    let mut reordered = serde_json::Map::new();
    for key in ["build", "plan"] {
        reordered.insert(key.to_string(), workflow[key].clone());
    }
    moved["workflow"] = Value::Object(reordered);
    let edited = order::rewrite_typed(text, Format::Yaml, &moved).unwrap();
    assert!(
        edited.comment_written_over && !edited.comments_kept(),
        "{}",
        edited.text
    );
    assert_eq!(
        document::parse_value(&edited.text, Format::Yaml).unwrap(),
        moved
    );
    assert_eq!(
        tidy::tidy(text, Format::Yaml, &moved).unwrap(),
        text,
        "fmt keeps the file rather than lose its comments"
    );
}

#[test]
fn comments_outside_the_edited_spans_and_hashes_inside_scalars_keep_preserved() {
    let text = "id: demo  # the id\nname: \"Team #1\"  # quoted hash\nnote: |\n  # not a comment\n  text\nworkflow:\n  plan:\n    roles:\n      # the planner\n      - name: planner\n      # the helper\n      - name: helper\n";
    let mut value = document::parse_value(text, Format::Yaml).unwrap();
    value["id"] = json!("renamed");
    value["name"] = json!("Team #2");
    value["note"] = json!("# still not a comment\ntext\n");
    let edited = rewrite(text, Format::Yaml, &value).unwrap();
    assert!(edited.comments_kept(), "{}", edited.text);
    assert!(edited.text.contains("# the id") && edited.text.contains("# quoted hash"));

    // Removing a member takes its own comment with it: that is the edit.
    let mut removed = document::parse_value(text, Format::Yaml).unwrap();
    removed["workflow"]["plan"]["roles"]
        .as_array_mut()
        .unwrap()
        .remove(1);
    let edited = rewrite(text, Format::Yaml, &removed).unwrap();
    assert!(edited.comments_kept(), "{}", edited.text);
    assert!(edited.text.contains("# the planner"));
}

/// Regression (sweep C, PB004): a key renamed in place keeps its place, its
/// trailing comment, an anchor on its value and a block scalar's style; only
/// the key's own text changes.
#[test]
fn a_renamed_key_changes_only_the_keys_text() {
    let text = "id: demo\nowner: &o platform-team  # who to page at night\nnote: >-\n  folded\n  text\nname: Demo\nother: *o\n";
    let ops = [
        Op::Rename {
            path: "/owner".into(),
            to: "x_owner".into(),
        },
        Op::Rename {
            path: "/note".into(),
            to: "x note".into(),
        },
    ];
    let edited = apply(text, Format::Yaml, &ops).unwrap();
    assert!(edited.comments_kept(), "{}", edited.text);
    assert_eq!(
        edited.text,
        text.replace("owner: &o", "x_owner: &o")
            .replace("note: >-", "x note: >-")
    );
    let json = "{\n  \"id\": \"demo\",\n  \"owner\": \"platform-team\",\n  \"name\": \"Demo\"\n}\n";
    let ops = [Op::Rename {
        path: "/owner".into(),
        to: "x_owner".into(),
    }];
    let edited = apply(json, Format::Json, &ops).unwrap();
    assert_eq!(edited.text, json.replace("\"owner\"", "\"x_owner\""));
    // A quoted key keeps its quoting; a taken name is refused.
    let edited = apply(
        "'a': 1  # c\n",
        Format::Yaml,
        &[Op::Rename {
            path: "/a".into(),
            to: "b".into(),
        }],
    )
    .unwrap();
    assert_eq!(edited.text, "'b': 1  # c\n");
    let taken = apply(
        "a: 1\nb: 2\n",
        Format::Yaml,
        &[Op::Rename {
            path: "/a".into(),
            to: "b".into(),
        }],
    );
    assert!(matches!(taken, Err(EditError::Path { .. })));
}

/// Regression (sweep C, PB404): removing the last item of a multi-line flow
/// list keeps the comment of the item before it, which stays.
#[test]
fn removing_the_last_flow_item_keeps_the_comment_of_the_item_that_stays() {
    let text =
        "policy:\n  escalate_on: [retry_limit,   # the budget: keep this one\n    page_cto]\n";
    let edited = apply(
        text,
        Format::Yaml,
        &[Op::Remove {
            path: "/policy/escalate_on/1".into(),
        }],
    )
    .unwrap();
    assert!(edited.comments_kept(), "{}", edited.text);
    assert_eq!(
        edited.text,
        "policy:\n  escalate_on: [retry_limit   # the budget: keep this one\n    ]\n"
    );
    // Without a comment the list closes up as before.
    let plain = apply(
        "a: [x,\n  y]\n",
        Format::Yaml,
        &[Op::Remove {
            path: "/a/1".into(),
        }],
    )
    .unwrap();
    assert_eq!(plain.text, "a: [x]\n");
}

/// A removed member's own comments stay as lines where it was, in block
/// and flow collections alike, so no removal loses a comment.
#[test]
fn a_removed_members_comments_stay_in_the_file() {
    let check = |text: &str, path: &str, expected: &str| {
        let edited = apply(text, Format::Yaml, &[Op::Remove { path: path.into() }]).unwrap();
        assert_eq!(edited.text, expected, "removing {path}");
        assert!(edited.comments_kept(), "{}", edited.text);
    };
    check(
        "a:\n  - x  # why x\n  - y\n",
        "/a/0",
        "a:\n  # why x\n  - y\n",
    );
    check("a:\n  - x  # why x\n", "/a/0", "a: []  # why x\n");
    check(
        "a: [p,  # about p\n  q,  # about q\n  r]\n",
        "/a/1",
        "a: [p,  # about p\n  # about q\n  r]\n",
    );
    check(
        "- name: x  # the x\n  mode: y\n",
        "/0/name",
        "# the x\n- mode: y\n",
    );
    // JSON has no comments; a multi-line list left empty is `[]`.
    let json = apply(
        "{\"a\": [\n    \"x\"\n  ]}",
        Format::Json,
        &[Op::Remove {
            path: "/a/0".into(),
        }],
    )
    .unwrap();
    assert_eq!(json.text, "{\"a\": []}");
}

/// Comments are what the YAML scanner would skip: after a tab, on the first
/// line after a byte-order mark, after flow items; never a `#` inside a
/// quoted or block scalar or a key.
#[test]
fn comments_are_found_as_the_scanner_reads_them() {
    assert_eq!(
        comments("id: demo\t# stable id\nname: N\n"),
        ["# stable id"]
    );
    assert_eq!(comments("\u{feff}# owned by\nid: demo\n"), ["# owned by"]);
    assert_eq!(comments("a: [x,  # one\n  y]  # two\n"), ["# one", "# two"]);
    assert!(comments("a: \"x #1\"\nb: 'y #2'\n\"k #3\": |\n  # text\nc: d#e\n").is_empty());
    assert!(!has_comments("{\"a\": \"# not\"}"));
    assert!(keeps_comments("a: 1  # c\n", "b: 2\na: 1  # c\n"));
    assert!(!keeps_comments(
        "a: 1  # c\nb: 2  # c\n",
        "a: 1  # c\nb: 2\n"
    ));
}

/// Regression (sweep C): JSON with a surrogate-pair escape (`"\ud83d\ude80"`,
/// how Python writes emoji) is edited in place and located like any other.
#[test]
fn json_with_surrogate_pair_escapes_is_edited_in_place() {
    let text = "{\n  \"name\": \"Ship it \\ud83d\\ude80\",\n  \"\\ud83d\\ude80\": {\"n\": 0},\n  \"tail\": 1\n}\n";
    let ops = [Op::Replace {
        path: "/🚀/n".into(),
        value: json!(1),
    }];
    let edited = apply(text, Format::Json, &ops).unwrap();
    assert!(edited.preserved, "{}", edited.text);
    assert_eq!(edited.text, text.replace("{\"n\": 0}", "{\"n\": 1}"));
    let map = crate::locate::SourceMap::new(text);
    assert_eq!(
        map.locate("/🚀/n"),
        Some(crate::finding::Location {
            line: 3,
            column: 20
        })
    );
}

/// A file whose lines end in a lone `\r` is edited in place and keeps them.
#[test]
fn lone_cr_line_ends_are_edited_and_kept() {
    // (Not starting with a comment: the loader's "only comments" check
    // reads lines split at `\n`, which is the document module's to fix.)
    let text = "id: demo\r# c\rworkflow:\r  a:\r    enabled: true  # on\r";
    let ops = [Op::Replace {
        path: "/workflow/a/enabled".into(),
        value: json!(false),
    }];
    let edited = apply(text, Format::Yaml, &ops).unwrap();
    assert!(edited.comments_kept(), "{:?}", edited.text);
    assert_eq!(edited.text, text.replace("true", "false"));
    let twice = "a: 1\rb: 2\ra: 3\r";
    let (change, line) = remove_duplicate_key(twice, Format::Yaml, "/a", false).unwrap();
    assert_eq!(line, 3);
    assert_eq!(change.apply(twice).unwrap(), "a: 1\rb: 2\r");
}

/// An item appended to a flow list whose last item carries a comment goes
/// on a line of its own: the comment stays with the item it was written for.
#[test]
fn an_appended_flow_item_leaves_the_last_items_comment_with_it() {
    let text = "a: [ issues  # the only one\n  ]\nb: {x: 1  # one\n  }\n";
    let ops = [
        Op::Add {
            path: "/a/-".into(),
            value: json!("verdict"),
        },
        Op::Add {
            path: "/b/y".into(),
            value: json!(2),
        },
    ];
    let edited = apply(text, Format::Yaml, &ops).unwrap();
    assert!(edited.comments_kept(), "{}", edited.text);
    assert_eq!(
        edited.text,
        "a: [ issues,  # the only one\n  verdict\n  ]\nb: {x: 1,  # one\n  y: 2\n  }\n"
    );
}

/// A value added to pretty JSON indented by 4 is indented by 4.
#[test]
fn json_values_are_added_in_the_files_indentation() {
    let text = "{\n    \"a\": {\n        \"b\": 1\n    }\n}\n";
    let ops = [Op::Add {
        path: "/a/c".into(),
        value: json!({"d": [1]}),
    }];
    let edited = apply(text, Format::Json, &ops).unwrap();
    assert_eq!(
        edited.text,
        "{\n    \"a\": {\n        \"b\": 1,\n        \"c\": {\n            \"d\": [\n                1\n            ]\n        }\n    }\n}\n"
    );
}
