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

fn validate_named(text: &str, file_name: Option<&str>) -> Report {
    let options = Options {
        file_name: file_name.map(str::to_string),
        ..Options::default()
    };
    validate_source(text, Format::Yaml, &options)
}

#[test]
fn yaml_1_1_booleans_numbers_as_text_and_a_capitalised_mode_read_as_agenterm_decoded_them() {
    // yaml.v3 decoded `yes`/`on` into a Go bool, any scalar into a Go
    // string, and normalizeStage lowercased the mode: all legal there.
    let text = "id: decoded\nname: 2024\nworkflow:\n  build:\n    enabled: yes\n    roles:\n    - name: 42\n      responsibilities: write the code\n      allowed_agents: [codex]\n      mode: Worker\n      gates:\n        requires_user_approval: on\n";
    let report = validate(text);
    assert!(report.allow(), "{:#?}", report.findings);
    let playbook = report.playbook.as_ref().unwrap();
    assert_eq!(playbook.name, "2024");
    let role = playbook.roles().next().unwrap().role;
    assert_eq!(role.name, "42");
    assert_eq!(role.mode, Some(playbook_core::RoleMode::Worker));
    assert!(role.requires_user_approval());
    assert_eq!(playbook.workflow["build"].enabled, Some(true));
    let notes: Vec<&str> = with(&report, Code::LegacyReading)
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    for path in [
        "/name",
        "/workflow/build/enabled",
        "/workflow/build/roles/0/name",
        "/workflow/build/roles/0/mode",
        "/workflow/build/roles/0/gates/requires_user_approval",
    ] {
        assert!(notes.contains(&path), "{path}: {notes:?}");
    }
    // A 1.0.0 file keeps YAML 1.2's meanings, with the fix in the hint.
    let report = validate(&format!("schema_version: 1.0.0\n{text}"));
    let enabled = report
        .findings
        .iter()
        .find(|f| f.path == "/workflow/build/enabled")
        .expect("`yes` is text in a 1.0.0 file");
    assert!(enabled.is_error() && enabled.hint.contains("true or false"));
}

#[test]
fn numbers_in_a_phase_are_its_text_not_an_empty_name() {
    // `text()` once read a number as "": `"" is shorter than 1 character`.
    let report =
        validate("id: p\nname: P\nphases:\n  - name: 1\n    agent: codex\n    role: 2024\n");
    assert!(report.allow(), "{:#?}", report.findings);
    let role = report.playbook.as_ref().unwrap().roles().next().unwrap();
    assert_eq!(role.role.name, "2024");
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.message.contains("shorter"))
    );
}

#[test]
fn a_file_without_id_takes_its_file_name_and_without_one_says_so() {
    let text = "name: No id\nworkflow:\n  build:\n    roles:\n    - {name: w, responsibilities: r, allowed_agents: [codex]}\n";
    let report = validate_named(text, Some("Pairing-Coding.yaml"));
    assert!(report.allow(), "{:#?}", report.findings);
    assert_eq!(report.playbook.as_ref().unwrap().id, "pairing-coding");
    assert!(
        with(&report, Code::LegacyReading)
            .iter()
            .any(|f| f.path == "/id")
    );

    let report = validate_named(text, None);
    let missing = report
        .findings
        .iter()
        .find(|f| f.is_error())
        .expect("no id and no file name is an error");
    assert!(missing.message.contains("file name"), "{missing:#?}");
    assert!(missing.hint.contains("add `id:`"), "{missing:#?}");
}

#[test]
fn what_agenterm_refused_is_an_error_at_the_field_and_blocks_a_run() {
    let report = validate(
        "id: p\nname: P\nphases:\n  - name: Implement\n    role: implementer\n  - agent: codex\n",
    );
    let errors: Vec<(Code, &str)> = report
        .findings
        .iter()
        .filter(|f| f.is_error())
        .map(|f| (f.code, f.path.as_str()))
        .collect();
    assert_eq!(
        errors,
        [
            (Code::NoAgents, "/phases/0/agent"),
            (Code::Schema, "/phases/1/name"),
            (Code::Schema, "/phases/1/role"),
        ],
        "{:#?}",
        report.findings
    );

    let report = validate(
        "id: p\nname: P\nworkflow:\n  plan:\n    enabled: true\n  build:\n    roles:\n    - name: coder\n      allowed_agents: [' ']\n  brainstorm:\n    roles:\n    - {name: muse, responsibilities: r}\n",
    );
    let found: Vec<(Code, &str, Severity)> = report
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .map(|f| (f.code, f.path.as_str(), f.severity))
        .collect();
    for expected in [
        (
            Code::StageWithoutRoles,
            "/workflow/plan/roles",
            Severity::Error,
        ),
        (
            Code::NoAgents,
            "/workflow/build/roles/0/allowed_agents",
            Severity::Error,
        ),
        (
            Code::Schema,
            "/workflow/build/roles/0/responsibilities",
            Severity::Error,
        ),
        // agenterm did not check brainstorm; no agent could play it here.
        (
            Code::NoAgents,
            "/workflow/brainstorm/roles/0/allowed_agents",
            Severity::Warning,
        ),
    ] {
        assert!(found.contains(&expected), "{expected:?}: {found:#?}");
    }
    assert_eq!(
        found.len(),
        4,
        "each said once, in agenterm's words: {found:#?}"
    );
    // The checks are lints of the typed playbook, so a run refuses it too.
    let playbook = report.playbook.as_ref().unwrap();
    assert!(
        playbook_core::validate(playbook, &Options::default())
            .iter()
            .any(Finding::is_error)
    );
}
