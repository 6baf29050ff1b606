//! The behavioural diff: what a change to a playbook did to its simulated
//! behaviour. Both versions run under the same model with the same seeds;
//! each figure is compared, and a change whose 95 % intervals do not overlap
//! is flagged significant (a figure without an interval, or with a
//! zero-width one, never is). Shipped scenarios are previewed on both versions
//! and their outcomes compared ("passed → escalated").

use indexmap::IndexMap;
use serde::Serialize;
use ts_rs::TS;

use playbook_core::model::Playbook;
use playbook_orchestrator::event::{Event, EventRecord, EventSink, Outcome};
use playbook_orchestrator::{Approval, Scenario, run_scenario};

use crate::report::{Report, pct_with};
use crate::stats::{Rate, Summary};
use crate::text::printable;

/// How a figure reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export, export_to = "whatif/", rename = "FigureKind")]
pub enum Kind {
    /// A share, shown in percent.
    Rate,
    /// A count or mean of agent calls.
    Calls,
    /// Virtual seconds.
    Seconds,
    /// The model's cost unit.
    Cost,
}

/// One figure before and after.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export, export_to = "whatif/", rename = "BehaviourChange")]
pub struct Change {
    pub metric: String,
    pub kind: Kind,
    pub before: f64,
    pub after: f64,
    /// 95 % intervals, for figures that have one (rates, and means of at
    /// least two values).
    pub before_ci: Option<[f64; 2]>,
    pub after_ci: Option<[f64; 2]>,
    /// Both intervals exist, are not degenerate, and do not overlap.
    pub significant: bool,
    /// E.g. "p95 agent calls per task 7 → 9".
    pub sentence: String,
}

/// A shipped scenario's outcome on both versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "whatif/")]
pub struct ScenarioChange {
    pub scenario: String,
    pub before: String,
    pub after: String,
    pub changed: bool,
}

/// What a change did.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "whatif/", rename = "BehaviourDiffResult")]
pub struct BehaviourDiff {
    #[ts(type = "number")]
    pub runs: u64,
    #[ts(type = "number")]
    pub seed: u64,
    pub cost_unit: String,
    /// True when either simulation was stopped early.
    pub partial: bool,
    /// Figures that changed, significant ones first.
    pub changes: Vec<Change>,
    /// Stages, roles or loops present in one version only, and what was
    /// not compared (a missing scenario directory).
    pub notes: Vec<String>,
    pub scenarios: Vec<ScenarioChange>,
}

/// A figure as the diff shows it, with `extra` decimals more than usual.
fn format_value(kind: Kind, v: f64, unit: &str, extra: usize) -> String {
    match kind {
        Kind::Rate => pct_with(v, extra),
        Kind::Calls if v.fract() == 0.0 && extra == 0 => format!("{v:.0}"),
        Kind::Calls => format!("{v:.*}", 2 + extra),
        Kind::Seconds => format!("{v:.*} s", 1 + extra),
        Kind::Cost => format!("{v:.*} {unit}", 3 + extra),
    }
}

/// Most decimals added to tell two figures apart; past them a figure is
/// written in full (Rust's shortest form, which tells any two apart).
const MAX_EXTRA: usize = 12;

/// `before` and `after` as the diff shows them: with the usual decimals,
/// or as many more as it takes to show that they differ.
fn shown(kind: Kind, before: f64, after: f64, unit: &str) -> (String, String, usize) {
    for extra in 0..=MAX_EXTRA {
        let (b, a) = (
            format_value(kind, before, unit, extra),
            format_value(kind, after, unit, extra),
        );
        if b != a || before == after {
            return (b, a, extra);
        }
    }
    let full = |v: f64| match kind {
        Kind::Rate => format!("{} %", v * 100.0),
        Kind::Calls => format!("{v}"),
        Kind::Seconds => format!("{v} s"),
        Kind::Cost => format!("{v} {unit}"),
    };
    (full(before), full(after), MAX_EXTRA)
}

/// A 95 % interval that can bear a comparison: both ends finite and apart.
/// A zero-width interval claims a certainty no sample gives.
fn usable(ci: Option<[f64; 2]>) -> Option<[f64; 2]> {
    ci.filter(|[lo, hi]| lo.is_finite() && hi.is_finite() && lo < hi)
}

struct Builder<'u> {
    unit: &'u str,
    changes: Vec<Change>,
}

