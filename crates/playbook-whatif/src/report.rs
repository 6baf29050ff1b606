//! The what-if report: the statistics of a simulation, per task, stage and
//! role, with the model values they rest on, as JSON and as text.

use std::fmt::Write as _;

use indexmap::IndexMap;
use serde::Serialize;
use ts_rs::TS;

use playbook_core::model::Playbook;

use crate::agent::Plan;
use crate::model::{Explained, SimModel};
use crate::sim::{Acc, Outcomes};
use crate::stats::{Histogram, Rate, Summary};
use crate::text::printable;

mod notes;
use notes::notes;

/// Everything a simulation found. Its TypeScript type (`WhatIfReport`, in
/// ui/src/generated/whatif) is generated; counts are typed `number`, as
/// JSON delivers them (runs are at most a million, exact in a double).
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "whatif/", rename = "WhatIfReport")]
pub struct Report {
    pub playbook_id: String,
    #[ts(type = "number")]
    pub seed: u64,
    #[ts(type = "number")]
    pub runs_requested: u64,
    #[ts(type = "number")]
    pub runs: u64,
    /// True when the simulation was stopped before every run was made.
    pub partial: bool,
    pub cost_unit: String,
    /// The values each role's calls use, and where each came from.
    pub model: Vec<RoleModel>,
    /// Things the reader should know about the figures.
    pub notes: Vec<String>,
    /// Share of runs per outcome (`passed`, `blocked`, `failed`, ...).
    pub outcomes: IndexMap<String, Rate>,
    /// Share of task instances that finished done.
    pub tasks_passing: Rate,
    /// Share of task instances escalated to a person.
    pub escalation: Rate,
    /// Escalations by trigger, as a share of task instances.
    pub escalation_by_trigger: IndexMap<String, Rate>,
    /// Task instances that did not finish done, by how they ended, as a
    /// share of task instances, most frequent first: `<state> <CODE>` with
    /// state `failed`, `blocked`, `escalated` (blocked for a person) or
    /// `canceled` and the engine's code (docs/error-codes.md), e.g.
    /// `failed AGENT_TIMEOUT`. With `tasks_passing` they cover every task.
    pub ended_without_passing: IndexMap<String, Rate>,
    /// Share of runs with at least one escalation.
    pub runs_escalated: Rate,
    pub calls_per_run: Summary,
    pub calls_per_task: Summary,
    /// Calls per task: value → number of task instances.
    #[ts(type = "Array<[number, number]>")]
    pub calls_per_task_histogram: Vec<(u32, u64)>,
    /// Virtual duration of a run, in seconds.
    pub duration_seconds: Summary,
    /// Cost of a run, in `cost_unit`.
    pub cost: Summary,
    pub tasks: Vec<TaskStats>,
    pub stages: Vec<StageStats>,
    pub roles: Vec<RoleStats>,
    pub loops: Vec<LoopStats>,
    /// The loop with the highest mean cost per run.
    pub costliest_loop: Option<String>,
    /// Runs that exceeded the engine's static bound: must be empty.
    pub bound_violations: Vec<String>,
}

#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "whatif/")]
pub struct RoleModel {
    pub role: String,
    pub stage: String,
    /// Values of iterations without an override.
    pub values: Explained,
    /// Iterations with their own values.
    pub overrides: Vec<(u32, Explained)>,
}

#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "whatif/")]
pub struct TaskStats {
    pub task_id: String,
    /// Share of runs in which the task existed.
    pub present: Rate,
    pub calls: Summary,
    pub passing: Rate,
    pub escalation: Rate,
    pub escalation_by_trigger: IndexMap<String, Rate>,
    /// Final states: state → share of the task's instances.
    pub states: IndexMap<String, Rate>,
    /// Mean cost of the task per run in which it existed.
    pub mean_cost: f64,
}

#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "whatif/")]
pub struct StageStats {
    pub stage: String,
    /// Task instances that made at least one call in the stage.
    #[ts(type = "number")]
    pub tasks_entered: u64,
    /// Calls per task that entered the stage.
    pub calls: Summary,
    /// The engine's static worst case per task.
    pub bound_per_task: u32,
    pub escalation: Rate,
    pub escalation_by_trigger: IndexMap<String, Rate>,
    /// Mean cost of the stage per run.
    pub mean_cost: f64,
}

