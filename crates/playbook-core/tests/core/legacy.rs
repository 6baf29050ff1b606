//! Legacy (agenterm) playbooks are judged by their own format: nothing its
//! loader accepted is an error here, real mistakes stay visible, and the
//! same text with a `schema_version` is judged by 1.0.0 as before.

use playbook_core::{Code, Finding, Format, Options, Report, Severity, validate_source};

fn fixture(path: &str) -> String {
    std::fs::read_to_string(crate::repo_root().join(path)).unwrap()
}

fn validate(text: &str) -> Report {
    validate_source(text, Format::Yaml, &Options::default())
}

fn with(report: &Report, code: Code) -> Vec<&Finding> {
    report.findings.iter().filter(|f| f.code == code).collect()
}

#[test]
fn an_agenterm_file_opens_with_no_error_and_keeps_its_real_mistakes() {
    let report = validate(&fixture("tests/fixtures/lints/pb009-legacy-agenterm.yaml"));
    let errors: Vec<_> = report.findings.iter().filter(|f| f.is_error()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let playbook = report.playbook.as_ref().expect("it reads");

    // 0 meant "not set": the default applies, and a note says so.
    assert_eq!(playbook.workflow["plan"].max_parallel_worktrees(), 1);
    assert!(
        playbook
            .roles()
            .next()
            .unwrap()
            .role
            .max_iterations()
            .is_none()
    );
    let notes: Vec<&str> = with(&report, Code::LegacyReading)
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert!(
        notes.contains(&"/workflow/plan/stage_policy/max_parallel_worktrees"),
        "{notes:?}"
    );
    assert!(
        notes.contains(&"/workflow/plan/roles/0/retry_policy/max_iterations"),
        "{notes:?}"
    );

    // Named conditions are manual gates, each said once where it is written.
    let manual = with(&report, Code::ManualGate);
    for path in [
        "/workflow/plan/roles/0/gates/pass_condition",
        "/workflow/plan/stage_policy/enter_gate",
        "/workflow/build/stage_policy/exit_gate",
        "/workflow/build/roles/1/gates/pass_condition",
    ] {
        assert!(
            manual
                .iter()
                .any(|f| f.path == path && f.severity == Severity::Info),
            "{path}: {manual:#?}"
        );
    }
    assert!(
        with(&report, Code::UnknownPolicy).is_empty() && with(&report, Code::GateSyntax).is_empty()
    );

    // The author's own triggers are noted, not warned about.
    let triggers = with(&report, Code::UnknownEscalation);
    assert_eq!(triggers.len(), 3, "{triggers:#?}");
    assert!(triggers.iter().all(|f| f.severity == Severity::Info));

    // agenterm's run inputs are inputs; a reviewer without a verdict is a
    // real mistake, kept as a warning.
    assert!(
        with(&report, Code::InputNotProduced).is_empty(),
        "{:#?}",
        with(&report, Code::InputNotProduced)
    );
    let verdict = with(&report, Code::ReviewerWithoutVerdict);
    assert_eq!(verdict.len(), 1);
    assert_eq!(verdict[0].severity, Severity::Warning);
}

#[test]
fn the_same_text_with_a_version_is_judged_by_1_0_0() {
    let text = fixture("tests/fixtures/lints/pb009-legacy-agenterm.yaml")
        .replace("---\nid:", "---\nschema_version: 1.0.0\nid:");
    let report = validate(&text);
    for code in [
        Code::ParallelismZero,
        Code::ZeroIterations,
        Code::UnknownPolicy,
        Code::ReviewerWithoutVerdict,
    ] {
        assert!(
            with(&report, code).iter().any(|f| f.is_error()),
            "{code}: {:#?}",
            report.findings
        );
    }
    assert!(with(&report, Code::LegacyReading).is_empty());
}

#[test]
fn a_phases_only_file_becomes_a_workflow_and_findings_point_at_its_phases() {
    let text = fixture("tests/fixtures/legacy/agenterm-phases.yaml");
    let report = validate(&text);
    assert!(report.allow(), "{:#?}", report.findings);
    let playbook = report.playbook.as_ref().unwrap();
    let placed: Vec<(&str, &str)> = playbook
        .roles()
        .map(|r| (r.stage, r.role.name.as_str()))
        .collect();
    assert_eq!(
        placed,
        [
            ("plan", "planner"),
            ("build", "implementer"),
            ("test", "tester")
        ]
    );
    let tester = playbook.roles().nth(2).unwrap().role;
    assert_eq!(
        tester.responsibilities.as_deref(),
        Some("Run legacy phase \"Verify\"")
    );
    // Findings about the made-up roles land on the phase that made them.
    let prompt_only = with(&report, Code::LegacyRole);
    let implementer = prompt_only
        .iter()
        .find(|f| f.message.contains("implementer"))
        .unwrap();
    assert_eq!(implementer.path, "/phases/1");
    assert_eq!(implementer.location.map(|l| l.line), Some(14));
    // Fields of that era are kept quietly.
    let old = with(&report, Code::UnknownField);
    assert_eq!(old.len(), 2);
    assert!(old.iter().all(|f| f.severity == Severity::Info), "{old:#?}");
}

#[test]
fn a_second_document_is_named_and_left_unread() {
    let report = validate(&fixture(
        "tests/fixtures/legacy/agenterm-two-documents.yaml",
    ));
    assert!(report.allow(), "{:#?}", report.findings);
    assert_eq!(report.playbook.as_ref().unwrap().id, "first");
    let second = with(&report, Code::UnsupportedYaml);
    assert_eq!(second[0].location.map(|l| l.line), Some(11));
}

#[test]
fn structure_agenterm_refused_is_still_refused() {
    // agenterm required a known mode; two roles of one name, or a handoff
    // to no role, leave a run undefined.
    let base = "id: x\nname: X\nworkflow:\n  build:\n    roles:\n";
    for (role, code) in [
        (
            "    - {name: w, responsibilities: r, allowed_agents: [a], mode: boss}\n",
            Code::Schema,
        ),
        (
            "    - {name: w, responsibilities: r, allowed_agents: [a]}\n    - {name: w, responsibilities: r, allowed_agents: [a]}\n",
            Code::DuplicateRole,
        ),
        (
            "    - {name: w, responsibilities: r, allowed_agents: [a], handoff_to: [ghost]}\n",
            Code::UnknownHandoff,
        ),
    ] {
        let report = validate(&format!("{base}{role}"));
        assert!(
            with(&report, code).iter().any(|f| f.is_error()),
            "{role}: {:#?}",
            report.findings
        );
    }
    let report = validate(
        "id: x\nname: X\nworkflow:\n  s:\n    stage_policy: {max_parallel_worktrees: -1}\n    roles: [{name: w, responsibilities: r, allowed_agents: [a]}]\n",
    );
    assert!(
        !report.allow(),
        "a negative count was an error to agenterm too"
    );
}
