//! Hostile models give clear errors, never a panic or a silent default.

use playbook_whatif::{ModelError, SimModel};

use crate::review_loop;

fn refusal(text: &str) -> ModelError {
    match SimModel::parse_for(text, &[&review_loop(3)]) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e,
    }
}

fn refused(text: &str) -> String {
    refusal(text).to_string()
}

#[test]
fn out_of_range_and_non_finite_probabilities_are_refused() {
    let e = refused("roles:\n  reviewer:\n    pass: 1e308\n");
    assert!(
        e.contains("/roles/reviewer/pass") && e.contains("line 3"),
        "{e}"
    );
    assert!(refused("defaults: {pass: -0.1}").contains("not a probability"));
    let e = refused("defaults: {pass: .nan}");
    assert!(
        e.contains("not a finite number") && e.contains("line 1, column 18"),
        "{e}"
    );
    let e = refused("defaults: {pass: .inf}");
    assert!(e.contains("not a finite number"), "{e}");
    let e = refused("defaults: {pass: \"0.5\"}");
    assert!(e.contains("/defaults"), "{e}");
}

#[test]
fn exclusive_outcomes_may_not_sum_above_one() {
    let e = refused("defaults: {pass: 0.9, error: 0.2}");
    assert!(e.contains("sum to 1.1000"), "{e}");
    // Layers that are fine alone but not together.
    let e = refused("defaults: {error: 0.5}\nroles:\n  reviewer: {pass: 0.6}\n");
    assert!(
        e.contains("role `worker`") && e.contains("built-in default"),
        "{e}"
    );
    let e = refused("roles:\n  reviewer: {pass: 0.5, iterations: {2: {violation: 0.6}}}\n");
    assert!(e.contains("iteration 2"), "{e}");
}

#[test]
fn unknown_roles_modes_fields_and_keys_are_named() {
    let e = refused("roles:\n  reveiwer: {pass: 0.5}\n");
    assert!(
        e.contains("reveiwer") && e.contains("roles: worker, reviewer"),
        "{e}"
    );
    assert!(refused("roles:\n  mode:boss: {pass: 0.5}\n").contains("not a role mode"));
    let e = refused("roles:\n  reviewer: {passs: 0.5}\n");
    assert!(e.contains("/roles/reviewer") && e.contains("passs"), "{e}");
    let e = refused("roles:\n  reviewer: {iterations: {two: {pass: 0.5}}}\n");
    assert!(e.contains("iteration key `two`"), "{e}");
    let e = refused("roles:\n  reviewer: {iterations: {0: {pass: 0.5}}}\n");
    assert!(e.contains("iteration key `0`"), "{e}");
    let e = refused("roles:\n  reviewer: {iterations: {2: {iterations: {3: {pass: 0.5}}}}}\n");
    assert!(e.contains("cannot hold its own"), "{e}");
    assert!(refused("surprise: 1").contains("surprise"));
    assert!(refused("defaults: {duration: {gaussian: 3}}").contains("/defaults/duration"));
    assert!(refused("defaults: {duration: {uniform: {min: 5, max: 1}}}").contains("swap"));
    assert!(
        refused("defaults: {duration: {lognormal: {median: 60, sigma: 1e308}}}").contains("sigma")
    );
    assert!(refused("defaults: {cost: -1}").contains("cost"));
    assert!(refused("schema_version: 2.0.0").contains("1.x.y"));
}