#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "whatif/")]
pub struct RoleStats {
    pub role: String,
    pub stage: String,
    /// Calls per task that called the role.
    pub calls: Summary,
    /// Mean cost of the role per run.
    pub mean_cost: f64,
}

#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "whatif/")]
pub struct LoopStats {
    /// Roles of the loop, e.g. `worker ⇄ reviewer`.
    pub name: String,
    pub roles: Vec<String>,
    pub mean_calls: f64,
    pub mean_cost: f64,
}

fn rates(map: &IndexMap<String, u64>, of: u64) -> IndexMap<String, Rate> {
    map.iter()
        .map(|(k, v)| (k.clone(), Rate::new(*v, of)))
        .collect()
}

fn histogram(h: &Histogram) -> Vec<(u32, u64)> {
    h.counts.iter().map(|(k, v)| (*k, *v)).collect()
}

impl Report {
    /// Writes up a simulation.
    pub fn new(
        playbook: &Playbook,
        model: &SimModel,
        plan: &Plan,
        seed: u64,
        o: Outcomes,
    ) -> Report {
        let Outcomes {
            acc,
            requested,
            partial,
        } = o;
        let stage_names: Vec<String> = playbook.stages().map(|(n, _)| n.to_string()).collect();
        let tasks = u32::try_from(acc.tasks.len()).ok();
        let bounds = playbook_orchestrator::bound::stage_bounds(playbook, tasks);
        let flow = playbook_core::flow::Flow::new(playbook);
        let runs_f = acc.runs.max(1) as f64;
        let model_rows: Vec<RoleModel> = flow
            .roles
            .iter()
            .map(|r| {
                let mode = r.role.mode;
                let overrides = plan
                    .index_of(&r.role.name)
                    .map(|i| {
                        plan.roles[i]
                            .overrides
                            .iter()
                            .map(|(k, _)| (*k, model.resolve(&r.role.name, mode, *k)))
                            .collect()
                    })
                    .unwrap_or_default();
                RoleModel {
                    role: r.role.name.clone(),
                    stage: r.stage.to_string(),
                    values: model.resolve(&r.role.name, mode, 0),
                    overrides,
                }
            })
            .collect();
        let notes = notes(model, plan, &model_rows, &acc);
        let loops: Vec<LoopStats> = flow
            .loops()
            .iter()
            .enumerate()
            .map(|(l, members)| {
                let roles: Vec<String> = members
                    .iter()
                    .map(|&i| flow.roles[i].role.name.clone())
                    .collect();
                LoopStats {
                    name: roles.join(" ⇄ "),
                    roles,
                    mean_calls: acc.loop_calls.get(l).copied().unwrap_or(0) as f64 / runs_f,
                    mean_cost: acc.loop_cost.get(l).copied().unwrap_or(0.0) / runs_f,
                }
            })
            .collect();
        let costliest_loop = costliest(&loops).map(|l| l.name.clone());
        let durations: Vec<f64> = acc
            .virtual_ms
            .iter()
            .map(|ms| *ms as f64 / 1000.0)
            .collect();
        let mut report = Report {
            playbook_id: playbook.id.to_string(),
            seed,
            runs_requested: requested,
            runs: acc.runs,
            partial,
            cost_unit: model.unit().to_string(),
            model: model_rows,
            notes,
            outcomes: acc
                .outcomes
                .iter()
                .map(|(k, v)| (k.to_string(), Rate::new(*v, acc.runs)))
                .collect(),
            tasks_passing: Rate::new(acc.tasks_done, acc.task_instances),
            escalation: Rate::new(acc.tasks_escalated, acc.task_instances),
            escalation_by_trigger: rates(&acc.by_trigger, acc.task_instances),
            ended_without_passing: ended_without_passing(&acc),
            runs_escalated: Rate::new(acc.runs_escalated, acc.runs),
            calls_per_run: acc.calls_per_run.summary(),
            calls_per_task: acc.calls_per_task.summary(),
            calls_per_task_histogram: histogram(&acc.calls_per_task),
            duration_seconds: Summary::of_values(&durations),
            cost: Summary::of_values(&acc.cost),
            tasks: acc
                .tasks
                .iter()
                .map(|(id, t)| TaskStats {
                    task_id: id.clone(),
                    present: Rate::new(t.present, acc.runs),
                    calls: t.calls.summary(),
                    passing: Rate::new(t.states.get("done").copied().unwrap_or(0), t.present),
                    escalation: Rate::new(t.escalated, t.present),
                    escalation_by_trigger: rates(&t.by_trigger, t.present),
                    states: t
                        .states
                        .iter()
                        .map(|(k, v)| (k.to_string(), Rate::new(*v, t.present)))
                        .collect(),
                    mean_cost: t.cost / t.present.max(1) as f64,
                })
                .collect(),
            stages: stage_names
                .iter()
                .enumerate()
                .map(|(s, name)| {
                    let st = &acc.stages[s];
                    let entered = st.calls.n();
                    StageStats {
                        stage: name.clone(),
                        tasks_entered: entered,
                        calls: st.calls.summary(),
                        bound_per_task: bounds.get(s).map_or(0, |b| b.per_task),
                        escalation: Rate::new(st.escalated, entered),
                        escalation_by_trigger: rates(&st.by_trigger, entered),
                        mean_cost: st.cost / runs_f,
                    }
                })
                .collect(),
            roles: plan
                .roles
                .iter()
                .zip(&acc.roles)
                .map(|(r, a)| RoleStats {
                    role: r.name.clone(),
                    stage: stage_names.get(r.stage).cloned().unwrap_or_default(),
                    calls: a.calls.summary(),
                    mean_cost: a.cost / runs_f,
                })
                .collect(),
            loops,
            costliest_loop,
            bound_violations: acc.bound_violations.clone(),
        };
        // Redacted here, once, so that no consumer sees a name that reads
        // as a credential (src/redact.rs).
        report.redact();
        report
    }

