//! The reader against serde's derive: whatever the reader reads, the derive
//! reads the same; whatever passes the schema and the derive, the reader
//! reads itself (so validation never falls back to the slow path).

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::playbook;
use crate::document::{self, Format};
use crate::model::Playbook;
use crate::schema::residual;

fn derived(value: &Value) -> Option<Playbook> {
    serde_json::from_value(value.clone()).ok()
}

/// The two readings agree, and the reader with the residual schema check
/// says "schema-valid" exactly when the full validator does (for what the
/// derive reads). Returns whether the reader read it itself.
fn agree(name: &str, value: &Value) -> bool {
    let derived = derived(value);
    let valid = crate::schema::check_playbook(value).is_empty();
    match playbook(value) {
        Some(read) => {
            assert_eq!(
                Some(&read),
                derived.as_ref(),
                "{name}: the reader and the derive read differently"
            );
            assert_eq!(
                residual::holds(&read),
                valid,
                "{name}: the residual check and the full schema disagree: {value}"
            );
            true
        }
        None => {
            assert!(
                derived.is_none() || !valid,
                "{name}: the reader gave up on a schema-valid playbook the derive reads: {value}"
            );
            false
        }
    }
}

#[test]
fn every_document_of_the_repository_reads_the_same_both_ways() {
    let mut read = 0;
    for (name, text) in crate::locate::recorder_tests::corpus() {
        let Ok((mut value, _)) = document::parse_playbook(&text, Format::sniff(&text)) else {
            continue;
        };
        read += usize::from(agree(&name, &value));
        // As validation reads it: a legacy document after its rewrite.
        if crate::legacy::is_legacy(&value) {
            crate::legacy::read(&mut value, None);
            agree(&format!("{name} (as read)"), &value);
        }
    }
    assert!(read >= 40, "the reader read only {read} documents itself");
}

#[test]
fn the_examples_take_the_readers_path() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../playbooks");
    for file in ["tdd.yaml", "pairing.yaml", "compound-engineering.yaml"] {
        let text = std::fs::read_to_string(root.join(file)).expect("the example exists");
        let value = document::parse_value(&text, Format::Yaml).expect("the example parses");
        assert!(agree(file, &value), "{file} fell back to the derive");
    }
}

/// Shapes the reader must leave to the derive, one by one.
#[test]
fn edge_values_read_the_same_both_ways() {
    let base = || {
        json!({
            "$schema": "s", "schema": "not the $schema field", "id": "a", "name": "A",
            "workflow": {"build": {"roles": [{"name": "r", "x_note": {"k": [1, -2, 2.5]}}]}},
        })
    };
    let cases: Vec<(&str, Value)> = vec![
        ("max_iterations", json!(3)),
        ("max_iterations", json!(3.0)),
        ("max_iterations", json!(-1)),
        ("max_iterations", json!(4_294_967_296u64)),
        ("max_iterations", json!(4_294_967_295u64)),
        ("max_iterations", Value::Null),
        ("max_iterations", json!("3")),
        ("escalate_on", json!([])),
        ("escalate_on", json!(["a", null])),
        ("escalate_on", Value::Null),
        ("escalate_on", json!({"a": 1})),
    ];
    for (key, value) in cases {
        let mut document = base();
        document["workflow"]["build"]["roles"][0]["retry_policy"] = json!({ key: value });
        agree(&format!("{key}: {value}"), &document);
    }
    for mode in ["planner", "Planner", "tester", "", "critic"] {
        let mut document = base();
        document["workflow"]["build"]["roles"][0]["mode"] = json!(mode);
        agree(&format!("mode {mode}"), &document);
    }
    for missing in ["id", "name", "workflow"] {
        let mut document = base();
        document.as_object_mut().map(|o| o.shift_remove(missing));
        assert!(!agree(missing, &document), "{missing} is required");
    }
    let mut document = base();
    document["workflow"]["build"]["roles"] = json!([{"name": "r"}, null]);
    assert!(!agree("a null role", &document));
    assert!(agree("the base", &base()));
}

/// Every key the model knows, and some it does not.
const KEYS: &[&str] = &[
    "$schema",
    "schema",
    "schema_version",
    "id",
    "name",
    "description",
    "phases",
    "policies",
    "run_inputs",
    "mutating_actions",
    "workflow",
    "enabled",
    "roles",
    "stage_policy",
    "enter_gate",
    "exit_gate",
    "max_parallel_worktrees",
    "responsibilities",
    "allowed_agents",
    "suggested_prompt",
    "mode",
    "inputs_required",
    "outputs_contract",
    "actions_allowed",
    "gates",
    "handoff_to",
    "retry_policy",
    "completion_criteria",
    "type",
    "required",
    "requires_user_approval",
    "pass_condition",
    "escalate_on",
    "x_extension",
    "unknown",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (0u32..20).prop_map(Value::from),
        prop_oneof![Just(2.0), Just(0.5), Just(-1.0), Just(1e300)].prop_map(Value::from),
        prop_oneof![
            Just("planner"),
            Just("worker"),
            Just("Reviewer"),
            Just(""),
            Just("x == 1")
        ]
        .prop_map(Value::from),
    ]
}

