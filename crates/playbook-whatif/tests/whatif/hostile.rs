//! Hostile models give clear errors, never a panic or a silent default.

use playbook_whatif::SimModel;

use crate::review_loop;

fn refused(text: &str) -> String {
    match SimModel::parse(text) {
        Ok(model) => match model.check_against(&review_loop(3)) {
            Ok(()) => panic!("accepted: {text}"),
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    }
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
    assert!(refused("defaults: {duration: -5}").contains("/defaults/duration/fixed"));
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
