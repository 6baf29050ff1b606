//! The simulated agent: draws each call's outcome from the model and turns
//! it into an answer the engine checks like any other. Nothing here decides
//! what happens next: a failing verdict is the reviewer's output, a
//! violation is an output missing a required field, a blocked tool is a call
//! outside `actions_allowed`, `needs_input` and an agent error are the
//! envelope statuses — the engine routes, retries and escalates.

mod derive;
mod patch;
mod probe;

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use serde_json::{Map, Value, json};

use playbook_core::flow::Flow;
use playbook_core::gate::{self, Gate, GateKind};
use playbook_core::model::Playbook;
use playbook_orchestrator::agent::{
    Agent, AgentOutcome, AgentOutput, AgentStep, ApprovalDecision, ApprovalRequest,
    ApprovalSubject, Approver, Invocation, ToolCall, ToolResult,
};
use playbook_orchestrator::bound::loop_bounds;
use playbook_orchestrator::envelope::{
    AcceptanceCheck, CONTRACT_VERSION, ResultStatus, SubagentResult,
};
use playbook_orchestrator::scenario::{RunInput, default_value};

use crate::model::{Resolved, SimModel};
use patch::{Choice, GatePlan, Scope};

pub use probe::share_above;

/// The outcome of one simulated call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Draw {
    Pass,
    Fail,
    Violation,
    BlockedTool,
    NeedsInput,
    Error,
}

/// What the simulation knows of one role, computed once per playbook.
#[derive(Debug, Clone)]
pub struct RolePlan {
    pub name: String,
    /// Index of the role's stage.
    pub stage: usize,
    /// Values of every call not overridden, then `(k, values)` per override.
    pub base: Resolved,
    pub overrides: Vec<(u32, Resolved)>,
    required: Vec<String>,
    gate: Option<Gate>,
    /// The outputs that pass and fail an expression gate.
    patches: Option<GatePlan>,
    /// The task values the gate reads that the engine sets from the task
    /// itself (`task`, `title`, `acceptance_criteria`), rebuilt per call.
    reads_task: bool,
    max_iterations: Option<u32>,
    /// A tool the role may not call.
    forbidden_tool: String,
}

impl RolePlan {
    /// The values of the role's `iteration`-th call on a task.
    pub fn at(&self, iteration: u32) -> &Resolved {
        self.overrides
            .iter()
            .find(|(k, _)| *k == iteration)
            .map_or(&self.base, |(_, r)| r)
    }

    /// True when no output of this role can fail a machine-checked gate:
    /// the role has no gate (its fail share passes), or a manual one (the
    /// simulated approver denies it instead).
    pub fn gate_is_manual(&self) -> bool {
        self.gate.as_ref().is_some_and(Gate::is_manual)
    }

    pub fn has_gate(&self) -> bool {
        self.gate.is_some()
    }

    /// The role's gate as the playbook writes it, with the expression a
    /// policy key stands for: `` `review_passed` (`verdict == "pass"`) ``.
    pub fn gate_text(&self) -> Option<String> {
        let gate = self.gate.as_ref()?;
        Some(match (&gate.policy, &gate.kind) {
            (Some(_), GateKind::Expression { expression, .. }) => {
                format!("`{}` (`{expression}`)", gate.source.trim())
            }
            _ => format!("`{}`", gate.source.trim()),
        })
    }

    /// What the report should say of the gate itself: a `matches` pattern
    /// refused, or one no answer matches.
    pub fn gate_problems(&self) -> &[String] {
        self.patches.as_ref().map_or(&[], GatePlan::problems)
    }

    /// Names the gate reads that the simulated agent neither answers nor
    /// can see (a value of the run input it was not given).
    pub fn unseen_reads(&self) -> &[String] {
        self.patches.as_ref().map_or(&[], GatePlan::held)
    }

    /// The largest share of this role's calls, over its iterations, whose
    /// drawn duration is above `timeout_ms`.
    pub fn timeout_share(&self, timeout_ms: u64) -> f64 {
        std::iter::once(&self.base)
            .chain(self.overrides.iter().map(|(_, r)| r))
            .map(|r| share_above(&r.duration, timeout_ms))
            .fold(0.0, f64::max)
    }
}

/// What one role's calls drew and what became of it, summed over runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub calls: u64,
    /// Calls drawn to answer an output that passes the gate (`pass` and
    /// `blocked_tool`), and those of them no output could make pass.
    pub pass_drawn: u64,
    pub pass_unmet: u64,
    /// Calls drawn to answer an output that fails the gate, and those of
    /// them no output could make fail.
    pub fail_drawn: u64,
    pub fail_unmet: u64,
    /// Calls no output gave the drawn verdict whose output as answered the
    /// gate cannot be evaluated over: the engine fails the gate.
    pub errored: u64,
    /// Outputs that could not be checked against the gate: it reads a
    /// value the simulated agent cannot see; the engine decided.
    pub unchecked: u64,
    /// Calls whose drawn duration was above the task timeout.
    pub timed_out: u64,
}

