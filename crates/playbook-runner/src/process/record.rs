//! What the run keeps of each agent process: how it ended, how long it
//! took, and which model and how much of it the agent used when it says so
//! (Claude Code's JSON output does; a protocol answer may name its `model`).

use serde::Serialize;
use serde_json::Value;

use super::OutputForm;

/// One line of the run's `invocations.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvocationRecord {
    pub task_id: String,
    pub role: String,
    pub iteration: u32,
    /// The program started (the first element of the command line).
    pub program: String,
    /// Wall-clock start, milliseconds since the Unix epoch.
    pub started_at_ms: u64,
    pub duration_ms: u64,
    /// How the process ended, in words: `exited with status 0`, `killed:
    /// time budget`, `killed: silent`, `killed: stopped`, `killed: ended by
    /// the run`, `did not start`.
    pub ended: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    pub stdout_bytes: usize,
    pub stderr_bytes: usize,
    #[serde(flatten)]
    pub usage: Usage,
}

/// Model and consumption, as far as the agent reports them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Usage {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
}

/// Longest model name kept: a name is an identifier, not a message.
const MODEL_MAX: usize = 200;

fn model_name(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty() && text.len() <= MODEL_MAX && !text.chars().any(char::is_control))
        .then(|| text.to_string())
}

/// Reads what an answer says about its model and consumption. Never fails:
/// an agent that reports nothing, or something malformed, has no usage.
pub fn read_usage(form: OutputForm, stdout: &str, result_file: Option<&str>) -> Usage {
    match form {
        OutputForm::ClaudeJson => {
            let Ok(value) = serde_json::from_str::<Value>(stdout.trim()) else {
                return Usage::default();
            };
            // `modelUsage` is keyed by model id; several when Claude Code
            // used a small model for its own chores.
            let models: Vec<&str> = value
                .get("modelUsage")
                .and_then(Value::as_object)
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let model = if models.is_empty() {
                value
                    .get("model")
                    .and_then(Value::as_str)
                    .and_then(model_name)
            } else {
                model_name(&models.join(", "))
            };
            let usage = value.get("usage");
            let tokens = |key: &str| usage.and_then(|u| u.get(key)).and_then(Value::as_u64);
            Usage {
                model,
                cost_usd: value
                    .get("total_cost_usd")
                    .and_then(Value::as_f64)
                    .filter(|c| c.is_finite() && *c >= 0.0),
                input_tokens: tokens("input_tokens"),
                output_tokens: tokens("output_tokens"),
            }
        }
        OutputForm::Protocol | OutputForm::Text => {
            let primary = result_file
                .filter(|t| !t.trim().is_empty())
                .unwrap_or(stdout);
            let model = super::answer::find_object(primary)
                .as_ref()
                .and_then(|v| v.get("model"))
                .and_then(Value::as_str)
                .and_then(model_name);
            Usage {
                model,
                ..Usage::default()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_reports_model_cost_and_tokens() {
        let out = r#"{"type":"result","is_error":false,"result":"{}","total_cost_usd":0.0123,
            "usage":{"input_tokens":1200,"output_tokens":345},
            "modelUsage":{"claude-sonnet-4-5":{"inputTokens":1200}}}"#;
        let u = read_usage(OutputForm::ClaudeJson, out, None);
        assert_eq!(u.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(u.cost_usd, Some(0.0123));
        assert_eq!((u.input_tokens, u.output_tokens), (Some(1200), Some(345)));
    }

    #[test]
    fn a_protocol_answer_may_name_its_model_and_junk_is_ignored() {
        let u = read_usage(
            OutputForm::Protocol,
            r#"{"output":{},"model":"gpt-5"}"#,
            None,
        );
        assert_eq!(u.model.as_deref(), Some("gpt-5"));
        let long = format!(r#"{{"output":{{}},"model":"{}"}}"#, "m".repeat(500));
        assert_eq!(
            read_usage(OutputForm::Protocol, &long, None),
            Usage::default()
        );
        assert_eq!(
            read_usage(OutputForm::ClaudeJson, "not json", None),
            Usage::default()
        );
        let bad = r#"{"total_cost_usd":-1,"usage":{"input_tokens":"many"}}"#;
        assert_eq!(
            read_usage(OutputForm::ClaudeJson, bad, None),
            Usage::default()
        );
    }
}
