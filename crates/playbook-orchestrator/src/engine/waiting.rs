//! The tasks of a stage that wait to start, kept so that a scan for what
//! may start costs the tasks that could, not every task of the run.
//!
//! A stage's admission scan visits waiting tasks in order until its
//! worktrees are full. A task held back by a dependency stays held back
//! until that task leaves the stage or ends, whatever else happens; a long
//! chain of dependencies would otherwise have the scan visit (and decode,
//! and check) every task behind the head of the chain at every step of the
//! stage, which made a chain of 1 000 tasks take minutes. Such a task is
//! therefore *held* under the task it waits for and put back, in its place,
//! when that one leaves the stage or ends, or when its own wait runs out.
//! The scan then sees exactly the tasks, in exactly the order, it saw
//! before: the event log does not change.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, VecDeque};

/// What a task held until its wait runs out is held under: no task
/// finishes with this index.
pub(super) const NEVER: usize = usize::MAX;

/// The reason of a wait for a lock. A lock wait is said once, whoever holds
/// the lock: under contention each waiting task would otherwise be said to
/// wait again at every change of holder, an event log quadratic in the
/// tasks (2 000 tasks on one lock: two million events).
pub(crate) const LOCK: &str = "lock";

/// A waiting task and the instant it first had to wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) task: usize,
    pub(super) since: Option<u64>,
}

#[derive(Default)]
pub(super) struct Waiting {
    /// Tasks the scan visits, by task index (the order the stage took them
    /// in: its active tasks in index order).
    queue: VecDeque<Entry>,
    /// Tasks held back by a dependency, under the task they wait for, by
    /// index: task → when it started waiting.
    held: HashMap<usize, BTreeMap<usize, u64>>,
    /// Each held task's hold: its number and the task it waits for.
    holds: HashMap<usize, (u64, usize)>,
    next_hold: u64,
    /// When each held task's wait runs out: (instant, task, hold number);
    /// the deadline of a hold that has ended is stale and skipped.
    deadlines: BinaryHeap<Reverse<(u64, usize, u64)>>,
    /// Per task of the run: waiting or running in this stage.
    pending: Vec<bool>,
    /// The waits already reported, per task: (reason, what it waits on).
    reported: HashMap<usize, Vec<(&'static str, String)>>,
}

impl Waiting {
    /// `active`, in index order, wait to start; `tasks` is the run's count.
    pub(super) fn new(active: &[usize], tasks: usize) -> Self {
        let mut pending = vec![false; tasks];
        for &t in active {
            if let Some(p) = pending.get_mut(t) {
                *p = true;
            }
        }
        Waiting {
            queue: active
                .iter()
                .map(|&task| Entry { task, since: None })
                .collect(),
            pending,
            ..Default::default()
        }
    }

    /// Tasks the scan visits now.
    pub(super) fn visible(&self) -> usize {
        self.queue.len()
    }

    pub(super) fn get(&self, i: usize) -> Entry {
        self.queue[i]
    }

    pub(super) fn set_since(&mut self, i: usize, since: u64) {
        self.queue[i].since = Some(since);
    }

    /// Takes the `i`-th visible task out: it started or ended.
    pub(super) fn remove(&mut self, i: usize) {
        self.queue.remove(i);
    }

    /// No task waits, visible or held.
    pub(super) fn is_empty(&self) -> bool {
        self.queue.is_empty() && self.held.is_empty()
    }

    /// Whether `task` waits or runs in this stage.
    pub(super) fn is_pending(&self, task: usize) -> bool {
        self.pending.get(task).copied().unwrap_or(false)
    }

    /// `task` left the stage or ended: the tasks held back by it are put
    /// back in their places.
    pub(super) fn finished(&mut self, task: usize) {
        if let Some(p) = self.pending.get_mut(task) {
            *p = false;
        }
        let Some(entries) = self.held.remove(&task) else {
            return;
        };
        for t in entries.keys() {
            self.holds.remove(t);
        }
        // One merge of two ordered lists: a task many wait for puts them
        // all back in time linear in the queue, not one insert each.
        let back = entries.into_iter().map(|(task, since)| Entry {
            task,
            since: Some(since),
        });
        let old = std::mem::take(&mut self.queue);
        let mut old = old.into_iter().peekable();
        let mut back = back.peekable();
        while let (Some(a), Some(b)) = (old.peek(), back.peek()) {
            let next = if a.task < b.task {
                old.next()
            } else {
                back.next()
            };
            self.queue.extend(next);
        }
        self.queue.extend(old);
        self.queue.extend(back);
    }

