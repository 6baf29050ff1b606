//! The counted length must be exactly what `serde_json` writes, for every
//! form serde has, and the limit must hold at the byte.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::Serialize;
use serde_json::{Value, json};

use super::*;

/// The counted size of `value` equals `serde_json`'s compact text, and the
/// limit is exact: the size itself passes, one byte less does not.
fn agrees<T: Serialize + ?Sized>(value: &T) {
    let written = serde_json::to_vec(value)
        .expect("serde_json writes it")
        .len() as u64;
    assert_eq!(
        json_len_within(value, u64::MAX),
        Ok(written),
        "{}",
        String::from_utf8_lossy(&serde_json::to_vec(value).unwrap())
    );
    assert_eq!(json_len_within(value, written), Ok(written));
    if written > 0 {
        let over = json_len_within(value, written - 1).expect_err("one byte over");
        assert!(over >= written, "a lower bound past the limit: {over}");
    }
}

#[test]
fn measures_compact_json_and_stops_past_the_limit() {
    let value = json!({"a": [1, 2, 3], "b": "text"});
    let exact = serde_json::to_string(&value).unwrap().len() as u64;
    assert_eq!(json_len_within(&value, exact), Ok(exact));
    assert!(json_len_within(&value, exact - 1).is_err());
    let huge = Value::String("x".repeat(10_000));
    assert!(json_len_within(&huge, 100).unwrap_err() > 100);
}

#[test]
fn every_escape_and_number_form_counts_as_written() {
    let controls: String = (0u8..0x20).map(char::from).collect();
    agrees(&json!({
        "controls": controls,
        "quotes": "\"quoted\" \\ back/slash \u{7f}",
        "unicode": "é ü 漢字 🎉 \u{2028}",
        "numbers": [0, -1, 9, 10, 99, 100, u64::MAX, i64::MIN, i64::MAX, 1.5, -0.0, 1e300, 2.5e-8],
        "empty": {"a": [], "b": {}, "c": ""},
        "literals": [null, true, false],
        "deep": [[[[{"x": [{}]}]]]],
    }));
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize)]
struct Newtype(String);

#[derive(Serialize)]
struct Pair(u8, i32);

#[derive(Serialize)]
enum Kind {
    Plain,
    Wrapped(u32),
    Tuple(i8, String),
    Shaped { a: bool, b: Option<f32> },
}

#[derive(Serialize)]
struct Typed {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
    absent: Option<u8>,
    kinds: Vec<Kind>,
    unit: (),
    unit_struct: Unit,
    newtype: Newtype,
    pair: Pair,
    tuple: (u16, char, i128, u128),
    #[serde(with = "serde_bytes_as_seq")]
    bytes: Vec<u8>,
    numeric_keys: BTreeMap<i64, bool>,
    bool_keys: BTreeMap<bool, u8>,
    char_keys: BTreeMap<char, u8>,
    floats: Vec<f64>,
    #[serde(flatten)]
    extra: serde_json::Map<String, Value>,
}

/// Serialises bytes through `serialize_bytes`, which `serde_json` writes as
/// an array of numbers.
mod serde_bytes_as_seq {
    pub fn serialize<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytes)
    }
}

#[test]
fn typed_records_with_every_serde_form_count_as_written() {
    let mut extra = serde_json::Map::new();
    extra.insert("x_note".into(), json!({"tab\t": "new\nline"}));
    agrees(&Typed {
        id: "T-1".into(),
        skipped: None,
        absent: None,
        kinds: vec![
            Kind::Plain,
            Kind::Wrapped(7),
            Kind::Tuple(-3, "t\"".into()),
            Kind::Shaped {
                a: true,
                b: Some(0.1),
            },
            Kind::Shaped { a: false, b: None },
        ],
        unit: (),
        unit_struct: Unit,
        newtype: Newtype("n".into()),
        pair: Pair(255, -2_147_483_648),
        tuple: (65_535, '"', i128::MIN, u128::MAX),
        bytes: vec![0, 9, 10, 99, 100, 255],
        numeric_keys: [(-10, true), (0, false), (12_345, true)].into(),
        bool_keys: [(false, 1), (true, 2)].into(),
        char_keys: [('\n', 1), ('a', 2)].into(),
        floats: vec![
            f64::NAN,
            f64::INFINITY,
            0.3,
            123_456_789.0,
            f64::MIN_POSITIVE,
        ],
        extra,
    });
}

#[test]
fn the_engines_result_envelope_counts_as_written() {
    let result: crate::envelope::SubagentResult = serde_json::from_value(json!({
        "schema_version": "1.0.0",
        "run_id": "3b9c6f5e-4a8d-4c1e-9f2a-7d6e5c4b3a21",
        "task_id": "T-1",
        "status": "done",
        "changes": [{"resource": "src/a.rs", "action": "modified", "evidence": "diff\n+1"}],
        "acceptance_check": [{"criterion": "it works", "status": "pass", "evidence": "ran"}],
        "worklog_path": "worklogs/T-1.jsonl",
        "notes_for_orchestrator": ["a \"note\""],
        "x_extra": {"k": [1, 2.5]}
    }))
    .expect("a valid result");
    agrees(&result);
}

#[test]
fn a_map_key_serde_json_refuses_is_refused() {
    let keys: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into();
    assert!(serde_json::to_vec(&keys).is_err());
    assert!(json_len_within(&keys, u64::MAX).is_err());
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        any::<String>().prop_map(Value::String),
        "[\\x00-\\x1f\"\\\\a-z]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn any_json_value_counts_as_written(v in value()) {
        agrees(&v);
    }
}
