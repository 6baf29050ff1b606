//! Scope entries (`lock_scope`, `forbidden_scope`, a task's lock) compared
//! without case, for the Claude Code gate and the runner's gateway alike.
//!
//! On a case-insensitive file system (macOS's default, Windows) `src/Secret/z`
//! and `src/secret/z` are the same file: a path that differs from a
//! forbidden one only in case must be refused like it, or the file lands in
//! the forbidden folder. Where the comparison confines rather than allows
//! (a forbidden path, another task's lock), it is made without case, so the
//! refusal wins whatever the file system; an allowing scope (the task's own
//! `lock_scope`) stays exact, which can only refuse more. Case is folded by
//! Unicode's lowercase mapping, which covers ASCII and the accented letters
//! macOS folds too.

use crate::interop::claude_code::within;

/// Whether `path` lies in the scope entry `scope` (the file itself or a
/// folder above it: `src`, `src/`, `src/**`; `.` is everything), compared
/// without case.
pub fn within_any_case(path: &str, scope: &str) -> bool {
    within(&path.to_lowercase(), &scope.to_lowercase())
}

/// Whether writing `path` reaches the scope entry `scope`, compared without
/// case: `path` lies in it, or `path` is a folder that holds it (writing or
/// deleting `src` reaches `src/secret/`).
pub fn reaches_any_case(path: &str, scope: &str) -> bool {
    within_any_case(path, scope) || within_any_case(scope, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_reaches_a_scope_in_any_case_and_by_holding_it() {
        for path in ["src/secret/z", "src/Secret/z", "SRC/SECRET", "src", "Src/"] {
            assert!(reaches_any_case(path, "src/secret/"), "{path}");
        }
        assert!(within_any_case("src/SECRÉT/a", "src/secrét"));
        for path in ["src/secrets/z", "src/ok.rs", "srcx/secret/z", "docs"] {
            assert!(!reaches_any_case(path, "src/secret/"), "{path}");
        }
    }
}
