//! Fixture-driven lint tests: every file in `tests/fixtures/lints/` is
//! validated and its findings are compared with a reviewed snapshot.
//! A fixture named `pbNNN-...` must also produce code PBNNN; `clean.*`
//! must produce nothing at all.

use std::fmt::Write;
use std::path::Path;

use playbook_core::{Code, Format, Options, Report, validate_source};

fn render(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let at = f
            .location
            .map(|l| format!(" @{}:{}", l.line, l.column))
            .unwrap_or_default();
        let _ = writeln!(out, "{} {} {}{at}", f.severity.as_str(), f.code, f.path);
        let _ = writeln!(out, "    {}", f.message);
        let _ = writeln!(out, "    hint: {}", f.hint);
    }
    if out.is_empty() {
        out.push_str("no findings\n");
    }
    out
}

fn validate_file(path: &Path) -> Report {
    let text = std::fs::read_to_string(path).expect("fixture is readable");
    let format = Format::from_path(&path.to_string_lossy());
    validate_source(&text, format, &Options::default())
}

#[test]
fn every_fixture_reports_its_code_and_matches_its_snapshot() {
    insta::glob!(
        "../../../../tests/fixtures/lints",
        "*.{yaml,json}",
        |path| {
            let report = validate_file(path);
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name.starts_with("clean.") {
                assert!(
                    report.findings.is_empty(),
                    "{name} is the clean base every fixture derives from, so it must have no findings: {}",
                    render(&report)
                );
            } else {
                let expected = name[..5].to_uppercase();
                assert!(
                    report.findings.iter().any(|f| f.code.as_str() == expected),
                    "{name} exists to exercise {expected}, but it was not reported:\n{}",
                    render(&report)
                );
            }
            insta::assert_snapshot!(render(&report));
        }
    );
}

#[test]
fn every_code_has_a_fixture_or_a_dedicated_test() {
    // PB209 is exercised by playbooks/legacy.yaml in `examples`.
    let fixtures: Vec<String> = std::fs::read_dir(crate::repo_root().join("tests/fixtures/lints"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_uppercase())
        .collect();
    for code in Code::ALL {
        if *code == Code::LegacyRole {
            continue;
        }
        assert!(
            fixtures.iter().any(|f| f.starts_with(code.as_str())),
            "{code} has no fixture in tests/fixtures/lints; every code needs one so its behaviour is pinned"
        );
    }
}

#[test]
fn strict_mode_turns_unknown_fields_into_errors() {
    let path = crate::repo_root().join("tests/fixtures/lints/pb004-unknown-fields.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let lenient = validate_source(&text, Format::Yaml, &Options::default());
    assert!(
        lenient.allow(),
        "unknown fields only warn by default (Extension Policy)"
    );
    let strict = validate_source(
        &text,
        Format::Yaml,
        &Options {
            strict: true,
            ..Options::default()
        },
    );
    assert!(
        !strict.allow(),
        "strict mode must reject unknown non-x_ fields"
    );
    assert!(
        strict
            .findings
            .iter()
            .all(|f| f.code != Code::UnknownField || !f.path.contains("x_")),
        "x_ fields are extensions and never reported"
    );
}

#[test]
fn a_custom_mutating_list_replaces_the_built_in_one() {
    let path = crate::repo_root().join("tests/fixtures/lints/pb206-mutating-without-approval.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let options = Options {
        mutating_actions: vec!["deploy".into()],
        ..Options::default()
    };
    let report = validate_source(&text, Format::Yaml, &options);
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.code != Code::MutatingWithoutApproval),
        "write_file is not mutating under a list that names only deploy"
    );
}

/// A gate that reads a near miss of a promised field suggests the field
/// first; one that reads something unrelated only suggests promising it.
#[test]
fn a_gate_reading_a_near_miss_says_did_you_mean_first() {
    let text = |gate: &str| {
        format!(
            "schema_version: 1.0.0\nid: t\nname: t\nworkflow:\n  s:\n    roles:\n      - name: judge\n        mode: reviewer\n        outputs_contract: {{ type: r, required: [verdict, findings_list] }}\n        gates: {{ pass_condition: \"{gate}\" }}\n"
        )
    };
    let hint_of = |gate: &str| {
        let report = validate_source(&text(gate), Format::Yaml, &Options::default());
        report
            .findings
            .iter()
            .find(|f| f.code == Code::GateUnpromisedField)
            .map(|f| f.hint.clone())
            .unwrap_or_default()
    };
    let near = hint_of("size(findings_lis) == 0");
    assert!(near.starts_with("did you mean `findings_list`?"), "{near}");
    assert!(
        near.contains("add `findings_lis` to outputs_contract.required"),
        "{near}"
    );
    let far = hint_of("size(zzz) == 0");
    assert!(far.starts_with("add `zzz`"), "{far}");
}
