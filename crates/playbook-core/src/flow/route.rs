//! Where a task goes after a role, on pass and on fail, as an author reads
//! it: the static picture of the orchestrator's routing.
//!
//! The engine routes by the order in which roles first ran for the task: on
//! a passed gate, forward to the first `handoff_to` target of the stage that
//! has not run before this role; on a failed gate, back to a target that
//! has (the review loop, bounded by the loop's smallest `max_iterations`).
//! Statically, "ran before" is the order in which a task entering the stage
//! at its first role meets the roles (breadth first along the edges of the
//! stage); roles it never meets come after, in document order.

use std::collections::VecDeque;

use super::Flow;

/// Where a task goes when the role's gate passes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnPass {
    /// To another role of the stage.
    HandOff { to: usize },
    /// Out of the stage: into the next enabled stage (its index), at its
    /// entry role, or the run's end when there is none.
    LeaveStage { next_stage: Option<usize> },
}

/// Where a task goes when the role's gate fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnFail {
    /// Back to an earlier role of the stage, for at most `bound` rounds;
    /// then the task is escalated (when `retry_limit` is listed) or fails.
    SendBack {
        to: usize,
        bound: Option<u32>,
        escalates: bool,
    },
    /// No earlier role to send it to: the task is escalated (when
    /// `gate_failed` is listed) or fails.
    End { escalates: bool },
}

/// A role's two routes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub on_pass: OnPass,
    pub on_fail: OnFail,
}

