//! CEL's `matches`, with each pattern compiled once per thread.
//!
//! The `cel` crate's own `matches` compiles its pattern with `regex` on every
//! call. A preview evaluates a gate after every agent call and a what-if
//! simulation thousands of times more, so a gate like
//! `verdict.matches("^(pass|lgtm)$")` spent most of each evaluation
//! compiling the same pattern, and a pattern that is costly to compile
//! (`a{60000}`) took seconds per run. The meaning is the crate's: the same
//! `regex` crate with its default settings (RE2 syntax, unanchored search),
//! the same error for a pattern it refuses, both call forms.

use std::cell::RefCell;
use std::sync::Arc;

use cel::ExecutionError;
use cel::common::types::{CelBool, CelString};
use foldhash::{HashMap, HashMapExt};
use regex::Regex;

/// Patterns kept per thread; past this the cache starts again, so hostile
/// gates with ever new patterns cannot grow it without bound.
const KEPT: usize = 256;

thread_local! {
    static COMPILED: RefCell<HashMap<String, Result<Regex, String>>> =
        RefCell::new(HashMap::new());
}

fn matches(this: &CelString<'_>, re: &CelString<'_>) -> Result<CelBool, ExecutionError> {
    let pattern = re.inner();
    COMPILED.with(|compiled| {
        let mut compiled = compiled.borrow_mut();
        if !compiled.contains_key(pattern) {
            if compiled.len() >= KEPT {
                compiled.clear();
            }
            let regex = Regex::new(pattern).map_err(|e| e.to_string());
            compiled.insert(pattern.to_string(), regex);
        }
        match &compiled[pattern] {
            Ok(regex) => Ok(CelBool::from(regex.is_match(this.inner()))),
            Err(error) => Err(ExecutionError::FunctionError {
                function: "matches".to_string(),
                message: format!("'{pattern}' not a valid regex:\n{error}"),
            }),
        }
    })
}

/// The standard environment with `matches` as `matches(text, re)` and
/// `text.matches(re)`.
pub(super) fn environment() -> Arc<cel::Env> {
    let mut env = cel::Env::stdlib();
    cel::add_overload!(env, fn matches: (CelString, CelString) -> Result<CelBool>, id = "matches")
        .expect("the standard environment without the regex feature has no `matches`");
    cel::add_member_overload!(env, fn matches: (CelString, CelString) -> Result<CelBool>)
        .expect("the standard environment without the regex feature has no `string.matches`");
    Arc::new(env)
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use crate::gate::{Verdict, compile};

    fn verdict(gate: &str, output: Value) -> Option<Verdict> {
        let vars: Map<String, Value> = output.as_object().cloned().unwrap_or_default();
        compile(gate, |_| None).expect("compiles").evaluate(&vars)
    }

    #[test]
    fn both_forms_match_as_regex_does_unanchored() {
        for gate in [
            r#"verdict.matches("^(pass|lgtm)$")"#,
            r#"matches(verdict, "^(pass|lgtm)$")"#,
        ] {
            assert_eq!(
                verdict(gate, json!({"verdict": "lgtm"})),
                Some(Verdict::Pass)
            );
            assert_eq!(
                verdict(gate, json!({"verdict": "lgtm!"})),
                Some(Verdict::Fail)
            );
        }
        // Unanchored, as RE2's (and the `cel` crate's) `matches`.
        let gate = r#"summary.matches("green")"#;
        assert_eq!(
            verdict(gate, json!({"summary": "all green now"})),
            Some(Verdict::Pass)
        );
        // Under `!` and `&&`, many times: the compiled pattern is reused.
        let gate = r#"!verdict.matches("^re(work|ject)") && size(issues) == 0"#;
        for _ in 0..1000 {
            assert_eq!(
                verdict(gate, json!({"verdict": "pass", "issues": []})),
                Some(Verdict::Pass)
            );
        }
    }

    #[test]
    fn a_pattern_regex_refuses_fails_the_gate_with_the_reason_every_time() {
        for _ in 0..2 {
            let Some(Verdict::Error(why)) = verdict(r#"v.matches("(")"#, json!({"v": "x"})) else {
                panic!("an invalid pattern fails the gate");
            };
            assert!(why.contains("not a valid regex"), "{why}");
        }
    }

    #[test]
    fn the_cache_is_bounded() {
        for i in 0..(super::KEPT * 3) {
            let gate = format!(r#"v.matches("^{i}$")"#);
            assert_eq!(
                verdict(&gate, json!({"v": i.to_string()})),
                Some(Verdict::Pass)
            );
        }
        super::COMPILED.with(|c| assert!(c.borrow().len() <= super::KEPT));
    }
}
