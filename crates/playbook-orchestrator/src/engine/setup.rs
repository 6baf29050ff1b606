//! Setup: what every run of a playbook and scenario shares ([`Prepared`]:
//! validation, compiled gates, rendered contract blocks, hashes), then per
//! run the tasks built from the run input, the audit header and the
//! preflight checks, before any agent runs.

use super::*;

/// A playbook and scenario made ready to run: everything the engine works
/// out before the first agent call that does not depend on the run's seed
/// or ports. Built once, borrowed by any number of runs
/// ([`run_prepared`]); a simulation of thousands of runs pays for it once.
/// What must refuse a run is found here and refused by every run, with the
/// same events as ever.
pub struct Prepared<'b> {
    pub(super) playbook: &'b Playbook,
    pub(super) scenario: &'b Scenario,
    pub(super) findings: Vec<playbook_core::Finding>,
    /// Why every run is refused, if it is: code, reason, details.
    pub(super) refusal: Option<(ErrorCode, String, Vec<String>)>,
    pub(super) flow: Flow<'b>,
    pub(super) role_gates: Vec<Option<Gate>>,
    /// Per role: whether its gate's source holds nothing the redactor
    /// hides (found once here, not once per gate event).
    pub(super) role_gate_clean: Vec<bool>,
    pub(super) stage_gates: Vec<(Option<Gate>, Option<Gate>)>,
    pub(super) loop_bound: Vec<Option<u32>>,
    /// Per role: the escalation triggers (bits) of the role and its loop.
    pub(super) escalate: Vec<u8>,
    pub(super) mutating: Vec<String>,
    pub(super) prompt_blocks: Vec<PromptBlock>,
    /// Per stage (workflow order): whether its name and every role name of
    /// the flow hold nothing the redactor hides. Events made of these, a
    /// clean task id, numbers and fixed words are then not scanned again.
    pub(super) names_clean: Vec<bool>,
    pub(super) bounds: Vec<StageBound>,
    /// The audit log's context without a real run's files.
    pub(super) context: ContextSnapshot,
}