    /// Fails when any run exceeded the engine's static bound: the
    /// simulation (or the engine) is then wrong and no figure may be trusted.
    pub fn check_bound(&self) -> Result<(), String> {
        match self.bound_violations.first() {
            None => Ok(()),
            Some(first) => Err(format!(
                "{} run(s) exceeded the engine's static worst-case bound, e.g. {first}; this is a defect, please report it",
                self.bound_violations.len()
            )),
        }
    }

    /// The report as text for a terminal. Every name in it (playbook id,
    /// stages, roles, tasks, triggers, notes quoting them) goes through
    /// [`printable`], which redacts and escapes: the report's names are
    /// redacted already ([`Report::redact`]), but the playbook schema does
    /// not keep control characters out of role or stage names, and a task
    /// id comes from the run input.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let unit = &*printable(&self.cost_unit);
        let _ = writeln!(
            out,
            "what-if `{}`: {} run(s), seed {}{}",
            printable(&self.playbook_id),
            self.runs,
            self.seed,
            if self.partial {
                format!(
                    " — PARTIAL: stopped after {} of {} runs",
                    self.runs, self.runs_requested
                )
            } else {
                String::new()
            }
        );
        let _ = writeln!(out, "(figures are means with 95 % confidence intervals)");
        out.push_str("\nmodel:\n");
        for row in &self.model {
            let _ = writeln!(
                out,
                "  {} ({}): {}",
                printable(&row.role),
                printable(&row.stage),
                explain(&row.values, unit)
            );
            for (k, e) in &row.overrides {
                let _ = writeln!(out, "    iteration {k}: {}", explain(e, unit));
            }
        }
        for note in &self.notes {
            let _ = writeln!(out, "  note: {}", printable(note));
        }
        out.push_str("\nruns:\n");
        for (k, r) in &self.outcomes {
            let _ = writeln!(out, "  {:<10} {}", printable(k), rate(r));
        }
        let _ = writeln!(out, "  tasks passing {}", rate(&self.tasks_passing));
        let _ = writeln!(out, "  escalations   {} of tasks", rate(&self.escalation));
        for (t, r) in &self.escalation_by_trigger {
            let _ = writeln!(out, "    on {:<18} {}", printable(t), rate(r));
        }
        if !self.ended_without_passing.is_empty() {
            out.push_str("  tasks not passing, by how they ended:\n");
            for (end, r) in &self.ended_without_passing {
                let _ = writeln!(out, "    {:<29} {}", printable(end), rate(r));
            }
        }
        let _ = writeln!(
            out,
            "  agent calls per run  {}",
            summary(&self.calls_per_run, "")
        );
        let _ = writeln!(
            out,
            "  agent calls per task {}",
            summary(&self.calls_per_task, "")
        );
        let _ = writeln!(
            out,
            "  virtual duration     {}",
            summary(&self.duration_seconds, " s")
        );
        let _ = writeln!(
            out,
            "  cost per run         {}",
            summary(&self.cost, &format!(" {unit}"))
        );
        out.push_str("\nper task:\n");
        for t in self.tasks.iter().take(50) {
            let _ = writeln!(
                out,
                "  {}: calls {}; passing {}; escalated {}",
                printable(&t.task_id),
                summary(&t.calls, ""),
                pct(t.passing.rate),
                pct(t.escalation.rate)
            );
        }
        if self.tasks.len() > 50 {
            let _ = writeln!(
                out,
                "  … {} more task(s) in --format json",
                self.tasks.len() - 50
            );
        }
        out.push_str(
            "\nper stage (calls per task that entered it; bound = engine's worst case):\n",
        );
        for s in &self.stages {
            let _ = writeln!(
                out,
                "  {}: calls {} (bound {}); escalated {}; cost {:.3} {unit}/run",
                printable(&s.stage),
                summary(&s.calls, ""),
                s.bound_per_task,
                rate(&s.escalation),
                s.mean_cost
            );
        }
        out.push_str("\nper role (calls per task that called it):\n");
        for r in &self.roles {
            let _ = writeln!(
                out,
                "  {} ({}): calls {}; cost {:.3} {unit}/run",
                printable(&r.role),
                printable(&r.stage),
                summary(&r.calls, ""),
                r.mean_cost
            );
        }
        if !self.loops.is_empty() {
            out.push_str("\nloops:\n");
            // Loops that tie with the costliest are said to: the report
            // names the first of them as the one that costs most.
            let best = costliest(&self.loops);
            let tied = best.map_or(0, |b| {
                self.loops
                    .iter()
                    .filter(|l| cost_order(l, b).is_eq())
                    .count()
            });
            for l in &self.loops {
                let mark = match best {
                    Some(b) if std::ptr::eq(l, b) && tied > 1 => {
                        format!("  ← costs most (tied with {} other loop(s))", tied - 1)
                    }
                    Some(b) if std::ptr::eq(l, b) => "  ← costs most".to_string(),
                    Some(b) if cost_order(l, b).is_eq() => {
                        "  ← ties with the loop that costs most".to_string()
                    }
                    _ => String::new(),
                };
                let _ = writeln!(
                    out,
                    "  {}: {:.2} calls, {:.3} {unit} per run{mark}",
                    printable(&l.name),
                    l.mean_calls,
                    l.mean_cost,
                );
            }
        }
        if !self.bound_violations.is_empty() {
            out.push_str("\nBOUND EXCEEDED:\n");
            for v in &self.bound_violations {
                let _ = writeln!(out, "  {}", printable(v));
            }
        }
        out
    }
}

