//! The simulated agent: draws each call's outcome from the model and turns
//! it into an answer the engine checks like any other. Nothing here decides
//! what happens next: a failing verdict is the reviewer's output, a
//! violation is an output missing a required field, a blocked tool is a call
//! outside `actions_allowed`, `needs_input` and an agent error are the
//! envelope statuses — the engine routes, retries and escalates.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{Map, Value, json};

use playbook_core::flow::Flow;
use playbook_core::gate::{self, Gate, Verdict};
use playbook_core::model::Playbook;
use playbook_orchestrator::agent::{
    Agent, AgentOutcome, AgentOutput, AgentStep, ApprovalDecision, ApprovalRequest,
    ApprovalSubject, Approver, Invocation, ToolCall, ToolResult,
};
use playbook_orchestrator::bound::loop_bounds;
use playbook_orchestrator::envelope::{
    AcceptanceCheck, CONTRACT_VERSION, ResultStatus, SubagentResult,
};
use playbook_orchestrator::scenario::default_value;

use crate::model::{Resolved, SimModel};

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
}

/// The per-role plans of a playbook under a model.
#[derive(Debug, Clone)]
pub struct Plan {
    pub roles: Vec<RolePlan>,
    by_name: HashMap<String, usize>,
}

impl Plan {
    pub fn new(playbook: &Playbook, model: &SimModel) -> Plan {
        let flow = Flow::new(playbook);
        let bounds = loop_bounds(&flow);
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
                required: role.outputs_required().to_vec(),
                gate,
                max_iterations: bounds[i],
                forbidden_tool,
            });
        }
        Plan { roles, by_name }
    }

    pub fn index_of(&self, role: &str) -> Option<usize> {
        self.by_name.get(role).copied()
    }
}

/// Tasks whose manual gate the simulated approver must deny next (the
/// call's draw was a failing output). Shared by the agent and the approver
/// of one run.
pub type DenyNext = Rc<RefCell<HashMap<String, bool>>>;

/// A field change that makes a gate give a wanted verdict.
#[derive(Debug, Clone)]
struct Patch {
    field: String,
    value: Value,
}

/// The agent of one simulated run.
pub struct SimAgent<'p> {
    plan: &'p Plan,
    rng: fastrand::Rng,
    deny: DenyNext,
    /// Per role: the patch that makes its output pass / fail its gate,
    /// found on the role's first call (`Some(None)`: none needed / found).
    pass_patch: Vec<Option<Option<Patch>>>,
    fail_patch: Vec<Option<Option<Patch>>>,
    /// The draw of the call in progress, between its tool call and answer.
    pending: Option<Draw>,
    /// Per task: every field this agent answered so far, as the engine
    /// merges them into the task's values; gates may read them.
    answered: HashMap<String, Map<String, Value>>,
}

impl<'p> SimAgent<'p> {
    pub fn new(plan: &'p Plan, seed: u64, deny: DenyNext) -> Self {
        SimAgent {
            plan,
            rng: fastrand::Rng::with_seed(seed),
            deny,
            pass_patch: vec![None; plan.roles.len()],
            fail_patch: vec![None; plan.roles.len()],
            pending: None,
            answered: HashMap::new(),
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
        let plan = &self.plan.roles[role];
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
        let want = if draw == Draw::Fail {
            Verdict::Fail
        } else {
            Verdict::Pass
        };
        let cache = if want == Verdict::Fail {
            &mut self.fail_patch[role]
        } else {
            &mut self.pass_patch[role]
        };
        let patch = match cache {
            Some(p) => p.clone(),
            None => {
                let earlier = self.answered.get(inv.task_id);
                let found = plan.gate.as_ref().and_then(|g| {
                    find_patch(g, &out, earlier, inv, plan.max_iterations, want.clone())
                });
                *cache = Some(found.clone());
                found
            }
        };
        if let Some(Patch { field, value }) = patch {
            out.insert(field, value);
        }
        let answered = self.answered.entry(inv.task_id.to_string()).or_default();
        for (k, v) in &out {
            answered.insert(k.clone(), v.clone());
        }
        AgentOutput::Json(Value::Object(out))
    }
}

/// Values tried, in order, when a gate needs a different verdict.
fn candidates(current: Option<&Value>, want: &Verdict) -> Vec<Value> {
    let mut list = match current {
        Some(Value::String(_)) => vec![json!("fail"), json!(""), json!("pass"), json!("approved")],
        Some(Value::Number(n)) => {
            if n.as_f64() == Some(0.0) {
                vec![json!(1), json!(-1)]
            } else {
                vec![json!(0), json!(-1), json!(1)]
            }
        }
        Some(Value::Bool(b)) => vec![json!(!b)],
        Some(Value::Array(a)) if a.is_empty() => vec![json!(["simulated issue"])],
        Some(Value::Array(_)) => vec![json!([])],
        Some(Value::Object(_)) => vec![json!({})],
        Some(Value::Null) | None => Vec::new(),
    };
    if current.is_none() {
        list = match want {
            Verdict::Pass => vec![json!(true), json!("pass"), json!(1), json!(["ok"])],
            _ => vec![json!(false), json!("fail"), json!(0), json!([])],
        };
    }
    list
}

/// Finds one field change after which `gate` gives `want` on `out` (over
/// the fields answered `earlier` for the task), or `None` when the output
/// already does or no single change can. A gate that cannot be evaluated
/// here (it reads what only the run input holds) is left to the engine
/// for a passing output: a guess could overwrite a real value.
fn find_patch(
    gate: &Gate,
    out: &Map<String, Value>,
    earlier: Option<&Map<String, Value>>,
    inv: &Invocation<'_>,
    max_iterations: Option<u32>,
    want: Verdict,
) -> Option<Patch> {
    let state = [
        ("iteration", json!(inv.iteration)),
        ("max_iterations", json!(max_iterations)),
        ("task_id", json!(inv.task_id)),
        ("stage", json!(inv.stage)),
    ];
    let verdict = |patch: Option<(&str, &Value)>| {
        gate.evaluate_with(|name| {
            if let Some((field, value)) = patch
                && field == name
            {
                return Some(value);
            }
            state
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v)
                .or_else(|| out.get(name))
                .or_else(|| earlier.and_then(|e| e.get(name)))
        })
    };
    match verdict(None) {
        Some(v) if v == want => return None,
        Some(Verdict::Error(_)) if want == Verdict::Pass => return None,
        None => return None,
        _ => {}
    }
    let mut fields: Vec<String> = out.keys().cloned().collect();
    for read in gate.reads() {
        let known =
            state.iter().any(|(k, _)| *k == read) || earlier.is_some_and(|e| e.contains_key(read));
        if !fields.iter().any(|f| f == read) && !known {
            fields.push(read.to_string());
        }
    }
    for field in fields {
        for value in candidates(out.get(&field), &want) {
            if verdict(Some((&field, &value))).as_ref() == Some(&want) {
                return Some(Patch { field, value });
            }
        }
    }
    None
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