impl Builder<'_> {
    /// Lists a figure that changed. Decided on the values, not on how they
    /// print: a change is listed when it shows at the usual precision, and
    /// a significant one always, with the decimals it takes to show it
    /// (escalations 0.0087 % → 0.0010 %). A difference that is neither
    /// visible nor significant is left out: two versions whose runs draw
    /// differently differ in every figure by a hair.
    fn push(
        &mut self,
        metric: String,
        kind: Kind,
        (before, before_ci): (f64, Option<[f64; 2]>),
        (after, after_ci): (f64, Option<[f64; 2]>),
    ) {
        if before == after {
            return;
        }
        let significant = match (usable(before_ci), usable(after_ci)) {
            (Some(x), Some(y)) => x[1] < y[0] || y[1] < x[0],
            _ => false,
        };
        let visible =
            format_value(kind, before, self.unit, 0) != format_value(kind, after, self.unit, 0);
        if !visible && !significant {
            return;
        }
        let (b, a, _) = shown(kind, before, after, self.unit);
        self.changes.push(Change {
            sentence: format!("{metric} {b} → {a}"),
            metric,
            kind,
            before,
            after,
            before_ci,
            after_ci,
            significant,
        });
    }

    fn rate(&mut self, metric: String, before: &Rate, after: &Rate) {
        self.push(
            metric,
            Kind::Rate,
            (before.rate, Some(before.ci)),
            (after.rate, Some(after.ci)),
        );
    }

    /// Shares by key (escalations by trigger, tasks by how they ended), in
    /// the order the keys first appear, before's then after's; a key one
    /// side lacks is none of that side's total (`of`).
    fn rates_by_key(
        &mut self,
        metric: impl Fn(&str) -> String,
        before: &IndexMap<String, Rate>,
        after: &IndexMap<String, Rate>,
        of: (u64, u64),
    ) {
        let keys = before
            .keys()
            .chain(after.keys().filter(|k| !before.contains_key(*k)));
        for key in keys {
            self.rate(
                metric(key),
                before.get(key).unwrap_or(&Rate::new(0, of.0)),
                after.get(key).unwrap_or(&Rate::new(0, of.1)),
            );
        }
    }

    /// Mean (with its interval), p95 and max of a distribution.
    fn summary(&mut self, what: &str, kind: Kind, before: &Summary, after: &Summary) {
        self.push(
            format!("mean {what}"),
            kind,
            (before.mean, before.ci),
            (after.mean, after.ci),
        );
        self.push(
            format!("p95 {what}"),
            kind,
            (before.p95, None),
            (after.p95, None),
        );
        self.push(
            format!("max {what}"),
            kind,
            (before.max, None),
            (after.max, None),
        );
    }
}

impl BehaviourDiff {
    /// Compares two reports made with the same model, runs and seed.
    pub fn new(before: &Report, after: &Report) -> BehaviourDiff {
        let mut b = Builder {
            unit: &after.cost_unit,
            changes: Vec::new(),
        };
        let mut notes = Vec::new();
        b.rate("escalations".into(), &before.escalation, &after.escalation);
        b.rates_by_key(
            |t| format!("escalations on {t}"),
            &before.escalation_by_trigger,
            &after.escalation_by_trigger,
            (before.escalation.of, after.escalation.of),
        );
        b.rate(
            "tasks passing".into(),
            &before.tasks_passing,
            &after.tasks_passing,
        );
        // How the tasks that did not pass ended: a change that swaps one
        // ending for another (review rounds running out instead of a
        // contract violation, calls cut at the timeout) moves no total.
        b.rates_by_key(
            |e| format!("tasks ending {e}"),
            &before.ended_without_passing,
            &after.ended_without_passing,
            (before.tasks_passing.of, after.tasks_passing.of),
        );
        let none = |of: u64| Rate::new(0, of);
        for outcome in ["passed", "blocked", "failed", "stopped"] {
            b.rate(
                format!("runs {outcome}"),
                before.outcomes.get(outcome).unwrap_or(&none(before.runs)),
                after.outcomes.get(outcome).unwrap_or(&none(after.runs)),
            );
        }
        b.summary(
            "agent calls per task",
            Kind::Calls,
            &before.calls_per_task,
            &after.calls_per_task,
        );
        b.summary(
            "agent calls per run",
            Kind::Calls,
            &before.calls_per_run,
            &after.calls_per_run,
        );
        b.summary(
            "virtual duration per run",
            Kind::Seconds,
            &before.duration_seconds,
            &after.duration_seconds,
        );
        b.summary("cost per run", Kind::Cost, &before.cost, &after.cost);
        for s in &after.stages {
            match before.stages.iter().find(|x| x.stage == s.stage) {
                Some(old) => {
                    b.summary(
                        &format!("agent calls per task in stage `{}`", s.stage),
                        Kind::Calls,
                        &old.calls,
                        &s.calls,
                    );
                    b.rate(
                        format!("escalations in stage `{}`", s.stage),
                        &old.escalation,
                        &s.escalation,
                    );
                    b.push(
                        format!("worst-case calls per task in stage `{}`", s.stage),
                        Kind::Calls,
                        (f64::from(old.bound_per_task), None),
                        (f64::from(s.bound_per_task), None),
                    );
                }
                None => notes.push(format!("stage `{}` is new", s.stage)),
            }
        }
        for s in &before.stages {
            if !after.stages.iter().any(|x| x.stage == s.stage) {
                notes.push(format!("stage `{}` was removed", s.stage));
            }
        }
        for r in &after.roles {
            match before.roles.iter().find(|x| x.role == r.role) {
                Some(old) => b.push(
                    format!("mean calls of `{}` per task", r.role),
                    Kind::Calls,
                    (old.calls.mean, old.calls.ci),
                    (r.calls.mean, r.calls.ci),
                ),
                None => notes.push(format!("role `{}` is new", r.role)),
            }
        }
        for r in &before.roles {
            if !after.roles.iter().any(|x| x.role == r.role) {
                notes.push(format!("role `{}` was removed", r.role));
            }
        }
        if before.costliest_loop != after.costliest_loop {
            notes.push(format!(
                "the loop that costs most: {} → {}",
                before.costliest_loop.as_deref().unwrap_or("none"),
                after.costliest_loop.as_deref().unwrap_or("none")
            ));
        }
        let mut changes = b.changes;
        // Significant first; otherwise the order above (headline figures first).
        changes.sort_by_key(|c| !c.significant);
        let mut diff = BehaviourDiff {
            runs: after.runs.min(before.runs),
            seed: after.seed,
            cost_unit: after.cost_unit.clone(),
            partial: before.partial || after.partial,
            changes,
            notes,
            scenarios: Vec::new(),
        };
        // Reports come redacted from `Report::new`; the diff is redacted
        // too, as its own record, whatever reports it was given.
        diff.redact();
        diff
    }

