//! What a scenario names besides its `roles` keys, checked before a run:
//! the tasks a task depends on, the roles `caps` limits, the stages and
//! tasks `role_assignment` answers for, the tasks a role script overrides.
//!
//! A name that matches nothing would be ignored by the run (a dependency on
//! no task never holds anything back, a cap on no role caps nothing), so
//! the author would believe the scenario tests something it does not; and
//! a circle of dependencies would hold its tasks until the lock wait runs
//! out. Each is refused like an unknown `roles` key, at its JSON pointer,
//! with a fix.
//!
//! **What can exist.** Only what cannot exist is refused. The tasks of a run
//! are those of `input.tasks`; without any, the goal is task `T-1` and, when
//! the playbook has a planner, the plan's tasks are `T-2`, `T-3`, ... in its
//! order (`engine::schedule`), so a script or an answer for `T-5` is
//! legitimate there and for `T-0` or `T-x` it is not. A plan's tasks carry no
//! dependencies, so a dependency always names a task of `input.tasks`.

use std::collections::{HashMap, HashSet};

use playbook_core::Playbook;
use playbook_core::finding::escape_pointer;
use playbook_core::model::RoleMode;

use super::selector::{candidates, short};
use super::{RunInput, Scenario, TaskInput};
use crate::engine::MAX_CREATED_TASKS;

/// One name that points at nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dangling {
    /// JSON pointer of the name (a key or a list item) in the scenario.
    pub path: String,
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

/// Most names quoted in one list of a message.
const MAX_LISTED: usize = 5;

/// The id a task of the run input runs under: its own, else `T-<n>` by its
/// place (what `engine::setup` gives it).
pub(crate) fn task_id(index: usize, task: &TaskInput) -> String {
    task.id
        .clone()
        .unwrap_or_else(|| format!("T-{}", index + 1))
}

/// `items` quoted and cut to a few, for a message.
fn listed<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let items: Vec<&str> = items.collect();
    let mut text = items
        .iter()
        .take(MAX_LISTED)
        .map(|i| short(i))
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > MAX_LISTED {
        text.push_str(&format!(" and {} more", items.len() - MAX_LISTED));
    }
    if text.is_empty() {
        text.push_str("none");
    }
    text
}

impl RunInput {
    /// Dependencies on tasks the input does not have, and circles of
    /// dependencies; pointers start with `prefix` (`/input` in a scenario,
    /// empty in a run input of its own).
    pub fn dangling_dependencies(&self, prefix: &str) -> Vec<Dangling> {
        let ids: Vec<String> = self
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| task_id(i, t))
            .collect();
        // The first task of an id counts: a second one is refused as
        // "used twice" when the run's tasks are built.
        let mut index: HashMap<&str, usize> = HashMap::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            index.entry(id.as_str()).or_insert(i);
        }
        let mut out = Vec::new();
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); self.tasks.len()];
        for (i, task) in self.tasks.iter().enumerate() {
            for (j, dep) in task.dependencies.iter().enumerate() {
                let path = format!("{prefix}/tasks/{i}/dependencies/{j}");
                match index.get(dep.as_str()) {
                    Some(&d) if d == i => out.push(Dangling {
                        path,
                        message: format!("task {} depends on itself, so it could never start", short(&ids[i])),
                        hint: "remove the dependency".into(),
                    }),
                    Some(&d) => edges[i].push(d),
                    None => out.push(Dangling {
                        path,
                        message: format!(
                            "task {} depends on {}, which is not a task of the run input (its tasks: {})",
                            short(&ids[i]),
                            short(dep),
                            listed(ids.iter().map(String::as_str))
                        ),
                        hint: "name the id of a task in `tasks`, or remove the dependency (the tasks a plan creates cannot be depended on)".into(),
                    }),
                }
            }
        }
        if let Some(circle) = circle(&edges) {
            let first = circle[0];
            let names: Vec<String> = circle
                .iter()
                .chain(std::iter::once(&first))
                .map(|&t| short(&ids[t]))
                .collect();
            out.push(Dangling {
                path: format!("{prefix}/tasks/{first}/dependencies"),
                message: format!(
                    "the dependencies go round in a circle ({}), so none of these tasks could ever start",
                    names.join(" → ")
                ),
                hint: "remove one dependency of the circle".into(),
            });
        }
        out
    }
}

/// One circle of `edges` (task → the tasks it depends on), if there is
/// any, as the tasks in order. Iterative and linear in tasks and edges:
/// Kahn's algorithm takes away every task whose dependencies can all
/// finish; each task left still waits on one left, so a walk along such
/// dependencies must come back to a task it met.
fn circle(edges: &[Vec<usize>]) -> Option<Vec<usize>> {
    let n = edges.len();
    let mut waiting: Vec<usize> = edges.iter().map(Vec::len).collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (t, deps) in edges.iter().enumerate() {
        for &d in deps {
            dependents[d].push(t);
        }
    }
    let mut free: Vec<usize> = (0..n).filter(|&t| waiting[t] == 0).collect();
    let mut can_finish = vec![false; n];
    while let Some(t) = free.pop() {
        can_finish[t] = true;
        for &u in &dependents[t] {
            waiting[u] -= 1;
            if waiting[u] == 0 {
                free.push(u);
            }
        }
    }
    let start = (0..n).find(|&t| !can_finish[t])?;
    let mut seen_at = vec![usize::MAX; n];
    let mut walk = Vec::new();
    let mut t = start;
    while seen_at[t] == usize::MAX {
        seen_at[t] = walk.len();
        walk.push(t);
        t = *edges[t].iter().find(|&&d| !can_finish[d])?;
    }
    Some(walk.split_off(seen_at[t]))
}