/// [`Report::ended_without_passing`] from the counts.
fn ended_without_passing(acc: &Acc) -> IndexMap<String, Rate> {
    let mut ends: Vec<_> = acc.ended.iter().collect();
    ends.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    ends.into_iter()
        .map(|((state, code), n)| {
            let name = if code.is_empty() {
                state.to_string()
            } else {
                format!("{state} {code}")
            };
            (name, Rate::new(*n, acc.task_instances))
        })
        .collect()
}

fn explain(e: &Explained, unit: &str) -> String {
    let v = &e.values;
    let mark = |field: &str| match e.sources.get(field) {
        Some(s) if s.is_default() => format!(" [{}]", printable(&s.describe())),
        _ => String::new(),
    };
    format!(
        "pass {}{}, fail {}, violation {}{}, blocked_tool {}{}, needs_input {}{}, error {}{}, duration {}{}, cost {} {unit}{}",
        number(v.pass),
        mark("pass"),
        number(v.fail()),
        number(v.violation),
        mark("violation"),
        number(v.blocked_tool),
        mark("blocked_tool"),
        number(v.needs_input),
        mark("needs_input"),
        number(v.error),
        mark("error"),
        duration(&v.duration),
        mark("duration"),
        number(v.cost),
        mark("cost"),
    )
}

