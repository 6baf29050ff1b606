//! The words of gate and loop decisions: what a role's output said and what
//! happens to the task next. Computed once, from the structured decision, and
//! carried in the events' `summary`, so the app's timeline and the CLI's
//! report and JSONL say the same thing.

use super::*;

/// Longest quote of an output value in a summary.
const QUOTE_CHARS: usize = 120;
/// Most gate variables shown when the output has no verdict.
const SHOWN_READS: usize = 3;

/// Where the task goes after a gate decision.
pub(super) enum Route<'a> {
    /// Forward to another role of the stage.
    HandOff(&'a str),
    /// Back to an earlier role, for the given round (of at most `of`).
    SentBack {
        to: &'a str,
        round: u32,
        of: Option<u32>,
    },
    /// Out of the stage; `next` is the next enabled stage, if any.
    LeaveStage {
        stage: &'a str,
        next: Option<&'a str>,
    },
    /// The round limit is reached; then `end`.
    RoundLimit { round: u32, of: u32, end: End },
    /// The task ends with `end`.
    Ends(End),
}

/// How a task ends when it cannot go on.
pub(super) enum End {
    /// Listed in `escalate_on`: a person decides.
    Escalated(&'static str),
    Failed(ErrorCode),
    Blocked(ErrorCode),
}

impl std::fmt::Display for End {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            End::Escalated(trigger) => write!(f, "escalated ({trigger}) for a person to decide"),
            End::Failed(code) => write!(f, "the task fails ({code})"),
            End::Blocked(code) => write!(f, "the task is blocked ({code})"),
        }
    }
}

impl std::fmt::Display for Route<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Route::HandOff(to) => write!(f, "on to {to}"),
            Route::SentBack { to, round, of } => match of {
                Some(n) => write!(f, "back to {to}, round {round} of {n}"),
                None => write!(f, "back to {to}, round {round}"),
            },
            Route::LeaveStage { stage, next } => match next {
                Some(next) => write!(f, "leaves stage {stage}, next stage {next}"),
                None => write!(f, "leaves stage {stage}, the last stage"),
            },
            Route::RoundLimit { round, of, end } => {
                write!(f, "round limit reached ({round} of {of}): {end}")
            }
            Route::Ends(end) => write!(f, "{end}"),
        }
    }
}

/// "reviewer: fail — 'The error message does not name the field'; back to
/// worker, round 3 of 3". `passed` says which way the gate went; `fields`
/// are the role's promised outputs, read from the task's values.
pub(super) fn gate_summary(
    owner: &str,
    gate: &Gate,
    passed: bool,
    values: &Map<String, Value>,
    fields: &[String],
    route: &Route<'_>,
) -> String {
    use std::fmt::Write;
    // Written into one buffer: a summary is made at every gate of every
    // step, and its pieces need no text of their own.
    let mut out = String::with_capacity(owner.len() + 96);
    out.push_str(owner);
    out.push_str(": ");
    write_output_said(&mut out, gate, passed, values, fields);
    let _ = write!(out, "; {route}");
    out
}

/// What the output said, in a few words: its verdict (or whether the gate
/// held, with the values it read) and, on failure, the first issue it gave.
pub(super) fn output_said(
    gate: &Gate,
    passed: bool,
    values: &Map<String, Value>,
    fields: &[String],
) -> String {
    let mut out = String::new();
    write_output_said(&mut out, gate, passed, values, fields);
    out
}

/// [`output_said`], appended to `out`.
fn write_output_said(
    out: &mut String,
    gate: &Gate,
    passed: bool,
    values: &Map<String, Value>,
    fields: &[String],
) {
    use std::fmt::Write;
    // Only a verdict this role promises: the task's values also hold
    // earlier roles' outputs, and a worker must not echo the reviewer's.
    let verdict = fields
        .iter()
        .any(|f| f == "verdict")
        .then(|| values.get("verdict"))
        .flatten()
        .and_then(Value::as_str)
        .filter(|v| !v.trim().is_empty());
    match verdict {
        Some(v) => out.push_str(&cut(v.trim(), 40)),
        None if gate.is_manual() => {
            let word = if passed { "approved" } else { "not approved" };
            let _ = write!(out, "`{}` {word}", cut(&gate.source, 80));
        }
        None => {
            let word = if passed { "holds" } else { "does not hold" };
            let _ = write!(out, "`{}` {word}", cut(&gate.source, 80));
            let shown = gate
                .reads()
                .filter_map(|name| values.get(name).map(|v| (name, v)))
                .take(SHOWN_READS);
            let mut any = false;
            for (name, v) in shown {
                out.push_str(if any { ", " } else { " (" });
                out.push_str(name);
                out.push_str(" = ");
                write_quote(out, v);
                any = true;
            }
            if any {
                out.push(')');
            }
        }
    }
    if !passed && let Some((first, more)) = first_issue(values, fields) {
        out.push_str(" — '");
        out.push_str(&first);
        out.push('\'');
        if more > 0 {
            let _ = write!(out, " (+{more} more)");
        }
    }
}

