//! A request to stop a run from outside the engine: a person (Ctrl+C, the
//! app's Stop button) or a budget the runner watches (wall time).
//!
//! The engine reads it before each agent call and each tool call; a process
//! agent reads it while it waits for its process, so a stop ends the current
//! invocation at once. What was recorded up to the stop is kept, and the run
//! ends `stopped` with its remaining tasks canceled.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::code::ErrorCode;

/// A shared stop flag. Cloning shares it.
#[derive(Debug, Clone, Default)]
pub struct Stop(Arc<AtomicU8>);

const NONE: u8 = 0;
const BY_PERSON: u8 = 1;
const BY_BUDGET: u8 = 2;

impl Stop {
    pub fn new() -> Self {
        Self::default()
    }

    /// A person asked the run to stop.
    pub fn request(&self) {
        let _ = self
            .0
            .compare_exchange(NONE, BY_PERSON, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// A budget ran out (the first reason recorded wins).
    pub fn budget_exhausted(&self) {
        let _ = self
            .0
            .compare_exchange(NONE, BY_BUDGET, Ordering::SeqCst, Ordering::SeqCst);
    }

    pub fn is_requested(&self) -> bool {
        self.0.load(Ordering::SeqCst) != NONE
    }

    /// The code and words of the stop, if one was requested.
    pub fn reason(&self) -> Option<(ErrorCode, &'static str)> {
        match self.0.load(Ordering::SeqCst) {
            BY_PERSON => Some((ErrorCode::RunStopped, "the run was stopped by a person")),
            BY_BUDGET => Some((
                ErrorCode::BudgetExceeded,
                "the run reached its wall-time budget and stops",
            )),
            _ => None,
        }
    }
}