fn node() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..4).prop_map(|entries| {
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

/// A change to a playbook: replace the node at the n-th pointer, add a key
/// to the n-th mapping, or remove the n-th mapping's first key.
#[derive(Debug, Clone)]
enum Change {
    Replace(usize, Value),
    Add(usize, &'static str, Value),
    Remove(usize),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (any::<usize>(), node()).prop_map(|(at, v)| Change::Replace(at, v)),
        (any::<usize>(), prop::sample::select(KEYS), node())
            .prop_map(|(at, k, v)| Change::Add(at, k, v)),
        any::<usize>().prop_map(Change::Remove),
    ]
}

fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                pointers(
                    child,
                    format!("{at}/{}", crate::finding::escape_pointer(key)),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                pointers(child, format!("{at}/{index}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

fn apply(value: &mut Value, change: Change) {
    let mut all = Vec::new();
    pointers(value, String::new(), &mut all);
    let pick = |n: usize, among: &[String]| among.get(n % among.len().max(1)).cloned();
    match change {
        Change::Replace(n, new) => {
            if let Some(node) = pick(n, &all).and_then(|p| value.pointer_mut(&p)) {
                *node = new;
            }
        }
        Change::Add(n, key, new) => {
            let objects: Vec<String> = all
                .into_iter()
                .filter(|p| value.pointer(p).is_some_and(Value::is_object))
                .collect();
            if let Some(Value::Object(map)) = pick(n, &objects).and_then(|p| value.pointer_mut(&p))
            {
                map.insert(key.to_string(), new);
            }
        }
        Change::Remove(n) => {
            let objects: Vec<String> = all
                .into_iter()
                .filter(|p| {
                    value
                        .pointer(p)
                        .is_some_and(|v| v.as_object().is_some_and(|o| !o.is_empty()))
                })
                .collect();
            if let Some(Value::Object(map)) = pick(n, &objects).and_then(|p| value.pointer_mut(&p))
                && let Some(first) = map.keys().next().cloned()
            {
                map.shift_remove(&first);
            }
        }
    }
}

fn example() -> Value {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../playbooks");
    let text = std::fs::read_to_string(root.join("tdd.yaml")).expect("tdd.yaml exists");
    document::parse_value(&text, Format::Yaml).expect("tdd.yaml parses")
}

const PLAYBOOK_KEYS: &[&str] = &[
    "$schema",
    "schema",
    "schema_version",
    "description",
    "phases",
    "policies",
    "run_inputs",
    "mutating_actions",
    "x_extension",
];
const STAGE_KEYS: &[&str] = &["enabled", "roles", "stage_policy", "unknown"];
const STAGE_POLICY_KEYS: &[&str] = &[
    "enter_gate",
    "exit_gate",
    "max_parallel_worktrees",
    "x_extension",
];
const ROLE_KEYS: &[&str] = &[
    "name",
    "responsibilities",
    "allowed_agents",
    "suggested_prompt",
    "mode",
    "inputs_required",
    "outputs_contract",
    "actions_allowed",
    "gates",
    "handoff_to",
    "retry_policy",
    "completion_criteria",
    "x_extension",
];

/// A value for the field `key`: mostly of the right shape, sometimes any.
fn field(key: &'static str) -> BoxedStrategy<Value> {
    prop_oneof![4 => good(key), 1 => node()].boxed()
}

/// A mapping of some of `keys`, each with a value for it.
fn fields(keys: &'static [&'static str]) -> BoxedStrategy<Value> {
    prop::collection::vec(
        prop::sample::select(keys).prop_flat_map(|key| field(key).prop_map(move |v| (key, v))),
        0..keys.len(),
    )
    .prop_map(|entries| {
        Value::Object(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    })
    .boxed()
}

fn words() -> BoxedStrategy<Value> {
    prop::collection::vec("[a-c]{0,2}", 0..3)
        .prop_map(Value::from)
        .boxed()
}

/// Text at the edges of the schema's lengths and patterns: ids, names and
/// versions.
fn edge_text() -> BoxedStrategy<Value> {
    prop_oneof![
        "[a-c]{1,3}",
        "[a-c]{1,3}",
        Just(String::new()),
        Just("a".repeat(200)),
        Just("a".repeat(201)),
        Just("é".repeat(200)),
        Just("é".repeat(201)),
        Just("1.0.0".to_string()),
        Just("1.0.0\n".to_string()),
        Just("1.0".to_string()),
        Just("١.0.0".to_string()),
        Just("10.20.30".to_string()),
        Just("..".to_string()),
        Just(".a".to_string()),
        Just(" a".to_string()),
        Just("a/b".to_string()),
        Just("a\u{200b}".to_string()),
        Just("a\u{feff}b".to_string()),
        Just("a b".to_string()),
        "[ -~]{0,4}",
        "\\PC{0,3}",
    ]
    .prop_map(Value::from)
    .boxed()
}

/// A value of the right shape for the field `key`.
fn good(key: &'static str) -> BoxedStrategy<Value> {
    match key {
        "workflow" => prop::collection::vec(("[a-c]", fields(STAGE_KEYS)), 0..3)
            .prop_map(|stages| Value::Object(stages.into_iter().collect()))
            .boxed(),
        "roles" => prop::collection::vec(
            (fields(ROLE_KEYS), edge_text()).prop_map(|(mut role, name)| {
                role.as_object_mut()
                    .map(|o| o.entry("name").or_insert(name));
                role
            }),
            0..3,
        )
        .prop_map(Value::Array)
        .boxed(),
        "stage_policy" => fields(STAGE_POLICY_KEYS),
        "outputs_contract" => fields(&["type", "required", "x_extension"]),
        "gates" => fields(&["requires_user_approval", "pass_condition", "x_extension"]),
        "retry_policy" => fields(&["max_iterations", "escalate_on", "x_extension"]),
        "policies" => prop::collection::vec(("[a-c]", "[a-c ]{0,3}"), 0..3)
            .prop_map(|p| Value::Object(p.into_iter().map(|(k, v)| (k, json!(v))).collect()))
            .boxed(),
        "phases" => prop::collection::vec(node(), 0..2)
            .prop_map(Value::Array)
            .boxed(),
        "enabled" | "requires_user_approval" => any::<bool>().prop_map(Value::Bool).boxed(),
        "max_parallel_worktrees" | "max_iterations" => prop_oneof![
            (0u64..20).prop_map(Value::from),
            (95u64..105).prop_map(Value::from),
            (250u64..260).prop_map(Value::from),
            Just(json!(4_294_967_295u64)),
            Just(json!(4_294_967_296u64)),
            Just(json!(3.0)),
            Just(json!(-3)),
        ]
        .boxed(),
        "mode" => prop::sample::select(&["planner", "worker", "reviewer", "tester", "Worker"][..])
            .prop_map(Value::from)
            .boxed(),
        "allowed_agents"
        | "inputs_required"
        | "actions_allowed"
        | "handoff_to"
        | "completion_criteria"
        | "required"
        | "escalate_on"
        | "run_inputs"
        | "mutating_actions" => words(),
        "x_extension" | "unknown" => node().boxed(),
        "id" | "name" | "schema_version" => edge_text(),
        _ => "[a-c]{0,3}".prop_map(Value::from).boxed(),
    }
}

/// A playbook-shaped document: every field of every level present or not,
/// each mostly of its type and sometimes of any other.
fn shaped() -> impl Strategy<Value = Value> {
    (
        prop::option::weighted(0.95, (edge_text(), edge_text())),
        prop::option::weighted(0.95, field("workflow")),
        fields(PLAYBOOK_KEYS),
    )
        .prop_map(|(id, workflow, mut document)| {
            if let Some(object) = document.as_object_mut() {
                if let Some((id, name)) = id {
                    object.insert("id".into(), id);
                    object.insert("name".into(), name);
                }
                if let Some(workflow) = workflow {
                    object.insert("workflow".into(), workflow);
                }
            }
            document
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Playbook-shaped documents, each field right or wrong.
    #[test]
    fn a_generated_playbook_reads_the_same_both_ways(value in shaped()) {
        agree("a generated playbook", &value);
    }

    /// An example playbook with one to three hostile changes anywhere.
    #[test]
    fn a_changed_playbook_reads_the_same_both_ways(changes in prop::collection::vec(change(), 1..4)) {
        let mut value = example();
        for change in changes {
            apply(&mut value, change);
        }
        agree("the changed example", &value);
    }

    /// Any value at all, playbook-shaped or not.
    #[test]
    fn any_value_reads_the_same_both_ways(value in node()) {
        agree("a generated value", &value);
    }
}

/// Every constraint of the generated schema beyond what the reader proves
/// (types, required fields, enums) is one the residual check runs.
#[test]
fn the_residual_check_covers_every_constraint_of_the_schema() {
    fn walk(schema: &Value, at: String, out: &mut Vec<String>) {
        let Some(object) = schema.as_object() else {
            return;
        };
        for (keyword, inner) in object {
            match keyword.as_str() {
                // What the reader proves, or annotations.
                "type" | "required" | "enum" | "$ref" | "$schema" | "$id" | "title"
                | "description" | "format" | "default" => {}
                "properties" | "$defs" => {
                    for (name, inner) in inner.as_object().into_iter().flatten() {
                        walk(inner, format!("{at}/{keyword}/{name}"), out);
                    }
                }
                // `true`, or a schema of the kept values (the reader checks them).
                "items" | "additionalProperties" if inner != &Value::Bool(false) => {
                    walk(inner, format!("{at}/{keyword}"), out);
                }
                _ => out.push(format!("{at} {keyword}")),
            }
        }
    }
    let schema = crate::schema::generate::<Playbook>("playbook.schema.json");
    let mut constrained = Vec::new();
    walk(&schema, String::new(), &mut constrained);
    assert!(!constrained.is_empty());
    for constraint in constrained {
        let pointer = constraint.split(' ').next().unwrap_or_default();
        assert!(
            residual::CHECKED.contains(&pointer),
            "`{constraint}` of the schema is not in the residual check"
        );
    }
}