/// Which task ids a run of `scenario` on `playbook` can have.
struct RunTasks<'s> {
    /// In the input's order, for messages.
    input: Vec<String>,
    /// The same ids, looked up once per name a scenario gives: a script
    /// per task of a large run names every task, so a list scan would be
    /// quadratic.
    known: HashSet<String>,
    /// Without input tasks: the goal `T-1`, and the plan's `T-2`... when
    /// the playbook has a planner.
    planned: bool,
    scenario: &'s Scenario,
}

impl RunTasks<'_> {
    fn new<'s>(scenario: &'s Scenario, playbook: &Playbook) -> RunTasks<'s> {
        let input: Vec<String> = if scenario.input.tasks.is_empty() {
            vec!["T-1".into()]
        } else {
            scenario
                .input
                .tasks
                .iter()
                .enumerate()
                .map(|(i, t)| task_id(i, t))
                .collect()
        };
        // A disabled stage never runs, so its planner creates nothing.
        let planned = scenario.input.tasks.is_empty()
            && playbook
                .stages()
                .filter(|(_, stage)| stage.is_enabled())
                .flat_map(|(_, stage)| stage.roles())
                .any(|r| r.mode == Some(RoleMode::Planner));
        RunTasks {
            known: input.iter().cloned().collect(),
            input,
            planned,
            scenario,
        }
    }

    fn can_have(&self, id: &str) -> bool {
        self.known.contains(id)
            || (self.planned
                && id
                    .strip_prefix("T-")
                    .filter(|n| !n.starts_with('0'))
                    .and_then(|n| n.parse::<usize>().ok())
                    .is_some_and(|n| (2..=MAX_CREATED_TASKS + 1).contains(&n)))
    }

    fn describe(&self) -> String {
        match (self.scenario.input.tasks.is_empty(), self.planned) {
            (true, true) => format!(
                "the goal task T-1 and the tasks its plan creates, T-2 to T-{}",
                MAX_CREATED_TASKS + 1
            ),
            (true, false) => {
                "only the goal task T-1 (the playbook has no planner to create more)".into()
            }
            (false, _) => format!(
                "the tasks of its input: {}",
                listed(self.input.iter().map(String::as_str))
            ),
        }
    }
}

/// Every name of `scenario` (besides its `roles` keys, which the selectors
/// resolve) that points at nothing in `playbook` or in the run, in the
/// order of the scenario's fields.
pub fn dangling(scenario: &Scenario, playbook: &Playbook) -> Vec<Dangling> {
    let mut out = scenario.input.dangling_dependencies("/input");
    let tasks = RunTasks::new(scenario, playbook);
    let task = |path: String, what: &str, id: &str| {
        (!tasks.can_have(id)).then(|| Dangling {
            path,
            message: format!(
                "{what} names task {}, which this run never has: it has {}",
                short(id),
                tasks.describe()
            ),
            hint: "use the id of a task the run has: one of `input.tasks`; without input tasks, T-1 is the goal and a plan's tasks are T-2, T-3, ... in its order".into(),
        })
    };
    for (key, script) in &scenario.roles {
        for id in script.tasks.keys() {
            let path = format!(
                "/roles/{}/tasks/{}",
                escape_pointer(key),
                escape_pointer(id)
            );
            out.extend(task(path, &format!("the script of `{}`", short(key)), id));
        }
    }
    if let Some(assignment) = &scenario.role_assignment {
        for stage in assignment.stages.keys() {
            if !playbook.workflow.contains_key(stage) {
                out.push(Dangling {
                    path: format!("/role_assignment/stages/{}", escape_pointer(stage)),
                    message: format!(
                        "`role_assignment.stages` names stage `{}`, which the playbook does not have (its stages: {})",
                        short(stage),
                        listed(playbook.workflow.keys().map(String::as_str))
                    ),
                    hint: "use a stage name of the playbook's `workflow`".into(),
                });
            }
        }
        for id in assignment.tasks.keys() {
            let path = format!("/role_assignment/tasks/{}", escape_pointer(id));
            out.extend(task(path, "`role_assignment.tasks`", id));
        }
    }
    if let Some(caps) = &scenario.caps {
        for role in caps.roles.keys() {
            if playbook.roles().any(|r| r.role.name == *role) {
                continue;
            }
            let like = candidates(role, playbook);
            let like = match like.is_empty() {
                true => String::new(),
                false => format!(
                    " (did you mean {}?)",
                    listed(like.iter().map(String::as_str))
                ),
            };
            out.push(Dangling {
                path: format!("/caps/roles/{}", escape_pointer(role)),
                message: format!(
                    "`caps.roles` names role `{}`, which the playbook does not define{like}",
                    short(role)
                ),
                hint: "caps name a role exactly (not a selector): use a role name of the playbook"
                    .into(),
            });
        }
    }
    out
}

/// The problems as one refusal's text: the first few with their places and
/// fixes, the rest counted.
pub(crate) fn refusal(problems: &[Dangling]) -> String {
    let mut text = match problems.len() {
        1 => "the scenario names what does not exist: ".to_string(),
        n => format!("the scenario names {n} things that do not exist: "),
    };
    let shown: Vec<String> = problems
        .iter()
        .take(MAX_LISTED)
        .map(|p| format!("{} (at {}; {})", p.message, p.path, p.hint))
        .collect();
    text.push_str(&shown.join("; "));
    if problems.len() > MAX_LISTED {
        text.push_str(&format!("; and {} more", problems.len() - MAX_LISTED));
    }
    text
}
