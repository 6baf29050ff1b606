//! Records: ledger deltas and their reconciliation, worklog entries, how a
//! task ends (done, failed, escalated, canceled), the orchestrator outputs
//! and the handoff bundle.

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
    pub(super) fn delta(
        &mut self,
        task: usize,
        status: LedgerStatus,
        owner: &str,
        reason: &str,
        create: bool,
    ) {
        self.delta_seq += 1;
        self.deltas.push(LedgerDelta {
            task_id: self.task_id_of(task),
            status,
            owner: owner.to_string(),
            reason: reason.to_string(),
            delta_id: format!("D-{}", self.delta_seq),
            last_heartbeat_at: None,
            timed_out: None,
            retry_after_ms: None,
            create,
            extra: Default::default(),
        });
    }

    /// Applies pending deltas and reconciles the ledger with the run state
    /// before anything else is assigned.
    pub(super) fn flush_deltas(&mut self) {
        if self.deltas.is_empty() {
            return;
        }
        let base_version = self.ledger.version();
        let mut deltas = std::mem::take(&mut self.deltas);
        // The texts a row copies are redacted once, here, for the row and
        // the record alike; the engine's deltas carry no extra fields.
        let texts_redacted = deltas.iter().all(|d| d.extra.is_empty());
        if texts_redacted {
            for delta in &mut deltas {
                crate::redact::ledger_delta_texts(delta);
            }
        }
        let stream = DeltaStream {
            base_version,
            deltas: &deltas,
        };
        let applied = if texts_redacted {
            self.ledger.apply_redacted(stream)
        } else {
            self.ledger.apply(stream)
        };
        match applied {
            Ok(applied) => {
                for id in applied.rejected {
                    self.emit(Event::Warning {
                        code: ErrorCode::LedgerRowMissing,
                        message: format!("ledger delta {id} updates a row that does not exist"),
                    });
                }
            }
            Err(e) => self.emit(Event::Warning {
                code: e.code,
                message: e.message,
            }),
        }
        // Reconciliation: the ledger must say what the engine believes,
        // checked once per task at its last delta, in the order tasks first
        // appear. Most flushes carry one delta (a task's assignment): no map
        // is built for a handful.
        let mut last: Vec<(&str, LedgerStatus)> = Vec::new();
        let mut index: indexmap::IndexMap<&str, usize> = indexmap::IndexMap::new();
        for delta in &deltas {
            let found = if deltas.len() <= 8 {
                last.iter().position(|(id, _)| *id == delta.task_id)
            } else {
                index.get(delta.task_id.as_str()).copied()
            };
            match found {
                Some(i) => last[i].1 = delta.status,
                None => {
                    if deltas.len() > 8 {
                        index.insert(&delta.task_id, last.len());
                    }
                    last.push((&delta.task_id, delta.status));
                }
            }
        }
        for (task_id, status) in last {
            let expected = Some(status);
            let actual = self.ledger.row(task_id).map(|r| r.status);
            if expected != actual {
                let message =
                    format!("ledger says {actual:?} for {task_id}, the run says {expected:?}");
                self.emit(Event::Warning {
                    code: ErrorCode::LedgerDrift,
                    message,
                });
            }
        }
        for delta in &mut deltas {
            if texts_redacted {
                crate::redact::ledger_delta_rest(delta);
            } else {
                crate::redact::ledger_delta(delta);
            }
            self.ports.sink.record(RunRecord::LedgerDelta(delta));
        }
        if self.outputs.is_empty() {
            self.outputs.push(self.empty_output());
        }
        // Streamed, not kept, when the report does not keep records; the
        // output envelope itself exists either way.
        if self.options.keep_records
            && let Some(last) = self.outputs.last_mut()
        {
            last.ledger_delta.extend(deltas);
        }
    }

    pub(super) fn empty_output(&self) -> OrchestratorOutput {
        OrchestratorOutput {
            schema_version: CONTRACT_VERSION.into(),
            run_id: self.run_id.clone(),
            generated_at: Some(self.at()),
            ledger_delta: Vec::new(),
            assignments: Vec::new(),
            active_locks: Vec::new(),
            blockers: Vec::new(),
            next_actions: Vec::new(),
            extra: Default::default(),
        }
    }

    pub(super) fn worklog(&mut self, task: usize, actor: &str, line: WorklogLine) {
        self.worklog_ids(task, actor, line, false);
    }

    /// [`Self::worklog`] for a step whose task id and role names were found
    /// clean as the task entered the stage (`Running::ids_clean`).
    pub(super) fn worklog_ids(
        &mut self,
        task: usize,
        actor: &str,
        line: WorklogLine,
        ids_clean: bool,
    ) {
        let WorklogLine {
            action,
            files,
            decision,
            result,
            next_step,
            code,
        } = line;
        let entry = WorklogEntry {
            timestamp: self.instant(0),
            run_id: self.run_id.clone(),
            task_id: self.tasks[task].packet.task_id.clone(),
            actor: actor.to_string(),
            action,
            files_touched: files,
            decision,
            result,
            next_step,
            code: code.map(|c| c.as_str().to_string()),
            evidence: None,
        };
        let mut entry = entry;
        crate::redact::engine_worklog_entry(&mut entry, ids_clean);
        self.ports.sink.record(RunRecord::Worklog(&entry));
        if self.options.keep_records {
            self.worklogs.append_redacted(entry);
        }
    }

    /// The one way an agent call reaches the audit log: redacted, handed
    /// to the sink, and kept when the report keeps records.
    pub(super) fn audit_run(&mut self, record: AgentRunRecord) {
        self.audit_run_ids(record, false);
    }

    /// [`Self::audit_run`] for a step whose task id, stage and role names
    /// were found clean as the task entered the stage.
    pub(super) fn audit_run_ids(&mut self, mut record: AgentRunRecord, ids_clean: bool) {
        crate::redact::agent_run(&mut record, ids_clean);
        self.ports.sink.record(RunRecord::AgentRun(&record));
        if self.options.keep_records {
            self.audit.runs.push(record);
        }
    }

    pub(super) fn end_task(
        &mut self,
        task: usize,
        status: Status,
        code: ErrorCode,
        reason: String,
        actor: &str,
    ) {
        let task_id = self.tasks[task].packet.task_id.clone();
        let t = &mut self.tasks[task];
        t.status = status;
        t.code = Some(code);
        t.reason = Some(reason.clone());
        let (ledger, next) = match status {
            Status::Blocked => (
                LedgerStatus::Blocked,
                "a person resolves the blocker, then the task is re-run",
            ),
            Status::Canceled => (LedgerStatus::Canceled, "none: the run stopped"),
            _ => (
                LedgerStatus::Failed,
                "fix the cause named by the code and run the task again",
            ),
        };
        self.worklog(
            task,
            actor,
            WorklogLine {
                action: format!("task {}", ledger_word(ledger)),
                files: Vec::new(),
                decision: reason.clone(),
                result: code.as_str().to_string(),
                next_step: next.to_string(),
                code: Some(code),
            },
        );
        self.delta(task, ledger, actor, &reason, false);
        if let Some(out) = self.outputs.last_mut() {
            out.blockers.push(Blocker {
                task_id: task_id.clone(),
                code: code.as_str().to_string(),
                reason: reason.clone(),
                details: None,
            });
        }
        match status {
            Status::Blocked => self.emit(Event::TaskBlocked {
                task_id,
                code,
                reason,
            }),
            Status::Canceled => self.emit(Event::TaskCanceled { task_id, code }),
            _ => self.emit(Event::TaskFailed {
                task_id,
                code,
                reason,
            }),
        }
    }

    pub(super) fn cancel(&mut self, task: usize) {
        if !self.unpark(task) {
            // Its state was lost with the spill store: the record alone
            // says how it ended.
            self.tasks[task].status = Status::Canceled;
            self.tasks[task].code = Some(ErrorCode::RunStopped);
            return;
        }
        self.end_task(
            task,
            Status::Canceled,
            ErrorCode::RunStopped,
            "the run stopped before this task finished".into(),
            "orchestrator",
        );
    }

    /// Ends a task for `trigger`: escalated (blocked) when the role or its
    /// loop lists the trigger in `escalate_on`, otherwise failed (or blocked
    /// for conditions only a person can resolve).
    pub(super) fn escalate_or_end(
        &mut self,
        task: usize,
        role: usize,
        trigger: &'static str,
        code: ErrorCode,
        reason: String,
    ) {
        let role_name = self.flow.roles[role].role.name.clone();
        let listed = self.escalate[role] & trigger_bit(trigger) != 0;
        if listed {
            let summary = format!(
                "{role_name}: escalated on {trigger} ({code}) — {reason}; the task waits for a person"
            );
            self.emit(Event::Escalated {
                task_id: self.tasks[task].packet.task_id.clone(),
                role: role_name.clone(),
                trigger: trigger.to_string(),
                code,
                reason: reason.clone(),
                summary,
            });
            self.end_task(
                task,
                Status::Blocked,
                code,
                format!("escalated: {reason}"),
                &role_name,
            );
        } else {
            let status = match code {
                ErrorCode::NeedsInput | ErrorCode::AgentBlocked => Status::Blocked,
                _ => Status::Failed,
            };
            self.end_task(task, status, code, reason, &role_name);
        }
    }

    pub(super) fn finish_output(&mut self) {
        let run_id = self.run_id.clone();
        let Some(out) = self.outputs.last_mut() else {
            return;
        };
        out.next_actions = if self.stopped {
            vec!["stop: the run was stopped".into()]
        } else {
            vec!["continue with the next stage".into()]
        };
        out.run_id = run_id;
        let violations = out.check(true);
        if !violations.is_empty() {
            let message = violations
                .iter()
                .map(|v| format!("{}: {}", v.path, v.message))
                .collect::<Vec<_>>()
                .join("; ");
            self.emit(Event::Warning {
                code: ErrorCode::ResultInvalid,
                message: format!("orchestrator output envelope is invalid: {message}"),
            });
        }
    }

    pub(super) fn summaries(&self) -> Vec<TaskSummary> {
        self.tasks
            .iter()
            .enumerate()
            .map(|(i, task)| {
                // A task whose state was lost with the spill store has its
                // id and how it ended, nothing more.
                let body = task.body();
                TaskSummary {
                    task_id: self.task_id_of(i),
                    title: body.map(|b| b.packet.title.clone()).unwrap_or_default(),
                    state: match task.status {
                        Status::Done | Status::Active => TaskState::Done,
                        Status::Blocked => TaskState::Blocked,
                        Status::Failed => TaskState::Failed,
                        Status::Canceled => TaskState::Canceled,
                    },
                    code: task.code,
                    reason: body.and_then(|b| b.reason.clone()),
                    iterations: body
                        .map(|b| {
                            self.flow
                                .roles
                                .iter()
                                .zip(&b.iterations)
                                .filter(|(_, n)| **n > 0)
                                .map(|(r, n)| (r.role.name.clone(), *n))
                                .collect()
                        })
                        .unwrap_or_default(),
                    last_verdict: body.and_then(|b| b.last_verdict.clone()),
                }
            })
            .collect()
    }

    pub(super) fn handoff_bundle(&self) -> HandoffBundle {
        let ledger = self
            .tasks
            .iter()
            .filter(|t| t.is_live())
            .map(|t| {
                let row = self.ledger.row(&t.packet.task_id);
                LedgerRow {
                    task_id: t.packet.task_id.clone(),
                    title: t.packet.title.clone(),
                    status: row.map(|r| r.status).unwrap_or(LedgerStatus::Todo),
                    owner: row.map(|r| r.owner.clone()).unwrap_or_default(),
                    lock_scope: t.packet.lock_scope.clone(),
                    timeout_seconds: t.packet.timeout_seconds,
                    heartbeat_interval_seconds: t.packet.heartbeat_interval_seconds,
                    priority: t.packet.priority,
                    last_heartbeat_at: None,
                }
            })
            .collect();
        HandoffBundle {
            schema_version: CONTRACT_VERSION.into(),
            run_id: self.run_id.clone(),
            objective: objective(&self.scenario.input.goal),
            constraints: self
                .tasks
                .iter()
                .filter(|t| t.is_live())
                .flat_map(|t| {
                    t.packet
                        .forbidden_scope
                        .iter()
                        .map(|f| format!("Do not edit {f}"))
                })
                .collect(),
            ledger,
            active_locks: self
                .scenario
                .input
                .active_locks
                .iter()
                .cloned()
                .chain(
                    self.tasks
                        .iter()
                        .filter(|t| t.is_live())
                        .filter(|t| t.status == Status::Active)
                        .flat_map(|t| {
                            t.packet.lock_scope.iter().map(|r| ActiveLock {
                                task_id: t.packet.task_id.clone(),
                                resource: r.clone(),
                                active: false,
                                extra: Default::default(),
                            })
                        }),
                )
                .collect(),
            dependencies: self
                .tasks
                .iter()
                .filter(|t| t.is_live())
                .map(|t| {
                    (
                        t.packet.task_id.clone(),
                        t.packet.dependencies.iter().map(|d| d.0.clone()).collect(),
                    )
                })
                .collect(),
            open_blockers: self
                .tasks
                .iter()
                .filter(|t| t.is_live())
                .filter(|t| t.status == Status::Blocked)
                .map(|t| Blocker {
                    task_id: t.packet.task_id.clone(),
                    code: t.code.map(|c| c.as_str().to_string()).unwrap_or_default(),
                    reason: t.reason.clone().unwrap_or_default(),
                    details: None,
                })
                .collect(),
            acceptance_targets: self
                .tasks
                .iter()
                .filter(|t| t.is_live())
                .flat_map(|t| t.packet.acceptance_criteria.iter().cloned())
                .collect(),
        }
    }
}
