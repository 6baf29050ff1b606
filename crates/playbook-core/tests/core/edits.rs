//! Comment-keeping edits on every example and lint fixture of the
//! repository (files written by hand, independently of the editor): every
//! value replaced, every key and item removed, one at a time; the text
//! must read as intended, keep its layout and keep every comment line
//! outside the edited value.

use playbook_core::edit::{self, Op};
use playbook_core::{Format, document};
use serde_json::{Value, json};

use crate::repo_root;

fn pointers(value: &Value, path: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let child = format!("{path}/{}", playbook_core::finding::escape_pointer(k));
                out.push(child.clone());
                pointers(v, child, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let child = format!("{path}/{i}");
                out.push(child.clone());
                pointers(v, child, out);
            }
        }
        _ => {}
    }
}

fn files() -> Vec<(String, String, Format)> {
    let mut out = Vec::new();
    for dir in ["playbooks", "tests/fixtures/lints"] {
        for entry in std::fs::read_dir(repo_root().join(dir)).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !(name.ends_with(".yaml") || name.ends_with(".json")) {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            out.push((format!("{dir}/{name}"), text, Format::from_path(&name)));
        }
    }
    out
}

#[test]
fn every_value_of_every_example_can_be_edited_in_place() {
    let mut edits = 0;
    for (name, text, format) in files() {
        let Ok(value) = document::parse_value(&text, format) else {
            continue;
        };
        let mut all = Vec::new();
        pointers(&value, String::new(), &mut all);
        // At most ~30 places per file (every one in the small fixtures),
        // spread over the whole document.
        let step = all.len().div_ceil(30).max(1);
        let map = playbook_core::locate::SourceMap::new(&text);
        for path in all.into_iter().step_by(step) {
            let location = map.locate(&path).map_or(0, |l| l.line);
            for op in [
                Op::Replace {
                    path: path.clone(),
                    value: json!("edited value"),
                },
                Op::Replace {
                    path: path.clone(),
                    value: json!({"a": [1, "two"], "b": {"c": true}}),
                },
                Op::Remove { path: path.clone() },
            ] {
                let mut target = value.clone();
                edit::patch(&mut target, &op).unwrap();
                let edited = edit::apply(&text, format, std::slice::from_ref(&op)).unwrap();
                assert_eq!(
                    document::parse_value(&edited.text, format).unwrap(),
                    target,
                    "{name}: {op:?}"
                );
                assert!(edited.preserved, "{name}: {op:?} lost the layout");
                // The comments before the edited value are all still there.
                for line in text
                    .lines()
                    .take(location.saturating_sub(1))
                    .filter(|l| l.trim_start().starts_with('#'))
                {
                    assert!(edited.text.contains(line), "{name}: {op:?} lost {line:?}");
                }
                edits += 1;
            }
        }
    }
    assert!(edits > 2000, "only {edits} edits");
}

#[test]
fn crlf_files_stay_crlf() {
    let text = "# head\r\nid: demo\r\nlist:\r\n  - a   # first\r\n";
    let ops = [
        Op::Add {
            path: "/list/-".into(),
            value: json!("b"),
        },
        Op::Add {
            path: "/name".into(),
            value: json!({"x": [1, 2]}),
        },
    ];
    let edited = edit::apply(text, Format::Yaml, &ops).unwrap();
    assert!(edited.preserved);
    assert!(
        !edited.text.replace("\r\n", "").contains('\n'),
        "{:?}",
        edited.text
    );
}

#[test]
fn multi_line_flow_mappings_with_comments() {
    let text = "policy: {\n  max: 3,   # bound\n  on: [a]  # why\n}\nnext: 1\n";
    let ops = [Op::Add {
        path: "/policy/extra".into(),
        value: json!("x"),
    }];
    let edited = edit::apply(text, Format::Yaml, &ops).unwrap();
    assert!(edited.preserved, "{}", edited.text);
    assert!(edited.text.contains("# bound") && edited.text.contains("# why"));
    let ops = [Op::Remove {
        path: "/policy/max".into(),
    }];
    let edited = edit::apply(text, Format::Yaml, &ops).unwrap();
    assert!(edited.preserved);
    assert!(edited.text.contains("on: [a]  # why"));
}
