//! The aggregating event sink: keeps what the statistics need of one run
//! (calls per task, stage and role, cost, escalations, final states) instead
//! of the events themselves, so memory does not grow with the run's length.

use std::collections::HashMap;

use playbook_orchestrator::event::{Event, EventRecord, EventSink, Outcome, TaskState};

use crate::agent::Plan;

/// One task of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskSample {
    pub id: String,
    /// Agent calls on the task, all stages together.
    pub calls: u32,
    /// Agent calls per stage (playbook order).
    pub stage_calls: Vec<u32>,
    /// Agent calls per role (playbook order).
    pub role_calls: Vec<u32>,
    /// Cost of the calls per role, in the model's unit.
    pub role_cost: Vec<f64>,
    pub state: Option<TaskState>,
    /// The trigger and the stage (index) of the task's escalation, if any.
    pub escalation: Option<(String, Option<usize>)>,
    /// Stage of the task's last call.
    stage: Option<usize>,
}

/// What one run leaves for the statistics.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSample {
    pub outcome: Option<Outcome>,
    pub virtual_ms: u64,
    pub steps: u64,
    /// Why the engine refused the run, if it did.
    pub refused: Option<String>,
    /// Tasks in order of their first call.
    pub tasks: Vec<TaskSample>,
}

impl RunSample {
    pub fn cost(&self) -> f64 {
        self.tasks.iter().flat_map(|t| t.role_cost.iter()).sum()
    }
}

/// Builds a [`RunSample`] from the event stream of one run.
pub struct AggregatingSink<'p> {
    plan: &'p Plan,
    stages: &'p HashMap<String, usize>,
    stage_count: usize,
    index: HashMap<String, usize>,
    pub sample: RunSample,
}

impl<'p> AggregatingSink<'p> {
    pub fn new(plan: &'p Plan, stages: &'p HashMap<String, usize>) -> Self {
        AggregatingSink {
            plan,
            stages,
            stage_count: stages.len(),
            index: HashMap::new(),
            sample: RunSample::default(),
        }
    }

    fn task(&mut self, id: &str) -> &mut TaskSample {
        let i = match self.index.get(id) {
            Some(&i) => i,
            None => {
                let i = self.sample.tasks.len();
                self.index.insert(id.to_string(), i);
                self.sample.tasks.push(TaskSample {
                    id: id.to_string(),
                    calls: 0,
                    stage_calls: vec![0; self.stage_count],
                    role_calls: vec![0; self.plan.roles.len()],
                    role_cost: vec![0.0; self.plan.roles.len()],
                    state: None,
                    escalation: None,
                    stage: None,
                });
                i
            }
        };
        &mut self.sample.tasks[i]
    }

    fn end(&mut self, id: &str, state: TaskState) {
        self.task(id).state = Some(state);
    }
}

impl EventSink for AggregatingSink<'_> {
    fn emit(&mut self, record: &EventRecord) {
        match &record.event {
            Event::AgentInvoked {
                task_id,
                stage,
                role,
                iteration,
                ..
            } => {
                let stage = self.stages.get(stage.as_str()).copied();
                let role = self.plan.index_of(role);
                let cost = role.map_or(0.0, |r| self.plan.roles[r].at(*iteration).cost);
                let task = self.task(task_id);
                task.calls = task.calls.saturating_add(1);
                task.stage = stage;
                if let Some(s) = stage {
                    task.stage_calls[s] = task.stage_calls[s].saturating_add(1);
                }
                if let Some(r) = role {
                    task.role_calls[r] = task.role_calls[r].saturating_add(1);
                    task.role_cost[r] += cost;
                }
            }
            Event::Escalated {
                task_id, trigger, ..
            } => {
                let task = self.task(task_id);
                task.escalation = Some((trigger.clone(), task.stage));
            }
            Event::TaskDone { task_id } => self.end(task_id, TaskState::Done),
            Event::TaskBlocked { task_id, .. } => self.end(task_id, TaskState::Blocked),
            Event::TaskFailed { task_id, .. } => self.end(task_id, TaskState::Failed),
            Event::TaskCanceled { task_id, .. } => self.end(task_id, TaskState::Canceled),
            Event::RunRefused {
                code,
                reason,
                details,
            } => {
                let mut text = format!("{code}: {reason}");
                for d in details.iter().take(3) {
                    text.push_str("; ");
                    text.push_str(d);
                }
                self.sample.refused = Some(text);
            }
            Event::RunFinished {
                outcome,
                steps,
                virtual_ms,
                ..
            } => {
                self.sample.outcome = Some(*outcome);
                self.sample.steps = *steps;
                self.sample.virtual_ms = *virtual_ms;
            }
            _ => {}
        }
    }
}
