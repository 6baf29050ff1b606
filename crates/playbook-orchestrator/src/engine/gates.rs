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
        let stage = self.stage_name(s);
        let t = &self.tasks[task];
        let state = gate_state(gate, &t.packet.task_id, &stage, counters);
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
                self.stage_gate_passed(s, exit, stage, task_id, gate, manual, said);
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

    /// A parked task's stage exit gate, when it passes on its own: the gate
    /// reads only the values it names, so they are read from the task's
    /// block and the task stays parked (no decode of its whole state, no
    /// new block). `false` when the task is live, the gate is manual, does
    /// not pass or the block cannot be read: the caller then unparks the
    /// task and runs [`Self::stage_gate`], which evaluates the same values
    /// again.
    pub(super) fn parked_exit_gate_passes(
        &mut self,
        s: usize,
        task: usize,
        counters: Counters,
    ) -> bool {
        let gates = self.stage_gates;
        let Some(gate) = gates[s].1.as_ref() else {
            return false;
        };
        if gate.is_manual() {
            return false;
        }
        let Some(values) = self.peek_values(task, |name| gate.reads().any(|r| r == name)) else {
            return false;
        };
        let stage = self.stage_name(s);
        let task_id = self.task_id_of(task);
        let state = gate_state(gate, &task_id, &stage, counters);
        if !matches!(evaluate(gate, &state, &values), Some(Verdict::Pass)) {
            return false;
        }
        let said = output_said(gate, true, &values, &[]);
        self.stage_gate_passed(s, true, stage, task_id, gate, false, said);
        true
    }

    fn stage_name(&self, s: usize) -> String {
        self.playbook
            .workflow
            .get_index(s)
            .map(|(n, _)| n.clone())
            .unwrap_or_default()
    }

    /// The event of a stage gate that passed; `said` is what the task's
    /// values said to it.
    #[allow(clippy::too_many_arguments)]
    fn stage_gate_passed(
        &mut self,
        s: usize,
        exit: bool,
        stage: String,
        task_id: String,
        gate: &Gate,
        manual: bool,
        said: String,
    ) {
        let (scope, which, next) = if exit {
            let next = match self.next_stage(s) {
                Some(n) => format!("the task moves on to stage {n}"),
                None => "the task is done with the last stage".to_string(),
            };
            (GateScope::StageExit, "exit", next)
        } else {
            let next = format!("the task enters stage {stage}");
            (GateScope::StageEnter, "entry", next)
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
    }
}

/// The run state a stage gate reads (see `evaluate`): only the names it
/// reads are bound.
fn gate_state<'g>(
    gate: &'g Gate,
    task_id: &str,
    stage: &str,
    counters: Counters,
) -> Vec<(&'g str, Value)> {
    let mut state = Vec::new();
    for name in gate.reads() {
        let value = match name {
            "task_id" => json!(task_id),
            "stage" => json!(stage),
            "tasks_total" => json!(counters.total),
            "tasks_done" => json!(counters.done),
            "tasks_failed" => json!(counters.failed),
            "tasks_blocked" => json!(counters.blocked),
            _ => continue,
        };
        state.push((name, value));
    }
    state
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
