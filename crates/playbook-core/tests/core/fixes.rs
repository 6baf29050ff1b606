//! Quick fixes over the lint fixtures of `tests/fixtures/lints/` (each one
//! edit away from `clean.yaml`): for every fixture of a fixable code, each
//! fix offered removes its finding, adds no error and keeps every comment.

use playbook_core::{Format, Options, document, fix, validate_source};

use crate::repo_root;

fn comments(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.trim_start().starts_with('#'))
        .collect()
}

#[test]
fn every_fix_of_every_fixable_fixture_removes_its_finding() {
    let dir = repo_root().join("tests/fixtures/lints");
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(code) = name.get(..5).map(str::to_ascii_uppercase) else {
            continue;
        };
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let format = Format::from_path(&name);
        let options = Options::default();
        let before = validate_source(&text, format, &options);
        for finding in before.findings.iter().filter(|f| f.code.as_str() == code) {
            let fixes = fix::fixes_for_source(&text, format, finding);
            for one in &fixes {
                let edited = fix::apply(&text, format, std::slice::from_ref(one))
                    .unwrap_or_else(|e| panic!("{name}: {}: {e}", one.title));
                // The rule `playbook fix` writes by: every comment kept too.
                assert!(
                    edited.comments_kept(),
                    "{name}: {} lost the layout or a comment",
                    one.title
                );
                let after = validate_source(&edited.text, format, &options);
                assert!(
                    !after
                        .findings
                        .iter()
                        .any(|f| f.code == finding.code && f.path == finding.path),
                    "{name}: `{}` left {finding:?}:\n{}",
                    one.title,
                    edited.text
                );
                for error in after.findings.iter().filter(|f| f.is_error()) {
                    assert!(
                        before
                            .findings
                            .iter()
                            .any(|f| f.code == error.code && f.path == error.path),
                        "{name}: `{}` introduced {error:?}",
                        one.title
                    );
                }
                for comment in comments(&text) {
                    assert!(edited.text.contains(comment), "{name}: lost {comment:?}");
                }
                checked += 1;
            }
        }
    }
    // Every fixable code with a fixture was exercised.
    assert!(checked >= 20, "only {checked} fixes checked");
}

#[test]
fn fix_all_leaves_no_fixable_finding_in_any_fixture() {
    let dir = repo_root().join("tests/fixtures/lints");
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let format = Format::from_path(&name);
        let options = Options::default();
        let Ok(fixed) = fix::fix_all(&text, format, &options, &[]) else {
            assert!(document::parse_value(&text, format).is_err(), "{name}");
            continue;
        };
        if name.starts_with("pb007") {
            assert!(
                document::parse_value(&fixed.text, format).is_ok(),
                "{name}: {}",
                fixed.text
            );
        }
        let before = validate_source(&text, format, &options);
        let after = validate_source(&fixed.text, format, &options);
        let errors = |r: &playbook_core::Report| r.findings.iter().filter(|f| f.is_error()).count();
        assert!(
            errors(&after) <= errors(&before),
            "{name}: {:#?}",
            after.findings
        );
        assert!(fixed.applied.len() <= fix::MAX_FIXES);
    }
}
