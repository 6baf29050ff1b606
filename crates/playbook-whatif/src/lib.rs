//! What-if analysis of Playbook Studio: answers "what will this playbook
//! cost, and what did my change do?" before anything runs.
//!
//! The design in one paragraph: a [`model::SimModel`] says, per role, how
//! likely each outcome of an agent call is (a passing output, a failing one,
//! a contract violation, a blocked tool, `needs_input`, an agent error), how
//! long a call takes and what it costs. [`sim::simulate`] makes N full
//! engine runs with a [`agent::SimAgent`] that draws each call's outcome and
//! answers as a real agent would; the engine enforces every contract and
//! routes exactly as in a preview, so the figures are what the engine does,
//! not a model of it. An [`sink::AggregatingSink`] keeps what the
//! statistics need of each run; [`report::Report`] writes them up with 95 %
//! confidence intervals and checks every run against the static bound;
//! [`diff::BehaviourDiff`] compares two reports. No IO: callers read files
//! and print.

pub mod agent;
pub mod diff;
pub mod model;
mod redact;
pub mod report;
pub mod sim;
pub mod sink;
pub mod stats;
pub mod text;

use std::sync::atomic::AtomicBool;

pub use model::{ModelError, SimModel};
pub use report::Report;
pub use sim::{Options, SimError};

/// Simulates `playbook` under `model` and writes up the result. A run above
/// the static bound is an error, never a figure.
pub fn whatif(
    playbook: &playbook_core::Playbook,
    model: &SimModel,
    options: &Options,
    cancel: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Report, SimError> {
    let (outcomes, plan) = sim::simulate(playbook, model, options, cancel, progress)?;
    let report = Report::new(playbook, model, &plan, options.seed, outcomes);
    report.check_bound().map_err(SimError::Bound)?;
    Ok(report)
}

/// Simulates two versions of a playbook under the same model, runs and
/// seed, and compares them. `progress` counts the runs of both (up to
/// 2 × runs). Shipped scenarios are compared by the caller with
/// [`diff::scenario_change`].
pub fn behaviour(
    before: &playbook_core::Playbook,
    after: &playbook_core::Playbook,
    model: &SimModel,
    options: &Options,
    cancel: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<diff::BehaviourDiff, SimError> {
    model.check_against_any(&[before, after])?;
    let options = &Options {
        roles_checked: true,
        ..options.clone()
    };
    let old = whatif(before, model, options, cancel, progress)?;
    let new = whatif(after, model, options, cancel, &|done| {
        progress(options.runs + done)
    })?;
    Ok(diff::BehaviourDiff::new(&old, &new))
}

/// The published JSON Schema of the simulation model.
pub fn schema() -> playbook_core::schema::Published {
    playbook_core::schema::Published {
        file: "whatif-model.schema.json",
        schema: playbook_contracts::schema_of::<SimModel>("whatif-model.schema.json"),
    }
}