    /// Holds the `i`-th visible task, waiting since `since`, under `on`,
    /// the task it waits for, until that one finishes or `wait_ms` runs out.
    /// `false` when it stays visible (only in the tests that compare a run
    /// with holding to the same run without).
    pub(super) fn hold(&mut self, i: usize, since: u64, on: usize, wait_ms: u64) -> bool {
        #[cfg(test)]
        if tests::NEVER_HOLD.get() {
            self.queue[i].since = Some(since);
            return false;
        }
        let Some(entry) = self.queue.remove(i) else {
            return false;
        };
        self.next_hold += 1;
        self.holds.insert(entry.task, (self.next_hold, on));
        self.deadlines.push(Reverse((
            since.saturating_add(wait_ms),
            entry.task,
            self.next_hold,
        )));
        self.held.entry(on).or_default().insert(entry.task, since);
        true
    }

    /// Puts back the held tasks whose wait has run out by `now` (more than
    /// `wait_ms` since they started waiting), so the scan sees them and
    /// ends them, as it would have had they stayed in the queue.
    pub(super) fn due(&mut self, now: u64) {
        while let Some(Reverse((deadline, task, hold))) = self.deadlines.peek().copied() {
            if deadline >= now {
                break;
            }
            self.deadlines.pop();
            let Some(&(current, on)) = self.holds.get(&task) else {
                continue; // put back earlier
            };
            if current != hold {
                continue;
            }
            self.holds.remove(&task);
            let Some(entries) = self.held.get_mut(&on) else {
                continue;
            };
            let since = entries.remove(&task);
            if entries.is_empty() {
                self.held.remove(&on);
            }
            if let Some(since) = since {
                let at = self.queue.partition_point(|e| e.task < task);
                self.queue.insert(
                    at,
                    Entry {
                        task,
                        since: Some(since),
                    },
                );
            }
        }
    }

    /// The earliest instant at which a waiting task gives up: `since +
    /// wait_ms + 1`, a task not yet waiting counting from `now`.
    pub(super) fn earliest_deadline(&self, now: u64, wait_ms: u64) -> Option<u64> {
        let visible = self.queue.iter().map(|e| {
            e.since
                .unwrap_or(now)
                .saturating_add(wait_ms)
                .saturating_add(1)
        });
        let held = self
            .deadlines
            .iter()
            .filter(|Reverse((_, task, hold))| self.holds.get(task).is_some_and(|(h, _)| h == hold))
            .map(|Reverse((deadline, _, _))| deadline.saturating_add(1));
        visible.chain(held).min()
    }

    /// Every waiting task, visible and held, in index order, taken out.
    pub(super) fn drain(&mut self) -> Vec<usize> {
        let mut all: Vec<usize> = self.queue.drain(..).map(|e| e.task).collect();
        all.extend(self.held.drain().flat_map(|(_, v)| v.into_keys()));
        self.holds.clear();
        self.deadlines.clear();
        all.sort_unstable();
        all
    }

