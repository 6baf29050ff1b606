//! The report's notes: where the figures rest on defaults, and where the
//! simulation could not do what the model says.

use crate::agent::Plan;
use crate::model::SimModel;
use crate::sim::Acc;

use super::{RoleModel, pct};

pub(super) fn notes(model: &SimModel, plan: &Plan, rows: &[RoleModel], acc: &Acc) -> Vec<String> {
    let mut notes = Vec::new();
    let all_default: Vec<&str> = rows
        .iter()
        .filter(|r| r.values.sources.values().all(|s| s.is_default()))
        .map(|r| r.role.as_str())
        .collect();
    if *model == SimModel::default() {
        notes.push("no model given: every value is the built-in default (docs/whatif.md)".into());
    } else if model.roles.is_empty() && model.defaults.is_none() {
        // A model was given (a unit, a name) but it sets no value: saying
        // "no model given" would send its author looking for a wrong path.
        notes.push(
            "the model sets no `defaults` and no `roles`: every value is the built-in default (docs/whatif.md)"
                .into(),
        );
    } else if !all_default.is_empty() {
        notes.push(format!(
            "role(s) {} use only default values",
            all_default.join(", ")
        ));
    }
    for r in &plan.roles {
        let fail = r.base.fail();
        if !r.has_gate() && fail > 0.0 {
            notes.push(format!(
                "`{}` has no pass_condition: its {} chance of a failing output passes",
                r.name,
                pct(fail)
            ));
        } else if r.gate_is_manual() && fail > 0.0 {
            notes.push(format!(
                "`{}` has a manual gate: a failing output is a denied approval",
                r.name
            ));
        }
    }
    notes.extend(draw_notes(plan, acc));
    if let Some(reason) = &acc.refused {
        notes.push(format!("some runs were refused by the engine: {reason}"));
    }
    notes
}

/// Where the simulation could not do what the model says: calls drawn to
/// pass (or fail) whose gate no output passes (or fails), what makes a gate
/// so (a `matches` pattern refused or unmatched), outputs the gate could
/// not be evaluated over or checked against, and durations longer than the
/// task timeout. The figures count the simulated calls.
fn draw_notes(plan: &Plan, acc: &Acc) -> Vec<String> {
    let mut notes = Vec::new();
    let timeout_ms = plan.timeout_seconds.saturating_mul(1000);
    for (r, a) in plan.roles.iter().zip(&acc.roles) {
        let d = &a.draws;
        let gate = r.gate_text().unwrap_or_default();
        if d.pass_unmet > 0 {
            notes.push(format!(
                "`{}`: no output makes its pass_condition {gate} hold in {} of {} calls drawn to pass ({}); they fail the gate, so the role passes less often than its `pass` share",
                r.name,
                d.pass_unmet,
                d.pass_drawn,
                pct(d.pass_unmet as f64 / d.pass_drawn as f64)
            ));
        }
        if d.fail_unmet > 0 {
            notes.push(format!(
                "`{}` cannot fail its pass_condition {gate}: {} of {} calls drawn to fail ({}) passed instead",
                r.name,
                d.fail_unmet,
                d.fail_drawn,
                pct(d.fail_unmet as f64 / d.fail_drawn as f64)
            ));
        }
        if d.calls > 0 {
            for problem in r.gate_problems() {
                notes.push(format!(
                    "`{}`: its pass_condition {gate}: {problem}",
                    r.name
                ));
            }
        }
        if d.errored > 0 {
            let drawn = d.pass_drawn + d.fail_drawn;
            notes.push(format!(
                "`{}`: its pass_condition {gate} could not be evaluated over the output of {} of {} calls ({}); the engine fails a gate it cannot evaluate, whatever was drawn",
                r.name,
                d.errored,
                drawn,
                pct(d.errored as f64 / drawn as f64)
            ));
        }
        if d.unchecked > 0 {
            notes.push(format!(
                "`{}`: its pass_condition {gate} reads {}, which the simulation does not see; {} output(s) were not checked against it and the engine's verdict counted",
                r.name,
                r.unseen_reads()
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                d.unchecked
            ));
        }
        // A share too small to show in any simulation is not worth a note
        // unless a call did time out.
        let share = r.timeout_share(timeout_ms);
        if share >= 1e-4 || d.timed_out > 0 {
            let seen = if d.calls == 0 {
                "no simulated call reached it".to_string()
            } else {
                format!("{} of {} simulated calls timed out", d.timed_out, d.calls)
            };
            notes.push(format!(
                "`{}`: its duration exceeds the task timeout ({} s) in {} of calls ({seen}); such a call ends at the timeout as a `timeout` (AGENT_TIMEOUT), whatever was drawn",
                r.name,
                plan.timeout_seconds,
                pct(share),
            ));
        }
    }
    notes
}
