//! The aggregating event sink: keeps what the statistics need of one run
//! (calls per task, stage and role, cost, escalations, final states) instead
//! of the events themselves, so memory does not grow with the run's length.

use std::collections::HashMap;

use playbook_orchestrator::code::ErrorCode;
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
    /// The code the task ended with, when it did not end done.
    pub end_code: Option<ErrorCode>,
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

/// Stage and role indexes by the names the run's events carry.
///
/// Events are redacted before any sink sees them, so a stage or role whose
/// name reads as a credential is recorded as `[REDACTED]`: looked up by its
/// playbook name, its calls were counted nowhere (or charged to a stage that
/// is really called `[REDACTED]`), and the bound check then missed them or
/// raised a false alarm. Names are looked up as they are recorded.
#[derive(Debug, Default)]
pub struct RecordedNames {
    stages: HashMap<String, usize>,
    stage_count: usize,
    roles: HashMap<String, usize>,
}

impl RecordedNames {
    /// `Err` names two stages (or two roles) that the records cannot tell
    /// apart, and how to fix it.
    pub fn new<'a>(
        stages: impl IntoIterator<Item = &'a str>,
        roles: impl IntoIterator<Item = &'a str>,
    ) -> Result<RecordedNames, String> {
        fn index<'a>(
            what: &str,
            names: impl IntoIterator<Item = &'a str>,
        ) -> Result<HashMap<String, usize>, String> {
            let mut by_recorded: HashMap<String, (usize, &'a str)> = HashMap::new();
            for (i, name) in names.into_iter().enumerate() {
                let mut recorded = name.to_string();
                playbook_redact::Redact::redact(&mut recorded);
                match by_recorded.get(&recorded) {
                    // The same name twice (an invalid playbook the engine
                    // refuses): the first is the one calls are charged to.
                    Some(&(_, first)) if first == name => {}
                    Some(&(_, first)) => {
                        return Err(format!(
                            "{what}s `{first}` and `{name}` both appear as `{recorded}` in a run's records (a name that reads as a credential is redacted), so their calls cannot be told apart: rename the {what} whose name looks like a secret"
                        ));
                    }
                    None => {
                        by_recorded.insert(recorded, (i, name));
                    }
                }
            }
            Ok(by_recorded.into_iter().map(|(k, (i, _))| (k, i)).collect())
        }
        let stages: Vec<&str> = stages.into_iter().collect();
        Ok(RecordedNames {
            stage_count: stages.len(),
            stages: index("stage", stages)?,
            roles: index("role", roles)?,
        })
    }
}

/// Builds a [`RunSample`] from the event stream of one run.
pub struct AggregatingSink<'p> {
    plan: &'p Plan,
    names: &'p RecordedNames,
    stage_count: usize,
    index: HashMap<String, usize>,
    pub sample: RunSample,
}

impl<'p> AggregatingSink<'p> {
    pub fn new(plan: &'p Plan, names: &'p RecordedNames) -> Self {
        AggregatingSink {
            plan,
            names,
            stage_count: names.stage_count,
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
                    end_code: None,
                    escalation: None,
                    stage: None,
                });
                i
            }
        };
        &mut self.sample.tasks[i]
    }

    fn end(&mut self, id: &str, state: TaskState, code: Option<ErrorCode>) {
        let task = self.task(id);
        task.state = Some(state);
        task.end_code = code;
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
                let stage = self.names.stages.get(stage.as_str()).copied();
                let role = self.names.roles.get(role.as_str()).copied();
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
            Event::TaskDone { task_id } => self.end(task_id, TaskState::Done, None),
            Event::TaskBlocked { task_id, code, .. } => {
                self.end(task_id, TaskState::Blocked, Some(*code))
            }
            Event::TaskFailed { task_id, code, .. } => {
                self.end(task_id, TaskState::Failed, Some(*code))
            }
            Event::TaskCanceled { task_id, code } => {
                self.end(task_id, TaskState::Canceled, Some(*code))
            }
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
