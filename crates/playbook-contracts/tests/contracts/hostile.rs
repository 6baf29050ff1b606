//! Hostile payloads: random and mutated JSON of every shape through every
//! envelope's check and through recognition. Nothing panics, every answer is
//! bounded, and a valid document stays valid when only `x_` keys are added.

use playbook_contracts::EnvelopeKind;
use serde_json::{Map, Value, json};

use crate::fixture;
use crate::timestamps::{handoff_bundle, orchestrator_output, worklog_entry};

const STRINGS: &[&str] = &[
    "",
    " ",
    "\u{0}",
    "\u{202e}evil",
    "T-1",
    "T-",
    "done",
    "pass",
    "BANANA",
    "AGENT_BLOCKED",
    "2026-05-01T12:00:00Z",
    "2026-05-01T12:00:60Z",
    "9999-12-31T23:59:59.999999999Z",
    "3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4",
    "1.0.0",
    "x_",
    "~1/~0",
];

fn random_value(rng: &mut fastrand::Rng, depth: usize) -> Value {
    match rng.u8(..if depth > 6 { 5 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.bool()),
        2 => json!(rng.i64(..)),
        3 => json!(rng.u64(..)),
        4 => json!(STRINGS[rng.usize(..STRINGS.len())]),
        5 => json!(rng.f64() * 1e300),
        6 => Value::Array(
            (0..rng.usize(..4))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
        _ => {
            let mut object = Map::new();
            for _ in 0..rng.usize(..5) {
                let key = [
                    "status",
                    "code",
                    "task_id",
                    "timestamp",
                    "x_a",
                    "evidence",
                    "z",
                ][rng.usize(..7)];
                object.insert(key.into(), random_value(rng, depth + 1));
            }
            Value::Object(object)
        }
    }
}

/// Replaces one random node of `value` with a random value.
fn mutate(rng: &mut fastrand::Rng, value: &mut Value) {
    match value {
        Value::Object(object) if !object.is_empty() && rng.u8(..4) != 0 => {
            let keys: Vec<String> = object.keys().cloned().collect();
            let key = &keys[rng.usize(..keys.len())];
            if let Some(child) = object.get_mut(key) {
                mutate(rng, child);
            }
        }
        Value::Array(items) if !items.is_empty() && rng.u8(..4) != 0 => {
            let i = rng.usize(..items.len());
            mutate(rng, &mut items[i]);
        }
        _ => *value = random_value(rng, 0),
    }
}

fn bases() -> Vec<Value> {
    vec![
        fixture("assignment-packet"),
        fixture("subagent-result"),
        fixture("director-task"),
        fixture("associate-result"),
        fixture("role-assignment-request"),
        fixture("role-assignment-response"),
        worklog_entry(),
        orchestrator_output(),
        handoff_bundle(),
        json!({"allow": true, "code": "OK", "reason": "ok"}),
    ]
}

#[test]
fn random_and_mutated_payloads_never_panic_and_get_bounded_answers() {
    let mut rng = fastrand::Rng::with_seed(11);
    let bases = bases();
    for round in 0..3_000 {
        let mut value = bases[round % bases.len()].clone();
        for _ in 0..1 + rng.usize(..3) {
            mutate(&mut rng, &mut value);
        }
        if round % 7 == 0 {
            value = random_value(&mut rng, 0);
        }
        let _ = EnvelopeKind::recognise(&value);
        for kind in EnvelopeKind::ALL {
            for strict in [false, true] {
                let violations = kind.check(&value, strict);
                assert!(
                    violations.len() <= 101,
                    "{}: {}",
                    kind.name(),
                    violations.len()
                );
                assert!(violations.iter().all(|v| v.message.chars().count() <= 400));
            }
        }
    }
}

/// The role assignment response is the exception: its contract allows no
/// additional key at all (callers ignore them; strict mode refuses them).
#[test]
fn x_keys_never_make_a_valid_envelope_invalid() {
    for value in bases() {
        let (kind, _) = EnvelopeKind::recognise(&value).unwrap();
        if kind == EnvelopeKind::RoleAssignmentResponse {
            continue;
        }
        let mut extended = value.clone();
        extended["x_anything"] = json!({"nested": [1, 2, {"deep": "BANANA"}]});
        assert!(kind.check(&extended, true).is_empty(), "{}", kind.name());
    }
}

#[test]
fn deep_nesting_inside_free_form_values_is_accepted_without_recursion_trouble() {
    let mut deep = json!("leaf");
    for _ in 0..100 {
        deep = json!([deep]);
    }
    let mut value = json!({"allow": false, "code": "VALIDATION_FAILED", "reason": "r"});
    value["details"] = json!({ "deep": deep });
    assert!(EnvelopeKind::ValidatorOutput.check(&value, true).is_empty());
}

#[test]
fn a_value_quoted_in_a_violation_is_redacted_before_the_message_is_cut() {
    // The validator quotes the offending value and the message is cut to
    // 300 characters: a token split by that cut must not keep a piece the
    // records' redaction would no longer see.
    let token = "ghp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo";
    let pieces: Vec<&str> = (0..=token.len() - 8).map(|i| &token[i..i + 8]).collect();
    let mut value = fixture("subagent-result");
    for pad in 240..310 {
        value["status"] = json!(format!("{} {token}", "x".repeat(pad)));
        let violations =
            playbook_contracts::parse::<playbook_contracts::SubagentResult>(&value, true)
                .expect_err("an unknown status is refused");
        for v in &violations {
            let piece = pieces.iter().find(|p| v.message.contains(*p));
            assert!(piece.is_none(), "{pad}: {piece:?} in {}", v.message);
        }
    }
}