impl Tally {
    pub fn add(&mut self, o: &Tally) {
        self.calls += o.calls;
        self.pass_drawn += o.pass_drawn;
        self.pass_unmet += o.pass_unmet;
        self.fail_drawn += o.fail_drawn;
        self.fail_unmet += o.fail_unmet;
        self.errored += o.errored;
        self.unchecked += o.unchecked;
        self.timed_out += o.timed_out;
    }
}

/// The per-role plans of a playbook under a model.
#[derive(Debug, Clone)]
pub struct Plan {
    pub roles: Vec<RolePlan>,
    by_name: HashMap<String, usize>,
    /// The shortest timeout of the run's tasks, in seconds.
    pub timeout_seconds: u64,
    /// The fields a role's gate reads from another role's output: the only
    /// answers the agent keeps for the gates of later calls (a gate of a
    /// current playbook reads its own output only, PB502, so mostly none).
    remembered: BTreeSet<String>,
    /// The run input's values of every task (the goal and `values`), and of
    /// each task it lists, by id: what a gate may read besides outputs.
    input_values: Map<String, Value>,
    task_values: HashMap<String, Map<String, Value>>,
    /// No values: what a task the run input gives none has.
    no_values: Map<String, Value>,
}

impl Plan {
    pub fn new(playbook: &Playbook, model: &SimModel, input: &RunInput) -> Plan {
        let flow = Flow::new(playbook);
        let bounds = loop_bounds(&flow);
        let probe = probe::Probe::new(playbook, &flow, input);
        let mut roles = Vec::new();
        let mut by_name = HashMap::new();
        for (i, r) in flow.roles.iter().enumerate() {
            let role = r.role;
            let mode = role.mode;
            // Iteration 0 is never overridden: it reads the layers' own values.
            let base = model.resolve(&role.name, mode, 0).values;
            let mut keys: Vec<u32> = [
                model.roles.get(&role.name),
                mode.and_then(|m| model.roles.get(&format!("mode:{}", m.as_str()))),
                model.defaults.as_ref(),
            ]
            .into_iter()
            .flatten()
            .flat_map(|p| p.iterations.iter().flat_map(|i| i.keys()))
            .filter_map(|k| k.parse().ok())
            .collect();
            keys.sort_unstable();
            keys.dedup();
            let overrides = keys
                .into_iter()
                .map(|k| (k, model.resolve(&role.name, mode, k).values))
                .collect();
            let gate = role
                .pass_condition()
                .and_then(|text| gate::compile_in(playbook, text).ok());
            let required = role.outputs_required().to_vec();
            let patches = gate.clone().and_then(|g| {
                let state = probe.state(&g, r.stage, bounds[i]);
                let out = probe.output(&role.name, &required);
                let scope = Scope {
                    state: &state,
                    out: &out,
                    earlier: Some(&probe.others),
                    input: &probe.input(),
                };
                GatePlan::new(g, &required, &|name| probe.held(name, &role.name), &scope)
            });
            let reads_task = gate
                .as_ref()
                .is_some_and(|g| g.reads().any(|r| probe::TASK_VALUES.contains(&r)));
            let allowed = role.actions_allowed();
            let forbidden_tool = playbook_orchestrator::toolset::CATALOG
                .iter()
                .map(|t| t.name)
                .find(|t| !allowed.iter().any(|a| a == t))
                .unwrap_or("x_unlisted_tool")
                .to_string();
            by_name.entry(role.name.clone()).or_insert(i);
            roles.push(RolePlan {
                name: role.name.clone(),
                stage: r.stage_index,
                base,
                overrides,
                required,
                gate,
                patches,
                reads_task,
                max_iterations: bounds[i],
                forbidden_tool,
            });
        }
        let remembered = roles
            .iter()
            .flat_map(|r| r.unseen_reads().iter().cloned())
            .collect();
        Plan {
            roles,
            by_name,
            timeout_seconds: probe::shortest_timeout(input),
            remembered,
            input_values: probe::input_values(input),
            task_values: probe::task_values(input),
            no_values: Map::new(),
        }
    }

    pub fn index_of(&self, role: &str) -> Option<usize> {
        self.by_name.get(role).copied()
    }
}

/// Tasks whose manual gate the simulated approver must deny next (the
/// call's draw was a failing output). Shared by the agent and the approver
/// of one run.
pub type DenyNext = Rc<RefCell<HashMap<String, bool>>>;