    /// The diff as text for a terminal. Sentences and notes quote stage
    /// and role names, scenarios are named by their file names: each goes
    /// through [`printable`] (redacted and escaped), as in
    /// [`Report::to_text`].
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let unit = &*printable(&self.cost_unit);
        let _ = writeln!(
            out,
            "behaviour: {} simulated run(s) of each version, seed {}, same model{}",
            self.runs,
            self.seed,
            if self.partial {
                " — PARTIAL (stopped early)"
            } else {
                ""
            }
        );
        if self.changes.is_empty() {
            out.push_str("  no figure changed\n");
        }
        for c in &self.changes {
            // The intervals with the decimals the sentence needed.
            let (_, _, extra) = shown(c.kind, c.before, c.after, unit);
            let v = |x: f64| format_value(c.kind, x, unit, extra);
            let ci = match (c.before_ci, c.after_ci) {
                (Some(x), Some(y)) => format!(
                    "  (95 % CI {}–{} vs {}–{})",
                    v(x[0]),
                    v(x[1]),
                    v(y[0]),
                    v(y[1])
                ),
                // A mean of fewer than two values has no interval
                // (stats.rs); percentiles, maxima and bounds never have one.
                _ if c.metric.starts_with("mean ") => {
                    "  (no 95 % CI: fewer than 2 values)".to_string()
                }
                _ => String::new(),
            };
            let flag = if c.significant {
                "SIGNIFICANT "
            } else {
                "            "
            };
            let _ = writeln!(out, "  {flag}{}{ci}", printable(&c.sentence));
        }
        for n in &self.notes {
            let _ = writeln!(out, "  note: {}", printable(n));
        }
        if !self.scenarios.is_empty() {
            out.push_str("scenarios:\n");
            for s in &self.scenarios {
                let what = if s.changed {
                    format!("{} → {}", printable(&s.before), printable(&s.after))
                } else {
                    format!("{} (unchanged)", printable(&s.after))
                };
                let _ = writeln!(out, "  {}: {what}", printable(&s.scenario));
            }
        }
        out
    }
}

/// Notices escalations, so a blocked outcome can say it was escalated.
struct EscalationSink(bool);

impl EventSink for EscalationSink {
    fn emit(&mut self, record: &EventRecord) {
        if matches!(record.event, Event::Escalated { .. }) {
            self.0 = true;
        }
    }
}

