//! Runs the simulation: N full engine runs, each with its own seed derived
//! from the simulation seed and the run index, on every core. Runs are
//! grouped in fixed blocks; blocks are aggregated where they ran and merged
//! in block order, so the result is the same for any number of threads.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use indexmap::IndexMap;

use playbook_core::model::Playbook;
use playbook_orchestrator::agent::SimulatedTools;
use playbook_orchestrator::bound::{StageBound, stage_bounds};
use playbook_orchestrator::clock::FixedClock;
use playbook_orchestrator::engine::{Ports, Prepared, RunOptions};
use playbook_orchestrator::event::{Outcome, TaskState};
use playbook_orchestrator::scenario::{RunInput, Scenario, ScriptedAssigner};

use crate::agent::{DenyNext, Plan, SimAgent, SimApprover, Tally};
use crate::model::{ModelError, SimModel};
use crate::sink::{AggregatingSink, RecordedNames, RunSample};
use crate::stats::Histogram;

/// Most runs one simulation may make.
pub const MAX_RUNS: u64 = 1_000_000;
/// Default number of runs.
pub const DEFAULT_RUNS: u64 = 10_000;
/// Runs per block: the unit of work of a thread and of merging.
const BLOCK: u64 = 64;

/// What to simulate.
#[derive(Debug, Clone)]
pub struct Options {
    pub runs: u64,
    pub seed: u64,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// The run input (goal and tasks); empty: one task carries the goal.
    pub input: RunInput,
    /// The caller has checked the model's role names against several
    /// versions of the playbook (a behavioural diff): a role this version
    /// lacks is not an error here.
    pub roles_checked: bool,
    /// Where each run puts parked task state beyond its memory bound (a
    /// plan of many tasks); `None`: in memory.
    pub spill: Option<playbook_orchestrator::spill::SpillPort>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runs: DEFAULT_RUNS,
            seed: 0,
            threads: 0,
            input: RunInput::default(),
            roles_checked: false,
            spill: None,
        }
    }
}

/// Why a simulation could not run or must not be trusted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("--runs is {0}; it must be from 1 to {MAX_RUNS}")]
    Runs(u64),
    /// The engine refused the run (invalid input, a failed preflight ...).
    /// Its reason may quote role names and task ids: shown escaped.
    #[error("the engine refused the run: {}", crate::text::printable(.0))]
    Refused(String),
    /// Two stages or roles that a run's records cannot tell apart.
    #[error("{}", crate::text::printable(.0))]
    Names(String),
    /// A run exceeded the engine's static worst-case bound.
    #[error("{}", crate::text::printable(.0))]
    Bound(String),
}

/// The seed of run `index`: a SplitMix64 mix of the simulation seed and the
/// index, so neighbouring runs get unrelated streams.
pub fn run_seed(seed: u64, index: u64) -> u64 {
    fn mix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    mix(seed ^ mix(index))
}

/// Per task id, across runs.
#[derive(Debug, Clone, Default)]
pub struct TaskAcc {
    /// Runs in which the task existed.
    pub present: u64,
    pub calls: Histogram,
    pub states: BTreeMap<&'static str, u64>,
    pub escalated: u64,
    pub by_trigger: IndexMap<String, u64>,
    pub cost: f64,
    /// Per stage: calls of this task in the stage (when it entered it).
    pub stage_calls: Vec<Histogram>,
}

/// Per stage, across runs and tasks.
#[derive(Debug, Clone, Default)]
pub struct StageAcc {
    /// Calls per task that entered the stage.
    pub calls: Histogram,
    pub escalated: u64,
    pub by_trigger: IndexMap<String, u64>,
    pub cost: f64,
}

/// Per role, across runs and tasks.
#[derive(Debug, Clone, Default)]
pub struct RoleAcc {
    /// Calls per task that called the role at least once.
    pub calls: Histogram,
    pub cost: f64,
    /// What the role's calls drew and what became of it.
    pub draws: Tally,
}

/// Everything the report is built from; mergeable in run order.
#[derive(Debug, Clone, Default)]
pub struct Acc {
    pub runs: u64,
    pub outcomes: BTreeMap<&'static str, u64>,
    pub runs_escalated: u64,
    pub task_instances: u64,
    pub tasks_done: u64,
    pub tasks_escalated: u64,
    pub by_trigger: IndexMap<String, u64>,
    /// Task instances that did not end done, by how they ended: (state or
    /// `escalated`, error code); see [`end_name`].
    pub ended: BTreeMap<(&'static str, &'static str), u64>,
    pub virtual_ms: Vec<u64>,
    pub cost: Vec<f64>,
    pub calls_per_run: Histogram,
    pub calls_per_task: Histogram,
    pub tasks: IndexMap<String, TaskAcc>,
    pub stages: Vec<StageAcc>,
    pub roles: Vec<RoleAcc>,
    /// Per loop of the flow: summed cost and calls.
    pub loop_cost: Vec<f64>,
    pub loop_calls: Vec<u64>,
    /// Each time a run exceeded the static bound, said in words.
    pub bound_violations: Vec<String>,
    pub refused: Option<String>,
}

