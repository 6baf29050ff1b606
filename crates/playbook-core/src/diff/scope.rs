//! Write scopes of a role: the `x_scope: {lock_scope, forbidden_scope}`
//! extension that the Claude Code gate hook enforces (docs/interop.md).
//! The diff reports each scope as its own field and judges a change the
//! way the gate reads scopes ([`crate::interop::claude_code::scope_entries`]
//! and `within`), so "widened" means "the gate now lets a write through that
//! it refused".

use serde_json::{Map, Value};

use crate::interop::claude_code::{SCOPE_KEY, scope_entries, within};

use super::{ChangeKind, Changes, field_change};

pub(super) const LOCK: &str = "lock_scope";
pub(super) const FORBIDDEN: &str = "forbidden_scope";

/// Reports the scope changes of role `name`: one change per key of
/// `x_scope` when both versions hold an object (or none), else one change
/// of the whole `x_scope`.
pub(super) fn changes(
    out: &mut Changes,
    name: &str,
    before: Option<&Value>,
    after: Option<&Value>,
    locate: impl Fn(&mut super::Change, &str),
) {
    if before == after {
        return;
    }
    fn object(v: Option<&Value>) -> Option<Option<&Map<String, Value>>> {
        v.map_or(Some(None), |v| v.as_object().map(Some))
    }
    let (Some(was), Some(now)) = (object(before), object(after)) else {
        let label = format!("{SCOPE_KEY} of {name}");
        if let Some(c) = field_change(
            out,
            ChangeKind::RoleFieldChanged,
            &label,
            before.cloned(),
            after.cloned(),
        ) {
            locate(c, SCOPE_KEY);
        }
        return;
    };
    let empty = Map::new();
    let (was, now) = (was.unwrap_or(&empty), now.unwrap_or(&empty));
    let mut keys: Vec<&String> = was.keys().chain(now.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let field = format!("{SCOPE_KEY}.{key}");
        let label = format!("{field} of {name}");
        if let Some(c) = field_change(
            out,
            ChangeKind::RoleFieldChanged,
            &label,
            was.get(key).cloned(),
            now.get(key).cloned(),
        ) {
            locate(c, &field);
        }
    }
}

/// The entries of scope `key` given as the value of that key alone (the
/// value of a `x_scope.<key>` change), `None` when the gate cannot read it.
fn entries_of_key(value: Option<&Value>, key: &str) -> Option<Vec<String>> {
    let mut scope = Map::new();
    if let Some(value) = value {
        scope.insert(key.to_string(), value.clone());
    }
    scope_entries(Some(&Value::Object(scope)), key)
}

/// Whether a change of `x_scope.lock_scope` lets a write through.
pub(super) fn lock_key_widened(before: Option<&Value>, after: Option<&Value>) -> bool {
    lock_widened(entries_of_key(before, LOCK), entries_of_key(after, LOCK))
}

/// Whether a change of `x_scope.forbidden_scope` lets a write through.
pub(super) fn forbidden_key_lost(before: Option<&Value>, after: Option<&Value>) -> bool {
    forbidden_lost(
        entries_of_key(before, FORBIDDEN),
        entries_of_key(after, FORBIDDEN),
    )
}

/// Whether a change of the whole `x_scope` lets a write through.
pub(super) fn whole_widened(before: Option<&Value>, after: Option<&Value>) -> bool {
    lock_widened(scope_entries(before, LOCK), scope_entries(after, LOCK))
        || forbidden_lost(
            scope_entries(before, FORBIDDEN),
            scope_entries(after, FORBIDDEN),
        )
}

/// A lock scope confines writes to its entries; an empty one confines
/// nothing, and an unreadable one (`None`) refuses every write. It widened
/// when some path it now allows was refused before: it was readable-less
/// and now reads, or it confined and now confines nothing, or an entry
/// lies outside every old entry (a new directory, a parent of an old one,
/// `/` or `**`).
fn lock_widened(before: Option<Vec<String>>, after: Option<Vec<String>>) -> bool {
    match (before, after) {
        (None, after) => after.is_some(),
        (Some(_), None) => false,
        (Some(before), Some(after)) => {
            !before.is_empty()
                && (after.is_empty()
                    || after
                        .iter()
                        .any(|a| !before.iter().any(|b| covers(b, a, false))))
        }
    }
}