/// The outcome of previewing `scenario` on `playbook`, in one word:
/// `passed`, `escalated`, `blocked`, `failed`, `stopped`, `refused`, or
/// `not applicable` when the scenario scripts roles the playbook lacks.
pub fn scenario_outcome(playbook: &Playbook, scenario: &Scenario, seed: u64) -> String {
    if let Err(e) = scenario.check_against(playbook) {
        return format!("not applicable ({})", e.message);
    }
    let mut sink = EscalationSink(false);
    let seed = scenario.seed.unwrap_or(seed);
    let report = run_scenario(
        playbook,
        scenario,
        seed,
        Approval::Scenario.approver(scenario),
        &mut sink,
    );
    match report.outcome {
        Some(Outcome::Passed) => "passed",
        Some(Outcome::Blocked) if sink.0 => "escalated",
        Some(Outcome::Blocked) => "blocked",
        Some(Outcome::Failed) if sink.0 => "escalated",
        Some(Outcome::Failed) => "failed",
        Some(Outcome::Refused) => "refused",
        Some(Outcome::Stopped) => "stopped",
        None => "did not run",
    }
    .to_string()
}

/// Compares one scenario on both versions.
pub fn scenario_change(
    name: &str,
    before: &Playbook,
    after: &Playbook,
    scenario: &Scenario,
    seed: u64,
) -> ScenarioChange {
    let b = scenario_outcome(before, scenario, seed);
    let a = scenario_outcome(after, scenario, seed);
    let mut change = ScenarioChange {
        scenario: name.to_string(),
        changed: a != b,
        before: b,
        after: a,
    };
    // "not applicable (...)" quotes the playbook's role names.
    change.redact();
    change
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Histogram;

    fn builder() -> Builder<'static> {
        Builder {
            unit: "calls",
            changes: Vec::new(),
        }
    }

    #[test]
    fn a_significant_change_below_the_usual_precision_is_listed_with_its_digits() {
        let mut b = builder();
        // 50.00 % → 50.04 % of 100 million tasks: both print as 50.0 %, and
        // the intervals (± 0.01 %) are far apart.
        b.rate(
            "tasks passing".into(),
            &Rate::new(50_000_000, 100_000_000),
            &Rate::new(50_040_000, 100_000_000),
        );
        b.push(
            "mean agent calls per task".into(),
            Kind::Calls,
            (3.001, Some([3.0005, 3.0015])),
            (3.004, Some([3.0035, 3.0045])),
        );
        // The reproduction's escalations: 26 against 3 in 300 000.
        b.rate(
            "escalations".into(),
            &Rate::new(26, 300_000),
            &Rate::new(3, 300_000),
        );
        let sentences: Vec<&str> = b.changes.iter().map(|c| c.sentence.as_str()).collect();
        assert_eq!(
            sentences,
            [
                "tasks passing 50.00 % → 50.04 %",
                "mean agent calls per task 3.001 → 3.004",
                "escalations 0.0087 % → 0.0010 %",
            ]
        );
        assert!(b.changes.iter().all(|c| c.significant));
    }

    #[test]
    fn a_share_that_is_neither_none_nor_all_never_prints_as_either() {
        use crate::report::pct;
        assert_eq!(pct(0.0), "0.0 %");
        assert_eq!(pct(1.0), "100.0 %");
        assert_eq!(pct(0.5), "50.0 %");
        assert_eq!(pct(26.0 / 300_000.0), "0.0087 %");
        assert_eq!(pct(1.0 - 26.0 / 300_000.0), "99.9913 %");
        assert_eq!(pct(0.99999), "99.9990 %");
        assert_eq!(pct(0.0004), "0.040 %");
        assert_eq!(pct(5e-324), "4.9e-322 %");
    }

    #[test]
    fn a_hair_of_difference_that_is_not_significant_is_left_out() {
        let mut b = builder();
        b.rate(
            "tasks passing".into(),
            &Rate::new(5000, 10_000),
            &Rate::new(5001, 10_000),
        );
        b.push(
            "mean agent calls per task".into(),
            Kind::Calls,
            (3.001, Some([2.9, 3.1])),
            (3.002, Some([2.9, 3.1])),
        );
        assert!(b.changes.is_empty(), "{:?}", b.changes);
    }

    #[test]
    fn nothing_is_significant_from_degenerate_or_missing_intervals() {
        let mut b = builder();
        b.push(
            "mean agent calls per task".into(),
            Kind::Calls,
            (4.0, Some([4.0, 4.0])),
            (6.0, Some([6.0, 6.0])),
        );
        // One run per version: a mean has no interval at all.
        let one = |v| {
            let mut h = Histogram::default();
            h.add(v);
            h.summary()
        };
        b.summary("agent calls per run", Kind::Calls, &one(4), &one(6));
        assert_eq!(b.changes.len(), 4, "{:?}", b.changes);
        assert!(b.changes.iter().all(|c| !c.significant), "{:?}", b.changes);
    }
}
