//! Admission: whether a waiting task may start now (dependencies, locks,
//! caps) and at which role (explicit, or chosen by the role assigner).

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
    pub(super) async fn admit(
        &mut self,
        view: StageView<'_>,
        task: usize,
        waiting: &mut Waiting,
    ) -> Admit {
        let StageView {
            index: s,
            name: stage,
            roles: stage_roles,
            slots,
            counters,
        } = view;
        let task_id = self.tasks[task].packet.task_id.clone();
        // Dependencies.
        match self.dependency(task, waiting) {
            Dependency::Ended(d) => {
                let reason = format!("depends on {}, which did not finish", self.task_id_of(d));
                self.end_task(
                    task,
                    Status::Blocked,
                    ErrorCode::DependencyBlocked,
                    reason,
                    "orchestrator",
                );
                return Admit::Ended;
            }
            Dependency::Pending(d) => {
                let on = self.task_id_of(d);
                self.report_wait(task, stage, "dependency", &on, waiting);
                return Admit::Wait(Some(d));
            }
            Dependency::Clear => {}
        }
        // Locks: never run beside a task or lock it overlaps.
        match self.lock_wait(task, slots) {
            Some(LockWait::Task(holder, on)) => {
                self.report_wait(task, stage, LOCK, &on, waiting);
                // Held back until that task leaves the stage or ends: its
                // dependencies passed for good, and a lock wait is said
                // once, so nothing else could start it or be said of it.
                return Admit::Wait(Some(holder));
            }
            Some(LockWait::External(on)) => {
                self.report_wait(task, stage, LOCK, &on, waiting);
                // A lock held outside the run is never released in it: the
                // task waits until its wait runs out.
                return Admit::Wait(Some(NEVER));
            }
            None => {}
        }
        // Role: explicit, or chosen by the assigner within caps.
        let explicit = self.tasks[task].explicit_role.clone().and_then(|name| {
            stage_roles
                .iter()
                .copied()
                .find(|&i| self.flow.roles[i].role.name == name)
        });
        let (role, source, rationale, warning) = match explicit {
            Some(role) => (
                role,
                "explicit",
                "the task names this role; roles are never inferred from task text".to_string(),
                None,
            ),
            None => {
                let caps = self.caps(s, stage_roles, slots);
                // Offer the roles the task can feed (it carries their
                // required inputs; any other role would only produce a
                // contract violation) that are under their cap. When the
                // task can feed no role at all, offer every role under its
                // cap, so the violation surfaces instead of a silent wait.
                let values = &self.tasks[task].values;
                let under_cap = |r: &playbook_core::Role| {
                    caps.in_flight.get(&r.name).copied().unwrap_or(0) < caps.cap_of(&r.name)
                };
                let roles: Vec<&playbook_core::Role> = stage_roles
                    .iter()
                    .map(|&i| self.flow.roles[i].role)
                    .collect();
                let fed: Vec<&playbook_core::Role> = roles
                    .iter()
                    .copied()
                    .filter(|r| {
                        r.inputs_required()
                            .iter()
                            .all(|i| values.get(i).is_some_and(|v| !v.is_null()))
                    })
                    .collect();
                let candidates = if fed.is_empty() { roles } else { fed };
                let available: Vec<String> = candidates
                    .iter()
                    .filter(|r| under_cap(r))
                    .map(|r| r.name.clone())
                    .collect();
                if available.is_empty() {
                    self.report_wait(
                        task,
                        stage,
                        "role caps",
                        "no role the task can enter is under its cap",
                        waiting,
                    );
                    // Caps change as running tasks change roles: visited
                    // again at every scan.
                    return Admit::Wait(None);
                }
                let request = RoleAssignmentRequest {
                    task: AssignmentTask {
                        id: task_id.clone(),
                        title: Some(self.tasks[task].packet.title.clone()),
                        path: format!("tasks/{task_id}.md"),
                        content: task_content(&self.tasks[task].packet),
                    },
                    stage: assignment_stage(
                        stage,
                        stage_roles.iter().map(|&i| self.flow.roles[i].role.mode),
                    ),
                    available_roles: available,
                    caps,
                };
                self.check_sent(&request);
                let answer = self.ports.assigner.assign(stage, &request).await;
                match parse_assignment(&answer, &request.available_roles) {
                    Ok(response) => {
                        let role = stage_roles
                            .iter()
                            .copied()
                            .find(|&i| self.flow.roles[i].role.name == response.role)
                            .unwrap_or(stage_roles[0]);
                        (role, "assigner", response.rationale, None)
                    }
                    Err(problem) => {
                        let first = request.available_roles[0].clone();
                        let role = stage_roles
                            .iter()
                            .copied()
                            .find(|&i| self.flow.roles[i].role.name == first)
                            .unwrap_or(stage_roles[0]);
                        (
                            role,
                            "fallback",
                            format!("fallback to the first available role `{first}`"),
                            Some(format!("{}: {problem}", ErrorCode::RoleAssignmentInvalid)),
                        )
                    }
                }
            }
        };
        // Enter gate.
        if !self.stage_gate(s, task, false, counters).await {
            return Admit::Ended;
        }
        self.emit(Event::RoleSelected {
            task_id,
            stage: stage.to_string(),
            role: self.flow.roles[role].role.name.clone(),
            source: source.to_string(),
            rationale,
            warning,
        });
        Admit::Start(role)
    }

    /// Where `task`'s dependencies stand, read without its parked state:
    /// the first, in the run input's order, that ended without passing, or
    /// that still waits or runs in this stage.
    pub(super) fn dependency(&self, task: usize, waiting: &Waiting) -> Dependency {
        for &d in self.tasks[task].deps() {
            match self.tasks[d].status {
                Status::Blocked | Status::Failed | Status::Canceled => return Dependency::Ended(d),
                _ if waiting.is_pending(d) => return Dependency::Pending(d),
                _ => {}
            }
        }
        Dependency::Clear
    }

    /// The first lock that holds `task` back: a running task whose scopes
    /// overlap its own (in worktree order), then a lock held outside the
    /// run. Read from the task's fixed record, so a parked task is not read.
    pub(super) fn lock_wait(&self, task: usize, slots: &[Option<Running>]) -> Option<LockWait> {
        let active_locks = &self.scenario.input.active_locks;
        let own = self.tasks[task].scopes();
        // A task without scopes locks only its own worktree, which no other
        // such task's overlaps (ids hold no `/`): only running tasks with
        // scopes, and locks held outside the run, need a look. The common
        // case costs no text.
        if own.is_none()
            && active_locks.is_empty()
            && slots
                .iter()
                .flatten()
                .all(|r| self.tasks[r.task].scopes().is_none())
        {
            return None;
        }
        let own_worktree;
        let (lock, forbidden): (&[String], &[String]) = match own {
            Some(scopes) => (&scopes.lock, &scopes.forbidden),
            None => {
                own_worktree = [format!("worktrees/{}/", self.task_id_of(task))];
                (&own_worktree, &[])
            }
        };
        for r in slots.iter().flatten() {
            let other = &self.tasks[r.task].packet;
            if overlaps(lock, &other.lock_scope)
                || overlaps(lock, &other.forbidden_scope)
                || overlaps(forbidden, &other.lock_scope)
            {
                return Some(LockWait::Task(r.task, other.task_id.clone()));
            }
        }
        let external = active_locks.iter().find(|l| {
            l.active
                && overlaps(lock, std::slice::from_ref(&l.resource))
                && l.task_id != self.task_id_of(task)
        })?;
        Some(LockWait::External(format!(
            "{} ({})",
            external.resource, external.task_id
        )))
    }

    /// Says that `task` waits, once per reason and blocker.
    pub(super) fn report_wait(
        &mut self,
        task: usize,
        stage: &str,
        reason: &'static str,
        on: &str,
        waiting: &mut Waiting,
    ) {
        if !waiting.first_report(task, reason, on) {
            return;
        }
        self.emit(Event::TaskWaiting {
            // The task may be parked (held back by a dependency).
            task_id: self.task_id_of(task),
            stage: stage.to_string(),
            reason: reason.to_string(),
            on: on.to_string(),
        });
    }

    pub(super) fn caps(&self, s: usize, stage_roles: &[usize], slots: &[Option<Running>]) -> Caps {
        let global = self
            .playbook
            .workflow
            .get_index(s)
            .map(|(_, st)| st.max_parallel_worktrees())
            .unwrap_or(1);
        let config = self.scenario.caps.clone().unwrap_or_default();
        let mut in_flight = indexmap::IndexMap::new();
        for &i in stage_roles {
            let name = self.flow.roles[i].role.name.clone();
            let n = slots.iter().flatten().filter(|r| r.role == i).count() as u32;
            in_flight.insert(name, n);
        }
        Caps {
            global,
            default_role: config.default_role.unwrap_or(global),
            roles: config.roles,
            in_flight,
        }
    }
}

