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
fn a_whole_float_count_is_the_count_in_yaml_json_and_legacy_files() {
    // JSON Schema counts 3.0 as an integer, and agenterm's yaml.v3 decoded
    // 2.0 into an int: such a file is valid, and reads as the count it says.
    let role = "responsibilities: r, allowed_agents: [x], retry_policy: {max_iterations: 3.0, escalate_on: [retry_limit]}";
    let yaml = format!(
        "schema_version: \"1.0.0\"\nid: a\nname: A\nworkflow:\n  build:\n    stage_policy: {{max_parallel_worktrees: 2e0}}\n    roles:\n    - {{name: w, {role}}}\n"
    );
    let json = r#"{"schema_version":"1.0.0","id":"a","name":"A","workflow":{"build":{"stage_policy":{"max_parallel_worktrees":2.0},"roles":[{"name":"w","retry_policy":{"max_iterations":3.0,"escalate_on":["retry_limit"]}}]}}}"#;
    let legacy = yaml.replace("schema_version: \"1.0.0\"\n", "");
    for (text, format) in [
        (yaml.as_str(), Format::Yaml),
        (json, Format::Json),
        (legacy.as_str(), Format::Yaml),
    ] {
        let report = validate_source(text, format, &Options::default());
        let errors: Vec<_> = report.findings.iter().filter(|f| f.is_error()).collect();
        assert!(errors.is_empty(), "{text}: {errors:#?}");
        let playbook = report.playbook.expect("it reads");
        let stage = &playbook.workflow["build"];
        assert_eq!(stage.max_parallel_worktrees(), 2, "{text}");
        let role = &stage.roles.as_ref().unwrap()[0];
        assert_eq!(role.max_iterations(), Some(3), "{text}");
    }
}