pub fn outcome_name(o: Option<Outcome>) -> &'static str {
    match o {
        Some(Outcome::Passed) => "passed",
        Some(Outcome::Blocked) => "blocked",
        Some(Outcome::Failed) => "failed",
        Some(Outcome::Refused) => "refused",
        Some(Outcome::Stopped) => "stopped",
        None => "unfinished",
    }
}

pub fn state_name(s: Option<TaskState>) -> &'static str {
    match s {
        Some(TaskState::Done) => "done",
        Some(TaskState::Blocked) => "blocked",
        Some(TaskState::Failed) => "failed",
        Some(TaskState::Canceled) => "canceled",
        None => "unfinished",
    }
}

/// How a task that did not end done ended: its final state (`escalated`
/// for a task a person now decides on) and the engine's code for why.
pub fn end_name(task: &crate::sink::TaskSample) -> Option<(&'static str, &'static str)> {
    let state = match task.state {
        Some(TaskState::Done) => return None,
        _ if task.escalation.is_some() => "escalated",
        s => state_name(s),
    };
    Some((state, task.end_code.map_or("", |c| c.as_str())))
}

/// The static facts every run is checked against.
pub struct Frame<'a> {
    pub stage_names: Vec<String>,
    pub bounds: Vec<StageBound>,
    /// Role indices of each loop.
    pub loops: Vec<Vec<usize>>,
    pub plan: &'a Plan,
}

impl Acc {
    fn new(frame: &Frame<'_>) -> Acc {
        Acc {
            stages: vec![StageAcc::default(); frame.stage_names.len()],
            roles: vec![RoleAcc::default(); frame.plan.roles.len()],
            loop_cost: vec![0.0; frame.loops.len()],
            loop_calls: vec![0; frame.loops.len()],
            ..Acc::default()
        }
    }

    /// Adds run `index`, and what its agent's calls drew per role.
    fn add(&mut self, index: u64, run: &RunSample, draws: &[Tally], frame: &Frame<'_>) {
        for (acc, d) in self.roles.iter_mut().zip(draws) {
            acc.draws.add(d);
        }
        if self.refused.is_none()
            && let Some(reason) = &run.refused
        {
            self.refused = Some(reason.clone());
        }
        self.runs += 1;
        *self.outcomes.entry(outcome_name(run.outcome)).or_default() += 1;
        self.virtual_ms.push(run.virtual_ms);
        self.cost.push(run.cost());
        self.calls_per_run
            .add(u32::try_from(run.steps).unwrap_or(u32::MAX));
        let worst_total: u64 = frame.bounds.iter().map(|b| u64::from(b.per_task)).sum();
        let mut escalated_run = false;
        for task in &run.tasks {
            self.task_instances += 1;
            self.calls_per_task.add(task.calls);
            if task.state == Some(TaskState::Done) {
                self.tasks_done += 1;
            }
            if let Some(end) = end_name(task) {
                *self.ended.entry(end).or_default() += 1;
            }
            let acc = self.tasks.entry(task.id.clone()).or_default();
            if acc.stage_calls.is_empty() {
                acc.stage_calls = vec![Histogram::default(); frame.stage_names.len()];
            }
            acc.present += 1;
            acc.calls.add(task.calls);
            *acc.states.entry(state_name(task.state)).or_default() += 1;
            acc.cost += task.role_cost.iter().sum::<f64>();
            if let Some((trigger, stage)) = &task.escalation {
                escalated_run = true;
                self.tasks_escalated += 1;
                acc.escalated += 1;
                *acc.by_trigger.entry(trigger.clone()).or_default() += 1;
                *self.by_trigger.entry(trigger.clone()).or_default() += 1;
                if let Some(s) = stage {
                    self.stages[*s].escalated += 1;
                    *self.stages[*s]
                        .by_trigger
                        .entry(trigger.clone())
                        .or_default() += 1;
                }
            }
            for (s, &calls) in task.stage_calls.iter().enumerate() {
                if calls > 0 {
                    acc.stage_calls[s].add(calls);
                    self.stages[s].calls.add(calls);
                }
                let bound = frame.bounds.get(s).map_or(0, |b| b.per_task);
                if calls > bound {
                    self.bound_violations.push(format!(
                        "run {index}: task {} made {calls} agent call(s) in stage `{}`; the static bound is {bound}",
                        task.id, frame.stage_names[s]
                    ));
                }
            }
            if u64::from(task.calls) > worst_total {
                self.bound_violations.push(format!(
                    "run {index}: task {} made {} agent call(s); the static bound over all stages is {worst_total}",
                    task.id, task.calls
                ));
            }
            for (r, &calls) in task.role_calls.iter().enumerate() {
                if calls > 0 {
                    self.roles[r].calls.add(calls);
                    self.roles[r].cost += task.role_cost[r];
                    let stage = frame.plan.roles[r].stage;
                    self.stages[stage].cost += task.role_cost[r];
                }
            }
            for (l, members) in frame.loops.iter().enumerate() {
                for &r in members {
                    self.loop_cost[l] += task.role_cost[r];
                    self.loop_calls[l] += u64::from(task.role_calls[r]);
                }
            }
        }
        if escalated_run {
            self.runs_escalated += 1;
        }
    }

