//! What the simulated agent knows of a run before it starts: the values
//! the engine gives every task from the run input, the names someone other
//! than a role sets (and the role must not), one representative call (the
//! probe) on which gate candidates are ranked, and the task timeout.

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value, json};

use playbook_core::flow::Flow;
use playbook_core::gate::{Gate, ROLE_STATE_VARIABLES};
use playbook_core::model::Playbook;
use playbook_orchestrator::agent::Invocation;
use playbook_orchestrator::envelope::{
    AssignmentPacket, CONTRACT_VERSION, OutputSchemaName, PacketTask, PacketType, Priority,
    TaskType,
};
use playbook_orchestrator::scenario::{RunInput, default_value};

use crate::model::{Duration, MAX_DURATION_SECONDS};

/// Task values the engine sets from the task itself (`make_task` in the
/// engine's setup), which a gate may read.
pub const TASK_VALUES: &[&str] = &["task", "title", "acceptance_criteria"];

/// The timeout of a task that sets none (the engine's setup).
const DEFAULT_TIMEOUT_SECONDS: u64 = 1200;

/// Names a role's output does not own: the engine or another role sets
/// them. A gate reading one is evaluated over the value found, never a
/// value the simulated agent makes up.
const ENGINE_VALUES: &[&str] = &["goal", "task_id", "plan_task"];

/// The representative call of a run and what it sees.
pub struct Probe {
    packet: AssignmentPacket,
    task_values: Map<String, Value>,
    task_part: Map<String, Value>,
    input_values: Map<String, Value>,
    /// Every role's default answer, flow order (later roles win): what
    /// earlier roles are taken to have answered.
    pub others: Map<String, Value>,
    /// Names the run state, the run input or the engine set.
    held: BTreeSet<String>,
    /// Each role's required output fields, by role name.
    outputs: Vec<(String, Vec<String>)>,
}

impl Probe {
    pub fn new(playbook: &Playbook, flow: &Flow<'_>, input: &RunInput) -> Probe {
        // The first task of the run: the first listed, or the goal's.
        let (id, title, criteria, timeout, values) = match input.tasks.first() {
            Some(t) => (
                t.id.clone().unwrap_or_else(|| "T-1".into()),
                t.title.clone(),
                t.acceptance_criteria.clone(),
                t.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT_SECONDS),
                t.values.clone(),
            ),
            None => (
                "T-1".to_string(),
                if input.goal.trim().is_empty() {
                    "Reach the goal".to_string()
                } else {
                    input.goal.chars().take(500).collect()
                },
                Vec::new(),
                DEFAULT_TIMEOUT_SECONDS,
                Map::new(),
            ),
        };
        let criteria = if criteria.is_empty() {
            vec![format!("{title} is complete")]
        } else {
            criteria
        };
        let packet = AssignmentPacket {
            schema_version: CONTRACT_VERSION.into(),
            run_id: "whatif-probe".into(),
            generated_at: None,
            packet_type: PacketType::Assignment,
            global_objective: input.goal.clone(),
            task: PacketTask {
                task_id: id,
                title,
                kind: TaskType::Serial,
                dependencies: Vec::new(),
                lock_scope: Vec::new(),
                forbidden_scope: Vec::new(),
                acceptance_criteria: criteria,
                worklog_path: String::new(),
                timeout_seconds: timeout,
                heartbeat_interval_seconds: (timeout / 10).max(5),
                priority: Priority::Normal,
                extra: Default::default(),
            },
            active_locks: Vec::new(),
            context_package: Vec::new(),
            required_output_schema: OutputSchemaName::SubagentResultV1,
            extra: Default::default(),
        };
        let input_values = input_values(input);
        let mut held: BTreeSet<String> = ROLE_STATE_VARIABLES
            .iter()
            .chain(TASK_VALUES)
            .chain(ENGINE_VALUES)
            .map(|s| s.to_string())
            .collect();
        if playbook.is_legacy() {
            held.extend(
                playbook_core::legacy::AGENTERM_RUN_INPUTS
                    .iter()
                    .map(|s| s.to_string()),
            );
        }
        held.extend(input_values.keys().cloned());
        for t in &input.tasks {
            held.extend(t.values.keys().cloned());
        }
        let outputs: Vec<(String, Vec<String>)> = flow
            .roles
            .iter()
            .map(|r| (r.role.name.clone(), r.role.outputs_required().to_vec()))
            .collect();
        let mut probe = Probe {
            task_part: task_part(&packet.task),
            packet,
            task_values: values,
            input_values,
            others: Map::new(),
            held,
            outputs,
        };
        let mut others = Map::new();
        for (role, fields) in &probe.outputs {
            others.extend(probe.output(role, fields));
        }
        probe.others = others;
        probe
    }

    /// The role's output as answered by default on the probe call.
    pub fn output(&self, role: &str, fields: &[String]) -> Map<String, Value> {
        let inv = Invocation {
            run_id: &self.packet.run_id,
            task_id: &self.packet.task.task_id,
            stage: "",
            role,
            iteration: 1,
            prompt: "",
            packet: &self.packet,
        };
        fields
            .iter()
            .map(|f| (f.clone(), default_value(f, &inv)))
            .collect()
    }

    /// The run state `gate` reads on the probe call: the first call of the
    /// role on the first task.
    pub fn state(
        &self,
        gate: &Gate,
        stage: &str,
        max_iterations: Option<u32>,
    ) -> Vec<(&'static str, Value)> {
        let mut state = Vec::new();
        for name in gate.reads() {
            let (name, value) = match name {
                "iteration" => ("iteration", json!(1)),
                "max_iterations" => ("max_iterations", json!(max_iterations)),
                "task_id" => ("task_id", json!(self.packet.task.task_id)),
                "stage" => ("stage", json!(stage)),
                _ => continue,
            };
            state.push((name, value));
        }
        state
    }

    /// The probe task's values from the run input, in the engine's order.
    pub fn input(&self) -> [&Map<String, Value>; 3] {
        [&self.task_values, &self.task_part, &self.input_values]
    }

    /// Whether `name` is set by someone other than `role`: the run state,
    /// the run input, the engine, or another role's required output.
    pub fn held(&self, name: &str, role: &str) -> bool {
        self.held.contains(name)
            || self
                .outputs
                .iter()
                .any(|(r, fields)| r != role && fields.iter().any(|f| f == name))
    }
}

