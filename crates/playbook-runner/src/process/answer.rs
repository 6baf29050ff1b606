//! Reading an agent process's final answer (docs/agent-protocol.md).
//!
//! A process ends its invocation by printing one JSON object — or writing
//! it to its result file — in the shape of `schemas/agent-answer.schema.json`:
//! `{"output": {...}, "result": {...}}`, `{"needs_input": [...]}` or
//! `{"error": "..."}`. Agent CLIs that print their model's last message
//! instead (Claude Code's `--output-format json`, a plain text answer) have
//! the same object found inside that message.

use playbook_orchestrator::agent::{AgentOutcome, AgentOutput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// How an agent's final answer is read from what the process printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputForm {
    /// The result file, else standard output, is the agent answer object.
    #[default]
    Protocol,
    /// Standard output is Claude Code's `--output-format json` object; the
    /// answer object is inside its `result` text.
    ClaudeJson,
    /// The result file, else standard output, is the model's last message;
    /// the answer object is inside it (whole, in a ```json block, or the
    /// outermost braces).
    Text,
}

/// The answer object of the agent protocol. Exactly one of `output`,
/// `needs_input` and `error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "Agent answer",
    description = "What an agent process returns at the end of one invocation (docs/agent-protocol.md)."
)]
pub struct AgentAnswer {
    /// The role output: a JSON object with the fields of the role's
    /// `outputs_contract`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Map<String, Value>>,
    /// The subagent result envelope (schemas/subagent-result.schema.json);
    /// optional, checked strictly when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Questions for a person; the task is blocked (or escalated) until
    /// they are answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 20))]
    pub needs_input: Option<Vec<String>>,
    /// The agent could not do the work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub error: Option<String>,
    /// The model that produced the answer, kept in the run's records
    /// (`invocations.jsonl`); names longer than 200 characters are dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub model: Option<String>,
}

/// The first `max` characters of what an agent printed, for a message.
/// Redacted whole before it is cut: cut first, a credential split at the
/// cut would keep a piece too short for its redaction rule.
fn clip(text: &str, max: usize) -> String {
    playbook_redact::redact_then_clip(text, max, "…").into_owned()
}

/// The outcome an answer stands for, or why it is not one.
fn interpret(value: Value) -> Result<AgentOutcome, String> {
    let Value::Object(map) = value else {
        return Err("the answer is not a JSON object".into());
    };
    let keys = ["output", "needs_input", "error"];
    if !map
        .keys()
        .any(|k| keys.contains(&k.as_str()) || k == "result")
    {
        // A bare object is the role output itself (a model asked for the
        // output object often answers just that).
        return Ok(AgentOutcome::Output {
            output: AgentOutput::Json(Value::Object(map)),
            result: None,
        });
    }
    let answer: AgentAnswer = serde_json::from_value(Value::Object(map))
        .map_err(|e| format!("the answer object is malformed: {e}"))?;
    let bare = answer.result.is_none();
    match (answer.output, answer.needs_input, answer.error) {
        (Some(output), None, None) => Ok(AgentOutcome::Output {
            output: AgentOutput::Json(Value::Object(output)),
            result: answer.result,
        }),
        (None, Some(questions), None) if bare && !questions.is_empty() => {
            Ok(AgentOutcome::NeedsInput { questions })
        }
        (None, None, Some(message)) if bare && !message.is_empty() => {
            Ok(AgentOutcome::Error { message })
        }
        _ => Err(
            "the answer must have exactly one of `output` (with an optional `result`), \
                  `needs_input` (non-empty) and `error` (non-empty)"
                .into(),
        ),
    }
}

/// The JSON object inside a model's message: the whole text, a fenced
/// ```json block, or the outermost braces.
pub(super) fn find_object(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if let Ok(v @ Value::Object(_)) = serde_json::from_str(trimmed) {
        return Some(v);
    }
    if let Some(start) = trimmed.find("```json") {
        let body = &trimmed[start + 7..];
        if let Some(end) = body.find("```")
            && let Ok(v @ Value::Object(_)) = serde_json::from_str(body[..end].trim())
        {
            return Some(v);
        }
    }
    let (start, end) = (trimmed.find('{')?, trimmed.rfind('}')?);
    (start < end)
        .then(|| serde_json::from_str(&trimmed[start..=end]).ok())
        .flatten()
        .filter(Value::is_object)
}