/// Maps a playbook stage to a stage kind of the role assignment contract.
pub(super) fn assignment_stage(
    name: &str,
    modes: impl Iterator<Item = Option<RoleMode>>,
) -> AssignmentStage {
    let modes: Vec<Option<RoleMode>> = modes.collect();
    match name {
        "test" => AssignmentStage::Test,
        "review" => AssignmentStage::Review,
        "resolve" => AssignmentStage::Resolve,
        _ if modes.iter().all(|m| *m == Some(RoleMode::Tester)) && !modes.is_empty() => {
            AssignmentStage::Test
        }
        _ if modes.iter().all(|m| *m == Some(RoleMode::Reviewer)) && !modes.is_empty() => {
            AssignmentStage::Review
        }
        _ => AssignmentStage::Work,
    }
}

/// Parses an assigner's answer; `Err` says why the fallback applies.
pub fn parse_assignment(
    text: &str,
    available: &[String],
) -> Result<RoleAssignmentResponse, String> {
    let value: Value =
        serde_json::from_str(text.trim()).map_err(|e| format!("invalid JSON ({e})"))?;
    let Value::Object(map) = value else {
        return Err("the response is not a JSON object".into());
    };
    let role = map
        .get("role")
        .and_then(Value::as_str)
        .ok_or("missing field `role`")?;
    let rationale = map
        .get("rationale")
        .and_then(Value::as_str)
        .filter(|r| !r.trim().is_empty())
        .ok_or("missing field `rationale`")?;
    if !available.iter().any(|a| a == role) {
        return Err(format!("role `{role}` is not in available_roles"));
    }
    Ok(RoleAssignmentResponse {
        role: role.to_string(),
        rationale: truncate(rationale, 500),
    })
}

