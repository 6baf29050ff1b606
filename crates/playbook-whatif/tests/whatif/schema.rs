//! The published model schema and the tool agree: an editor that validates
//! a model against schemas/whatif-model.schema.json accepts what
//! `playbook whatif` reads and flags what it refuses. Each document is read
//! by the tool's own reader, then given to an independent validator and to
//! `SimModel::parse`. The rules a JSON Schema cannot state (src/model/check.rs)
//! are listed apart: the schema accepts those documents and the tool
//! refuses them, for the reason given.

use playbook_whatif::SimModel;

/// Models both accept.
const VALID: &[&str] = &[
    "defaults: {pass: 0.5}",
    "$schema: ../schemas/whatif-model.schema.json\nschema_version: 1.0.0\nname: team\ndescription: our team\ncost_unit: USD\n",
    "schema_version: '1.12.300'",
    // The documented aliases, alone or together.
    "defaults: {pass: 0.5, contract_violation: 0.1}",
    "defaults: {tool_blocked: 0.1, agent_error: 0.1, needs_input: 0.1}",
    "defaults: {violation: 0, blocked_tool: 0, error: 0}",
    // Iteration keys at both ends; an override may write `iterations: null`.
    "defaults: {iterations: {1: {pass: 0.5}, 10000: {pass: 0.9}}}",
    "roles:\n  worker: {iterations: {2: {pass: 0.8, iterations: null}}}\n",
    "roles:\n  mode:reviewer: {pass: 0.6}\n  mode:planner: {}\n  anyone: {pass: 1}\n",
    // Durations and costs at the ends of their ranges.
    "defaults: {duration: 0, cost: 0}",
    "defaults: {duration: 1e7, cost: 1e12}",
    "defaults: {duration: {fixed: 60}}",
    "defaults: {duration: {uniform: {min: 5, max: 5}}}",
    "defaults: {duration: {lognormal: {median: 90, sigma: 10}}}",
    "cost_unit: \"US dollars, of the current year\"",
    "cost_unit: ' € '",
    // Nulls read as absent.
    "defaults: null",
    "defaults: {pass: null, duration: null, cost: null, iterations: null}",
    "cost_unit: null\nschema_version: null",
    "{}",
];

/// Models both refuse.
const INVALID: &[&str] = &[
    // A field under its name and its alias: serde's duplicate field.
    "defaults: {violation: 0.1, contract_violation: 0.1}",
    "defaults: {blocked_tool: 0.1, tool_blocked: 0.1}",
    "defaults: {error: 0.1, agent_error: 0.1}",
    "schema_version: '1.x'",
    "schema_version: '1.0'",
    "schema_version: '1.0.0.0'",
    "schema_version: '2.0.0'",
    "schema_version: '1.0.0-rc1'",
    "schema_version: ' 1.0.0'",
    // Iteration keys: zero, a sign, a leading zero, too high, text, space.
    "defaults: {iterations: {'0': {pass: 0.5}}}",
    "defaults: {iterations: {'-1': {pass: 0.5}}}",
    "defaults: {iterations: {'01': {pass: 0.5}}}",
    "defaults: {iterations: {'+2': {pass: 0.5}}}",
    "defaults: {iterations: {10001: {pass: 0.5}}}",
    "defaults: {iterations: {second: {pass: 0.5}}}",
    "defaults: {iterations: {' 2': {pass: 0.5}}}",
    "defaults: {iterations: {2: {iterations: {3: {pass: 1}}}}}",
    "roles:\n  worker: {iterations: {2: {iterations: {}}}}\n",
    // Ranges.
    "defaults: {pass: 1.5}",
    "defaults: {error: -0.1}",
    "defaults: {duration: -5}",
    "defaults: {duration: 10000001}",
    "defaults: {duration: {fixed: -1}}",
    "defaults: {duration: {uniform: {min: -1, max: 5}}}",
    "defaults: {duration: {uniform: {min: 1, max: 2e7}}}",
    "defaults: {duration: {lognormal: {median: 2e7, sigma: 1}}}",
    "defaults: {duration: {lognormal: {median: 1, sigma: 10.5}}}",
    "defaults: {duration: {lognormal: {median: 1, sigma: -1}}}",
    "defaults: {cost: -1}",
    "defaults: {cost: 2e12}",
    // Shapes.
    "defaults: {duration: '60'}",
    "defaults: {duration: {fixed: 1, uniform: {min: 1, max: 2}}}",
    "defaults: {duration: {fixed: 1, extra: 2}}",
    "defaults: {passs: 0.5}",
    "colour: blue",
    "roles: null",
    "roles: [worker]",
    "name: 5",
    // Role keys: a mode that is none, blank keys.
    "roles:\n  mode:boss: {pass: 0.5}\n",
    "roles:\n  'mode:': {pass: 0.5}\n",
    "roles:\n  'mode:worker ': {pass: 0.5}\n",
    "roles:\n  '': {pass: 0.5}\n",
    "roles:\n  '   ': {pass: 0.5}\n",
    // Cost units: empty, blank, too long, control or invisible characters.
    "cost_unit: ''",
    "cost_unit: '   '",
    "cost_unit: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "cost_unit: \"\\e[31mUSD\"",
    "cost_unit: \"US\\nD\"",
    "cost_unit: \"USD\\u202e\"",
    "cost_unit: \"\\u200bUSD\"",
    "cost_unit: \"U\\u0085SD\"",
];

