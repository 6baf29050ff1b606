//! The shipped example playbooks: clean, loadable, and lossless to save.

use playbook_core::{Code, Format, Options, Severity, document, validate_source};

const EXAMPLES: [&str; 3] = ["tdd.yaml", "pairing.yaml", "compound-engineering.yaml"];

fn read(name: &str) -> String {
    std::fs::read_to_string(crate::repo_root().join("playbooks").join(name)).unwrap()
}

#[test]
fn examples_have_no_errors_and_no_warnings() {
    for name in EXAMPLES {
        let report = validate_source(&read(name), Format::Yaml, &Options::default());
        let noisy: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.severity != Severity::Info)
            .collect();
        assert!(
            noisy.is_empty(),
            "{name} is an example users copy, so it must be clean: {noisy:#?}"
        );
        assert!(report.playbook.is_some());
    }
}

#[test]
fn examples_have_a_bounded_review_loop() {
    for name in EXAMPLES {
        let playbook = validate_source(&read(name), Format::Yaml, &Options::default())
            .playbook
            .unwrap();
        let flow = playbook_core::flow::Flow::new(&playbook);
        let loops = flow.loops();
        assert!(!loops.is_empty(), "{name} demonstrates a review loop");
        for l in loops {
            assert!(
                l.iter()
                    .any(|&i| flow.roles[i].role.max_iterations().is_some()),
                "{name}: every loop is bounded"
            );
        }
    }
}

#[test]
fn the_legacy_example_loads_with_hints_only() {
    let report = validate_source(&read("legacy.yaml"), Format::Yaml, &Options::default());
    assert!(report.playbook.is_some(), "legacy files stay loadable");
    assert!(
        report.findings.iter().all(|f| f.severity == Severity::Info),
        "a legacy playbook gets hints, never errors or warnings: {:#?}",
        report.findings
    );
    assert!(report.findings.iter().any(|f| f.code == Code::LegacyRole));
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.code == Code::MissingVersion)
    );
}

#[track_caller]
fn check_round_trip(text: &str, format: Format) {
    let report = validate_source(text, format, &Options::default());
    let playbook = report.playbook.expect("example parses");
    let saved = document::to_string(&playbook, format).unwrap();
    let original = document::parse_value(text, format).unwrap();
    let reread = document::parse_value(&saved, format).unwrap();
    assert_eq!(
        original, reread,
        "saving must change nothing but formatting"
    );
    // Saving a saved document is a fixed point.
    let again = document::to_string(&document::from_value(reread).unwrap(), format).unwrap();
    assert_eq!(saved, again);
}

#[test]
fn load_then_save_changes_nothing_but_formatting() {
    for name in EXAMPLES.iter().chain(&["legacy.yaml"]) {
        let text = read(name);
        check_round_trip(&text, Format::Yaml);
        // The same document as JSON round-trips too.
        let value = document::parse_value(&text, Format::Yaml).unwrap();
        check_round_trip(&serde_json::to_string_pretty(&value).unwrap(), Format::Json);
    }
}

#[test]
fn extension_and_legacy_keys_survive_a_save() {
    let text = read("legacy.yaml");
    let playbook = validate_source(&text, Format::Yaml, &Options::default())
        .playbook
        .unwrap();
    let saved = document::to_string(&playbook, Format::Yaml).unwrap();
    for key in [
        "x_owner: platform-team",
        "x_review_style: strict",
        "phases:",
    ] {
        assert!(saved.contains(key), "{key} must survive a save:\n{saved}");
    }
}
