//! Hostile and broken documents: a finding with a location, never a panic
//! or a hang.

use playbook_core::{Code, Format, Options, validate_source};

#[track_caller]
fn check(text: &str, format: Format, code: Code) {
    let report = validate_source(text, format, &Options::default());
    assert!(!report.allow(), "broken input must not be allowed");
    assert!(
        report.findings.iter().any(|f| f.code == code),
        "expected {code}, got {:#?}",
        report.findings
    );
}

#[test]
fn malformed_yaml_reports_line_and_column() {
    let report = validate_source(
        "id: a\nname: [unclosed\n",
        Format::Yaml,
        &Options::default(),
    );
    let finding = &report.findings[0];
    assert_eq!(finding.code, Code::Syntax);
    assert!(
        finding.location.is_some(),
        "a syntax error says where it is"
    );
}

#[test]
fn malformed_json_reports_line_and_column() {
    let report = validate_source("{\n  \"id\": \"a\",,\n}", Format::Json, &Options::default());
    let location = report.findings[0].location.expect("location");
    assert_eq!(location.line, 2);
}

#[test]
fn wrong_types_are_reported_each_with_its_pointer() {
    let text = "id: 7\nname: [x]\nworkflow:\n  build:\n    enabled: maybe\n    roles: {}\n";
    let report = validate_source(text, Format::Yaml, &Options::default());
    let paths: Vec<&str> = report.findings.iter().map(|f| f.path.as_str()).collect();
    for expected in [
        "/id",
        "/name",
        "/workflow/build/enabled",
        "/workflow/build/roles",
    ] {
        assert!(
            paths.contains(&expected),
            "{expected} missing from {paths:?}"
        );
    }
}

#[test]
fn empty_documents_are_refused() {
    check("", Format::Yaml, Code::DocumentSize);
    check("   \n\n", Format::Json, Code::DocumentSize);
    check("---\n# only comments\n", Format::Yaml, Code::DocumentSize);
    check("null", Format::Yaml, Code::DocumentSize);
}

#[test]
fn a_scalar_or_list_document_is_a_schema_error() {
    check("just a string", Format::Yaml, Code::Schema);
    check("[1, 2, 3]", Format::Json, Code::Schema);
}

#[test]
fn binary_garbage_is_refused() {
    let garbage: String = (0u8..=255).map(char::from).cycle().take(4096).collect();
    let report = validate_source(&garbage, Format::Yaml, &Options::default());
    assert!(!report.allow());
    check("\0\0\0PK\u{3}\u{4}", Format::Yaml, Code::Syntax);
}

#[test]
fn ten_thousand_levels_of_nesting_do_not_overflow_the_stack() {
    let deep_json = "[".repeat(10_000) + &"]".repeat(10_000);
    check(&deep_json, Format::Json, Code::Syntax);
    let deep_yaml = "[".repeat(10_000) + &"]".repeat(10_000);
    check(&deep_yaml, Format::Yaml, Code::Syntax);
    let deep_block: String = (0..10_000)
        .map(|i| format!("{}- \n", " ".repeat(i * 2)))
        .collect();
    let report = validate_source(&deep_block, Format::Yaml, &Options::default());
    assert!(!report.allow());
}

#[test]
fn a_fifty_megabyte_document_is_refused_before_parsing() {
    let huge = format!(
        "id: a\nname: b\ndescription: \"{}\"\nworkflow: {{}}\n",
        "x".repeat(50 * 1024 * 1024)
    );
    check(&huge, Format::Yaml, Code::DocumentSize);
}

#[test]
fn alias_bombs_are_refused() {
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\ni: [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
    let report = validate_source(bomb, Format::Yaml, &Options::default());
    assert!(
        !report.allow(),
        "an alias bomb must be refused, not expanded"
    );
}

#[test]
fn an_unknown_major_version_fails_closed() {
    let text = "schema_version: 3.1.0\nid: a\nname: b\nworkflow: {}\nsomething: [else]\n";
    let report = validate_source(text, Format::Yaml, &Options::default());
    assert_eq!(
        report.findings.len(),
        1,
        "nothing else is read from a future format"
    );
    assert_eq!(report.findings[0].code, Code::UnsupportedVersion);
    assert!(report.playbook.is_none());
}

#[test]
fn hostile_gate_expressions_become_findings() {
    let deep = "(".repeat(5000) + &")".repeat(5000);
    let text = format!(
        "schema_version: 1.0.0\nid: a\nname: b\nworkflow:\n  build:\n    roles:\n      - name: w\n        mode: worker\n        gates: {{pass_condition: \"{deep}\"}}\n"
    );
    check(&text, Format::Yaml, Code::GateSyntax);
}