/// A value of the model as the report shows it: as the model writes it
/// when that is short (`0.6`, `1e-9`), else rounded to six significant
/// digits (`0.3` for the `0.30000000000000004` that `1 - 0.7` leaves).
/// Never the 330-digit decimal expansion of a subnormal such as `5e-324`.
pub(crate) fn number(v: f64) -> String {
    const SHORT: usize = 10;
    let plain = format!("{v}");
    if plain.len() <= SHORT {
        return plain;
    }
    let sci = format!("{v:e}");
    if sci.len() <= SHORT {
        return sci;
    }
    let rounded: f64 = format!("{v:.5e}").parse().unwrap_or(v);
    let plain = format!("{rounded}");
    if plain.len() <= SHORT + 2 {
        plain
    } else {
        format!("{rounded:e}")
    }
}

fn duration(d: &crate::model::Duration) -> String {
    match *d {
        crate::model::Duration::Fixed(s) => format!("{} s", number(s)),
        crate::model::Duration::Uniform { min, max } => {
            format!("{}–{} s", number(min), number(max))
        }
        crate::model::Duration::Lognormal { median, sigma } => {
            format!("log-normal median {} s σ {}", number(median), number(sigma))
        }
    }
}

/// A share in percent, to one decimal; but a share that is neither none
/// nor all never reads as `0.0 %` or `100.0 %`: it gets two significant
/// digits of its distance from the edge (26 escalations in 300 000 tasks
/// are `0.0087 %`, not `0.0 %`).
pub(crate) fn pct(r: f64) -> String {
    pct_with(r, 0)
}

/// [`pct`] with `extra` more decimals (a behavioural diff shows as many as
/// it takes to tell two figures apart).
pub(crate) fn pct_with(r: f64, extra: usize) -> String {
    let p = r * 100.0;
    // The distance from the nearer edge that one decimal would round away.
    let edge = if r > 0.0 && p < 0.05 {
        p
    } else if r < 1.0 && p > 99.95 {
        100.0 - p
    } else {
        return format!("{p:.*} %", 1 + extra);
    };
    // Two significant digits of the distance: 0.0087 needs 4 decimals.
    // Nudged up a hair: 100 − 99.999 is 0.000999…, which is 0.001.
    let magnitude = (edge * (1.0 + 1e-9)).log10().floor();
    let digits = (1.0 - magnitude).max(1.0) as usize + extra;
    if digits > 8 {
        // Far below any figure a simulation of a million runs can show.
        format!("{p:.1e} %")
    } else {
        format!("{p:.digits$} %")
    }
}

pub(crate) fn rate(r: &Rate) -> String {
    format!(
        "{} ({} of {}; {}–{})",
        pct(r.rate),
        r.count,
        r.of,
        pct(r.ci[0]),
        pct(r.ci[1])
    )
}

pub(crate) fn summary(s: &Summary, unit: &str) -> String {
    let ci = match s.ci {
        Some([lo, hi]) => format!("[{lo:.2}–{hi:.2}]"),
        // One value (or none) says nothing about how far the mean may be.
        None => "[no interval from fewer than 2 values]".to_string(),
    };
    format!(
        "mean {:.2}{unit} {ci}, p50 {}{unit}, p95 {}{unit}, max {}{unit}",
        s.mean,
        trim(s.p50),
        trim(s.p95),
        trim(s.max)
    )
}

/// The loop with the highest mean cost per run, mean calls breaking a tie;
/// of loops that tie on both, the first in flow order.
fn costliest(loops: &[LoopStats]) -> Option<&LoopStats> {
    loops.iter().fold(None, |best, l| match best {
        Some(b) if cost_order(l, b).is_le() => Some(b),
        _ => Some(l),
    })
}

fn cost_order(a: &LoopStats, b: &LoopStats) -> std::cmp::Ordering {
    a.mean_cost
        .total_cmp(&b.mean_cost)
        .then(a.mean_calls.total_cmp(&b.mean_calls))
}

fn trim(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}
