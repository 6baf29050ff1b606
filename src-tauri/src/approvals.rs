//! Approval requests of a preview run, answered by the person at the window.
//!
//! The engine asks its approver and waits. [`AskTheUser`] registers the
//! request in [`Pending`], shows it (the command emits it to the window as
//! an `approval-request` event) and waits for the answer that the UI sends
//! through the `preview_answer` command. A request nobody can answer any
//! more (the run's window left the preview) is denied, never left hanging.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use playbook_orchestrator::agent::{ApprovalDecision, ApprovalRequest, Approver};
use tokio::sync::oneshot;

use crate::api::ApprovalPrompt;

/// The approval requests waiting for an answer, shared by the running
/// preview and the commands that answer it.
#[derive(Clone, Default)]
pub struct Pending(Arc<Inner>);

#[derive(Default)]
struct Inner {
    next: AtomicU64,
    waiting: Mutex<HashMap<u64, oneshot::Sender<bool>>>,
}

impl Pending {
    fn register(&self) -> (u64, oneshot::Receiver<bool>) {
        let id = self.0.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (answer, answered) = oneshot::channel();
        self.waiting().insert(id, answer);
        (id, answered)
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<bool>>> {
        // A panic while holding the lock leaves only a map of senders behind,
        // which stays consistent.
        self.0.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Answers request `id`. False when no such request waits: it was
    /// answered already or its run has ended.
    pub fn answer(&self, id: u64, approved: bool) -> bool {
        match self.waiting().remove(&id) {
            Some(answer) => answer.send(approved).is_ok(),
            None => false,
        }
    }

    /// Denies every waiting request; returns how many there were.
    pub fn deny_all(&self) -> usize {
        let waiting: Vec<_> = self.waiting().drain().collect();
        let count = waiting.len();
        for (_, answer) in waiting {
            let _ = answer.send(false);
        }
        count
    }
}

/// The approver of a preview run in the app: every request goes to `show`
/// and the run waits for the person's answer.
pub struct AskTheUser<F: FnMut(&ApprovalPrompt)> {
    pub pending: Pending,
    pub show: F,
}

impl<F: FnMut(&ApprovalPrompt)> Approver for AskTheUser<F> {
    async fn decide(&mut self, request: &ApprovalRequest<'_>) -> ApprovalDecision {
        let (id, answered) = self.pending.register();
        (self.show)(&ApprovalPrompt {
            id,
            task_id: request.task_id.to_string(),
            stage: request.stage.to_string(),
            role: request.role.map(str::to_string),
            subject: request.subject.clone(),
        });
        // A dropped sender means nobody will answer: deny, as a closed dialog would.
        let approved = answered.await.unwrap_or(false);
        ApprovalDecision {
            approved,
            by: "user".to_string(),
            // Virtual time: a person's thinking time is not part of the run,
            // so a run with the same answers gives the same event log.
            waited_ms: 0,
        }
    }
}