/// A forbidden scope refuses writes to its entries (compared without case,
/// as the gate does); an unreadable one refuses every write. It lost ground
/// when some path it refused is no longer refused.
fn forbidden_lost(before: Option<Vec<String>>, after: Option<Vec<String>>) -> bool {
    match (before, after) {
        (None, after) => after.is_some(),
        (Some(_), None) => false,
        (Some(before), Some(after)) => before
            .iter()
            .any(|b| !after.iter().any(|a| covers(a, b, true))),
    }
}

/// Whether every path in scope entry `inner` lies in scope entry `outer`.
fn covers(outer: &str, inner: &str, without_case: bool) -> bool {
    let fold = |s: &str| {
        if without_case {
            s.to_ascii_lowercase()
        } else {
            s.to_string()
        }
    };
    // An entry as a path: the same trimming `within` gives a scope, so
    // `src/**`, `src/` and `src` are one directory and `/`, `**` and `.`
    // are everything (which only an everything-entry covers).
    let inner = fold(&inner.replace('\\', "/"));
    let inner = inner
        .trim_start_matches("./")
        .trim_end_matches("**")
        .trim_end_matches('/');
    let everything = inner.is_empty() || inner == ".";
    let outer = fold(outer);
    if everything {
        // Only an entry that is everything itself holds the empty path.
        return within("", &outer);
    }
    within(inner, &outer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn list(items: &[&str]) -> Option<Vec<String>> {
        Some(items.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn a_lock_scope_widens_when_it_lets_a_new_path_through() {
        for (before, after, widens) in [
            (list(&["src/"]), list(&["src/", "/"]), true),
            (list(&["src/"]), list(&["src/", "docs"]), true),
            (list(&["src/a"]), list(&["src"]), true),
            (list(&["src"]), list(&["**"]), true),
            (list(&["src"]), list(&[]), true),
            (list(&["src"]), None, false),
            (None, list(&["src"]), true),
            (list(&["src"]), list(&["src/a"]), false),
            (list(&["src/"]), list(&["src/**"]), false),
            (list(&[]), list(&["src"]), false),
            (list(&["/"]), list(&["src", "."]), false),
        ] {
            assert_eq!(
                lock_widened(before.clone(), after.clone()),
                widens,
                "{before:?} → {after:?}"
            );
        }
    }

    #[test]
    fn a_forbidden_scope_widens_when_a_refused_path_is_let_through() {
        for (before, after, widens) in [
            (list(&["secrets/"]), list(&[]), true),
            (list(&["secrets/"]), list(&["secrets/keys"]), true),
            (list(&["secrets/"]), list(&["SECRETS"]), false),
            (list(&["secrets/keys"]), list(&["secrets"]), false),
            (list(&["secrets"]), None, false),
            (None, list(&["secrets"]), true),
            (list(&[]), list(&["secrets"]), false),
        ] {
            assert_eq!(
                forbidden_lost(before.clone(), after.clone()),
                widens,
                "{before:?} → {after:?}"
            );
        }
    }

    #[test]
    fn values_are_read_as_the_gate_reads_them() {
        // One path as text is a list of one; a number is unreadable, which
        // refuses every write, so reading it after a list narrows.
        assert!(!lock_key_widened(
            Some(&json!(["src"])),
            Some(&json!("src"))
        ));
        assert!(!lock_key_widened(Some(&json!(["src"])), Some(&json!(3))));
        assert!(lock_key_widened(Some(&json!(3)), Some(&json!(["src"]))));
        assert!(lock_key_widened(Some(&json!(["src"])), None));
        assert!(whole_widened(Some(&json!("src")), None));
        assert!(!whole_widened(None, Some(&json!("src"))));
    }
}
