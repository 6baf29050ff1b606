//! One step: start (budgets, retry limit, required inputs, the agent call
//! with its tool calls), complete (checks, then routing forward or back).

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
    pub(super) async fn start_step(&mut self, stage: &str, run: &mut Running) -> Next {
        let task = run.task;
        let role_index = run.role;
        let role_ref = self.flow.roles[role_index];
        let role = role_ref.role;
        self.tasks[task].iterations[role_index] += 1;
        let iteration = self.tasks[task].iterations[role_index];
        run.runs += 1;
        if run.first_run[role_index] == 0 {
            run.first_run[role_index] = run.runs;
        }
        let task_id = self.tasks[task].packet.task_id.clone();
        let bound = self.loop_bound[role_index];
        if self.flow.roles.len() > 1 && self.in_loop(role_index) {
            self.emit_ids(
                run.ids_clean,
                Event::Iteration {
                    task_id: task_id.clone(),
                    role: role.name.clone(),
                    k: iteration,
                    n: bound,
                },
            );
        }
        if let Some(n) = bound
            && iteration > n
        {
            let reason = format!(
                "`{}` would start round {iteration} of at most {n}",
                role.name
            );
            self.escalate_or_end(
                task,
                role_index,
                "retry_limit",
                ErrorCode::RetryLimit,
                reason,
            );
            return Next::Ended;
        }
        // Pre-execution: required inputs.
        let missing: Vec<&str> = role
            .inputs_required()
            .iter()
            .map(String::as_str)
            .filter(|i| self.tasks[task].values.get(*i).is_none_or(Value::is_null))
            .collect();
        if !missing.is_empty() {
            let detail = format!("missing required input(s): {}", missing.join(", "));
            self.emit(Event::ContractViolation {
                task_id: task_id.clone(),
                role: role.name.clone(),
                code: ErrorCode::InputMissing,
                detail: detail.clone(),
            });
            run.pending = Some(Pending {
                answer: Answer {
                    outcome: AgentOutcome::Error {
                        message: String::new(),
                    },
                    duration_ms: 0,
                    blocked_tool: false,
                    denied_approval: false,
                    precheck: Some((ErrorCode::InputMissing, detail)),
                },
                record: AgentRunRecord {
                    task_id,
                    stage: stage.to_string(),
                    role: role.name.clone(),
                    iteration,
                    agent: self.options.agent_name.clone(),
                    prompt_hash: String::new(),
                    started_at: self.instant(0),
                    ended_at: self.instant(0),
                    latency_ms: 0,
                    outcome: "not_invoked".into(),
                    code: Some(ErrorCode::InputMissing),
                    output: Value::Null,
                    tool_calls: Vec::new(),
                },
            });
            return Next::At(self.now, Phase::Complete);
        }
        // The step budget is checked before the call, so `max_steps: N`
        // allows exactly N agent invocations, never N + 1.
        if self.steps >= self.max_steps {
            let message = format!(
                "the run reached its budget of {} agent invocations and stops",
                self.max_steps
            );
            self.stop_run(task, ErrorCode::StepLimit, message);
            return Next::Ended;
        }
        if let Some((code, why)) = self.options.stop.reason() {
            self.stop_run(task, code, why.to_string());
            return Next::Ended;
        }
        self.steps += 1;
        let sent = match run.sent.take() {
            Some(sent) if self.packet_is_current(task, &sent.packet) => sent,
            _ => {
                let packet = self.packet(task);
                let warning = sent_warning(&packet);
                Sent { packet, warning }
            }
        };
        if let Some((code, message)) = &sent.warning {
            self.emit(Event::Warning {
                code: *code,
                message: message.clone(),
            });
        }
        let packet = &sent.packet;
        // One buffer for every prompt of the run: the role's contract block,
        // rendered once, then this task's part, hashed on top of the block.
        let mut prompt = std::mem::take(&mut self.prompt);
        prompt.clear();
        let block = &self.prompt_blocks[role_index];
        prompt.push_str(&block.text);
        crate::prompt::write_task_part(&mut prompt, &role_ref, &self.tasks[task].values);
        let prompt_hash = block.digest(&prompt);
        self.emit_ids(
            run.ids_clean,
            Event::AgentInvoked {
                task_id: task_id.clone(),
                stage: stage.to_string(),
                role: role.name.clone(),
                iteration,
                prompt_hash: prompt_hash.clone(),
            },
        );
        let invocation = Invocation {
            run_id: &self.run_id.clone(),
            task_id: &task_id,
            stage,
            role: &role.name,
            iteration,
            prompt: &prompt,
            packet,
        };
        let mut last: Option<ToolResult> = None;
        let mut calls = 0u32;
        let mut tool_calls = Vec::new();
        let mut blocked_tool = false;
        let mut denied_approval = false;
        let mut precheck = None;
        let (outcome, duration_ms) = loop {
            let step = self.ports.agent.step(&invocation, last.as_ref()).await;
            match step {
                AgentStep::Finish {
                    outcome,
                    duration_ms,
                } => break (outcome, duration_ms),
                AgentStep::Call(call) => {
                    calls += 1;
                    if calls > self.max_tool_calls {
                        let detail = format!(
                            "more than {} tool calls in one invocation",
                            self.max_tool_calls
                        );
                        self.emit(Event::ContractViolation {
                            task_id: task_id.clone(),
                            role: role.name.clone(),
                            code: ErrorCode::ToolCallLimit,
                            detail: detail.clone(),
                        });
                        precheck = Some((ErrorCode::ToolCallLimit, detail));
                        self.ports.agent.abort(&invocation);
                        break (
                            AgentOutcome::Error {
                                message: "tool call limit reached".into(),
                            },
                            0,
                        );
                    }
                    let result = self
                        .tool_call(
                            task,
                            stage,
                            role_index,
                            &call,
                            &mut blocked_tool,
                            &mut denied_approval,
                        )
                        .await;
                    tool_calls.push(ToolCallRecord {
                        tool: call.tool,
                        args: call.args,
                        result: result.clone(),
                    });
                    last = Some(result);
                }
            }
        };
        self.prompt = prompt;
        run.sent = Some(sent);
        // What the invocation's unsandboxed programs left outside every
        // worktree (the repository's git configuration or hooks, refs of
        // other branches): a change the step is held to makes it a scope
        // violation; one the person may have made is reported.
        for change in self.ports.tools.outside_changes() {
            if change.violation && precheck.is_none() {
                self.emit(Event::ContractViolation {
                    task_id: task_id.clone(),
                    role: role.name.clone(),
                    code: ErrorCode::ScopeViolation,
                    detail: change.message.clone(),
                });
                precheck = Some((ErrorCode::ScopeViolation, change.message));
            } else {
                self.emit(Event::Warning {
                    code: ErrorCode::ScopeViolation,
                    message: format!(
                        "after `{}` worked on {task_id}: {}",
                        role.name, change.message
                    ),
                });
            }
        }
        let started_at = self.instant(0);
        let record = AgentRunRecord {
            task_id,
            stage: stage.to_string(),
            role: role.name.clone(),
            iteration,
            agent: self.options.agent_name.clone(),
            prompt_hash,
            started_at,
            ended_at: self.instant(duration_ms),
            latency_ms: duration_ms,
            outcome: String::new(),
            code: None,
            output: Value::Null,
            tool_calls,
        };
        run.pending = Some(Pending {
            answer: Answer {
                outcome,
                duration_ms,
                blocked_tool,
                denied_approval,
                precheck,
            },
            record,
        });
        Next::At(self.now.saturating_add(duration_ms), Phase::Complete)
    }

    /// Emits an event whose texts are the task's id, the stage's name, role
    /// names, a hex hash or fixed words: when `ids_clean` (each was found
    /// clean when the task entered the stage, and redaction depends on the
    /// text alone) it is clean as it stands and goes to the sink unscanned;
    /// otherwise it takes the usual way, [`Self::emit`].
    pub(super) fn emit_ids(&mut self, ids_clean: bool, event: Event) {
        if !ids_clean {
            return self.emit(event);
        }
        debug_assert!(
            !crate::redact::event(&mut event.clone()),
            "an event of clean names was not clean: {event:?}"
        );
        let record = EventRecord {
            seq: self.seq,
            t_ms: self.now,
            event,
        };
        self.seq += 1;
        self.ports.sink.emit(&record);
    }

    /// Stops the run (once) with a warning saying why, and cancels `task`.
    pub(super) fn stop_run(&mut self, task: usize, code: ErrorCode, message: String) {
        if !self.stopped {
            self.emit(Event::Warning { code, message });
            self.stopped = true;
        }
        self.cancel(task);
    }

    /// Every envelope the orchestrator sends is checked against its
    /// contract first; a violation is a defect of the run input that task
    /// creation did not catch, reported as a warning.
    pub(super) fn check_sent<E: Envelope>(&mut self, envelope: &E) {
        if let Some((code, message)) = sent_warning(envelope) {
            self.emit(Event::Warning { code, message });
        }
    }

    /// Whether `packet`, built for `task` earlier in the stage, is what
    /// [`Self::packet`] would build now. Everything in it but the
    /// repository notes is fixed for the stage; the notes follow the task's
    /// `repo` and `base_ref` values, which an output may change.
    pub(super) fn packet_is_current(&self, task: usize, packet: &AssignmentPacket) -> bool {
        let values = &self.tasks[task].values;
        let mut notes = packet
            .context_package
            .iter()
            .filter(|c| c.kind == ContextKind::Note);
        for input in REPO_NOTES {
            if let Some(Value::String(v)) = values.get(input) {
                let Some(note) = notes.next() else {
                    return false;
                };
                let expected = note
                    .value
                    .strip_prefix(input)
                    .and_then(|rest| rest.strip_prefix(": "));
                if expected != Some(v.as_str()) {
                    return false;
                }
            }
        }
        notes.next().is_none()
    }

    pub(super) fn in_loop(&self, role: usize) -> bool {
        self.loop_bound[role].is_some() || self.hands_off_to_itself(role)
    }

    pub(super) fn hands_off_to_itself(&self, role: usize) -> bool {
        self.flow.successors(role).any(|(j, _)| j == role)
    }

    pub(super) fn packet(&self, task: usize) -> AssignmentPacket {
        let t = &self.tasks[task];
        let mut context_package = vec![ContextItem {
            kind: ContextKind::File,
            value: t.packet.worklog_path.clone(),
            extra: Default::default(),
        }];
        for input in REPO_NOTES {
            if let Some(Value::String(v)) = t.values.get(input) {
                context_package.push(ContextItem {
                    kind: ContextKind::Note,
                    value: format!("{input}: {v}"),
                    extra: Default::default(),
                });
            }
        }
        for f in &t.packet.forbidden_scope {
            context_package.push(ContextItem {
                kind: ContextKind::Constraint,
                value: format!("Do not edit {f}"),
                extra: Default::default(),
            });
        }
        AssignmentPacket {
            schema_version: CONTRACT_VERSION.into(),
            run_id: self.run_id.clone(),
            generated_at: None,
            packet_type: PacketType::Assignment,
            global_objective: objective(&self.scenario.input.goal),
            task: t.packet.clone(),
            active_locks: self.scenario.input.active_locks.clone(),
            context_package,
            required_output_schema: OutputSchemaName::SubagentResultV1,
            extra: Default::default(),
        }
    }

    pub(super) async fn complete_step(&mut self, s: usize, stage: &str, run: &mut Running) -> Next {
        let task = run.task;
        let role_index = run.role;
        let role = self.flow.roles[role_index].role;
        let Some(pending) = run.pending.take() else {
            return Next::Ended;
        };
        // A stop during the invocation ends the task as canceled, not as a
        // failure of the agent whose process the stop killed.
        if let Some((code, why)) = self.options.stop.reason() {
            self.audit_run(AgentRunRecord {
                outcome: "stopped".into(),
                code: Some(code),
                ..pending.record
            });
            self.stop_run(task, code, why.to_string());
            return Next::Ended;
        }
        let task_id = self.tasks[task].packet.task_id.clone();
        let iteration = self.tasks[task].iterations[role_index];
        let mut record = pending.record;
        self.touched.clear();
        let at = StepAt {
            task,
            role: role_index,
            iteration,
            ids_clean: run.ids_clean,
        };
        let end = self.evaluate(at, stage, pending.answer, &mut record).await;
        // A task leaves its stage only with a branch its scopes allow: a
        // commit a program made without the gateway is caught here, before
        // the task can pass.
        let end = match end {
            end @ StepEnd::Passed { .. } if self.forward(role_index, run).0.is_none() => {
                match self.branch_refusal(task, &task_id) {
                    Some(reason) => {
                        match self.violation(
                            task_id.clone(),
                            role_index,
                            ErrorCode::ScopeViolation,
                            reason,
                        ) {
                            // Not a round's mistake to send back: the
                            // gateway refuses to commit a path outside the
                            // scopes, so no round could take it off the
                            // branch. The task ends (escalated when the
                            // role says so).
                            StepEnd::Failed {
                                code,
                                trigger,
                                reason,
                                ..
                            } => StepEnd::Terminal {
                                code,
                                trigger,
                                reason,
                            },
                            end => end,
                        }
                    }
                    None => end,
                }
            }
            end => end,
        };
        record.outcome = match &end {
            StepEnd::Passed { .. } => "ok".into(),
            StepEnd::Failed { .. } => "failed".into(),
            StepEnd::Terminal { trigger, .. } => (*trigger).into(),
        };
        record.code = match &end {
            StepEnd::Passed { .. } => None,
            StepEnd::Failed { code, .. } | StepEnd::Terminal { code, .. } => Some(*code),
        };
        let files = std::mem::take(&mut self.touched);
        self.audit_run_ids(record, run.ids_clean);
        match end {
            StepEnd::Terminal {
                code,
                trigger,
                reason,
            } => {
                self.escalate_or_end(task, role_index, trigger, code, reason);
                Next::Ended
            }
            StepEnd::Passed { gate } => {
                let (next, why) = self.forward(role_index, run);
                if let Some(decision) = gate {
                    let route = match next {
                        Some(j) => Route::HandOff(&self.flow.roles[j].role.name),
                        None => Route::LeaveStage {
                            stage,
                            next: self.next_stage(s),
                        },
                    };
                    let summary = gate_summary(
                        &role.name,
                        decision.gate,
                        true,
                        &self.tasks[task].values,
                        role.outputs_required(),
                        &route,
                    );
                    let known_clean = run.ids_clean && self.prepared.role_gate_clean[role_index];
                    self.emit_step(
                        known_clean,
                        Event::GatePassed {
                            task_id: task_id.clone(),
                            scope: GateScope::Role,
                            owner: role.name.clone(),
                            gate: decision.gate.source.clone(),
                            manual: decision.manual,
                            summary,
                        },
                    );
                }
                let next_step = match next {
                    Some(j) => format!("hand off to {}", self.flow.roles[j].role.name),
                    None => format!("leave stage {stage}"),
                };
                self.worklog_ids(
                    task,
                    &role.name,
                    WorklogLine {
                        action: format!("{} round {iteration}", role.name),
                        files,
                        decision: "the gate passed".to_string(),
                        result: summarize(&self.tasks[task].values, role.outputs_required()),
                        next_step,
                        code: None,
                    },
                    run.ids_clean,
                );
                match next {
                    Some(j) => {
                        let to = self.flow.roles[j].role.name.clone();
                        self.emit_ids(
                            run.ids_clean,
                            Event::Handoff {
                                task_id,
                                from: role.name.clone(),
                                to,
                                reason: why,
                            },
                        );
                        run.role = j;
                        Next::At(self.now, Phase::Start)
                    }
                    None => {
                        self.emit_ids(
                            run.ids_clean,
                            Event::StageLeft {
                                task_id,
                                stage: stage.to_string(),
                                role: role.name.clone(),
                            },
                        );
                        Next::LeftStage
                    }
                }
            }
            StepEnd::Failed {
                code,
                trigger,
                reason,
                gate,
            } => {
                let back = role
                    .handoff_to()
                    .iter()
                    .filter_map(|t| self.flow.index_of(t))
                    .find(|&j| {
                        self.flow.roles[j].stage_index == self.flow.roles[role_index].stage_index
                            && run.first_run[j] != 0
                            && run.first_run[j] < run.first_run[role_index]
                    });
                let bound = self.loop_bound[role_index];
                let limit = bound.filter(|&n| back.is_some() && iteration >= n);
                let said = gate.as_ref().map(|d| {
                    output_said(
                        d.gate,
                        false,
                        &self.tasks[task].values,
                        role.outputs_required(),
                    )
                });
                if let Some(decision) = &gate {
                    let route = match (back, limit) {
                        (Some(_), Some(n)) => Route::RoundLimit {
                            round: iteration,
                            of: n,
                            end: self.end_of(role_index, "retry_limit", ErrorCode::RetryLimit),
                        },
                        (Some(j), None) => Route::SentBack {
                            to: &self.flow.roles[j].role.name,
                            round: iteration.saturating_add(1),
                            of: bound,
                        },
                        (None, _) => Route::Ends(self.end_of(role_index, "gate_failed", code)),
                    };
                    let summary = format!(
                        "{}: {}; {route}",
                        role.name,
                        said.as_deref().unwrap_or_default()
                    );
                    let known_clean = run.ids_clean && self.prepared.role_gate_clean[role_index];
                    self.emit_step(
                        known_clean,
                        Event::GateFailed {
                            task_id: task_id.clone(),
                            scope: GateScope::Role,
                            owner: role.name.clone(),
                            gate: decision.gate.source.clone(),
                            reason: decision.reason.clone(),
                            summary,
                        },
                    );
                }
                match back {
                    Some(j) => {
                        if let Some(n) = limit {
                            let reason = match &said {
                                Some(said) => format!(
                                    "`{}` failed round {iteration} of {n} ({said}): {reason}",
                                    role.name
                                ),
                                None => format!(
                                    "`{}` failed round {iteration} of {n}: {reason}",
                                    role.name
                                ),
                            };
                            self.escalate_or_end(
                                task,
                                role_index,
                                "retry_limit",
                                ErrorCode::RetryLimit,
                                reason,
                            );
                            return Next::Ended;
                        }
                        let to = self.flow.roles[j].role.name.clone();
                        self.worklog_ids(
                            task,
                            &role.name,
                            WorklogLine {
                                action: format!("{} round {iteration}", role.name),
                                files,
                                decision: format!("sent back: {reason}"),
                                result: summarize(
                                    &self.tasks[task].values,
                                    role.outputs_required(),
                                ),
                                next_step: format!("{to} addresses the issues"),
                                code: None,
                            },
                            run.ids_clean,
                        );
                        self.emit_ids(
                            run.ids_clean,
                            Event::Handoff {
                                task_id,
                                from: role.name.clone(),
                                to,
                                reason: HandoffReason::SentBack,
                            },
                        );
                        run.role = j;
                        Next::At(self.now, Phase::Start)
                    }
                    None => {
                        self.escalate_or_end(
                            task,
                            role_index,
                            if trigger == "contract_violation" {
                                "contract_violation"
                            } else {
                                "gate_failed"
                            },
                            code,
                            reason,
                        );
                        Next::Ended
                    }
                }
            }
        }
    }

    /// The next enabled stage after stage `s`, where a task that leaves `s`
    /// goes.
    pub(super) fn next_stage(&self, s: usize) -> Option<&str> {
        self.playbook
            .workflow
            .iter()
            .skip(s.saturating_add(1))
            .find(|(_, stage)| stage.is_enabled())
            .map(|(name, _)| name.as_str())
    }

    /// How a task ends on `trigger`, as `escalate_or_end` will decide it.
    pub(super) fn end_of(&self, role: usize, trigger: &'static str, code: ErrorCode) -> End {
        if self.escalate[role] & trigger_bit(trigger) != 0 {
            End::Escalated(trigger)
        } else if matches!(code, ErrorCode::NeedsInput | ErrorCode::AgentBlocked) {
            End::Blocked(code)
        } else {
            End::Failed(code)
        }
    }

    /// The forward route after a passed gate.
    pub(super) fn forward(
        &self,
        role_index: usize,
        run: &Running,
    ) -> (Option<usize>, HandoffReason) {
        let r = &self.flow.roles[role_index];
        match &r.role.handoff_to {
            None => {
                let next = role_index + 1;
                if next < self.flow.roles.len()
                    && self.flow.roles[next].stage_index == r.stage_index
                {
                    (Some(next), HandoffReason::Sequence)
                } else {
                    (None, HandoffReason::Sequence)
                }
            }
            Some(targets) => {
                let next = targets
                    .iter()
                    .filter_map(|t| self.flow.index_of(t))
                    .find(|&j| {
                        self.flow.roles[j].stage_index == r.stage_index
                            && (run.first_run[j] == 0
                                || run.first_run[j] > run.first_run[role_index])
                    });
                (next, HandoffReason::Passed)
            }
        }
    }
}

/// The run inputs an assignment packet repeats as notes, in this order.
const REPO_NOTES: [&str; 2] = ["repo", "base_ref"];

/// The warning an envelope the orchestrator sends raises when it breaks its
/// contract: a defect of the run input that task creation did not catch.
fn sent_warning<E: Envelope>(envelope: &E) -> Option<(ErrorCode, String)> {
    let violations = envelope.check(true);
    violations.first().map(|v| {
        (
            v.code,
            format!("{} sent with {} {}", E::SCHEMA_FILE, v.path, v.message),
        )
    })
}