#[test]
fn a_value_the_model_cannot_read_is_reported_at_its_field_never_at_the_root() {
    // What the typed model refuses beyond the schema is placed at the value
    // it stopped at, as docs/lints.md promises for PB002.
    let value = serde_json::json!({"id": "a", "name": "A", "workflow": {"s": {"roles": [
        {"name": "r", "retry_policy": {"max_iterations": 2.5}}]}}});
    let finding = playbook_core::document::from_value_derived(value).unwrap_err();
    assert_eq!(finding.code, Code::Schema);
    assert_eq!(
        finding.path,
        "/workflow/s/roles/0/retry_policy/max_iterations"
    );
    assert!(finding.message.contains("2.5"), "{}", finding.message);
    // Through validation, a fraction or an out-of-range float is at its field.
    for bad in ["2.5", "1e30", "-1.0"] {
        let text = format!(
            "schema_version: 1.0.0\nid: a\nname: A\nworkflow:\n  s:\n    roles:\n    - name: r\n      retry_policy: {{max_iterations: {bad}}}\n"
        );
        let report = validate_source(&text, Format::Yaml, &Options::default());
        let errors: Vec<_> = report.findings.iter().filter(|f| f.is_error()).collect();
        assert!(!errors.is_empty(), "{bad} is refused");
        for error in errors {
            assert_eq!(
                error.path, "/workflow/s/roles/0/retry_policy/max_iterations",
                "{bad}: {error:#?}"
            );
            assert_eq!(error.location.map(|l| l.line), Some(8), "{bad}");
        }
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
    check(&deep_json, Format::Json, Code::DocumentSize);
    let deep_yaml = "[".repeat(10_000) + &"]".repeat(10_000);
    check(&deep_yaml, Format::Yaml, Code::DocumentSize);
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

/// Every finding of a refusal says where it is.
#[track_caller]
fn check_located(text: &str, format: Format, code: Code) -> Vec<playbook_core::Finding> {
    let report = validate_source(text, format, &Options::default());
    assert!(!report.allow(), "broken input must not be allowed");
    let found: Vec<_> = report
        .findings
        .into_iter()
        .filter(|f| f.code == code)
        .collect();
    assert!(!found.is_empty(), "expected {code}");
    for f in &found {
        assert!(f.location.is_some(), "{code} without a location: {f:?}");
    }
    found
}

#[test]
fn deep_flow_nesting_is_refused_at_one_hundred_thousand_and_a_million_levels() {
    for depth in [100_000, 1_000_000] {
        for (text, format) in [
            ("[".repeat(depth), Format::Yaml),
            ("[".repeat(depth) + &"]".repeat(depth), Format::Json),
            ("{\"a\":".repeat(depth), Format::Json),
            (format!("a: {}", "{a: ".repeat(depth)), Format::Yaml),
            ("- ".repeat(depth), Format::Yaml),
        ] {
            check_located(&text, format, Code::DocumentSize);
        }
    }
}

#[test]
fn a_duplicate_key_at_any_depth_is_reported_at_both_places() {
    let cases = [
        ("id: a\nname: b\nid: c\nworkflow: {}\n", Format::Yaml, "/id"),
        (
            "id: a\nname: b\nworkflow:\n  build:\n    roles: []\n  build:\n    roles: []\n",
            Format::Yaml,
            "/workflow/build",
        ),
        (
            "id: a\nname: b\nworkflow:\n  s:\n    roles:\n      - name: r\n        gates: {requires_user_approval: true, requires_user_approval: false}\n",
            Format::Yaml,
            "/workflow/s/roles/0/gates/requires_user_approval",
        ),
        (
            "{\"id\": \"a\", \"name\": \"b\", \"workflow\": {}, \"id\": \"c\"}",
            Format::Json,
            "/id",
        ),
        (
            "{\"id\": \"a\", \"name\": \"b\", \"workflow\": {\"s\": {\"roles\": [{\"name\": \"r\", \"name\": \"q\"}]}}}",
            Format::Json,
            "/workflow/s/roles/0/name",
        ),
    ];
    for (text, format, pointer) in cases {
        let found = check_located(text, format, Code::DuplicateKey);
        assert_eq!(found.len(), 2, "one finding at each place: {found:?}");
        assert!(found.iter().all(|f| f.path == pointer), "{found:?}");
        assert_ne!(found[0].location, found[1].location);
    }
}

#[test]
fn yaml_tags_second_documents_and_odd_keys_are_refused_with_a_location() {
    for text in [
        "id: !!binary aGk=\nname: b\nworkflow: {}\n",
        "id: a\nname: !!timestamp 2001-12-14\nworkflow: {}\n",
        "id: a\nname: !custom b\nworkflow: {}\n",
        "id: a\nname: b\nworkflow: !!map {}\n",
        "schema_version: 1.0.0\nid: a\nname: b\nworkflow: {}\n---\nid: c\n",
        "id: a\nname: b\nworkflow: {}\n? [x]\n: 1\n",
        "id: a\nname: b\nworkflow: {}\nx_n: .nan\n",
    ] {
        check_located(text, Format::Yaml, Code::UnsupportedYaml);
    }
}

#[test]
fn a_legacy_file_is_read_like_agenterm_read_it_first_document_only() {
    let text = "id: a\nname: b\nworkflow: {build: {roles: [{name: w, responsibilities: r, allowed_agents: [x]}]}}\n---\nid: c\n";
    let report = validate_source(text, Format::Yaml, &Options::default());
    assert!(report.allow(), "{:?}", report.findings);
    let second = report
        .findings
        .iter()
        .find(|f| f.code == Code::UnsupportedYaml)
        .expect("the second document is named");
    assert_eq!(second.severity, playbook_core::Severity::Warning);
    assert_eq!(
        second.location,
        Some(playbook_core::Location { line: 4, column: 1 })
    );
    assert_eq!(report.playbook.unwrap().id, "a");
    // A trailing `---` with nothing after it is no second document.
    for text in [
        "id: a\nname: b\nworkflow: {}\n---\n",
        "schema_version: 1.0.0\nid: a\nname: b\nworkflow: {}\n---\n# end\n",
    ] {
        let report = validate_source(text, Format::Yaml, &Options::default());
        assert!(
            !report
                .findings
                .iter()
                .any(|f| f.code == Code::UnsupportedYaml),
            "{text}: {:?}",
            report.findings
        );
    }
    // Everything else about the first document is checked as before.
    let text = "id: a\nid: b\nname: b\nworkflow: {}\n---\nid: c\n";
    check_located(text, Format::Yaml, Code::DuplicateKey);
}

#[test]
fn a_nul_byte_is_located() {
    let found = check_located("id: a\nname: b\0\n", Format::Yaml, Code::Syntax);
    assert_eq!(
        found[0].location,
        Some(playbook_core::Location { line: 2, column: 8 })
    );
}

#[test]
fn an_alias_bomb_is_refused_by_its_expanded_size() {
    // Nine levels of ten aliases: a billion nodes from about 1 KB of text.
    let mut text = String::from(
        "id: a\nname: b\nworkflow: {}\nx_0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for level in 1..10 {
        let refs = vec![format!("*a{}", level - 1); 10].join(", ");
        text.push_str(&format!("x_{level}: &a{level} [{refs}]\n"));
    }
    check_located(&text, Format::Yaml, Code::DocumentSize);
    // The same bomb padded to 120 KB.
    let padded = text.replace("x_0:", &format!("x_pad: \"{}\"\nx_0:", "p".repeat(120_000)));
    check_located(&padded, Format::Yaml, Code::DocumentSize);
}

#[test]
fn limits_beyond_their_maximum_are_refused_at_the_field_in_text_and_in_code() {
    let text = "id: a\nname: b\nworkflow:\n  s:\n    stage_policy: {max_parallel_worktrees: 4294967296}\n    roles:\n      - name: r\n        retry_policy: {max_iterations: 4294967295, escalate_on: [retry_limit]}\n";
    let report = validate_source(text, Format::Yaml, &Options::default());
    let paths: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.is_error())
        .map(|f| f.path.as_str())
        .collect();
    assert!(
        paths.contains(&"/workflow/s/stage_policy/max_parallel_worktrees"),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"/workflow/s/roles/0/retry_policy/max_iterations"),
        "{paths:?}"
    );
    assert!(!paths.contains(&""), "no finding at the root: {paths:?}");
    for huge in ["1e30", "-1", "1.5", "18446744073709551616"] {
        let text = format!(
            "schema_version: 1.0.0\nid: a\nname: b\nworkflow:\n  s:\n    roles:\n      - name: r\n        retry_policy: {{max_iterations: {huge}}}\n"
        );
        let report = validate_source(&text, Format::Yaml, &Options::default());
        assert!(!report.allow());
        assert!(
            report
                .findings
                .iter()
                .filter(|f| f.is_error())
                .all(|f| f.path.ends_with("/max_iterations")),
            "{huge}: {:?}",
            report.findings
        );
    }
    // A playbook built in code skips the schema; the lint still refuses it.
    let clean = std::fs::read_to_string(crate::repo_root().join("tests/fixtures/lints/clean.yaml"))
        .unwrap();
    let mut playbook = validate_source(&clean, Format::Yaml, &Options::default())
        .playbook
        .unwrap();
    playbook.id = "a/b".into();
    for stage in playbook.workflow.values_mut() {
        for role in stage.roles.iter_mut().flatten() {
            role.retry_policy
                .get_or_insert_with(Default::default)
                .max_iterations = Some(u32::MAX);
        }
    }
    let findings = playbook_core::validate(&playbook, &Options::default());
    assert!(findings.iter().any(|f| f.path == "/id" && f.is_error()));
    assert!(
        findings
            .iter()
            .any(|f| f.path.ends_with("/retry_policy/max_iterations") && f.is_error())
    );
}