    /// Appends `other`, which holds the runs right after this one's.
    fn merge(&mut self, other: Acc) {
        if self.refused.is_none() {
            self.refused = other.refused;
        }
        self.runs += other.runs;
        for (k, v) in other.outcomes {
            *self.outcomes.entry(k).or_default() += v;
        }
        self.runs_escalated += other.runs_escalated;
        self.task_instances += other.task_instances;
        self.tasks_done += other.tasks_done;
        self.tasks_escalated += other.tasks_escalated;
        for (k, v) in other.by_trigger {
            *self.by_trigger.entry(k).or_default() += v;
        }
        for (k, v) in other.ended {
            *self.ended.entry(k).or_default() += v;
        }
        self.virtual_ms.extend(other.virtual_ms);
        self.cost.extend(other.cost);
        self.calls_per_run.merge(&other.calls_per_run);
        self.calls_per_task.merge(&other.calls_per_task);
        for (id, t) in other.tasks {
            let acc = self.tasks.entry(id).or_default();
            if acc.stage_calls.is_empty() {
                acc.stage_calls = vec![Histogram::default(); t.stage_calls.len()];
            }
            acc.present += t.present;
            acc.calls.merge(&t.calls);
            for (k, v) in t.states {
                *acc.states.entry(k).or_default() += v;
            }
            acc.escalated += t.escalated;
            for (k, v) in t.by_trigger {
                *acc.by_trigger.entry(k).or_default() += v;
            }
            acc.cost += t.cost;
            for (a, b) in acc.stage_calls.iter_mut().zip(&t.stage_calls) {
                a.merge(b);
            }
        }
        for (a, b) in self.stages.iter_mut().zip(other.stages) {
            a.calls.merge(&b.calls);
            a.escalated += b.escalated;
            for (k, v) in b.by_trigger {
                *a.by_trigger.entry(k).or_default() += v;
            }
            a.cost += b.cost;
        }
        for (a, b) in self.roles.iter_mut().zip(other.roles) {
            a.calls.merge(&b.calls);
            a.cost += b.cost;
            a.draws.add(&b.draws);
        }
        for (a, b) in self.loop_cost.iter_mut().zip(other.loop_cost) {
            *a += b;
        }
        for (a, b) in self.loop_calls.iter_mut().zip(other.loop_calls) {
            *a += b;
        }
        // Keep the first few: one is enough to fail, all would grow unbounded.
        let room = 20usize.saturating_sub(self.bound_violations.len());
        self.bound_violations
            .extend(other.bound_violations.into_iter().take(room));
    }
}

/// The result of a simulation before it is written up.
pub struct Outcomes {
    pub acc: Acc,
    pub requested: u64,
    pub partial: bool,
}

/// One engine run with simulated agents, of the playbook and scenario
/// prepared once per thread: each run is a full engine run (every check,
/// event and record), only the seed-independent setup is shared.
fn one_run(
    runtime: &tokio::runtime::Runtime,
    prepared: &Prepared<'_>,
    options: &RunOptions,
    plan: &Plan,
    names: &RecordedNames,
) -> (RunSample, Vec<Tally>) {
    let deny: DenyNext = Default::default();
    let mut agent = SimAgent::new(plan, options.seed, deny.clone());
    let mut approver = SimApprover { deny };
    let mut assigner = ScriptedAssigner { script: None };
    let mut tools = SimulatedTools;
    let clock = FixedClock::default();
    let mut sink = AggregatingSink::new(plan, names);
    let ports = Ports {
        agent: &mut agent,
        approver: &mut approver,
        assigner: &mut assigner,
        tools: &mut tools,
        clock: &clock,
        sink: &mut sink,
    };
    runtime.block_on(playbook_orchestrator::engine::run_prepared(
        prepared, options, ports,
    ));
    (sink.sample, agent.tally)
}