/// Models the schema accepts and the tool refuses: rules a JSON Schema
/// cannot state, each with what the tool's refusal says.
const TOOL_ONLY: &[(&str, &str)] = &[
    (
        "defaults: {pass: 0.9, violation: 0.9}",
        "sum to 1.8000; the sum must be at most 1",
    ),
    (
        "roles:\n  worker: {iterations: {2: {pass: 0.5, needs_input: 0.6}}}\n",
        "sum to 1.1000",
    ),
    (
        "defaults: {duration: {uniform: {min: 9, max: 1}}}",
        "`min` 9 is above `max` 1",
    ),
    (
        "cost_unit: ghp_1234567890abcdefghijABCDEFGHIJ123456",
        "reads as a credential",
    ),
];

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&playbook_whatif::schema().schema).expect("the schema compiles")
}

/// The document as the tool's reader gives it to serde.
fn read(text: &str) -> serde_json::Value {
    playbook_core::document::parse_value(text, playbook_core::Format::Yaml)
        .unwrap_or_else(|e| panic!("{text:?} is a readable document: {}", e.message))
}

#[test]
fn the_published_schema_and_the_tool_agree_on_every_document() {
    let schema = validator();
    let mut disagreements = Vec::new();
    for (texts, expected) in [(VALID, true), (INVALID, false)] {
        for text in texts {
            let by_schema = schema.is_valid(&read(text));
            let by_tool = SimModel::parse(text);
            if by_schema != expected || by_tool.is_ok() != expected {
                disagreements.push(format!(
                    "{text:?}: expected {}, schema {}, tool {}",
                    if expected { "valid" } else { "invalid" },
                    if by_schema { "accepts" } else { "refuses" },
                    match &by_tool {
                        Ok(_) => "accepts".to_string(),
                        Err(e) => format!("refuses ({e})"),
                    }
                ));
            }
        }
    }
    for (text, says) in TOOL_ONLY {
        let by_schema = schema.is_valid(&read(text));
        match SimModel::parse(text) {
            Err(e) if by_schema && e.to_string().contains(says) => {}
            other => disagreements.push(format!(
                "{text:?}: expected the schema to accept ({by_schema}) and the tool to refuse with {says:?}: {other:?}"
            )),
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn entry_counts_are_limited_alike() {
    let schema = validator();
    let roles = |n: usize| {
        let mut text = String::from("roles:\n");
        for i in 0..n {
            text.push_str(&format!("  r{i}: {{}}\n"));
        }
        text
    };
    let at_limit = roles(playbook_whatif::model::MAX_ENTRIES);
    assert!(schema.is_valid(&read(&at_limit)));
    assert!(SimModel::parse(&at_limit).is_ok());
    let above = roles(playbook_whatif::model::MAX_ENTRIES + 1);
    assert!(!schema.is_valid(&read(&above)));
    assert!(SimModel::parse(&above).is_err());
}

#[test]
fn the_docs_example_model_is_valid_for_both() {
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/whatif.md"),
    )
    .unwrap();
    let start = docs
        .find("```yaml\n$schema: ../schemas/whatif-model.schema.json")
        .expect("the example")
        + "```yaml\n".len();
    let example = &docs[start..start + docs[start..].find("```").unwrap()];
    assert!(validator().is_valid(&read(example)), "{example}");
    SimModel::parse(example).unwrap();
}
