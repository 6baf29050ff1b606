//! The largest numbers a scenario may hold.
//!
//! Scenarios are user input, so every number is checked where it enters,
//! with a message naming the field; the engine additionally saturates its
//! virtual-time arithmetic, so a value that slips through (another caller
//! building a [`Scenario`] in code, say) can never overflow it.

use super::{DurationSpec, Scenario, ScenarioError, Turn, scenario_error};

/// One agent call, approval or lock wait: at most 30 days of virtual time.
pub const MAX_DURATION_MS: u64 = 30 * 24 * 3_600_000;
/// Task timeouts and heartbeats, in seconds: at most 30 days.
pub const MAX_TASK_SECONDS: u64 = MAX_DURATION_MS / 1000;
/// Most agent invocations a run may be given (`limits.max_steps`).
pub const MAX_STEPS: u64 = 10_000_000;
/// Most tool calls one invocation may be given (`limits.max_tool_calls`).
pub const MAX_TOOL_CALLS: u32 = 10_000;
/// Most tool calls a run may be given (`limits.max_run_tool_calls`).
pub const MAX_RUN_TOOL_CALLS: u64 = 10_000_000;
/// Largest output limit (`limits.max_output_bytes`): 64 MiB.
pub const MAX_OUTPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Checks every number of the scenario against its limit.
pub(super) fn check(scenario: &Scenario) -> Result<(), ScenarioError> {
    let mut numbers = Numbers::default();
    if let Some(turn) = &scenario.defaults {
        numbers.turn("defaults", turn);
    }
    for (role, script) in &scenario.roles {
        let base = format!("roles.{role}");
        if let Some(turn) = &script.default {
            numbers.turn(&format!("{base}.default"), turn);
        }
        for (k, turn) in script.iterations.iter().enumerate() {
            numbers.turn(&format!("{base}.iterations[{k}]"), turn);
        }
        for (task, script) in &script.tasks {
            if let Some(turn) = &script.default {
                numbers.turn(&format!("{base}.tasks.{task}.default"), turn);
            }
            for (k, turn) in script.iterations.iter().enumerate() {
                numbers.turn(&format!("{base}.tasks.{task}.iterations[{k}]"), turn);
            }
        }
    }
    // The same cap as a planner's fan-out: tasks are tasks, whichever way
    // they enter the run.
    let tasks = scenario.input.tasks.len() as u64;
    let max_tasks = crate::engine::MAX_CREATED_TASKS as u64;
    numbers.at_most(
        "input.tasks (count)",
        Some(tasks),
        max_tasks,
        "100 000 tasks",
    );
    for (i, task) in scenario.input.tasks.iter().enumerate() {
        let at = format!("input.tasks[{i}]");
        numbers.at_most(
            &format!("{at}.timeout_seconds"),
            task.timeout_seconds,
            MAX_TASK_SECONDS,
            "30 days",
        );
        numbers.at_most(
            &format!("{at}.heartbeat_interval_seconds"),
            task.heartbeat_interval_seconds,
            MAX_TASK_SECONDS,
            "30 days",
        );
    }
    if let Some(approvals) = &scenario.approvals {
        numbers.at_most(
            "approvals.wait_ms",
            approvals.wait_ms,
            MAX_DURATION_MS,
            "30 days",
        );
    }
    if let Some(limits) = &scenario.limits {
        numbers.at_most(
            "limits.lock_wait_ms",
            limits.lock_wait_ms,
            MAX_DURATION_MS,
            "30 days",
        );
        numbers.at_most(
            "limits.approval_timeout_ms",
            limits.approval_timeout_ms,
            MAX_DURATION_MS,
            "30 days",
        );
        numbers.at_most(
            "limits.max_steps",
            limits.max_steps,
            MAX_STEPS,
            "10 000 000",
        );
        numbers.at_most(
            "limits.max_tool_calls",
            limits.max_tool_calls.map(u64::from),
            u64::from(MAX_TOOL_CALLS),
            "10 000",
        );
        numbers.at_most(
            "limits.max_run_tool_calls",
            limits.max_run_tool_calls,
            MAX_RUN_TOOL_CALLS,
            "10 000 000",
        );
        numbers.at_most(
            "limits.max_output_bytes",
            limits.max_output_bytes,
            MAX_OUTPUT_BYTES,
            "64 MiB",
        );
    }
    match numbers.problems.len() {
        0 => Ok(()),
        n => Err(scenario_error(format!(
            "{n} number(s) out of range: {}",
            numbers.problems.join("; ")
        ))),
    }
}

#[derive(Default)]
struct Numbers {
    problems: Vec<String>,
}

impl Numbers {
    fn at_most(&mut self, path: &str, value: Option<u64>, max: u64, max_text: &str) {
        if let Some(value) = value
            && value > max
        {
            self.problems.push(format!(
                "`{path}` is {value}; the most is {max} ({max_text}): lower it"
            ));
        }
    }

    fn turn(&mut self, path: &str, turn: &Turn) {
        let at = format!("{path}.duration_ms");
        match turn.duration_ms {
            Some(DurationSpec::Fixed(ms)) => {
                self.at_most(&at, Some(ms), MAX_DURATION_MS, "30 days")
            }
            Some(DurationSpec::Range { min, max }) => {
                self.at_most(&format!("{at}.min"), Some(min), MAX_DURATION_MS, "30 days");
                self.at_most(&format!("{at}.max"), Some(max), MAX_DURATION_MS, "30 days");
                if min > max {
                    self.problems
                        .push(format!("`{at}` has min {min} above max {max}: swap them"));
                }
            }
            None => {}
        }
    }
}