/// A valid playbook of `roles` roles in one stage handing off in a chain,
/// `w0 → w1 → …`, each taking its predecessor's output; with `closed` the
/// last hands back to `w0`, one loop through every role, without a retry
/// limit. About 180 bytes a role: 20 000 roles are some 3.6 MB, under the
/// 8 MiB a document may have.
pub(crate) fn handoff_chain(roles: usize, closed: bool) -> String {
    use std::fmt::Write as _;
    let mut text = String::from(
        "schema_version: 1.0.0\nid: chain\nname: Chain\nworkflow:\n  build:\n    roles:\n",
    );
    for i in 0..roles {
        let input = if i == 0 {
            "task".to_string()
        } else {
            format!("o{}", i - 1)
        };
        let _ = write!(
            text,
            "      - name: w{i}\n        mode: worker\n        allowed_agents: [claude]\n        \
             inputs_required: [{input}]\n        outputs_contract: {{type: r, required: [o{i}]}}\n        \
             actions_allowed: [read_file]\n"
        );
        if i + 1 < roles {
            let _ = writeln!(text, "        handoff_to: [w{}]", i + 1);
        } else if closed {
            text.push_str("        handoff_to: [w0]\n");
        }
    }
    text
}

/// Tests run on threads with 2 MiB stacks, where a walk that recursed once
/// per role (petgraph's `tarjan_scc` under `Flow::loops` did) overflowed
/// after a few thousand: the process aborted, for a valid document. Every
/// walk of the flow is iterative now, and linear on a chain.
#[test]
fn a_twenty_thousand_role_handoff_chain_validates_without_overflowing_the_stack() {
    use playbook_core::flow::Flow;
    const ROLES: usize = 20_000;

    let text = handoff_chain(ROLES, false);
    assert!(
        text.len() < 8 * 1024 * 1024,
        "the document is within the limit"
    );
    let report = validate_source(&text, Format::Yaml, &Options::default());
    assert!(
        report.allow(),
        "{:?}",
        &report.findings[..report.findings.len().min(5)]
    );
    assert!(
        report.findings.is_empty(),
        "{:?}",
        &report.findings[..5.min(report.findings.len())]
    );
    let playbook = report.playbook.expect("the playbook is read");
    let flow = Flow::new(&playbook);
    assert!(flow.loops().is_empty());
    assert_eq!(flow.stage_components().len(), ROLES);
    assert_eq!(flow.reachable_in_stage(0).len(), ROLES);
    assert_eq!(flow.ancestors(ROLES - 1).len(), ROLES - 1);
    assert!(flow.reached_by_handoff().iter().all(|&r| r));

    // Closed into one loop of every role: found, and reported as unbounded.
    let text = handoff_chain(ROLES, true);
    let report = validate_source(&text, Format::Yaml, &Options::default());
    let unbounded: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.code == Code::UnboundedLoop)
        .collect();
    assert_eq!(
        unbounded.len(),
        1,
        "{:?}",
        &report.findings[..5.min(report.findings.len())]
    );
    assert_eq!(
        unbounded[0].path,
        "/workflow/build/roles/0/retry_policy/max_iterations"
    );
    assert!(unbounded[0].location.is_some(), "located like any finding");
    let playbook = report.playbook.expect("the playbook is read");
    let flow = Flow::new(&playbook);
    assert_eq!(flow.loops(), vec![(0..ROLES).collect::<Vec<_>>()]);
    assert_eq!(flow.stage_components().len(), 1);
}