impl<'b> Prepared<'b> {
    /// The playbook every run of this value runs.
    pub fn playbook(&self) -> &'b Playbook {
        self.playbook
    }

    /// The scenario every run of this value runs.
    pub fn scenario(&self) -> &'b Scenario {
        self.scenario
    }

    /// Validates `playbook` (with `validation`) and `scenario` against it
    /// and works out what every run shares. Never fails: what must not run
    /// is refused by each run with an event, as [`run`] always did.
    pub fn new(
        playbook: &'b Playbook,
        scenario: &'b Scenario,
        validation: &playbook_core::Options,
    ) -> Prepared<'b> {
        let flow = Flow::new(playbook);
        let mut escalate = vec![0u8; flow.roles.len()];
        for (i, r) in flow.roles.iter().enumerate() {
            escalate[i] = r
                .role
                .escalate_on()
                .iter()
                .fold(0, |m, t| m | trigger_bit(t));
        }
        for members in flow.loops() {
            let mask = members.iter().fold(0, |m, &i| m | escalate[i]);
            for &i in &members {
                escalate[i] |= mask;
            }
        }
        let loop_bound = loop_bounds(&flow);
        let roles_clean = flow
            .roles
            .iter()
            .all(|r| playbook_redact::is_clean(&r.role.name));
        let names_clean = playbook
            .workflow
            .keys()
            .map(|stage| roles_clean && playbook_redact::is_clean(stage))
            .collect();
        let mutating = match &playbook.mutating_actions {
            Some(list) => list.clone(),
            None => DEFAULT_MUTATING_ACTIONS
                .iter()
                .map(|s| s.to_string())
                .collect(),
        };
        let mut prepared = Prepared {
            playbook,
            scenario,
            findings: Vec::new(),
            refusal: None,
            flow,
            role_gates: Vec::new(),
            role_gate_clean: Vec::new(),
            stage_gates: Vec::new(),
            loop_bound,
            escalate,
            mutating,
            prompt_blocks: Vec::new(),
            names_clean,
            bounds: Vec::new(),
            context: ContextSnapshot::default(),
        };
        prepared.refusal = prepared.check(validation).err();
        // What every run's report copies from here is redacted here, once,
        // not at the end of each run (`redact::report_with`). The refusal
        // above was made from the findings as found; its event is
        // redacted as it is emitted, as every event is.
        crate::redact::record(&mut prepared.findings, Vec::new);
        crate::redact::record(&mut prepared.bounds, Vec::new);
        crate::redact::record(&mut prepared.context, Default::default);
        prepared
    }

    /// The refusal checks, in the order a run makes them, then what only a
    /// runnable playbook has (gates, contract blocks, bounds, hashes).
    fn check(
        &mut self,
        validation: &playbook_core::Options,
    ) -> Result<(), (ErrorCode, String, Vec<String>)> {
        let playbook = self.playbook;
        let scenario = self.scenario;
        self.findings = playbook_core::validate(playbook, validation);
        let errors: Vec<String> = self
            .findings
            .iter()
            .filter(|f| f.is_error())
            .map(|f| format!("{} {}: {}", f.code, f.path, f.message))
            .collect();
        if !errors.is_empty() {
            let reason = format!("the playbook has {} validation error(s)", errors.len());
            return Err((ErrorCode::PlaybookInvalid, reason, errors));
        }
        if let Err(e) = scenario.check_against(playbook) {
            return Err((e.code, e.message, Vec::new()));
        }
        for (i, t) in scenario.input.tasks.iter().enumerate() {
            // The flow's name index, not a scan of every role per task
            // (tasks times roles, both as large as their documents allow).
            if let Some(role) = &t.role
                && self.flow.index_of(role).is_none()
            {
                let reason = format!(
                    "task {} names role `{role}`, which the playbook does not define; roles are never inferred",
                    t.id.clone().unwrap_or_else(|| format!("#{}", i + 1))
                );
                return Err((ErrorCode::RoleUnknown, reason, Vec::new()));
            }
        }
        self.prompt_blocks = self
            .flow
            .roles
            .iter()
            .map(|r| PromptBlock::new(crate::prompt::contract_block(playbook, r)))
            .collect();
        self.compile_gates()
            .map_err(|reason| (ErrorCode::PlaybookInvalid, reason, Vec::new()))?;
        // Without tasks in the input, the run has exactly one (the goal).
        let known_tasks = (!scenario.input.tasks.is_empty())
            .then(|| u32::try_from(scenario.input.tasks.len()).unwrap_or(u32::MAX));
        self.bounds = stage_bounds(playbook, known_tasks);
        self.context = self.context_snapshot();
        Ok(())
    }

    fn compile_gates(&mut self) -> Result<(), String> {
        let playbook = self.playbook;
        let compile = |text: Option<&str>| -> Result<Option<Gate>, String> {
            text.map(|t| gate::compile_in(playbook, t).map_err(|e| e.to_string()))
                .transpose()
        };
        for r in &self.flow.roles {
            let gate = compile(r.role.pass_condition())?;
            self.role_gate_clean.push(
                gate.as_ref()
                    .is_none_or(|g| playbook_redact::is_clean(&g.source)),
            );
            self.role_gates.push(gate);
        }
        for (_, stage) in playbook.stages() {
            self.stage_gates
                .push((compile(stage.enter_gate())?, compile(stage.exit_gate())?));
        }
        Ok(())
    }

    /// The hashes of the audit log's context: the playbook's canonical
    /// JSON, its policies, the scenario, each role's prompt template.
    fn context_snapshot(&self) -> ContextSnapshot {
        let playbook = self.playbook;
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
        ContextSnapshot {
            playbook_hash: sha256_hex(&serde_json::to_vec(playbook).unwrap_or_default()),
            policies_hash: sha256_hex(policies.to_string().as_bytes()),
            scenario_hash: crate::audit::sha256_json_hex(self.scenario),
            role_prompts,
            files: Default::default(),
            absent: Vec::new(),
        }
    }
}