/// The values the engine gives a task from the task itself.
pub fn task_part(task: &PacketTask) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("task".into(), json!(task.title));
    map.insert("title".into(), json!(task.title));
    map.insert(
        "acceptance_criteria".into(),
        json!(task.acceptance_criteria),
    );
    map
}

/// The values every task of the run starts with: the goal, then the run
/// input's `values` (which win, as in the engine).
pub fn input_values(input: &RunInput) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("goal".into(), json!(input.goal));
    for (k, v) in &input.values {
        map.insert(k.clone(), v.clone());
    }
    map
}

/// The run input's own values of each task it lists, by task id.
pub fn task_values(input: &RunInput) -> HashMap<String, Map<String, Value>> {
    input
        .tasks
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.values.is_empty())
        .map(|(i, t)| {
            let id = t.id.clone().unwrap_or_else(|| format!("T-{}", i + 1));
            (id, t.values.clone())
        })
        .collect()
}

/// The shortest timeout of the run's tasks: the tasks listed, or the
/// goal's task and those a plan creates (which set none).
pub fn shortest_timeout(input: &RunInput) -> u64 {
    input
        .tasks
        .iter()
        .map(|t| t.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT_SECONDS))
        .min()
        .unwrap_or(DEFAULT_TIMEOUT_SECONDS)
}

/// The share of calls whose duration, drawn as `Duration::sample_ms`
/// draws it, is above `limit_ms`.
pub fn share_above(d: &Duration, limit_ms: u64) -> f64 {
    // `sample_ms` clamps to the model's range and rounds to whole ms.
    let exceeds = |seconds: f64| {
        let s = if seconds.is_finite() {
            seconds.clamp(0.0, MAX_DURATION_SECONDS)
        } else {
            MAX_DURATION_SECONDS
        };
        (s * 1000.0).round() as u64 > limit_ms
    };
    let fixed = |s: f64| if exceeds(s) { 1.0 } else { 0.0 };
    // The shortest duration that rounds above the limit.
    let edge = (limit_ms as f64 + 0.5) / 1000.0;
    match *d {
        Duration::Fixed(s) => fixed(s),
        Duration::Uniform { min, max } if max <= min => fixed(min),
        Duration::Uniform { min, max } => ((max - edge) / (max - min)).clamp(0.0, 1.0),
        Duration::Lognormal { median, sigma } if sigma <= 0.0 || median <= 0.0 => fixed(median),
        Duration::Lognormal { median, sigma } => {
            if !exceeds(MAX_DURATION_SECONDS) {
                return 0.0;
            }
            let z = (edge / median).ln() / sigma;
            0.5 * erfc(z / std::f64::consts::SQRT_2)
        }
    }
}

/// The complementary error function, to a relative error below 1.2e-7
/// everywhere (Numerical Recipes' Chebyshev fit): the far tail of a
/// log-normal duration stays accurate, not rounded to zero.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_above_a_timeout_follow_the_duration_model() {
        let t = 1_200_000;
        assert_eq!(share_above(&Duration::Fixed(1300.0), t), 1.0);
        assert_eq!(share_above(&Duration::Fixed(1200.0), t), 0.0);
        let u = share_above(
            &Duration::Uniform {
                min: 0.0,
                max: 2400.0,
            },
            t,
        );
        assert!((u - 0.5).abs() < 1e-6, "{u}");
        assert_eq!(
            share_above(
                &Duration::Uniform {
                    min: 0.0,
                    max: 1000.0
                },
                t
            ),
            0.0
        );
        // The median is the limit: half the calls.
        let l = share_above(
            &Duration::Lognormal {
                median: 1200.0,
                sigma: 0.5,
            },
            t,
        );
        assert!((l - 0.5).abs() < 1e-3, "{l}");
        // ln(1200 / 90) / 0.5 = 5.18 standard deviations: about 1.1e-7.
        let far = share_above(
            &Duration::Lognormal {
                median: 90.0,
                sigma: 0.5,
            },
            t,
        );
        assert!(far > 5e-8 && far < 2e-7, "{far}");
    }

    #[test]
    fn erfc_matches_known_values() {
        for (x, want) in [
            (0.0, 1.0),
            (1.0, 0.157_299_207),
            (-1.0, 1.842_700_793),
            (3.0, 2.209_049_7e-5),
        ] {
            let got = erfc(x);
            assert!(
                ((got - want) / want).abs() < 1e-6,
                "erfc({x}) = {got}, not {want}"
            );
        }
    }
}