/// Whether two lists of path-like resources overlap: equal, or one is a
/// directory prefix of the other.
pub fn overlaps(a: &[String], b: &[String]) -> bool {
    a.iter().any(|x| b.iter().any(|y| resource_overlap(x, y)))
}

pub(super) fn resource_overlap(a: &str, b: &str) -> bool {
    let a = a.trim_start_matches("./");
    let b = b.trim_start_matches("./");
    if a == b {
        return true;
    }
    let prefix = |dir: &str, path: &str| {
        let dir = dir.trim_end_matches('/');
        !dir.is_empty()
            && path.len() > dir.len()
            && path.starts_with(dir)
            && path.as_bytes()[dir.len()] == b'/'
    };
    prefix(a, b) || prefix(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn resources_overlap_when_equal_or_one_is_a_directory_of_the_other() {
        assert!(overlaps(&list(&["src/api.rs"]), &list(&["./src/api.rs"])));
        assert!(overlaps(&list(&["src/"]), &list(&["src/api.rs"])));
        assert!(overlaps(&list(&["src"]), &list(&["src/deep/api.rs"])));
        assert!(!overlaps(&list(&["src"]), &list(&["src2/api.rs"])));
        assert!(
            !overlaps(&list(&["/"]), &list(&["src"])),
            "an empty directory is no prefix"
        );
        assert!(!overlaps(&[], &list(&["src"])));
    }

    #[test]
    fn an_assigner_answer_must_name_an_available_role_with_a_rationale() {
        let available = list(&["worker", "reviewer"]);
        let ok = parse_assignment(r#"{"role": "reviewer", "rationale": "review"}"#, &available);
        assert_eq!(ok.map(|r| r.role), Ok("reviewer".to_string()));
        for (text, why) in [
            (r#"{"role": "worker", "rationale": "#, "invalid JSON"),
            (r#"["worker"]"#, "not a JSON object"),
            (r#"{"rationale": "x"}"#, "missing field `role`"),
            (
                r#"{"role": "worker", "rationale": "  "}"#,
                "missing field `rationale`",
            ),
            (
                r#"{"role": "architect", "rationale": "x"}"#,
                "not in available_roles",
            ),
        ] {
            let err = parse_assignment(text, &available).unwrap_err();
            assert!(err.contains(why), "{text}: {err}");
        }
    }
}
