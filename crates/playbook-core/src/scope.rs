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

use crate::interop::claude_code::{scope_path, within};

/// Whether `path` lies in the scope entry `scope` (the file itself or a
/// folder above it: `src`, `src/`, `src/**`; `.` is everything), compared
/// without case.
pub fn within_any_case(path: &str, scope: &str) -> bool {
    within(&path.to_lowercase(), &scope.to_lowercase())
}

/// Whether `path` is a folder that holds the scope entry `scope` (deleting
/// `src` removes `src/secret/`, `./src/secret/**` alike), compared without
/// case.
pub fn holds_any_case(path: &str, scope: &str) -> bool {
    within(&scope_path(&scope.to_lowercase()), &path.to_lowercase())
}

/// Whether writing `path` reaches the scope entry `scope`, compared without
/// case: `path` lies in it, or `path` is a folder that holds it.
pub fn reaches_any_case(path: &str, scope: &str) -> bool {
    within_any_case(path, scope) || holds_any_case(path, scope)
}

/// Whether a path component would name git's own folder on some file
/// system: `.git` in any case, and the spellings macOS (code points HFS+
/// ignores) and Windows (trailing dots and spaces, the 8.3 name `git~1`)
/// treat as `.git` — the same names git itself refuses to check out. The
/// Claude Code gate and the runner's gateway both refuse such a path.
pub fn is_git_name(part: &str) -> bool {
    let ignorable = |c: char| matches!(c, '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}');
    let folded: String = part
        .chars()
        .filter(|c| !ignorable(*c))
        .collect::<String>()
        .trim_end_matches(['.', ' '])
        .to_ascii_lowercase();
    folded == ".git" || folded == "git~1"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_reaches_a_scope_in_any_case_and_by_holding_it() {
        for path in ["src/secret/z", "src/Secret/z", "SRC/SECRET", "src", "Src/"] {
            assert!(reaches_any_case(path, "src/secret/"), "{path}");
            assert!(reaches_any_case(path, "./src/secret/**"), "{path}");
        }
        assert!(within_any_case("src/SECRÉT/a", "src/secrét"));
        for path in ["src/secrets/z", "src/ok.rs", "srcx/secret/z", "docs"] {
            assert!(!reaches_any_case(path, "src/secret/"), "{path}");
        }
    }
}
