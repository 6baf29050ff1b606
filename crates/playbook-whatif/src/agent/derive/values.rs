//! Values of one field on either side of a boundary: the literal a field is
//! compared with and its nearest neighbours in that literal's own order.

use cel::common::ast::operators as op;
use serde_json::{Value, json};

use super::dedup_values;

/// Values of a field for which `field <op> c` is `truth`, the nearest
/// first: the literal itself, then one step across the boundary.
pub fn compared(op: &str, c: &Value, truth: bool) -> Vec<Value> {
    // Wanting it false is wanting the comparison that is true exactly then.
    let op = match (truth, op) {
        (true, op) => op,
        (false, op::EQUALS) => op::NOT_EQUALS,
        (false, op::NOT_EQUALS) => op::EQUALS,
        (false, op::LESS) => op::GREATER_EQUALS,
        (false, op::LESS_EQUALS) => op::GREATER,
        (false, op::GREATER) => op::LESS_EQUALS,
        (false, op::GREATER_EQUALS) => op::LESS,
        _ => return Vec::new(),
    };
    let mut out = match op {
        op::EQUALS => vec![c.clone()],
        op::NOT_EQUALS => others(c),
        op::LESS => below(c),
        op::LESS_EQUALS => [vec![c.clone()], below(c)].concat(),
        op::GREATER => above(c),
        op::GREATER_EQUALS => [vec![c.clone()], above(c)].concat(),
        _ => Vec::new(),
    };
    dedup_values(&mut out);
    out
}

/// Values just above `c` in its own order.
fn above(c: &Value) -> Vec<Value> {
    match c {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.checked_add(1).map(|v| vec![json!(v)]).unwrap_or_default()
            } else if let Some(i) = n.as_i64() {
                i.checked_add(1).map(|v| vec![json!(v)]).unwrap_or_default()
            } else {
                n.as_f64()
                    .map(|f| step(f, 1.0))
                    .filter(|f| f.is_finite())
                    .map(|f| vec![json!(f)])
                    .unwrap_or_default()
            }
        }
        // A text is below every longer text it starts.
        Value::String(s) => vec![json!(format!("{s}z"))],
        _ => Vec::new(),
    }
}

/// Values just below `c` in its own order.
fn below(c: &Value) -> Vec<Value> {
    match c {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.checked_sub(1).map(|v| vec![json!(v)]).unwrap_or_default()
            } else if n.is_u64() {
                // Above i64::MAX: one less is still a u64.
                n.as_u64().map(|u| vec![json!(u - 1)]).unwrap_or_default()
            } else {
                n.as_f64()
                    .map(|f| step(f, -1.0))
                    .filter(|f| f.is_finite())
                    .map(|f| vec![json!(f)])
                    .unwrap_or_default()
            }
        }
        Value::String(s) if !s.is_empty() => vec![json!("")],
        _ => Vec::new(),
    }
}

/// `f` moved by one, or by one representable step where one is lost in
/// its precision.
fn step(f: f64, by: f64) -> f64 {
    let moved = f + by;
    if moved != f {
        moved
    } else if by > 0.0 {
        f.next_up()
    } else {
        f.next_down()
    }
}

/// Values of the same kind as `c` that differ from it, plainest first.
fn others(c: &Value) -> Vec<Value> {
    match c {
        Value::Bool(b) => vec![json!(!b)],
        Value::Number(_) => [above(c), below(c)].concat(),
        Value::String(s) => {
            let mut out = Vec::new();
            if s != "fail" {
                out.push(json!("fail"));
            }
            out.push(json!(format!("not {s}")));
            if !s.is_empty() {
                out.push(json!(""));
            }
            out
        }
        Value::Array(a) if a.is_empty() => vec![json!(["simulated item"])],
        Value::Array(_) => vec![json!([])],
        Value::Object(o) if o.is_empty() => vec![json!({"simulated": true})],
        Value::Object(_) => vec![json!({})],
        Value::Null => vec![json!("simulated")],
    }
}

/// A value that is not in `list`, of the kind of its first element.
pub fn outside(list: &[Value]) -> Value {
    let numbers: Vec<f64> = list.iter().filter_map(Value::as_f64).collect();
    if !numbers.is_empty() && numbers.len() == list.len() {
        let max = numbers.iter().copied().fold(f64::MIN, f64::max);
        return match list.iter().all(|v| v.as_i64().is_some()) {
            true => json!(
                list.iter()
                    .filter_map(Value::as_i64)
                    .max()
                    .unwrap_or(0)
                    .saturating_add(1)
            ),
            false => json!(step(max, 1.0)),
        };
    }
    let mut text = String::from("not ");
    for v in list {
        if let Value::String(s) = v {
            text.push_str(s);
        }
    }
    json!(text)
}