#[test]
fn a_merge_key_shares_an_approval_gate_and_findings_point_where_a_value_is_written() {
    // yaml.v3 and PyYAML apply `<<`; read as a key named "<<", the shared
    // approval gate was silently lost (PB004 and PB206 instead).
    let body = "id: merge-keys\nname: Merge keys\nx_guarded: &guarded\n  requires_user_approval: true\nx_limits: &limits {max_iterations: 500, escalate_on: [retry_limit]}\nworkflow:\n  build:\n    roles:\n    - name: coder\n      responsibilities: write the code\n      allowed_agents: [codex]\n      mode: worker\n      actions_allowed: [write_file]\n      outputs_contract: {type: work_result, required: [summary]}\n      gates:\n        <<: *guarded\n        pass_condition: always\n      retry_policy:\n        <<: [*limits, {max_iterations: 2}]\n";
    for (text, line) in [
        (body.to_string(), 5),
        (format!("schema_version: 1.0.0\n{body}"), 6),
    ] {
        let report = validate_source(&text, Format::Yaml, &Options::default());
        let codes: Vec<Code> = report.findings.iter().map(|f| f.code).collect();
        assert!(!codes.contains(&Code::UnknownField), "{codes:?}");
        assert!(!codes.contains(&Code::MutatingWithoutApproval), "{codes:?}");
        // The earlier merged mapping wins: 500, over the limit, reported
        // where 500 is written (in `x_limits`), not at the role or at `/`.
        let over = report
            .findings
            .iter()
            .find(|f| f.path == "/workflow/build/roles/0/retry_policy/max_iterations")
            .expect("the merged limit is checked");
        assert!(over.message.contains("500"), "{over:#?}");
        let at = over.location.map(|l| (l.line, l.column));
        assert_eq!(at, Some((line, 20)), "{over:#?}");
    }
    let fixed = body.replace("500", "5");
    let report = validate_source(&fixed, Format::Yaml, &Options::default());
    let role = report
        .playbook
        .expect("it reads")
        .roles()
        .next()
        .unwrap()
        .role
        .clone();
    assert!(role.requires_user_approval());
    assert_eq!(role.max_iterations(), Some(5));

    // A merge of anything but mappings is refused at the `<<` key.
    let report = validate_source(
        "id: a\nname: A\nx_list: &l [1]\nworkflow:\n  build:\n    <<: *l\n",
        Format::Yaml,
        &Options::default(),
    );
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    let refused = &report.findings[0];
    assert_eq!(refused.code, Code::Syntax);
    assert_eq!(refused.path, "/workflow/build/<<");
    assert_eq!(refused.location.map(|l| (l.line, l.column)), Some((6, 5)));
}

/// A file whose lines end at a lone `\r` (old Mac line ends, valid YAML)
/// and that starts with a comment is a playbook, not an empty document;
/// its findings carry the line they are on.
#[test]
fn a_lone_cr_file_that_starts_with_a_comment_is_read_whole() {
    let text = "# The team.\rschema_version: \"1.0.0\"\rid: demo\rname: Demo\rworkflow:\r  build:\r    roles:\r      - name: coder\r        handoff_to: [codr]\r";
    let report = validate_source(text, Format::Yaml, &Options::default());
    let handoff = report
        .findings
        .iter()
        .find(|f| f.code == Code::UnknownHandoff)
        .unwrap_or_else(|| panic!("read as a playbook: {:#?}", report.findings));
    assert_eq!(handoff.location.as_ref().map(|l| l.line), Some(9));
}
