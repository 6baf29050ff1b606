//! Scheduling: the stage loop in virtual time (admission, steps, waits,
//! budgets) and the planner's fan-out into tasks.

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
    pub(super) async fn run_stage(&mut self, s: usize, active: Vec<usize>) {
        let (stage_name, stage) = self
            .playbook
            .workflow
            .get_index(s)
            .map(|(n, st)| (n.clone(), st))
            .expect("stage index is in range");
        let cap = stage.max_parallel_worktrees().max(1);
        self.outputs.push(self.empty_output());
        self.emit(Event::StageEntered {
            stage: stage_name.clone(),
            tasks: active.len() as u32,
            max_parallel: cap,
        });
        // The roles a task may start this stage at: the routing model the
        // worst-case bound is computed from.
        let stage_roles: Vec<usize> = self.flow.entries_of_stage(s).collect();
        let mut counters = Counters {
            total: active.len() as u32,
            ..Default::default()
        };
        let mut waiting = Waiting::new(&active, self.tasks.len());
        // Never more worktrees than tasks: memory follows the work, not a
        // hostile `max_parallel_worktrees`.
        let worktrees = (cap as usize).min(active.len()).max(1);
        let mut slots: Vec<Option<Running>> = (0..worktrees).map(|_| None).collect();
        let mut heap: BinaryHeap<Reverse<(u64, u64, usize, Phase)>> = BinaryHeap::new();
        let mut order = 0u64;
        let mut in_stage_done: Vec<usize> = Vec::new();
        // Names that recur in every step's events, scanned once per
        // prepared playbook.
        let names_clean = self.prepared.names_clean.get(s).copied().unwrap_or(false);

        loop {
            if self.stopped {
                break;
            }
            // Admit waiting tasks while worktrees are free. Tasks held back
            // by a dependency are not visited (`waiting.rs`) until it
            // finishes or their wait runs out.
            waiting.due(self.now);
            let mut i = 0;
            while i < waiting.visible() && slots.iter().any(Option::is_none) {
                let waiting::Entry { task, since } = waiting.get(i);
                // A dependency that still waits or runs, then a lock, holds
                // the task back whatever else holds: decided without
                // reading the parked task, as admission would decide it. A
                // dependency that ended without passing ends the task, in
                // admission, before any lock is looked at.
                let held_back = match self.dependency(task, &waiting) {
                    Dependency::Pending(d) => Some(("dependency", self.task_id_of(d), d)),
                    Dependency::Ended(_) => None,
                    Dependency::Clear => self.lock_wait(task, &slots).map(|wait| match wait {
                        LockWait::Task(holder, on) => (LOCK, on, holder),
                        LockWait::External(on) => (LOCK, on, NEVER),
                    }),
                };
                if let Some((reason, on, until)) = held_back {
                    self.report_wait(task, &stage_name, reason, &on, &mut waiting);
                    let since = since.unwrap_or(self.now);
                    if self.now.saturating_sub(since) > self.wait_ms {
                        if !self.unpark(task) {
                            break;
                        }
                        self.wait_ran_out(task, &mut counters);
                        waiting.remove(i);
                        waiting.finished(task);
                        self.park(task);
                    } else if !waiting.hold(i, since, until, self.wait_ms) {
                        i += 1;
                    }
                    continue;
                }
                // Admission reads the task's packet and values.
                if !self.unpark(task) {
                    break;
                }
                match self
                    .admit(
                        StageView {
                            index: s,
                            name: &stage_name,
                            roles: &stage_roles,
                            slots: &slots,
                            counters,
                        },
                        task,
                        &mut waiting,
                    )
                    .await
                {
                    Admit::Start(role) => {
                        let free = slots.iter().position(Option::is_none).unwrap_or(0);
                        let worktree = free as u32 + 1;
                        self.emit(Event::TaskAssigned {
                            task_id: self.tasks[task].packet.task_id.clone(),
                            stage: stage_name.clone(),
                            worktree,
                        });
                        let role_name = self.flow.roles[role].role.name.clone();
                        self.delta(
                            task,
                            LedgerStatus::InProgress,
                            &role_name,
                            "assigned",
                            false,
                        );
                        self.flush_deltas();
                        slots[free] = Some(Running {
                            task,
                            role,
                            first_run: vec![0; self.flow.roles.len()],
                            runs: 0,
                            pending: None,
                            sent: None,
                            ids_clean: names_clean && self.tasks[task].id_clean,
                        });
                        order += 1;
                        heap.push(Reverse((self.now, order, free, Phase::Start)));
                        waiting.remove(i);
                    }
                    Admit::Ended => {
                        self.count_end(task, &mut counters);
                        waiting.remove(i);
                        waiting.finished(task);
                        self.release(task);
                        self.park(task);
                    }
                    Admit::Wait(until) => {
                        let since = since.unwrap_or(self.now);
                        waiting.set_since(i, since);
                        if self.now.saturating_sub(since) > self.wait_ms {
                            self.wait_ran_out(task, &mut counters);
                            waiting.remove(i);
                            waiting.finished(task);
                        } else if !until.is_some_and(|on| waiting.hold(i, since, on, self.wait_ms))
                        {
                            i += 1;
                        }
                        self.park(task);
                    }
                }
            }
            if self.parking.failed.is_some() {
                // The spill store failed: what runs and waits is canceled.
                self.cancel_stage(&mut slots, &mut waiting);
                break;
            }
            let Some(Reverse((time, _, slot, phase))) = heap.pop() else {
                if waiting.is_empty() {
                    break;
                }
                // Nothing runs and nothing can start: jump to the earliest
                // wait deadline, where the waiting task gives up.
                let deadline = waiting
                    .earliest_deadline(self.now, self.wait_ms)
                    .unwrap_or(self.now);
                self.now = self.now.max(deadline);
                continue;
            };
            self.now = self.now.max(time);
            let Some(mut running) = slots[slot].take() else {
                continue;
            };
            let next = match phase {
                Phase::Start => self.start_step(&stage_name, &mut running).await,
                Phase::Complete => self.complete_step(s, &stage_name, &mut running).await,
            };
            match next {
                Next::At(t, phase) => {
                    order += 1;
                    heap.push(Reverse((t, order, slot, phase)));
                    slots[slot] = Some(running);
                }
                Next::LeftStage => {
                    counters.done += 1;
                    in_stage_done.push(running.task);
                    waiting.finished(running.task);
                    self.release(running.task);
                    self.park(running.task);
                }
                Next::Ended => {
                    self.count_end(running.task, &mut counters);
                    waiting.finished(running.task);
                    self.release(running.task);
                    self.park(running.task);
                }
            }
            if self.stopped {
                self.cancel_stage(&mut slots, &mut waiting);
                break;
            }
        }

        // Exit gates see the stage's final counters.
        if !self.stopped {
            for &task in &in_stage_done {
                if self.tasks[task].status != Status::Active || self.stage_gates[s].1.is_none() {
                    continue;
                }
                // Most tasks pass: their state stays parked.
                if self.parked_exit_gate_passes(s, task, counters) {
                    continue;
                }
                if !self.unpark(task) {
                    break;
                }
                if !self.stage_gate(s, task, true, counters).await {
                    counters.done -= 1;
                    counters.blocked += 1;
                }
                self.park(task);
            }
        }
        self.flush_deltas();
        if !self.stopped {
            self.fan_out(s, &in_stage_done);
        }
        self.emit(Event::StageExited {
            stage: stage_name,
            done: counters.done,
            blocked: counters.blocked,
            failed: counters.failed,
        });
        self.finish_output();
    }

    /// Cancels what runs (live) and what waits (parked) in a stage that
    /// stops.
    fn cancel_stage(&mut self, slots: &mut [Option<Running>], waiting: &mut Waiting) {
        for running in slots.iter_mut().filter_map(Option::take) {
            self.cancel(running.task);
            self.release(running.task);
            self.park(running.task);
        }
        for task in waiting.drain() {
            self.cancel(task);
            self.release(task);
            self.park(task);
        }
    }

    /// Tells the tools that `task` no longer works in its stage: it left
    /// the stage (still active) or ended. A real run frees the task's
    /// worktree slot here, so the cap counts the tasks at work, not every
    /// task that ever had a worktree.
    pub(super) fn release(&mut self, task: usize) {
        let how = match self.tasks[task].status {
            Status::Active => Release::LeftStage,
            Status::Done => Release::Ended { passed: true },
            Status::Blocked | Status::Failed | Status::Canceled => Release::Ended { passed: false },
        };
        let task_id = self.task_id_of(task);
        self.ports.tools.release(&task_id, how);
    }

    /// Ends a task (live) whose wait to start ran out.
    fn wait_ran_out(&mut self, task: usize, counters: &mut Counters) {
        let reason = format!("waited longer than {} ms to start", self.wait_ms);
        self.end_task(
            task,
            Status::Blocked,
            ErrorCode::WaitTimeout,
            reason,
            "orchestrator",
        );
        self.count_end(task, counters);
        self.release(task);
    }

    pub(super) fn count_end(&self, task: usize, counters: &mut Counters) {
        match self.tasks[task].status {
            Status::Failed => counters.failed += 1,
            Status::Blocked | Status::Canceled => counters.blocked += 1,
            _ => {}
        }
    }

    /// A planner's `tasks` output on the goal task creates the run's tasks.
    pub(super) fn fan_out(&mut self, s: usize, finished: &[usize]) {
        if !self.scenario.input.tasks.is_empty() {
            return;
        }
        let has_planner = self
            .flow
            .roles
            .iter()
            .any(|r| r.stage_index == s && r.role.mode == Some(RoleMode::Planner));
        for &g in finished {
            if !self.tasks[g].is_goal || self.tasks[g].status != Status::Active || !has_planner {
                continue;
            }
            if !self.unpark(g) {
                break;
            }
            let Some(Value::Array(items)) = self.tasks[g].values.get("tasks").cloned() else {
                self.park(g);
                continue;
            };
            // Created tasks inherit the goal task's values except the plan's
            // task list itself: each gets its own item as `plan_task`. A copy
            // of the whole list in every task would make memory quadratic in
            // the fan-out (ARCHITECTURE.md, invariants).
            let mut base = self.tasks[g].values.clone();
            base.shift_remove("tasks");
            let mut ids = Vec::new();
            for item in items.iter().take(MAX_CREATED_TASKS) {
                let n = self.tasks.len() + 1;
                let mut input = crate::scenario::TaskInput::default();
                match item {
                    Value::String(title) => input.title = truncate(title, 500),
                    Value::Object(map) => {
                        input.title = map
                            .get("title")
                            .and_then(Value::as_str)
                            .map(|t| truncate(t, 500))
                            .unwrap_or_else(|| format!("Task {n}"));
                        input.lock_scope = strings(map.get("lock_scope"));
                        input.forbidden_scope = strings(map.get("forbidden_scope"));
                        input.acceptance_criteria = strings(map.get("acceptance_criteria"));
                        // An unknown kind falls back to the default (edit_repo),
                        // whose gateway rules still apply to every call.
                        input.task_kind = map
                            .get("kind")
                            .and_then(|k| serde_json::from_value(k.clone()).ok());
                    }
                    other => input.title = truncate(&other.to_string(), 500),
                }
                if input.title.trim().is_empty() {
                    input.title = format!("Task {n}");
                }
                let id = format!("T-{n}");
                let mut task = self.make_task(id.clone(), input.title.clone(), &base, &input);
                task.values.insert("plan_task".into(), item.clone());
                self.tasks.push(task);
                let i = self.tasks.len() - 1;
                self.delta(
                    i,
                    LedgerStatus::Todo,
                    "planner",
                    "created by the plan",
                    true,
                );
                // Its row made, the task is parked: a plan's tasks are
                // never all live together. The sink receives each create
                // before `TasksCreated` instead of after it.
                self.flush_deltas();
                self.park(i);
                ids.push(id);
            }
            if items.len() > MAX_CREATED_TASKS {
                self.emit(Event::Warning {
                    code: ErrorCode::OutputTooLarge,
                    message: format!(
                        "the plan lists {} tasks; only the first {MAX_CREATED_TASKS} run",
                        items.len()
                    ),
                });
            }
            if ids.is_empty() {
                self.park(g);
                continue;
            }
            self.emit(Event::TasksCreated {
                by: self.tasks[g].packet.task_id.clone(),
                task_ids: ids,
            });
            self.tasks[g].status = Status::Done;
            self.delta(g, LedgerStatus::Done, "planner", "planned", false);
            let task_id = self.tasks[g].packet.task_id.clone();
            self.emit(Event::TaskDone { task_id });
            self.flush_deltas();
            self.park(g);
        }
    }
}