impl Flow<'_> {
    /// The order in which a task entering each stage at its first role
    /// meets the roles; see the module documentation.
    fn stage_order(&self) -> Vec<usize> {
        let mut order = vec![usize::MAX; self.roles.len()];
        let mut next = 0usize;
        let stages = self
            .roles
            .iter()
            .map(|r| r.stage_index)
            .max()
            .map_or(0, |m| m + 1);
        for s in 0..stages {
            let Some(entry) = self.entry_of_stage(s) else {
                continue;
            };
            let mut queue = VecDeque::from([entry]);
            order[entry] = next;
            next += 1;
            while let Some(i) = queue.pop_front() {
                for (j, _) in self.successors(i) {
                    if order[j] == usize::MAX && self.roles[j].stage_index == s {
                        order[j] = next;
                        next += 1;
                        queue.push_back(j);
                    }
                }
            }
            // The stage's own roles only: a scan of every role per stage
            // would be quadratic in a playbook of many small stages.
            for i in self.roles_of_stage(s) {
                if order[i] == usize::MAX {
                    order[i] = next;
                    next += 1;
                }
            }
        }
        order
    }

    /// The smallest `max_iterations` of the loop through each role, and
    /// whether the role or its loop lists each escalation trigger.
    fn loop_facts(&self, trigger: &str) -> (Vec<Option<u32>>, Vec<bool>) {
        let mut bounds = vec![None; self.roles.len()];
        let mut escalates: Vec<bool> = self
            .roles
            .iter()
            .map(|r| r.role.escalate_on().iter().any(|t| t == trigger))
            .collect();
        for members in self.loops() {
            let bound = members
                .iter()
                .filter_map(|&i| self.roles[i].role.max_iterations())
                .min();
            let any = members.iter().any(|&i| escalates[i]);
            for &i in &members {
                bounds[i] = bound;
                escalates[i] |= any;
            }
        }
        (bounds, escalates)
    }

    /// Every role's routes, by role index.
    pub fn routes(&self) -> Vec<Route> {
        let order = self.stage_order();
        let (bounds, retry_escalates) = self.loop_facts("retry_limit");
        let (_, gate_escalates) = self.loop_facts("gate_failed");
        // The next enabled stage after each stage, found once from the end
        // rather than searched per role (many disabled stages would make
        // that quadratic).
        let mut after = vec![None; self.enabled.len()];
        for s in (0..self.enabled.len().saturating_sub(1)).rev() {
            after[s] = if self.is_stage_enabled(s + 1) {
                Some(s + 1)
            } else {
                after[s + 1]
            };
        }
        (0..self.roles.len())
            .map(|i| {
                let r = &self.roles[i];
                let same_stage = |j: &usize| *j != i && self.roles[*j].stage_index == r.stage_index;
                let targets: Vec<usize> = r
                    .role
                    .handoff_to()
                    .iter()
                    .filter_map(|t| self.index_of(t))
                    .filter(same_stage)
                    .collect();
                let forward = match &r.role.handoff_to {
                    None => Some(i + 1).filter(|&j| {
                        j < self.roles.len() && self.roles[j].stage_index == r.stage_index
                    }),
                    Some(_) => targets.iter().copied().find(|&j| order[j] > order[i]),
                };
                let on_pass = match forward {
                    Some(to) => OnPass::HandOff { to },
                    None => OnPass::LeaveStage {
                        next_stage: after[r.stage_index],
                    },
                };
                let on_fail = match targets.iter().copied().find(|&j| order[j] < order[i]) {
                    Some(to) => OnFail::SendBack {
                        to,
                        bound: bounds[i],
                        escalates: retry_escalates[i],
                    },
                    None => OnFail::End {
                        escalates: gate_escalates[i],
                    },
                };
                Route { on_pass, on_fail }
            })
            .collect()
    }

    /// The routes of role `i` in words, for the editor: "on pass: leaves
    /// stage build, into stage test at tester", "on fail: back to worker,
    /// at most 3 rounds, then escalated to a person".
    pub fn route_words(
        &self,
        routes: &[Route],
        stage_names: &[&str],
        i: usize,
    ) -> (String, String) {
        let Some(route) = routes.get(i) else {
            return (String::new(), String::new());
        };
        let name = |j: usize| self.roles.get(j).map_or("?", |r| r.role.name.as_str());
        let stage = |s: usize| stage_names.get(s).copied().unwrap_or("?");
        let on_pass = match route.on_pass {
            OnPass::HandOff { to } => format!("hands the task to {}", name(to)),
            OnPass::LeaveStage { next_stage } => {
                let here = stage(self.roles[i].stage_index);
                match next_stage {
                    Some(s) => match self.entry_of_stage(s) {
                        Some(entry) => format!(
                            "leaves stage {here}; the task enters stage {} at {}",
                            stage(s),
                            name(entry)
                        ),
                        None => format!(
                            "leaves stage {here}; the task goes to stage {} (which has no roles)",
                            stage(s)
                        ),
                    },
                    None => {
                        format!("leaves stage {here}, the last enabled stage: the task is done")
                    }
                }
            }
        };
        let on_fail = match route.on_fail {
            OnFail::SendBack {
                to,
                bound,
                escalates,
            } => {
                let then = if escalates {
                    "escalated to a person"
                } else {
                    "the task fails"
                };
                match bound {
                    Some(n) => format!(
                        "sends the task back to {}, at most {n} round{}, then {then}",
                        name(to),
                        if n == 1 { "" } else { "s" }
                    ),
                    None => format!(
                        "sends the task back to {} with no round limit (set max_iterations)",
                        name(to)
                    ),
                }
            }
            OnFail::End { escalates: true } => {
                "no earlier role to send it back to: escalated to a person".to_string()
            }
            OnFail::End { escalates: false } => {
                "no earlier role to send it back to: the task fails".to_string()
            }
        };
        (on_pass, on_fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Format, parse_value};
    use crate::model::Playbook;

    fn playbook(yaml: &str) -> Playbook {
        let value = parse_value(yaml, Format::Yaml).expect("parses");
        serde_json::from_value(value).expect("a playbook")
    }

    const TEAM: &str = "
schema_version: 1.0.0
id: t
name: t
workflow:
  make:
    roles:
      - { name: author, handoff_to: [coder] }
      - { name: coder, handoff_to: [critic] }
      - name: critic
        handoff_to: [coder]
        retry_policy: { max_iterations: 3, escalate_on: [retry_limit] }
  off:
    enabled: false
    roles: [{ name: ghost }]
  check:
    roles: [{ name: prober }, { name: closer, handoff_to: [] }]
";

    #[test]
    fn a_passing_reviewer_leaves_the_stage_and_a_failing_one_sends_back() {
        let p = playbook(TEAM);
        let flow = Flow::new(&p);
        let routes = flow.routes();
        let names: Vec<&str> = p.workflow.keys().map(String::as_str).collect();
        let critic = flow.index_of("critic").unwrap();
        let coder = flow.index_of("coder").unwrap();
        assert_eq!(
            routes[critic].on_pass,
            OnPass::LeaveStage {
                next_stage: Some(2)
            }
        );
        assert_eq!(
            routes[critic].on_fail,
            OnFail::SendBack {
                to: coder,
                bound: Some(3),
                escalates: true
            }
        );
        let (pass, fail) = flow.route_words(&routes, &names, critic);
        assert_eq!(
            pass,
            "leaves stage make; the task enters stage check at prober"
        );
        assert_eq!(
            fail,
            "sends the task back to coder, at most 3 rounds, then escalated to a person"
        );
        assert_eq!(routes[coder].on_pass, OnPass::HandOff { to: critic });
        let (_, fail) = flow.route_words(&routes, &names, coder);
        assert_eq!(fail, "no earlier role to send it back to: the task fails");
    }

    #[test]
    fn roles_without_handoffs_go_in_order_and_the_last_stage_ends_the_run() {
        let p = playbook(TEAM);
        let flow = Flow::new(&p);
        let routes = flow.routes();
        let names: Vec<&str> = p.workflow.keys().map(String::as_str).collect();
        let prober = flow.index_of("prober").unwrap();
        let closer = flow.index_of("closer").unwrap();
        assert_eq!(routes[prober].on_pass, OnPass::HandOff { to: closer });
        let (pass, _) = flow.route_words(&routes, &names, closer);
        assert_eq!(
            pass,
            "leaves stage check, the last enabled stage: the task is done"
        );
    }

    #[test]
    fn dangling_and_self_handoffs_never_panic() {
        let p = playbook(
            "schema_version: 1.0.0\nid: t\nname: t\nworkflow:\n  s:\n    roles: [{ name: a, handoff_to: [a, nobody, a] }, { name: '', handoff_to: [''] }]\n",
        );
        let flow = Flow::new(&p);
        let routes = flow.routes();
        assert_eq!(routes.len(), 2);
        for i in 0..2 {
            let _ = flow.route_words(&routes, &["s"], i);
        }
        let _ = flow.route_words(&routes, &[], 7);
    }
}
