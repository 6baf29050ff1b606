//! Old value → new value as edit operations, so that a caller holding a
//! whole new document changes only what differs.
//!
//! Mappings are compared key by key (kept keys keep their place in the
//! text; new keys are added at the end). Sequences keep their common
//! prefix and suffix, pair up the middle item by item and remove or insert
//! the rest, so deleting one role in the middle is one removal.

use serde_json::{Map, Value};

use super::Op;
use crate::finding::escape_pointer;

/// The operations that turn `old` into `new`, in the order to apply them.
pub fn diff(old: &Value, new: &Value) -> Vec<Op> {
    diff_within(old, new, usize::MAX)
}

/// Like [`diff`], but a value deeper than `depth` that differs is replaced
/// whole: fewer, larger operations, for edits that change a lot.
pub fn diff_within(old: &Value, new: &Value, depth: usize) -> Vec<Op> {
    let mut ops = Vec::new();
    walk(old, new, "", depth, &mut ops);
    ops
}

fn walk(old: &Value, new: &Value, path: &str, depth: usize, ops: &mut Vec<Op>) {
    if identical(old, new) {
        return;
    }
    if depth == 0 {
        ops.push(Op::Replace {
            path: path.to_string(),
            value: new.clone(),
        });
        return;
    }
    let depth = depth - 1;
    match (old, new) {
        (Value::Object(a), Value::Object(b)) if renamed_in_place(a, b) => {
            for ((from, _), (to, _)) in a.iter().zip(b).filter(|((ka, _), (kb, _))| ka != kb) {
                ops.push(Op::Rename {
                    path: child(path, from),
                    to: to.clone(),
                });
            }
            for ((_, before), (key, value)) in a.iter().zip(b) {
                walk(before, value, &child(path, key), depth, ops);
            }
        }
        (Value::Object(a), Value::Object(b))
            if !a.is_empty() && !b.is_empty() && keeps_order(a, b) =>
        {
            for key in a.keys().filter(|k| !b.contains_key(*k)) {
                ops.push(Op::Remove {
                    path: child(path, key),
                });
            }
            for (key, value) in b {
                match a.get(key) {
                    Some(before) => walk(before, value, &child(path, key), depth, ops),
                    None => ops.push(Op::Add {
                        path: child(path, key),
                        value: value.clone(),
                    }),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if !a.is_empty() && !b.is_empty() => {
            sequence(a, b, path, depth, ops);
        }
        _ => ops.push(Op::Replace {
            path: path.to_string(),
            value: new.clone(),
        }),
    }
}

/// Whether `b` keeps the order of the keys it shares with `a` and puts its
/// new keys after them, as adding keys at the end does. Order means
/// something (stages run in the order of `workflow`), so a reordered
/// mapping is replaced whole rather than edited key by key.
fn keeps_order(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    let shared_a = a.keys().filter(|k| b.contains_key(*k));
    let shared_b = b.keys().filter(|k| a.contains_key(*k));
    if !shared_a.eq(shared_b) {
        return false;
    }
    // After the first new key, no shared key may come.
    let mut seen_new = false;
    b.keys().all(|k| {
        if a.contains_key(k) {
            !seen_new
        } else {
            seen_new = true;
            true
        }
    })
}

/// Whether `b` is `a` with some keys renamed where they stand, values
/// unchanged (a quick fix's "Rename to `x_owner`" in the app): then each is
/// one rename, which keeps the entry's place and comment, not a removal
/// and an addition at the end.
fn renamed_in_place(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    let mut renamed = false;
    a.len() == b.len()
        && a.iter().zip(b).all(|((ka, va), (kb, vb))| {
            if ka == kb {
                return true;
            }
            renamed = true;
            !b.contains_key(ka) && !a.contains_key(kb) && identical(va, vb)
        })
        && renamed
}

/// Deep equality that also compares the order of mapping keys (the
/// `Value` equality of `serde_json` does not).
pub(super) fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && identical(vx, vy))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(vx, vy)| identical(vx, vy))
        }
        _ => a == b,
    }
}

fn sequence(a: &[Value], b: &[Value], path: &str, depth: usize, ops: &mut Vec<Op>) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| identical(x, y)).count();
    let rest = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(rest)
        .take_while(|(x, y)| identical(x, y))
        .count();
    let old_middle = &a[prefix..a.len() - suffix];
    let new_middle = &b[prefix..b.len() - suffix];
    let paired = old_middle.len().min(new_middle.len());
    for i in 0..paired {
        walk(
            &old_middle[i],
            &new_middle[i],
            &child(path, &(prefix + i).to_string()),
            depth,
            ops,
        );
    }
    // Removals from the back, so earlier indices stay valid.
    for i in (paired..old_middle.len()).rev() {
        ops.push(Op::Remove {
            path: child(path, &(prefix + i).to_string()),
        });
    }
    for (i, value) in new_middle.iter().enumerate().skip(paired) {
        ops.push(Op::Add {
            path: child(path, &(prefix + i).to_string()),
            value: value.clone(),
        });
    }
}

fn child(path: &str, token: &str) -> String {
    format!("{path}/{}", escape_pointer(token))
}
