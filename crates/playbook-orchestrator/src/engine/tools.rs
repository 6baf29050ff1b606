//! The tool gateway of a step: allowlist and approval before a call runs.

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
    pub(super) async fn tool_call(
        &mut self,
        task: usize,
        stage: &str,
        role_index: usize,
        call: &crate::agent::ToolCall,
        blocked_tool: &mut bool,
        denied_approval: &mut bool,
    ) -> ToolResult {
        let role = self.flow.roles[role_index].role;
        let task_id = self.tasks[task].packet.task_id.clone();
        if !role.actions_allowed().contains(&call.tool) {
            *blocked_tool = true;
            let reason = format!(
                "`{}` is not in actions_allowed of role `{}` (allowed: {}); the call was not run",
                call.tool,
                role.name,
                if role.actions_allowed().is_empty() {
                    "none".to_string()
                } else {
                    role.actions_allowed().join(", ")
                }
            );
            self.emit(Event::ToolCallBlocked {
                task_id,
                role: role.name.clone(),
                tool: call.tool.clone(),
                code: ErrorCode::ToolNotAllowed,
                reason: reason.clone(),
            });
            return ToolResult::Denied {
                code: ErrorCode::ToolNotAllowed,
                message: reason,
            };
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
            task_id,
            role: role.name.clone(),
            tool: call.tool.clone(),
        });
        let result = self.ports.tools.run(call).await;
        ToolResult::Ran { result }
    }
}