/// Reads the final answer. `result_file` is the content of the invocation's
/// result file, if the agent wrote one.
pub fn read_answer(form: OutputForm, stdout: &str, result_file: Option<&str>) -> AgentOutcome {
    let primary = result_file
        .filter(|t| !t.trim().is_empty())
        .unwrap_or(stdout);
    let outcome = match form {
        OutputForm::Protocol => serde_json::from_str::<Value>(primary.trim())
            .map_err(|e| format!("it is not JSON ({e})"))
            .and_then(interpret),
        OutputForm::Text => find_object(primary)
            .ok_or_else(|| "no JSON object was found in the agent's last message".to_string())
            .and_then(interpret),
        OutputForm::ClaudeJson => claude_json(stdout),
    };
    outcome.unwrap_or_else(|why| AgentOutcome::Error {
        message: format!(
            "the agent's answer could not be read: {why} (docs/agent-protocol.md); it began: {:?}",
            clip(primary.trim(), 200)
        ),
    })
}

fn claude_json(stdout: &str) -> Result<AgentOutcome, String> {
    let value: Value = serde_json::from_str(stdout.trim())
        .map_err(|e| format!("Claude Code's JSON output did not parse ({e})"))?;
    let text = value
        .get("result")
        .and_then(Value::as_str)
        .ok_or("Claude Code's JSON output has no `result` text")?;
    if value.get("is_error") == Some(&Value::Bool(true)) {
        return Ok(AgentOutcome::Error {
            message: format!("Claude Code reported an error: {}", clip(text, 500)),
        });
    }
    find_object(text)
        .ok_or_else(|| "no JSON object was found in Claude Code's last message".to_string())
        .and_then(interpret)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn is_error(o: &AgentOutcome) -> bool {
        matches!(o, AgentOutcome::Error { .. })
    }

    #[test]
    fn protocol_answers() {
        let o = read_answer(
            OutputForm::Protocol,
            r#"{"output":{"a":1},"result":{"x":1}}"#,
            None,
        );
        assert_eq!(
            o,
            AgentOutcome::Output {
                output: AgentOutput::Json(json!({"a":1})),
                result: Some(json!({"x":1}))
            }
        );
        let o = read_answer(
            OutputForm::Protocol,
            "",
            Some(r#"{"needs_input":["Which DB?"]}"#),
        );
        assert_eq!(
            o,
            AgentOutcome::NeedsInput {
                questions: vec!["Which DB?".into()]
            }
        );
        let o = read_answer(OutputForm::Protocol, r#"{"error":"no model"}"#, None);
        assert_eq!(
            o,
            AgentOutcome::Error {
                message: "no model".into()
            }
        );
    }

    #[test]
    fn garbage_and_ambiguity_are_errors_that_say_so() {
        for bad in [
            "",
            "garbage",
            "[1,2]",
            r#"{"output":{},"error":"x"}"#,
            r#"{"needs_input":[]}"#,
            r#"{"output":3}"#,
            r#"{"output":{},"extra":1}"#,
        ] {
            let o = read_answer(OutputForm::Protocol, bad, None);
            assert!(is_error(&o), "{bad:?} gave {o:?}");
        }
        let AgentOutcome::Error { message } =
            read_answer(OutputForm::Protocol, &"x".repeat(10_000), None)
        else {
            panic!()
        };
        assert!(message.len() < 600, "the message quotes only the beginning");
    }

    #[test]
    fn the_quoted_beginning_keeps_no_piece_of_a_credential() {
        // 181 characters, then a token the 200-character quote cuts in two:
        // cut first, `ghp_Zq8Wm2Xr4Tn6Vb` was too short for the GitHub rule.
        let token = "ghp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo";
        let stdout = format!("{} {token} is what I used", "x".repeat(181));
        let AgentOutcome::Error { message } = read_answer(OutputForm::Protocol, &stdout, None)
        else {
            panic!()
        };
        assert!(!message.contains("ghp_Zq8W"), "{message}");
        assert!(message.contains("xxx"), "the beginning is still quoted");
    }

    #[test]
    fn text_and_claude_forms_find_the_object() {
        let text = "Done.\n```json\n{\"output\": {\"verdict\": \"pass\"}}\n```\n";
        assert!(matches!(
            read_answer(OutputForm::Text, text, None),
            AgentOutcome::Output { .. }
        ));
        let bare = "Here: {\"verdict\": \"pass\"} end";
        assert_eq!(
            read_answer(OutputForm::Text, bare, None),
            AgentOutcome::Output {
                output: AgentOutput::Json(json!({"verdict":"pass"})),
                result: None
            }
        );
        let claude = json!({"type":"result","subtype":"success","is_error":false,"result":"{\"output\":{\"a\":1}}"}).to_string();
        assert!(matches!(
            read_answer(OutputForm::ClaudeJson, &claude, None),
            AgentOutcome::Output { .. }
        ));
        let failed = json!({"type":"result","is_error":true,"result":"overloaded"}).to_string();
        assert!(is_error(&read_answer(
            OutputForm::ClaudeJson,
            &failed,
            None
        )));
    }
}
