//! Setup: gates compiled, tasks built from the run input, the audit header
//! and the preflight checks, before any agent runs.

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
    pub(super) fn compile_gates(&mut self) -> Result<(), String> {
        let playbook = self.playbook;
        let compile = |text: Option<&str>| -> Result<Option<Gate>, String> {
            text.map(|t| gate::compile_in(playbook, t).map_err(|e| e.to_string()))
                .transpose()
        };
        for r in &self.flow.roles {
            self.role_gates.push(compile(r.role.pass_condition())?);
        }
        for (_, stage) in playbook.stages() {
            self.stage_gates
                .push((compile(stage.enter_gate())?, compile(stage.exit_gate())?));
        }
        Ok(())
    }

    pub(super) fn build_tasks(&mut self) -> Result<(), Vec<String>> {
        let input = &self.scenario.input;
        let mut base = Map::new();
        base.insert("goal".into(), json!(input.goal));
        for (k, v) in &input.values {
            base.insert(k.clone(), v.clone());
        }
        let mut problems = Vec::new();
        if input.tasks.is_empty() {
            let title = if input.goal.trim().is_empty() {
                "Reach the goal".to_string()
            } else {
                truncate(&input.goal, 500)
            };
            let task = self.make_task(
                "T-1".into(),
                title,
                &base,
                &crate::scenario::TaskInput::default(),
            );
            self.tasks.push(Task {
                is_goal: true,
                ..task
            });
        }
        let mut seen: std::collections::HashSet<String> = self
            .tasks
            .iter()
            .map(|t| t.packet.task_id.clone())
            .collect();
        for (i, t) in input.tasks.iter().enumerate() {
            let id = t.id.clone().unwrap_or_else(|| format!("T-{}", i + 1));
            let task = self.make_task(id, t.title.clone(), &base, t);
            let mut packet = AssignmentPacket {
                schema_version: CONTRACT_VERSION.into(),
                run_id: self.run_id.clone(),
                generated_at: None,
                packet_type: PacketType::Assignment,
                global_objective: objective(&input.goal),
                task: task.packet.clone(),
                active_locks: Vec::new(),
                context_package: Vec::new(),
                required_output_schema: OutputSchemaName::SubagentResultV1,
                extra: Default::default(),
            };
            packet.task.extra.clear();
            for v in packet.check(true) {
                problems.push(format!("task #{} {}: {}", i + 1, v.path, v.message));
            }
            if !seen.insert(task.packet.task_id.clone()) {
                problems.push(format!("task id {} is used twice", task.packet.task_id));
            }
            self.tasks.push(task);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    pub(super) fn make_task(
        &self,
        id: String,
        title: String,
        base: &Map<String, Value>,
        t: &crate::scenario::TaskInput,
    ) -> Task {
        let criteria = if t.acceptance_criteria.is_empty() {
            vec![format!("{title} is complete")]
        } else {
            t.acceptance_criteria.clone()
        };
        let mut values = base.clone();
        values.insert("task".into(), json!(title));
        values.insert("task_id".into(), json!(id));
        values.insert("title".into(), json!(title));
        values.insert("acceptance_criteria".into(), json!(criteria));
        if self.playbook.is_legacy() {
            // What agenterm's orchestrator gave every role of a task
            // (`legacy::AGENTERM_RUN_INPUTS`); a scenario's values win.
            let legacy = [
                ("project_id", self.playbook.id.clone()),
                ("spec_path", format!("docs/specs/{id}.md")),
                ("worktree_id", format!("wt-{id}")),
                ("worktree_path", format!("worktrees/{id}")),
                ("branch_name", format!("playbook/{id}")),
                ("task_title", title.clone()),
                ("session_id", format!("{}/{id}", self.run_id)),
            ];
            debug_assert_eq!(
                legacy.len(),
                playbook_core::legacy::AGENTERM_RUN_INPUTS.len()
            );
            for (key, value) in legacy {
                values.entry(key).or_insert(json!(value));
            }
        }
        for (k, v) in &t.values {
            values.insert(k.clone(), v.clone());
        }
        let timeout_seconds = t.timeout_seconds.unwrap_or(1200);
        let packet = PacketTask {
            task_id: id.clone(),
            title,
            kind: t.kind.unwrap_or(TaskType::Parallelizable),
            dependencies: t.dependencies.iter().cloned().map(TaskIdString).collect(),
            lock_scope: if t.lock_scope.is_empty() {
                vec![format!("worktrees/{id}/")]
            } else {
                t.lock_scope.clone()
            },
            forbidden_scope: t.forbidden_scope.clone(),
            acceptance_criteria: criteria,
            worklog_path: format!("worklogs/{id}.jsonl"),
            timeout_seconds,
            heartbeat_interval_seconds: t
                .heartbeat_interval_seconds
                .unwrap_or((timeout_seconds / 10).max(5)),
            priority: t.priority.unwrap_or(Priority::Normal),
            extra: Default::default(),
        };
        Task {
            packet,
            values,
            explicit_role: t.role.clone(),
            status: Status::Active,
            code: None,
            reason: None,
            iterations: vec![0; self.flow.roles.len()],
            last_verdict: None,
            is_goal: false,
            kind: t.task_kind.unwrap_or_default(),
            scoped: !t.lock_scope.is_empty(),
        }
    }

    pub(super) fn audit_header(&self, playbook_hash: &str) -> AuditLog {
        let playbook = self.playbook;
        let input = &self.scenario.input;
        let policies = json!({
            "policies": playbook.policies,
            "mutating_actions": self.mutating,
        });
        let empty = Map::new();
        let role_prompts = self
            .flow
            .roles
            .iter()
            .map(|r| {
                let text = crate::prompt::render(playbook, r, &empty);
                (r.role.name.clone(), sha256_hex(text.as_bytes()))
            })
            .collect();
        AuditLog {
            run_id: self.run_id.clone(),
            inputs: AuditInputs {
                playbook_id: playbook.id.clone(),
                scenario: self.scenario_name(),
                seed: self.options.seed,
                goal: input.goal.clone(),
                task_ids: self
                    .tasks
                    .iter()
                    .map(|t| t.packet.task_id.clone())
                    .collect(),
                repo: input
                    .values
                    .get("repo")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                base_ref: input
                    .values
                    .get("base_ref")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            },
            context: ContextSnapshot {
                playbook_hash: playbook_hash.to_string(),
                policies_hash: sha256_hex(policies.to_string().as_bytes()),
                scenario_hash: sha256_hex(&serde_json::to_vec(self.scenario).unwrap_or_default()),
                role_prompts,
                files: self.options.context_files.clone(),
                absent: self.options.context_absent.clone(),
            },
            started_at: self.at(),
            ended_at: String::new(),
            outcome: None,
            runs: Vec::new(),
        }
    }

    pub(super) fn preflight(&self) -> Vec<PreflightResult> {
        self.scenario
            .preflight
            .iter()
            .map(|check| {
                let (passed, detail) = match self.scenario.repo.get(&check.path) {
                    None => (false, format!("{} does not exist", check.path)),
                    Some(content) => {
                        let hash = sha256_hex(content.as_bytes());
                        match (&check.sha256, &check.contains) {
                            (Some(expected), _) if !expected.eq_ignore_ascii_case(&hash) => (
                                false,
                                format!(
                                    "{} changed: sha256 {hash}, expected {expected}",
                                    check.path
                                ),
                            ),
                            (_, Some(needle)) if !content.contains(needle.as_str()) => {
                                (false, format!("{} does not contain `{needle}`", check.path))
                            }
                            _ => (true, format!("{} present and unchanged", check.path)),
                        }
                    }
                };
                PreflightResult {
                    name: check.name.clone(),
                    passed,
                    detail,
                }
            })
            .collect()
    }
}
