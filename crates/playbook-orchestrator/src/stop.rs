//! A request to stop a run: a person (Ctrl+C, the app's Stop button), or a
//! budget running out (the wall time the runner watches, the run's tool
//! calls the engine counts). Each says its own reason.
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
const BY_WALL_TIME: u8 = 2;
const BY_TOOL_CALLS: u8 = 3;

impl Stop {
    pub fn new() -> Self {
        Self::default()
    }

    /// A person asked the run to stop.
    pub fn request(&self) {
        self.set(BY_PERSON);
    }

    /// The run's wall-time budget ran out.
    pub fn wall_time_exhausted(&self) {
        self.set(BY_WALL_TIME);
    }

    /// The run's budget of tool calls ran out.
    pub fn tool_calls_exhausted(&self) {
        self.set(BY_TOOL_CALLS);
    }

    /// Records `why`; the first reason recorded wins.
    fn set(&self, why: u8) {
        let _ = self
            .0
            .compare_exchange(NONE, why, Ordering::SeqCst, Ordering::SeqCst);
    }

    pub fn is_requested(&self) -> bool {
        self.0.load(Ordering::SeqCst) != NONE
    }

    /// The code and words of the stop, if one was requested.
    pub fn reason(&self) -> Option<(ErrorCode, &'static str)> {
        match self.0.load(Ordering::SeqCst) {
            BY_PERSON => Some((ErrorCode::RunStopped, "the run was stopped by a person")),
            BY_WALL_TIME => Some((
                ErrorCode::BudgetExceeded,
                "the run reached its wall-time budget and stops",
            )),
            BY_TOOL_CALLS => Some((
                ErrorCode::BudgetExceeded,
                "the run reached its budget of tool calls (limits.max_run_tool_calls; --max-tool-calls of playbook run) and stops",
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stop_says_its_own_reason_and_the_first_wins() {
        let stop = Stop::new();
        assert_eq!(stop.reason(), None);
        stop.tool_calls_exhausted();
        stop.wall_time_exhausted();
        stop.request();
        let (code, why) = stop.reason().unwrap();
        assert_eq!(code, ErrorCode::BudgetExceeded);
        assert!(
            why.contains("tool calls") && !why.contains("wall-time"),
            "{why}"
        );

        let stop = Stop::new();
        stop.wall_time_exhausted();
        let (code, why) = stop.reason().unwrap();
        assert_eq!(code, ErrorCode::BudgetExceeded);
        assert!(why.contains("wall-time"), "{why}");

        let stop = Stop::new();
        stop.request();
        assert_eq!(stop.reason().unwrap().0, ErrorCode::RunStopped);
    }
}