/// The first item of the first non-empty list among the promised outputs
/// (a reviewer's issues, a tester's failing cases), and how many follow it.
fn first_issue(values: &Map<String, Value>, fields: &[String]) -> Option<(String, usize)> {
    fields.iter().find_map(|f| match values.get(f) {
        Some(Value::Array(items)) if !items.is_empty() => {
            Some((item_text(&items[0]), items.len() - 1))
        }
        _ => None,
    })
}

/// An issue may be a string or an object with a message of some name.
fn item_text(item: &Value) -> String {
    match item {
        Value::String(s) => truncate(s.trim(), QUOTE_CHARS),
        Value::Object(o) => [
            "message",
            "title",
            "description",
            "summary",
            "detail",
            "text",
        ]
        .iter()
        .find_map(|k| o.get(*k).and_then(Value::as_str))
        .map(|s| truncate(s.trim(), QUOTE_CHARS))
        .unwrap_or_else(|| truncate(&item.to_string(), QUOTE_CHARS)),
        other => truncate(&other.to_string(), QUOTE_CHARS),
    }
}

/// A value as a summary shows it: short text quoted, lists and objects
/// by their size or kind.
fn write_quote(out: &mut String, value: &Value) {
    match value {
        Value::String(s) => {
            out.push('"');
            out.push_str(&cut(s, 40));
            out.push('"');
        }
        Value::Array(a) => {
            use std::fmt::Write;
            let _ = write!(out, "{} item(s)", a.len());
        }
        Value::Object(_) => out.push_str("an object"),
        other => out.push_str(&cut(&other.to_string(), 40)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn gate(text: &str) -> Gate {
        gate::compile(text, |_| None).expect("compiles")
    }

    fn values(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_failed_review_quotes_its_first_issue_and_says_where_the_task_goes() {
        let g = gate("verdict == \"pass\"");
        let v = values(json!({
            "verdict": "fail",
            "issues": ["The error message does not name the field", "No test"]
        }));
        let fields = vec!["verdict".to_string(), "issues".to_string()];
        let route = Route::SentBack {
            to: "worker",
            round: 3,
            of: Some(3),
        };
        let text = gate_summary("reviewer", &g, false, &v, &fields, &route);
        assert_eq!(
            text,
            "reviewer: fail — 'The error message does not name the field' (+1 more); \
             back to worker, round 3 of 3"
        );
    }

    #[test]
    fn without_a_verdict_the_values_the_gate_read_are_shown() {
        let g = gate("failed_cases == 0");
        let v = values(json!({"failed_cases": 2, "report": "x"}));
        let route = Route::RoundLimit {
            round: 3,
            of: 3,
            end: End::Escalated("retry_limit"),
        };
        let text = gate_summary("tester", &g, false, &v, &[], &route);
        assert!(
            text.contains("`failed_cases == 0` does not hold (failed_cases = 2)"),
            "{text}"
        );
        assert!(
            text.ends_with(
                "round limit reached (3 of 3): escalated (retry_limit) for a person to decide"
            ),
            "{text}"
        );
    }

    #[test]
    fn issues_of_any_shape_are_quoted_briefly_and_never_panic() {
        let g = gate("verdict == \"pass\"");
        for issue in [
            json!({"message": "m"}),
            json!({"other": 1}),
            json!(42),
            json!(null),
            json!("é".repeat(500)),
        ] {
            let v = values(json!({"verdict": "fail", "issues": [issue]}));
            let text = output_said(&g, false, &v, &["issues".into()]);
            assert!(text.chars().count() < 200, "{text}");
        }
        let passed = output_said(
            &g,
            true,
            &values(json!({"verdict": "pass", "issues": ["x"]})),
            &["verdict".into(), "issues".into()],
        );
        assert_eq!(passed, "pass");
    }

    #[test]
    fn a_verdict_of_an_earlier_role_is_not_this_roles_word() {
        let g = gate("failed_cases == 0");
        let v = values(json!({"verdict": "fail", "failed_cases": 0}));
        let text = output_said(&g, true, &v, &["failed_cases".into()]);
        assert_eq!(text, "`failed_cases == 0` holds (failed_cases = 0)");
    }

    #[test]
    fn leaving_a_stage_names_the_next_one_or_the_end() {
        let a = Route::LeaveStage {
            stage: "build",
            next: Some("test"),
        };
        assert_eq!(a.to_string(), "leaves stage build, next stage test");
        let b = Route::LeaveStage {
            stage: "test",
            next: None,
        };
        assert_eq!(b.to_string(), "leaves stage test, the last stage");
        assert_eq!(
            Route::Ends(End::Failed(ErrorCode::GateFailed)).to_string(),
            "the task fails (GATE_FAILED)"
        );
    }
}
