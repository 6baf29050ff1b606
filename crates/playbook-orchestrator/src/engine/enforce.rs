//! Enforcement after a call: size limits, output contract, result envelope,
//! gates and completion criteria.

use super::*;

impl<'b, A, P, R, T, C, S> Engine<'_, 'b, A, P, R, T, C, S>
where
    A: Agent,
    P: Approver,
    R: RoleAssigner,
    T: Tools,
    C: Clock,
    S: EventSink,
{
    /// Why an answer is over the output limit, whatever its form: raw
    /// text, a structured value, the result envelope beside it, questions
    /// or an error message.
    pub(super) fn oversized(&self, outcome: &AgentOutcome) -> Option<String> {
        let limit = self.max_output_bytes;
        let (what, size) = match outcome {
            AgentOutcome::Output { output, result } => {
                let output_size = match output {
                    AgentOutput::Text(text) => {
                        if text.len() as u64 > limit {
                            Err(text.len() as u64)
                        } else {
                            Ok(text.len() as u64)
                        }
                    }
                    AgentOutput::Json(value) => crate::size::json_len_within(value, limit),
                };
                match (output_size, result) {
                    (Err(n), _) => ("the output", n),
                    (Ok(_), Some(result)) => match crate::size::json_len_within(result, limit) {
                        Err(n) => ("the result envelope", n),
                        Ok(_) => return None,
                    },
                    (Ok(_), None) => return None,
                }
            }
            AgentOutcome::Checked { output, result } => {
                match crate::size::json_len_within(output, limit) {
                    Err(n) => ("the output", n),
                    Ok(_) => match crate::size::json_len_within(result, limit) {
                        Err(n) => ("the result envelope", n),
                        Ok(_) => return None,
                    },
                }
            }
            AgentOutcome::NeedsInput { questions } => {
                let size: u64 = questions.iter().map(|q| q.len() as u64).sum();
                if size <= limit {
                    return None;
                }
                ("the questions", size)
            }
            AgentOutcome::Error { message } | AgentOutcome::TimedOut { message } => {
                if message.len() as u64 <= limit {
                    return None;
                }
                ("the error message", message.len() as u64)
            }
        };
        Some(format!(
            "{what} is at least {size} bytes; the limit is {limit} (limits.max_output_bytes)"
        ))
    }

    /// Post-execution checks of one invocation.
    pub(super) async fn evaluate(
        &mut self,
        at: StepAt,
        stage: &str,
        answer: Answer,
        record: &mut AgentRunRecord,
    ) -> StepEnd<'b> {
        let StepAt {
            task,
            role: role_index,
            iteration,
            ids_clean,
        } = at;
        let Answer {
            outcome,
            duration_ms,
            blocked_tool,
            denied_approval,
            precheck,
        } = answer;
        let role = self.flow.roles[role_index].role;
        let task_id = self.tasks[task].packet.task_id.clone();
        if let Some((code, detail)) = precheck {
            return self.violation_end(role_index, code, detail);
        }
        let timeout_ms = self.tasks[task].packet.timeout_seconds.saturating_mul(1000);
        if duration_ms > timeout_ms {
            return StepEnd::Terminal {
                code: ErrorCode::AgentTimeout,
                trigger: "timeout",
                reason: format!(
                    "`{}` took {duration_ms} ms; the task timeout is {timeout_ms} ms",
                    role.name
                ),
            };
        }
        // Every form of an answer is held to the same size limit.
        if let Some(detail) = self.oversized(&outcome) {
            record.output = Value::Null;
            return self.violation(task_id, role_index, ErrorCode::OutputTooLarge, detail);
        }
        let (output, result) = match outcome {
            AgentOutcome::Error { message } => {
                return StepEnd::Terminal {
                    code: ErrorCode::AgentFailed,
                    trigger: "agent_error",
                    reason: format!("`{}` failed: {}", role.name, truncate(&message, 500)),
                };
            }
            AgentOutcome::TimedOut { message } => {
                return StepEnd::Terminal {
                    code: ErrorCode::AgentTimeout,
                    trigger: "timeout",
                    reason: format!("`{}` timed out: {}", role.name, truncate(&message, 500)),
                };
            }
            AgentOutcome::NeedsInput { questions } => {
                record.output = json!({ "questions": questions });
                return StepEnd::Terminal {
                    code: ErrorCode::NeedsInput,
                    trigger: "needs_input",
                    reason: format!(
                        "`{}` needs input: {}",
                        role.name,
                        truncate(&questions.join(" | "), 500)
                    ),
                };
            }
            AgentOutcome::Output { output, result } => (output, result.map(Received::Json)),
            AgentOutcome::Checked { output, result } => (
                AgentOutput::Json(Value::Object(output)),
                Some(Received::Typed(result)),
            ),
        };
        // The output must be a JSON object with every required field.
        let parsed: Result<Map<String, Value>, (ErrorCode, String)> = match output {
            AgentOutput::Json(Value::Object(map)) => Ok(map),
            AgentOutput::Json(other) => Err((
                ErrorCode::OutputNotJson,
                format!("the output is {}, not a JSON object", kind_of(&other)),
            )),
            AgentOutput::Text(text) => {
                record.output = Value::String(truncate(&text, 4096));
                match serde_json::from_str::<Value>(&text) {
                    Ok(Value::Object(map)) => Ok(map),
                    Ok(other) => Err((
                        ErrorCode::OutputNotJson,
                        format!("the output is {}, not a JSON object", kind_of(&other)),
                    )),
                    Err(e) => Err((
                        ErrorCode::OutputNotJson,
                        format!("the output is not JSON: {e}"),
                    )),
                }
            }
        };
        let output = match parsed {
            Ok(map) => map,
            Err((code, detail)) => {
                return self.violation(task_id, role_index, code, detail);
            }
        };
        self.emit_step(
            ids_clean,
            Event::OutputReceived {
                task_id: task_id.clone(),
                role: role.name.clone(),
                iteration,
                fields: output.keys().cloned().collect(),
                duration_ms,
            },
        );
        if record.output.is_null() {
            record.output = Value::Object(output.clone());
        }
        let missing: Vec<&str> = role
            .outputs_required()
            .iter()
            .map(String::as_str)
            .filter(|f| output.get(*f).is_none_or(Value::is_null))
            .collect();
        if !missing.is_empty() {
            let detail = format!(
                "output type `{}` lacks required field(s): {}",
                role.output_type().unwrap_or("output"),
                missing.join(", ")
            );
            return self.violation(task_id, role_index, ErrorCode::OutputMissingField, detail);
        }
        // The subagent result envelope.
        let status = match result {
            None => {
                let detail = "no subagent result envelope was returned".to_string();
                return self.violation(task_id, role_index, ErrorCode::ResultInvalid, detail);
            }
            Some(received) => {
                let parsed = match received {
                    Received::Json(value) => {
                        envelope::parse::<SubagentResult>(&value, self.options.strict_envelopes)
                    }
                    // Typed: every check the parse runs after deserialising.
                    Received::Typed(result) => {
                        let violations = result.check(self.options.strict_envelopes);
                        if violations.is_empty() {
                            Ok(*result)
                        } else {
                            Err(violations)
                        }
                    }
                };
                match parsed {
                    Ok(result) if result.task_id != task_id || result.run_id != self.run_id => {
                        let detail = format!(
                            "the result is for task {} of run {}, not task {task_id} of this run",
                            result.task_id, result.run_id
                        );
                        return self.violation(
                            task_id,
                            role_index,
                            ErrorCode::ResultInvalid,
                            detail,
                        );
                    }
                    Ok(result) => {
                        self.touched = result.changes.into_iter().map(|c| c.resource).collect();
                        result.status
                    }
                    Err(violations) => {
                        let code = violations[0].code;
                        let detail = violations
                            .iter()
                            .take(5)
                            .map(|v| {
                                format!(
                                    "{} {}",
                                    if v.path.is_empty() { "/" } else { &v.path },
                                    v.message
                                )
                            })
                            .collect::<Vec<_>>()
                            .join("; ");
                        return self.violation(task_id, role_index, code, detail);
                    }
                }
            }
        };
        match status {
            ResultStatus::Blocked => {
                return StepEnd::Terminal {
                    code: ErrorCode::AgentBlocked,
                    trigger: "agent_blocked",
                    reason: format!("`{}` reported status blocked", role.name),
                };
            }
            ResultStatus::Failed => {
                return StepEnd::Terminal {
                    code: ErrorCode::AgentFailed,
                    trigger: "agent_error",
                    reason: format!("`{}` reported status failed", role.name),
                };
            }
            ResultStatus::Done => {}
        }
        if blocked_tool && self.escalate[role_index] & trigger_bit("tool_blocked") != 0 {
            return StepEnd::Terminal {
                code: ErrorCode::ToolNotAllowed,
                trigger: "tool_blocked",
                reason: format!("`{}` attempted a tool outside its contract", role.name),
            };
        }
        if denied_approval && self.escalate[role_index] & trigger_bit("approval_denied") != 0 {
            return StepEnd::Terminal {
                code: ErrorCode::ApprovalDenied,
                trigger: "approval_denied",
                reason: format!("an approval `{}` asked for was denied", role.name),
            };
        }
        // Accept the output: it becomes input of later roles.
        if let Some(Value::String(v)) = output.get("verdict") {
            self.tasks[task].last_verdict = Some(truncate(v, 100));
        }
        for (k, v) in output {
            self.tasks[task].values.insert(k, v);
        }
        if !role.completion_criteria().is_empty() {
            self.emit(Event::CompletionRecorded {
                task_id: task_id.clone(),
                role: role.name.clone(),
                criteria: role.completion_criteria().to_vec(),
            });
        }
        let gates = self.role_gates;
        let Some(gate) = gates[role_index].as_ref() else {
            return StepEnd::Passed { gate: None };
        };
        // The gate reads the role's output (now merged into the task's
        // values, where it wins over earlier roles) and the run state.
        // Only the run state the gate reads is bound: most gates read the
        // output alone, and a JSON copy of the ids per step is not free.
        let mut state: Vec<(&str, Value)> = Vec::new();
        for name in gate.reads() {
            let value = match name {
                "iteration" => json!(iteration),
                "max_iterations" => json!(self.loop_bound[role_index]),
                "task_id" => json!(task_id),
                "stage" => json!(stage),
                _ => continue,
            };
            state.push((name, value));
        }
        let verdict = evaluate(gate, &state, &self.tasks[task].values);
        match self
            .check_gate(gate, verdict, task, stage, Some(&role.name))
            .await
        {
            // The gate events are emitted by the routing step, which knows
            // where the task goes next and says so in their summary.
            Ok(manual) => StepEnd::Passed {
                gate: Some(GateDecision {
                    gate,
                    manual,
                    reason: String::new(),
                }),
            },
            Err(reason) => StepEnd::Failed {
                code: ErrorCode::GateFailed,
                trigger: "gate_failed",
                reason: reason.clone(),
                gate: Some(GateDecision {
                    gate,
                    manual: false,
                    reason,
                }),
            },
        }
    }

    /// A contract violation found after the call: recorded as an event, then
    /// routed as the scenario's violation policy says.
    pub(super) fn violation(
        &mut self,
        task_id: String,
        role: usize,
        code: ErrorCode,
        detail: String,
    ) -> StepEnd<'b> {
        let name = self.flow.roles[role].role.name.clone();
        self.emit(Event::ContractViolation {
            task_id,
            role: name,
            code,
            detail: detail.clone(),
        });
        self.violation_end(role, code, detail)
    }

    pub(super) fn violation_end(
        &mut self,
        role: usize,
        code: ErrorCode,
        detail: String,
    ) -> StepEnd<'b> {
        let stop = self.scenario.on_violation.unwrap_or_default() == ViolationPolicy::Stop;
        if stop {
            // The task ends here; the stage loop then cancels the rest.
            self.stopped = true;
        }
        if stop || self.escalate[role] & trigger_bit("contract_violation") != 0 {
            return StepEnd::Terminal {
                code,
                trigger: "contract_violation",
                reason: detail,
            };
        }
        StepEnd::Failed {
            code,
            trigger: "contract_violation",
            reason: detail,
            gate: None,
        }
    }
}

/// A subagent result envelope as received: JSON to parse, or a typed value
/// an in-process agent built.
enum Received {
    Json(Value),
    Typed(Box<SubagentResult>),
}
