//! Gates: role and stage gates evaluated over the run state and the task's
//! values; manual gates asked of the approver.

use super::*;

impl<A, P, R, T, C, S> Engine<'_, '_, A, P, R, T, C, S>
where
    A: Agent,
    P: Approver,
    R: RoleAssigner,
    T: Tools,
    C: Clock,
    S: EventSink,
{
    pub(super) async fn check_gate(
        &mut self,
        gate: &Gate,
        verdict: Option<Verdict>,
        task: usize,
        stage: &str,
        role: Option<&str>,
    ) -> Result<bool, String> {
        match verdict {
            Some(Verdict::Pass) => Ok(false),
            Some(Verdict::Fail) => Err(format!("`{}` is false", gate.source)),
            Some(Verdict::Error(e)) => {
                Err(format!("`{}` could not be evaluated: {e}", gate.source))
            }
            None => {
                let task_id = self.tasks[task].packet.task_id.clone();
                let subject = format!("gate: {}", gate.source);
                self.emit(Event::ApprovalRequested {
                    task_id: task_id.clone(),
                    role: role.map(str::to_string),
                    subject: subject.clone(),
                });
                let request = ApprovalRequest {
                    task_id: &task_id,
                    stage,
                    role,
                    subject: ApprovalSubject::Gate {
                        gate: gate.source.clone(),
                    },
                };
                let decision = self.ports.approver.decide(&request).await;
                if decision.approved && decision.waited_ms <= self.approval_timeout_ms {
                    self.emit(Event::ApprovalGranted {
                        task_id,
                        subject,
                        by: decision.by,
                    });
                    Ok(true)
                } else {
                    let code = if decision.approved {
                        ErrorCode::ApprovalTimeout
                    } else {
                        ErrorCode::ApprovalDenied
                    };
                    self.emit(Event::ApprovalDenied {
                        task_id,
                        subject,
                        by: decision.by,
                        code,
                    });
                    Err(format!(
                        "the manual gate `{}` was not approved",
                        gate.source
                    ))
                }
            }
        }
    }

    pub(super) async fn stage_gate(
        &mut self,
        s: usize,
        task: usize,
        exit: bool,
        counters: Counters,
    ) -> bool {
        // Borrowed from the prepared gates, not copied per task.
        let gates = self.stage_gates;
        let gate = {
            let (enter, exit_gate) = &gates[s];
            if exit {
                exit_gate.as_ref()
            } else {
                enter.as_ref()
            }
        };
        let Some(gate) = gate else { return true };
        let stage = self
            .playbook
            .workflow
            .get_index(s)
            .map(|(n, _)| n.clone())
            .unwrap_or_default();
        let t = &self.tasks[task];
        // Only the run state the gate reads is bound (see `evaluate`).
        let mut state: Vec<(&str, Value)> = Vec::new();
        for name in gate.reads() {
            let value = match name {
                "task_id" => json!(t.packet.task_id),
                "stage" => json!(stage),
                "tasks_total" => json!(counters.total),
                "tasks_done" => json!(counters.done),
                "tasks_failed" => json!(counters.failed),
                "tasks_blocked" => json!(counters.blocked),
                _ => continue,
            };
            state.push((name, value));
        }
        let verdict = evaluate(gate, &state, &t.values);
        let scope = if exit {
            GateScope::StageExit
        } else {
            GateScope::StageEnter
        };
        let task_id = self.tasks[task].packet.task_id.clone();
        let which = if exit { "exit" } else { "entry" };
        match self.check_gate(gate, verdict, task, &stage, None).await {
            Ok(manual) => {
                let said = output_said(gate, true, &self.tasks[task].values, &[]);
                let next = if !exit {
                    format!("the task enters stage {stage}")
                } else {
                    match self.next_stage(s) {
                        Some(n) => format!("the task moves on to stage {n}"),
                        None => "the task is done with the last stage".to_string(),
                    }
                };
                let summary = format!("stage {stage} {which} gate: {said}; {next}");
                self.emit(Event::GatePassed {
                    task_id,
                    scope,
                    owner: stage,
                    gate: gate.source.clone(),
                    manual,
                    summary,
                });
                true
            }
            Err(reason) => {
                let code = if exit {
                    ErrorCode::StageExitBlocked
                } else {
                    ErrorCode::StageEnterBlocked
                };
                let said = output_said(gate, false, &self.tasks[task].values, &[]);
                let summary = format!("stage {stage} {which} gate: {said}; {}", End::Blocked(code));
                self.emit(Event::GateFailed {
                    task_id: task_id.clone(),
                    scope,
                    owner: stage.clone(),
                    gate: gate.source.clone(),
                    reason: reason.clone(),
                    summary,
                });
                self.emit(Event::StageBlocked {
                    stage,
                    task_id,
                    code,
                    reason: reason.clone(),
                });
                self.end_task(task, Status::Blocked, code, reason, "orchestrator");
                false
            }
        }
    }
}

/// Evaluates a compiled gate over the run state first, then the task's
/// values. `None` for manual gates.
pub(super) fn evaluate(
    gate: &Gate,
    state: &[(&str, Value)],
    values: &Map<String, Value>,
) -> Option<Verdict> {
    gate.evaluate_with(|name| {
        state
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
            .or_else(|| values.get(name))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn run_state_wins_over_task_values_of_the_same_name() {
        let gate = gate::compile("done_count > 1", |_| None).expect("compiles");
        let values = json!({"done_count": 5});
        let values = values.as_object().unwrap();
        let state = [("done_count", json!(0))];
        assert!(matches!(
            evaluate(&gate, &state, values),
            Some(Verdict::Fail)
        ));
        assert!(matches!(evaluate(&gate, &[], values), Some(Verdict::Pass)));
    }
}