#[test]
fn deep_nesting_aliases_and_huge_files_are_refused_without_a_panic() {
    let deep = format!("defaults: {}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(SimModel::parse(&deep).is_err());
    let bomb = "a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\n";
    assert!(SimModel::parse(bomb).is_err());
    let huge = format!("name: \"{}\"", "x".repeat(2 * 1024 * 1024));
    assert!(
        SimModel::parse(&huge)
            .unwrap_err()
            .to_string()
            .contains("limit")
    );
    assert!(SimModel::parse("[1, 2]").is_err());
    assert!(
        SimModel::parse("roles: 3")
            .unwrap_err()
            .to_string()
            .contains("roles")
    );
    assert!(SimModel::parse("defaults: {pass: 0.5}\ndefaults: {pass: 0.6}\n").is_err());
}

#[test]
fn an_empty_model_is_the_documented_default() {
    let model = SimModel::parse("").unwrap();
    let e = model.resolve("reviewer", None, 1);
    assert_eq!(e.values, playbook_whatif::model::BUILTIN);
    assert!(e.sources.values().all(|s| s.is_default()));
}

#[test]
fn spelled_out_outcome_names_and_bare_durations_are_accepted() {
    let model = SimModel::parse(
        "defaults: {pass: 0.5, contract_violation: 0.1, tool_blocked: 0.1, agent_error: 0.1, duration: 30}",
    )
    .unwrap();
    let v = model.resolve("worker", None, 1).values;
    assert_eq!((v.violation, v.blocked_tool, v.error), (0.1, 0.1, 0.1));
    assert_eq!(v.duration, playbook_whatif::model::Duration::Fixed(30.0));
    // A bare duration has no `fixed` to point at.
    let e = refused("defaults: {duration: -5}");
    assert!(
        e.starts_with("/defaults/duration (line 1") && e.contains("the duration is -5"),
        "{e}"
    );
    assert!(refused("defaults: {duration: soon}").contains("/defaults/duration"));
    assert!(refused("defaults: {duration: {fixed: 1e309}}").contains("line 1"));
}

#[test]
fn a_huge_number_is_shown_short_in_its_refusal() {
    // Every numeric field of the model, each with a number far out of range:
    // the refusal says it in a few characters, not three hundred digits.
    for text in [
        "defaults: {pass: 1e300}",
        "defaults: {cost: 1e300}",
        "defaults: {duration: {fixed: 1e300}}",
        "defaults: {duration: {uniform: {min: 1e300, max: 1e301}}}",
        "defaults: {duration: {uniform: {min: 1e300, max: 1}}}",
        "defaults: {duration: {lognormal: {median: 1e300, sigma: 0.5}}}",
        "defaults: {duration: {lognormal: {median: 60, sigma: 1e300}}}",
        "defaults: {duration: {fixed: -1e300}}",
    ] {
        let e = refused(text);
        assert!(e.contains("e300") || e.contains("e301"), "{text}: {e}");
        assert!(!e.contains("0000000000"), "{text}: {e}");
    }
}

/// Every kind of refusal points at something the model's text holds (the
/// checker's own field names are mapped back to what the text writes) and
/// says where it is, whichever check found it: the reader, serde, the
/// model's own checks, or the checks against the playbook.
#[test]
fn every_refusal_points_at_what_the_model_writes() {
    let cases: &[(&str, &str)] = &[
        // The reader.
        (
            "defaults: {pass: 0.5}\ndefaults: {pass: 0.6}\n",
            "/defaults",
        ),
        ("defaults: !!map {pass: 0.5}\n", "/defaults"),
        ("defaults: {pass: [}\n", ""),
        // serde.
        ("surprise: 1\n", "/surprise"),
        ("defaults: {passs: 0.5}\n", "/defaults/passs"),
        ("defaults: {pass: \"0.5\"}\n", "/defaults/pass"),
        (
            "defaults: {duration: {gaussian: 3}}\n",
            "/defaults/duration",
        ),
        ("roles: 3\n", "/roles"),
        ("[1, 2]\n", ""),
        // The model's own checks.
        ("schema_version: 2.0.0\n", "/schema_version"),
        ("cost_unit: \"\"\n", "/cost_unit"),
        ("cost_unit: \"\\u001b[31mRED\\r\\n\"\n", "/cost_unit"),
        ("roles:\n  mode:boss: {pass: 0.5}\n", "/roles/mode:boss"),
        ("roles:\n  \"\": {pass: 0.5}\n", "/roles/"),
        ("defaults:\n  pass: 2\n", "/defaults/pass"),
        (
            "defaults:\n  contract_violation: 2\n",
            "/defaults/contract_violation",
        ),
        ("defaults:\n  tool_blocked: -1\n", "/defaults/tool_blocked"),
        ("defaults:\n  agent_error: 3\n", "/defaults/agent_error"),
        ("defaults:\n  pass: 0.9\n  agent_error: 0.2\n", "/defaults"),
        ("defaults:\n  cost: -1\n", "/defaults/cost"),
        ("defaults:\n  duration: -5\n", "/defaults/duration"),
        (
            "defaults:\n  duration: {fixed: -5}\n",
            "/defaults/duration/fixed",
        ),
        (
            "defaults:\n  duration: {uniform: {min: 5, max: 1}}\n",
            "/defaults/duration/uniform",
        ),
        (
            "defaults:\n  duration: {uniform: {min: -5, max: 1}}\n",
            "/defaults/duration/uniform/min",
        ),
        (
            "defaults:\n  duration: {lognormal: {median: 60, sigma: 99}}\n",
            "/defaults/duration/lognormal/sigma",
        ),
        (
            "roles:\n  reviewer:\n    iterations:\n      two: {pass: 0.5}\n",
            "/roles/reviewer/iterations/two",
        ),
        (
            "roles:\n  reviewer:\n    iterations:\n      2: {iterations: {3: {}}}\n",
            "/roles/reviewer/iterations/2/iterations",
        ),
        // Against the playbook.
        ("roles:\n  reveiwer: {pass: 0.5}\n", "/roles/reveiwer"),
        // Sums that only the layers together exceed: the most specific
        // entry that sets an outcome, the field when it sets only one.
        ("defaults: {pass: 0x1}\n", "/defaults/pass"),
        (
            "defaults: {error: 0.5}\nroles:\n  worker: {pass: 0.6}\n",
            "/roles/worker/pass",
        ),
        (
            "defaults: {error: 0.5}\nroles:\n  mode:worker: {pass: 0.6, violation: 0}\n",
            "/roles/mode:worker",
        ),
        (
            "roles:\n  reviewer:\n    pass: 0.5\n    iterations:\n      2: {agent_error: 0.3, tool_blocked: 0.2}\n",
            "/roles/reviewer/iterations/2",
        ),
        (
            "defaults:\n  iterations:\n    4: {pass: 0.97}\n",
            "/defaults/iterations/4/pass",
        ),
    ];
    for (text, pointer) in cases {
        let e = refusal(text);
        assert_eq!(e.pointer, *pointer, "{text:?}: {e}");
        let value = playbook_core::document::parse_value(text, playbook_core::Format::Yaml).ok();
        if let Some(value) = value {
            assert!(
                value.pointer(&e.pointer).is_some(),
                "{text:?}: `{}` is not in the model: {e}",
                e.pointer
            );
        }
        assert!(e.location.is_some(), "{text:?}: no line: {e}");
    }
}

#[test]
fn a_sum_made_by_defaults_says_where_each_value_comes_from() {
    let e = refusal("defaults: {pass: 0x1}\n");
    assert_eq!(e.location, Some((1, 12)), "{e}");
    for part in [
        "role `worker` at iteration 1",
        "sum to 1.0500",
        "pass 1 (from /defaults)",
        "violation 0.02 (built-in default)",
        "error 0.01 (built-in default)",
    ] {
        assert!(e.message.contains(part), "`{part}`: {e}");
    }
    assert!(e.hint.contains("`violation: 0`"), "{e}");
}

#[test]
fn model_text_cannot_reach_the_terminal_raw() {
    let e = refused("cost_unit: \"\\u001b[31mRED\\r\\nFAKE\"\n");
    assert!(e.contains("control or invisible character U+001B"), "{e}");
    assert!(refused("cost_unit: \"USD\\u202e\"\n").contains("U+202E"));
    // Keys are quoted in messages: escaped when shown.
    let e = refused("roles:\n  \"\\u001b[2Jx\": {pass: 0.5}\n");
    assert!(!e.contains('\u{1b}') && e.contains("\\u{1b}[2Jx"), "{e}");
}

#[test]
fn an_empty_or_shapeless_model_gets_a_model_hint() {
    for text in ["null\n", "~\n", "# nothing yet\n", "[1, 2]\n", "5\n"] {
        let e = refused(text);
        assert!(
            e.contains("docs/whatif.md") && !e.contains("playbook template"),
            "{text:?}: {e}"
        );
    }
    let e = refused("defaults: !!map {pass: 0.5}\n");
    assert!(!e.contains("playbook"), "{e}");
}

/// A stage and a role named like a credential are redacted in the run's
/// events: their calls are still counted where they happen, against their
/// bound; and a stage literally named as the redaction mark cannot be told
/// apart from such a stage, so the simulation refuses rather than charge
/// one stage's calls to the other.
#[test]
fn stages_and_roles_named_like_credentials_are_counted_where_they_run() {
    let token = "ghp_Zq8Wm2Xr4Tb6Yc8Vd0Ne2Mf4Lg6Kh8Ji0PaQ";
    let text = |other_stage: &str| {
        format!(
            "schema_version: \"1.0.0\"\nid: secretive\nname: Secretive\nworkflow:\n  {token}:\n    roles:\n      - name: {token}\n        mode: worker\n        \
             outputs_contract: {{ required: [summary] }}\n        handoff_to: [reviewer]\n      - name: reviewer\n        \
             mode: reviewer\n        outputs_contract: {{ required: [verdict, issues] }}\n        \
             gates: {{ pass_condition: review_passed }}\n        handoff_to: [{token}]\n        \
             retry_policy: {{ max_iterations: 3, escalate_on: [retry_limit] }}\n  {other_stage}:\n    roles:\n      \
             - name: tester\n        mode: tester\n        outputs_contract: {{ required: [failed_cases] }}\n"
        )
    };
    let playbook = playbook_orchestrator::load_playbook(&text("ship")).expect("valid");
    let report = crate::run(&playbook, "roles:\n  reviewer: {pass: 0}\n", 200, 7);
    let build = &report.stages[0];
    assert_eq!(build.calls.max, 6.0, "three rounds of two calls each");
    assert!(report.bound_violations.is_empty());
    let playbook = playbook_orchestrator::load_playbook(&text("'[REDACTED]'")).expect("valid");
    let model = SimModel::parse("{}").unwrap();
    let refused = playbook_whatif::whatif(
        &playbook,
        &model,
        &playbook_whatif::Options {
            runs: 10,
            ..Default::default()
        },
        &std::sync::atomic::AtomicBool::new(false),
        &|_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(refused.contains("cannot be told apart"), "{refused}");
}