/// The agent of one simulated run.
pub struct SimAgent<'p> {
    plan: &'p Plan,
    rng: fastrand::Rng,
    deny: DenyNext,
    /// Per role, for a failing and a passing output: the candidate that
    /// gave the verdict last on this run, tried first on the next call.
    memo: Vec<[Option<usize>; 2]>,
    /// The draw of the call in progress, between its tool call and answer.
    pending: Option<Draw>,
    /// Per task: the fields gates read that this agent answered so far, as
    /// the engine merges them into the task's values.
    answered: HashMap<String, Map<String, Value>>,
    /// Per role: what its calls drew and what became of it.
    pub tally: Vec<Tally>,
}

impl<'p> SimAgent<'p> {
    pub fn new(plan: &'p Plan, seed: u64, deny: DenyNext) -> Self {
        SimAgent {
            plan,
            rng: fastrand::Rng::with_seed(seed),
            deny,
            memo: vec![[None; 2]; plan.roles.len()],
            pending: None,
            answered: HashMap::new(),
            tally: vec![Tally::default(); plan.roles.len()],
        }
    }

    fn draw(&mut self, values: &Resolved) -> Draw {
        let u = self.rng.f64();
        let mut edge = values.pass;
        for (p, draw) in [
            (0.0, Draw::Pass),
            (values.violation, Draw::Violation),
            (values.blocked_tool, Draw::BlockedTool),
            (values.needs_input, Draw::NeedsInput),
            (values.error, Draw::Error),
        ] {
            edge += p;
            if u < edge {
                return draw;
            }
        }
        Draw::Fail
    }

    fn output(&mut self, role: usize, inv: &Invocation<'_>, draw: Draw) -> AgentOutput {
        // The plan outlives the agent: borrowed from it, not from `self`.
        let all: &'p Plan = self.plan;
        let plan = &all.roles[role];
        let mut out = Map::new();
        for field in &plan.required {
            out.insert(field.clone(), default_value(field, inv));
        }
        if draw == Draw::Violation {
            // The first required field is missing; with none required, the
            // answer is not even a JSON object.
            return match plan.required.first() {
                Some(field) => {
                    out.remove(field);
                    AgentOutput::Json(Value::Object(out))
                }
                None => AgentOutput::Text("simulated output that is not JSON".into()),
            };
        }
        let pass = draw != Draw::Fail;
        if let Some(gp) = &plan.patches {
            self.patch(role, gp, pass, inv, &mut out);
        }
        if !all.remembered.is_empty() {
            let mut kept = out
                .iter()
                .filter(|(k, _)| all.remembered.contains(*k))
                .peekable();
            if kept.peek().is_some() {
                let answered = self.answered.entry(inv.task_id.to_string()).or_default();
                for (k, v) in kept {
                    answered.insert(k.clone(), v.clone());
                }
            }
        }
        AgentOutput::Json(Value::Object(out))
    }

    /// Changes `out` so that the role's gate gives the drawn verdict over
    /// this call's values, checked with the gate itself; counts the calls
    /// for which no output does.
    fn patch(
        &mut self,
        role: usize,
        gp: &GatePlan,
        pass: bool,
        inv: &Invocation<'_>,
        out: &mut Map<String, Value>,
    ) {
        let plan = &self.plan.roles[role];
        let state = call_state(&gp.gate, inv, plan.max_iterations);
        let task_part = if plan.reads_task {
            probe::task_part(&inv.packet.task)
        } else {
            Map::new()
        };
        let input = [
            self.plan
                .task_values
                .get(inv.task_id)
                .unwrap_or(&self.plan.no_values),
            &task_part,
            &self.plan.input_values,
        ];
        let scope = Scope {
            state: &state,
            out: &*out,
            earlier: self.answered.get(inv.task_id),
            input: &input,
        };
        let memo = &mut self.memo[role][usize::from(pass)];
        let choice = gp.choose(pass, *memo, &scope);
        let tally = &mut self.tally[role];
        if pass {
            tally.pass_drawn += 1;
        } else {
            tally.fail_drawn += 1;
        }
        let chosen = match choice {
            Choice::Met(i) => {
                *memo = Some(i);
                gp.patch(pass, i)
            }
            Choice::Unmet => {
                if pass {
                    tally.pass_unmet += 1;
                } else {
                    tally.fail_unmet += 1;
                }
                None
            }
            // The engine fails a gate it cannot evaluate: a fail is given.
            Choice::Broken => {
                tally.errored += 1;
                if pass {
                    tally.pass_unmet += 1;
                }
                None
            }
            Choice::Unknown => {
                tally.unchecked += 1;
                gp.patch(pass, 0)
            }
        };
        for (field, value) in chosen.into_iter().flatten() {
            out.insert(field.clone(), value.clone());
        }
    }
}