/// The options of every simulated run but its seed.
fn run_options(spill: Option<playbook_orchestrator::spill::SpillPort>) -> RunOptions {
    RunOptions {
        scenario_name: Some("whatif".into()),
        agent_name: "simulated".into(),
        // The sink aggregates what the report says; the run's records are
        // dropped as they complete, so a run's memory does not grow with it.
        keep_records: false,
        // Nor is the report read: only the sink's sample is.
        build_report: false,
        spill,
        ..RunOptions::default()
    }
}

/// Runs the simulation. `cancel` stops it between runs (the result is then
/// the longest complete prefix of runs, marked partial); `progress` is told
/// how many runs are done, now and then.
pub fn simulate(
    playbook: &Playbook,
    model: &SimModel,
    options: &Options,
    cancel: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Outcomes, Plan), SimError> {
    if !(1..=MAX_RUNS).contains(&options.runs) {
        return Err(SimError::Runs(options.runs));
    }
    if options.roles_checked {
        model.check()?;
        model.check_sums(playbook)?;
    } else {
        model.check_against(playbook)?;
    }
    let plan = Plan::new(playbook, model, &options.input);
    let stage_names: Vec<String> = playbook.stages().map(|(n, _)| n.to_string()).collect();
    let names = RecordedNames::new(
        stage_names.iter().map(String::as_str),
        plan.roles.iter().map(|r| r.name.as_str()),
    )
    .map_err(SimError::Names)?;
    let tasks = (!options.input.tasks.is_empty())
        .then(|| u32::try_from(options.input.tasks.len()).unwrap_or(u32::MAX));
    let flow = playbook_core::flow::Flow::new(playbook);
    let frame = Frame {
        stage_names,
        bounds: stage_bounds(playbook, tasks),
        loops: flow.loops(),
        plan: &plan,
    };
    let scenario = Scenario {
        name: Some("whatif".into()),
        input: options.input.clone(),
        ..Scenario::default()
    };
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .clamp(1, 64);
    let blocks = options.runs.div_ceil(BLOCK);
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let finished: Mutex<BTreeMap<u64, Acc>> = Mutex::new(BTreeMap::new());
    let worker = || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().build() else {
            return;
        };
        // Each thread has its own plan and prepared playbook: compiled
        // gates are not shared. Prepared once, they serve all its runs.
        let plan = Plan::new(playbook, model, &options.input);
        let mut run_options = run_options(options.spill.clone());
        let prepared = Prepared::new(playbook, &scenario, &run_options.validation);
        let frame = Frame {
            stage_names: frame.stage_names.clone(),
            bounds: frame.bounds.clone(),
            loops: frame.loops.clone(),
            plan: &plan,
        };
        loop {
            if cancel.load(Ordering::Relaxed) {
                return;
            }
            let block = next.fetch_add(1, Ordering::Relaxed);
            if block >= blocks {
                return;
            }
            let first = block * BLOCK;
            let last = (first + BLOCK).min(options.runs);
            let mut acc = Acc::new(&frame);
            for index in first..last {
                if cancel.load(Ordering::Relaxed) {
                    // An unfinished block is dropped: the partial result is
                    // a prefix of whole blocks, the same on any machine.
                    return;
                }
                run_options.seed = run_seed(options.seed, index);
                let (sample, draws) = one_run(&runtime, &prepared, &run_options, &plan, &names);
                acc.add(index, &sample, &draws, &frame);
            }
            if let Ok(mut map) = finished.lock() {
                map.insert(block, acc);
            }
            let total = done.fetch_add(last - first, Ordering::Relaxed) + (last - first);
            progress(total);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(worker);
        }
        worker();
    });
    let map = finished.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut acc = Acc::new(&frame);
    // Only the unbroken prefix of blocks counts: after a cancel, a later
    // block that happened to finish would make the result depend on timing.
    for (expected, (block, part)) in (0u64..).zip(map) {
        if block != expected {
            break;
        }
        acc.merge(part);
    }
    if acc.runs > 0
        && acc.outcomes.get("refused").copied() == Some(acc.runs)
        && let Some(reason) = &acc.refused
    {
        return Err(SimError::Refused(reason.clone()));
    }
    let partial = acc.runs < options.runs;
    Ok((
        Outcomes {
            acc,
            requested: options.runs,
            partial,
        },
        plan,
    ))
}
