//! The tool gateway of a step: every rule that can refuse a call is checked
//! before it runs, in this order — `actions_allowed`, the task kind, the
//! paths it writes (inside the worktree, inside `lock_scope`, outside
//! `forbidden_scope` and other tasks' locks), the tools' own look at the
//! world (symbolic links), the run's tool-call budget, then approval.
//! A preview and a real run go through this same code.

use super::*;
use crate::agent::{ToolCall, ToolContext, ToolDenial};
use crate::toolset;
use playbook_core::scope::{reaches_any_case, within_any_case};

impl<A, P, R, T, C, S> Engine<'_, '_, A, P, R, T, C, S>
where
    A: Agent,
    P: Approver,
    R: RoleAssigner,
    T: Tools,
    C: Clock,
    S: EventSink,
{
    pub(super) async fn tool_call(
        &mut self,
        task: usize,
        stage: &str,
        role_index: usize,
        call: &ToolCall,
        blocked_tool: &mut bool,
        denied_approval: &mut bool,
    ) -> ToolResult {
        let role = self.flow.roles[role_index].role;
        let task_id = self.tasks[task].packet.task_id.clone();
        let run_id = self.run_id.clone();
        let ctx = ToolContext {
            run_id: &run_id,
            task_id: &task_id,
            stage,
            role: &role.name,
            kind: self.tasks[task].kind,
        };
        let refusal = self
            .contract_refusal(task, role_index, call)
            .or_else(|| self.ports.tools.check(&ctx, call).err())
            .or_else(|| self.commit_refusal(task, &ctx, call));
        if let Some(ToolDenial { code, message }) = refusal {
            *blocked_tool = true;
            self.emit(Event::ToolCallBlocked {
                task_id,
                role: role.name.clone(),
                tool: call.tool.clone(),
                code,
                reason: message.clone(),
            });
            return ToolResult::Denied { code, message };
        }
        if role.requires_user_approval() && self.mutating.contains(&call.tool) {
            let subject = format!("tool: {}", call.tool);
            self.emit(Event::ApprovalRequested {
                task_id: task_id.clone(),
                role: Some(role.name.clone()),
                subject: subject.clone(),
            });
            let request = ApprovalRequest {
                task_id: &task_id,
                stage,
                role: Some(&role.name),
                subject: ApprovalSubject::Tool {
                    tool: call.tool.clone(),
                },
            };
            let decision = self.ports.approver.decide(&request).await;
            let timed_out = decision.waited_ms > self.approval_timeout_ms;
            if !decision.approved || timed_out {
                *denied_approval = true;
                let code = if timed_out {
                    ErrorCode::ApprovalTimeout
                } else {
                    ErrorCode::ApprovalDenied
                };
                self.emit(Event::ApprovalDenied {
                    task_id: task_id.clone(),
                    subject,
                    by: decision.by,
                    code,
                });
                let message = format!(
                    "`{}` mutates the workspace and role `{}` requires user approval, which was not given; the call was not run",
                    call.tool, role.name
                );
                self.emit(Event::ToolCallBlocked {
                    task_id,
                    role: role.name.clone(),
                    tool: call.tool.clone(),
                    code,
                    reason: message.clone(),
                });
                return ToolResult::Denied { code, message };
            }
            self.emit(Event::ApprovalGranted {
                task_id: task_id.clone(),
                subject,
                by: decision.by,
            });
        }
        self.emit(Event::ToolCallAllowed {
            task_id: task_id.clone(),
            role: role.name.clone(),
            tool: call.tool.clone(),
        });
        let result = self.ports.tools.run(&ctx, call).await;
        ToolResult::Ran { result }
    }

    /// The rules of the contract that refuse a call without looking at the
    /// world, first refusal first.
    fn contract_refusal(
        &mut self,
        task: usize,
        role_index: usize,
        call: &ToolCall,
    ) -> Option<ToolDenial> {
        let role = self.flow.roles[role_index].role;
        let deny = |code, message| Some(ToolDenial { code, message });
        if let Some((code, why)) = self.options.stop.reason() {
            return deny(code, format!("{why}; `{}` was not run", call.tool));
        }
        if !role.actions_allowed().contains(&call.tool) {
            let allowed = if role.actions_allowed().is_empty() {
                "none".to_string()
            } else {
                role.actions_allowed().join(", ")
            };
            return deny(
                ErrorCode::ToolNotAllowed,
                format!(
                    "`{}` is not in actions_allowed of role `{}` (allowed: {allowed}); the call was not run",
                    call.tool, role.name
                ),
            );
        }
        let t = &self.tasks[task];
        if let Some(why) = toolset::kind_refusal(t.kind, &call.tool) {
            return deny(ErrorCode::TaskKindForbids, why);
        }
        let paths = match toolset::written_paths(&call.tool, &call.args) {
            Ok(paths) => paths,
            Err(why) => {
                return deny(
                    ErrorCode::PathEscape,
                    format!("{why}; the call was not run"),
                );
            }
        };
        if let Some((code, why)) = paths.iter().find_map(|raw| self.write_refusal(task, raw)) {
            return deny(code, format!("{why}; the call was not run"));
        }
        // Counted only for calls the contract lets through, so a hostile
        // agent's denied attempts do not use up the budget of honest work.
        if self.run_tool_calls >= self.max_run_tool_calls {
            self.options.stop.tool_calls_exhausted();
            return deny(
                ErrorCode::BudgetExceeded,
                format!(
                    "the run reached its budget of {} tool calls (limits.max_run_tool_calls; --max-tool-calls of playbook run); `{}` was not run",
                    self.max_run_tool_calls, call.tool
                ),
            );
        }
        self.run_tool_calls += 1;
        None
    }

    /// Why a commit tool may not record the worktree's changes: a path
    /// changed outside the tools (by a program `run_command` started, or by
    /// the agent's own process) that the task's scopes do not allow, which
    /// a commit would carry onto the task's branch.
    fn commit_refusal(
        &mut self,
        task: usize,
        ctx: &ToolContext<'_>,
        call: &ToolCall,
    ) -> Option<ToolDenial> {
        if toolset::spec(&call.tool).is_none_or(|s| s.effect != toolset::Effect::Commit) {
            return None;
        }
        let paths = match self.ports.tools.uncommitted_paths(ctx) {
            Ok(paths) => paths,
            Err(why) => {
                return Some(ToolDenial {
                    code: ErrorCode::ScopeViolation,
                    message: format!(
                        "the changes a commit would record cannot be checked against the task's scopes ({why}); `{}` was not run",
                        call.tool
                    ),
                });
            }
        };
        let refused: Vec<(ErrorCode, String)> = paths
            .iter()
            .filter_map(|raw| self.write_refusal(task, raw))
            .collect();
        let (code, first) = refused.first()?;
        let more = match refused.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        Some(ToolDenial {
            code: *code,
            message: format!(
                "the worktree holds a change the task may not make, written without a tool: {first}{more}; restore it (git_checkout) or remove it, then commit; `{}` was not run",
                call.tool
            ),
        })
    }

    /// Why the task's branch may not pass: a path it changes since its base
    /// (committed by a program `run_command` ran or by the agent's own
    /// process, which the gateway never sees, or left uncommitted) that the
    /// task's scopes do not allow, judged by the rule every write is held
    /// to. `task_id` is `task`'s: a parked task is asked about by id and
    /// made live only when there is something to judge. `None` when every
    /// path is allowed (or the task's state is lost, which its caller
    /// handles).
    pub(super) fn branch_refusal(&mut self, task: usize, task_id: &str) -> Option<String> {
        let paths = match self.ports.tools.branch_paths(task_id) {
            Ok(paths) if paths.is_empty() => return None,
            Ok(paths) => paths,
            Err(why) => {
                return Some(format!(
                    "the changes on the task's branch cannot be checked against its scopes ({why}); the task does not pass and its branch is not offered for merge"
                ));
            }
        };
        if !self.unpark(task) {
            return None;
        }
        let refused: Vec<String> = paths
            .iter()
            .filter_map(|raw| self.write_refusal(task, raw))
            .map(|(_, why)| why)
            .collect();
        if refused.is_empty() {
            return None;
        }
        const SHOWN: usize = 5;
        let more = match refused.len().saturating_sub(SHOWN) {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        Some(format!(
            "the task's branch changes paths its scopes do not allow, committed or left there without the gateway's checks (by a program `run_command` ran, or by the agent's own process): {}{more}; the task does not pass and its branch is not offered for merge. Look at the branch (`git diff <base>..<branch>`), drop those changes (or widen the task's lock_scope if they were meant) and run the task again",
            refused
                .iter()
                .take(SHOWN)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        ))
    }

    /// Why the task may not write `raw` (a path relative to the worktree):
    /// it leaves the worktree, or breaks the task's scopes.
    fn write_refusal(&self, task: usize, raw: &str) -> Option<(ErrorCode, String)> {
        match toolset::normalize(raw) {
            Ok(path) => self
                .scope_refusal(task, &path)
                .map(|why| (ErrorCode::ScopeViolation, why)),
            Err(why) => Some((ErrorCode::PathEscape, why)),
        }
    }

    /// Why writing `path` breaks the task's scopes, if it does. What
    /// confines (a forbidden path, another task's lock) is compared
    /// without case, as the Claude Code gate compares it
    /// (`playbook_core::scope`): on a case-insensitive file system
    /// `src/Secret/z` lands in `src/secret/`. The task's own lock_scope
    /// stays exact, which can only refuse more; forbidden wins.
    fn scope_refusal(&self, task: usize, path: &str) -> Option<String> {
        let t = &self.tasks[task];
        if let Some(f) = t
            .packet
            .forbidden_scope
            .iter()
            .find(|f| reaches_any_case(path, f))
        {
            if within_any_case(path, f) {
                return Some(format!("`{path}` is in the task's forbidden_scope (`{f}`)"));
            }
            return Some(format!(
                "`{path}` holds `{f}`, which is in the task's forbidden_scope"
            ));
        }
        if t.scoped && !t.packet.lock_scope.iter().any(|l| within(path, l)) {
            return Some(format!(
                "`{path}` is outside the task's lock_scope ({})",
                t.packet.lock_scope.join(", ")
            ));
        }
        let me = &t.packet.task_id;
        if let Some(lock) = self
            .scenario
            .input
            .active_locks
            .iter()
            .find(|l| l.active && &l.task_id != me && reaches_any_case(path, &l.resource))
        {
            return Some(format!(
                "`{path}` is locked by task {} (`{}`)",
                lock.task_id, lock.resource
            ));
        }
        None
    }
}

/// Whether `path` lies inside the scope entry `scope` (a file or a
/// directory prefix).
fn within(path: &str, scope: &str) -> bool {
    let scope = scope.trim_start_matches("./").trim_end_matches('/');
    scope.is_empty()
        || scope == "."
        || path == scope
        || (path.len() > scope.len()
            && path.starts_with(scope)
            && path.as_bytes()[scope.len()] == b'/')
}