/// The run state a role's gate reads, bound as the engine binds it.
fn call_state(
    gate: &Gate,
    inv: &Invocation<'_>,
    max_iterations: Option<u32>,
) -> Vec<(&'static str, Value)> {
    let mut state = Vec::new();
    for name in gate.reads() {
        let (name, value) = match name {
            "iteration" => ("iteration", json!(inv.iteration)),
            "max_iterations" => ("max_iterations", json!(max_iterations)),
            "task_id" => ("task_id", json!(inv.task_id)),
            "stage" => ("stage", json!(inv.stage)),
            _ => continue,
        };
        state.push((name, value));
    }
    state
}

fn result_envelope(inv: &Invocation<'_>) -> SubagentResult {
    let task = &inv.packet.task;
    let evidence = format!("checked by {} (simulated)", inv.role);
    SubagentResult {
        schema_version: CONTRACT_VERSION.into(),
        run_id: inv.run_id.into(),
        generated_at: None,
        task_id: inv.task_id.into(),
        status: ResultStatus::Done,
        changes: Vec::new(),
        acceptance_check: AcceptanceCheck::all_passed(&task.acceptance_criteria, &evidence),
        worklog_path: task.worklog_path.clone(),
        notes_for_orchestrator: Vec::new(),
        extra: Default::default(),
    }
}

impl Agent for SimAgent<'_> {
    async fn step(&mut self, inv: &Invocation<'_>, last: Option<&ToolResult>) -> AgentStep {
        let Some(role) = self.plan.index_of(inv.role) else {
            return AgentStep::Finish {
                outcome: AgentOutcome::Error {
                    message: format!("the simulation has no plan for role `{}`", inv.role),
                },
                duration_ms: 0,
            };
        };
        let values = *self.plan.roles[role].at(inv.iteration);
        let draw = match (last, self.pending.take()) {
            // The answer after the blocked tool call of this invocation.
            (Some(_), Some(draw)) => draw,
            _ => {
                let draw = self.draw(&values);
                if draw == Draw::BlockedTool {
                    self.pending = Some(draw);
                    return AgentStep::Call(ToolCall {
                        tool: self.plan.roles[role].forbidden_tool.clone(),
                        args: Value::Null,
                    });
                }
                draw
            }
        };
        let duration_ms = values.duration.sample_ms(&mut self.rng);
        self.tally[role].calls += 1;
        // A real agent is killed when the task's time runs out (the process
        // runner's deadline): the call ends there as a timeout, whatever it
        // would have answered, and is charged the timeout, not the drawn time.
        let timeout_ms = inv.packet.task.timeout_seconds.saturating_mul(1000);
        if duration_ms > timeout_ms {
            self.tally[role].timed_out += 1;
            return AgentStep::Finish {
                outcome: AgentOutcome::TimedOut {
                    message: format!(
                        "the simulated call would have taken {} s; the task timeout is {} s",
                        duration_ms / 1000,
                        timeout_ms / 1000
                    ),
                },
                duration_ms: timeout_ms,
            };
        }
        let outcome = match draw {
            Draw::NeedsInput => AgentOutcome::NeedsInput {
                questions: vec!["simulated question".into()],
            },
            Draw::Error => AgentOutcome::Error {
                message: "simulated agent error".into(),
            },
            _ => {
                let manual_fail = draw == Draw::Fail && self.plan.roles[role].gate_is_manual();
                if manual_fail {
                    self.deny.borrow_mut().insert(inv.task_id.to_string(), true);
                }
                // A JSON object is handed over with a typed result, as the
                // scripted agent does: the engine holds it to the same
                // contract, without writing and parsing its JSON. Text that is
                // not JSON (a simulated violation) goes the JSON way.
                let result = result_envelope(inv);
                match self.output(role, inv, draw) {
                    AgentOutput::Json(Value::Object(output)) => AgentOutcome::Checked {
                        output,
                        result: Box::new(result),
                    },
                    output => AgentOutcome::Output {
                        output,
                        result: Some(serde_json::to_value(result).unwrap_or(Value::Null)),
                    },
                }
            }
        };
        AgentStep::Finish {
            outcome,
            duration_ms,
        }
    }
}

/// Approves every tool call and gate, except a role's manual gate after a
/// call whose draw was a failing output.
pub struct SimApprover {
    pub deny: DenyNext,
}

impl Approver for SimApprover {
    async fn decide(&mut self, request: &ApprovalRequest<'_>) -> ApprovalDecision {
        let deny = match (&request.subject, request.role) {
            (ApprovalSubject::Gate { .. }, Some(_)) => self
                .deny
                .borrow_mut()
                .remove(request.task_id)
                .unwrap_or(false),
            _ => false,
        };
        ApprovalDecision {
            approved: !deny,
            by: "simulation".into(),
            waited_ms: 0,
        }
    }
}