    /// Whether the wait of `task` for `reason` on `on` is new (and now
    /// reported): a wait is said once.
    pub(super) fn first_report(&mut self, task: usize, reason: &'static str, on: &str) -> bool {
        let said = self.reported.entry(task).or_default();
        if said
            .iter()
            .any(|(r, o)| *r == reason && (reason == LOCK || o == on))
        {
            return false;
        }
        said.push((reason, on.to_string()));
        true
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use proptest::prelude::*;

    use super::*;
    use crate::event::JsonlSink;
    use crate::scenario::Scenario;
    use crate::{RunOptions, run_blocking};

    thread_local! {
        /// Keeps every waiting task visible, as the scan was before tasks
        /// were held: the reference the held runs are compared with.
        pub(super) static NEVER_HOLD: Cell<bool> = const { Cell::new(false) };
    }

    /// A stage of `cap` worktrees with a worker and a reviewer, and a
    /// second stage of one worktree: dependencies are waited for in each.
    fn playbook(cap: u32) -> String {
        format!(
            r#"schema_version: "1.0.0"
id: waits
name: Waits
workflow:
  build:
    stage_policy: {{ max_parallel_worktrees: {cap} }}
    roles:
      - name: worker
        mode: worker
        outputs_contract: {{ type: work_result, required: [commit_sha, summary] }}
        gates: {{ pass_condition: size(commit_sha) > 0 }}
        handoff_to: [reviewer]
      - name: reviewer
        mode: reviewer
        outputs_contract: {{ type: review_result, required: [verdict, issues] }}
        gates: {{ pass_condition: review_passed }}
        handoff_to: [worker]
        retry_policy: {{ max_iterations: 3, escalate_on: [retry_limit] }}
  test:
    roles:
      - name: tester
        mode: tester
        outputs_contract: {{ type: test_result, required: [failed_cases, report] }}
        gates: {{ pass_condition: tests_green }}
"#
        )
    }

    /// A run input of tasks whose dependencies (on earlier tasks only, so
    /// never a circle), lock scopes, durations and wait limit vary.
    fn scenario(deps: &[Vec<usize>], locks: &[u8], durations: &[u64], wait_ms: u64) -> String {
        let mut text = String::from("input:\n  goal: g\n  tasks:\n");
        for (i, d) in deps.iter().enumerate() {
            let on: Vec<String> = d.iter().map(|j| format!("T-{}", j + 1)).collect();
            let lock = match locks[i] % 4 {
                0 => String::new(),
                l => format!(", lock_scope: [src/m{l}/]"),
            };
            text.push_str(&format!(
                "    - {{id: T-{}, title: t{i}, dependencies: [{}]{lock}}}\n",
                i + 1,
                on.join(", ")
            ));
        }
        text.push_str(&format!(
            "limits:\n  lock_wait_ms: {wait_ms}\nroles:\n  reviewer:\n    tasks:\n"
        ));
        for (i, ms) in durations.iter().enumerate() {
            // Some reviews fail once: a task's time in the stage varies.
            let first = if ms % 3 == 0 {
                format!("{{output: {{verdict: fail, issues: [again]}}, duration_ms: {ms}}}")
            } else {
                String::new()
            };
            text.push_str(&format!(
                "      T-{}: {{default: {{duration_ms: {ms}}}, iterations: [{first}]}}\n",
                i + 1
            ));
        }
        text
    }

    fn jsonl(playbook: &str, scenario: &str, never_hold: bool) -> String {
        let playbook = crate::load_playbook(playbook).expect("valid playbook");
        let scenario = Scenario::parse(scenario).expect("valid scenario");
        NEVER_HOLD.set(never_hold);
        let mut sink = JsonlSink::new(Vec::new());
        run_blocking(
            &playbook,
            &scenario,
            &RunOptions::default(),
            crate::agent::AutoApprove,
            &mut sink,
        );
        NEVER_HOLD.set(false);
        String::from_utf8(sink.into_inner()).expect("JSONL is text")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Holding a task back under its dependency changes nothing a run
        /// says: the same events, in the same order, at the same instants,
        /// waits and their timeouts included.
        #[test]
        fn holding_waiting_tasks_leaves_the_event_log_as_it_was(
            cap in 1u32..5,
            tasks in prop::collection::vec(
                (prop::collection::vec(0usize..1000, 0..3), 0u8..8, 1u64..4000),
                1..24,
            ),
            wait_ms in prop::sample::select(vec![500u64, 3_000, 20_000, 10_000_000]),
        ) {
            let deps: Vec<Vec<usize>> = tasks
                .iter()
                .enumerate()
                .map(|(i, (d, _, _))| {
                    let mut on: Vec<usize> = if i == 0 {
                        Vec::new()
                    } else {
                        d.iter().map(|j| j % i).collect()
                    };
                    on.dedup();
                    on
                })
                .collect();
            let locks: Vec<u8> = tasks.iter().map(|t| t.1).collect();
            let durations: Vec<u64> = tasks.iter().map(|t| t.2).collect();
            let playbook = playbook(cap);
            let scenario = scenario(&deps, &locks, &durations, wait_ms);
            let held = jsonl(&playbook, &scenario, false);
            let visible = jsonl(&playbook, &scenario, true);
            prop_assert!(held.contains("run_finished"), "{held}");
            prop_assert_eq!(held, visible);
        }
    }

    #[test]
    fn a_held_task_comes_back_in_its_place_when_its_dependency_finishes() {
        let mut w = Waiting::new(&[0, 1, 2, 3], 4);
        w.set_since(1, 10);
        w.hold(1, 10, 0, 100); // task 1 waits for task 0
        assert_eq!(w.visible(), 3);
        assert!(!w.is_empty());
        w.finished(0);
        let order: Vec<usize> = (0..w.visible()).map(|i| w.get(i).task).collect();
        assert_eq!(order, [0, 1, 2, 3]);
        assert_eq!(w.get(1).since, Some(10));
        assert!(!w.is_pending(0));
        assert!(w.is_pending(1));
    }

    #[test]
    fn a_held_task_whose_wait_ran_out_is_put_back_for_the_scan() {
        let mut w = Waiting::new(&[0, 1], 2);
        w.set_since(1, 10);
        w.hold(1, 10, 0, 100);
        // Task 0, not yet waiting, would give up at 50 + 100 + 1; task 1 at
        // 10 + 100 + 1.
        assert_eq!(w.earliest_deadline(50, 100), Some(111));
        w.due(110); // 110 - 10 is not more than 100
        assert_eq!(w.visible(), 1);
        w.due(111);
        assert_eq!(w.visible(), 2);
        // Put back once: its dependency finishing later changes nothing.
        w.finished(0);
        assert_eq!(w.visible(), 2);
    }

    #[test]
    fn a_wait_is_reported_once_per_blocker_and_a_lock_wait_once() {
        let mut w = Waiting::new(&[0], 1);
        assert!(w.first_report(0, "dependency", "T-2"));
        assert!(!w.first_report(0, "dependency", "T-2"));
        assert!(w.first_report(0, "dependency", "T-3"));
        // A lock wait is said once, whoever holds the lock.
        assert!(w.first_report(0, LOCK, "T-2"));
        assert!(!w.first_report(0, LOCK, "T-3"));
    }
}