impl<A, P, R, T, C, S> Engine<'_, '_, A, P, R, T, C, S>
where
    A: Agent,
    P: Approver,
    R: RoleAssigner,
    T: Tools,
    C: Clock,
    S: EventSink,
{
    pub(super) fn build_tasks(&mut self) -> Result<(), Vec<String>> {
        let scenario = self.scenario;
        let input = &scenario.input;
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
            self.park(0);
        }
        // Exactly the run input's tasks: a doubled capacity would be a
        // record per task more.
        self.tasks.reserve_exact(input.tasks.len());
        let mut seen: std::collections::HashMap<String, usize> = (0..self.tasks.len())
            .map(|i| (self.task_id_of(i), i))
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
            let index = self.tasks.len();
            if seen.insert(task.packet.task_id.clone(), index).is_some() {
                problems.push(format!("task id {} is used twice", task.packet.task_id));
            }
            self.tasks.push(task);
            // Made one at a time and parked at once: the run's tasks are
            // never all live together.
            self.park(self.tasks.len() - 1);
        }
        // A dependency on no task never gets here (`Scenario::check_against`
        // refuses it before the run); dropping one is the safe reading.
        for (i, t) in input.tasks.iter().enumerate() {
            if !t.dependencies.is_empty() {
                self.tasks[i].ties.get_or_insert_default().deps = t
                    .dependencies
                    .iter()
                    .filter_map(|d| seen.get(d).copied())
                    .collect();
            }
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
        let ties = (!t.lock_scope.is_empty() || !t.forbidden_scope.is_empty()).then(|| {
            Box::new(Ties {
                deps: Box::default(),
                scopes: Some(Scopes {
                    lock: packet.lock_scope.clone(),
                    forbidden: packet.forbidden_scope.clone(),
                }),
            })
        });
        Task {
            id_clean: playbook_redact::is_clean(&packet.task_id),
            slot: Slot::Live(Box::new(Body {
                packet,
                values,
                explicit_role: t.role.clone(),
                reason: None,
                iterations: vec![0; self.flow.roles.len()],
                last_verdict: None,
            })),
            status: Status::Active,
            code: None,
            is_goal: false,
            kind: t.task_kind.unwrap_or_default(),
            scoped: !t.lock_scope.is_empty(),
            // Dependencies are resolved by `build_tasks` once every task
            // has its index.
            ties,
        }
    }

    pub(super) fn audit_header(&self) -> AuditLog {
        let input = &self.scenario.input;
        AuditLog {
            run_id: self.run_id.clone(),
            inputs: AuditInputs {
                playbook_id: self.playbook.id.clone(),
                scenario: self.scenario_name(),
                seed: self.options.seed,
                goal: input.goal.clone(),
                task_ids: (0..self.tasks.len()).map(|i| self.task_id_of(i)).collect(),
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
                files: self.options.context_files.clone(),
                absent: self.options.context_absent.clone(),
                ..self.prepared.context.clone()
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

/// A role's contract block, rendered once per prepared playbook, with the
/// SHA-256 states of the prompt's fixed beginnings: after the block, and
/// after the block followed by [`crate::prompt::DATA_PREAMBLE`]. A step
/// hashes only what its task adds; the digest is that of the whole prompt.
pub(crate) struct PromptBlock {
    pub(super) text: String,
    block: sha2::Sha256,
    with_preamble: sha2::Sha256,
}

impl PromptBlock {
    pub(crate) fn new(text: String) -> PromptBlock {
        use sha2::Digest;
        let mut block = sha2::Sha256::new();
        block.update(text.as_bytes());
        let mut with_preamble = block.clone();
        with_preamble.update(crate::prompt::DATA_PREAMBLE.as_bytes());
        PromptBlock {
            text,
            block,
            with_preamble,
        }
    }

    /// The hex SHA-256 of `prompt`, which starts with this block (the
    /// engine renders every prompt so); any other text is hashed whole.
    pub(crate) fn digest(&self, prompt: &str) -> String {
        use sha2::Digest;
        let Some(tail) = prompt.strip_prefix(self.text.as_str()) else {
            return crate::audit::sha256_hex(prompt.as_bytes());
        };
        // The preamble is compared, not assumed: a role whose task part
        // opens otherwise (a suggested prompt) is hashed from the block on.
        let hasher = match tail.strip_prefix(crate::prompt::DATA_PREAMBLE) {
            Some(rest) => {
                let mut hasher = self.with_preamble.clone();
                hasher.update(rest.as_bytes());
                hasher
            }
            None => {
                let mut hasher = self.block.clone();
                hasher.update(tail.as_bytes());
                hasher
            }
        };
        crate::audit::hex(&hasher.finalize())
    }
}

#[cfg(test)]
mod prompt_block_tests {
    use super::PromptBlock;
    use crate::audit::sha256_hex;
    use crate::prompt::DATA_PREAMBLE;

    /// Whatever follows the block (the preamble, a suggested prompt, a
    /// preamble cut short, nothing) and whatever the prompt is, the digest
    /// is that of the whole text.
    #[test]
    fn a_prompt_hashed_from_a_prepared_state_has_the_whole_texts_digest() {
        let block = PromptBlock::new("You are `worker`.\n## Role contract\n".repeat(7));
        let head = block.text.clone();
        let cases = [
            head.clone(),
            format!("{head}{DATA_PREAMBLE}"),
            format!("{head}{DATA_PREAMBLE}\n```data name=task trust=untrusted\nx\n```\n"),
            format!("{head}\n## Task\n\nDo it.\n{DATA_PREAMBLE}body"),
            format!("{head}{}", &DATA_PREAMBLE[..DATA_PREAMBLE.len() - 1]),
            "another prompt altogether".to_string(),
            String::new(),
        ];
        for prompt in cases {
            assert_eq!(
                block.digest(&prompt),
                sha256_hex(prompt.as_bytes()),
                "{prompt:?}"
            );
        }
    }
}
