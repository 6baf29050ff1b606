//! Tasks that wait to start: the cost of a stage's admission scan follows
//! the tasks that could start, not every task of the run. A chain of
//! dependencies used to have every waiting task read back from its parked
//! state (and its dependencies looked up across the whole run) at every
//! step of the stage: cubic, minutes for 1 000 tasks.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use playbook_orchestrator::event::{CountingSink, Outcome};
use playbook_orchestrator::scenario::Limits;
use playbook_orchestrator::spill::{Spill, SpillPort};
use playbook_orchestrator::{RunOptions, reference, run_blocking};

/// A spill store in memory that counts the blocks read back: one per time
/// a parked task is read.
struct Counted(Arc<AtomicUsize>, Vec<u8>);

impl Spill for Counted {
    fn write(&mut self, block: &[u8]) -> std::io::Result<u64> {
        let at = self.1.len() as u64;
        self.1.extend_from_slice(block);
        Ok(at)
    }
    fn read(&mut self, at: u64, into: &mut [u8]) -> std::io::Result<()> {
        self.0.fetch_add(1, Ordering::Relaxed);
        let at = at as usize;
        into.copy_from_slice(&self.1[at..at + into.len()]);
        Ok(())
    }
}

/// How the tasks of [`reads_and_events`] wait for one another.
#[derive(Clone, Copy)]
enum Shape {
    /// Each depends on the one before.
    Chain,
    /// All lock the same file.
    OneLock,
}

/// Blocks read and events said in a run of the reference flow (its build
/// stage has four worktrees) whose `tasks` wait for one another as `shape`
/// says.
fn reads_and_events(tasks: usize, shape: Shape) -> (usize, u64) {
    let playbook = playbook_orchestrator::load_playbook(reference::PLAYBOOK).unwrap();
    let mut scenario = reference::scenario(tasks);
    for i in 1..tasks {
        match shape {
            Shape::Chain => scenario.input.tasks[i].dependencies = vec![format!("T-{i}")],
            Shape::OneLock => scenario.input.tasks[i].lock_scope = vec!["src/api.py".into()],
        }
    }
    if let Shape::OneLock = shape {
        scenario.input.tasks[0].lock_scope = vec!["src/api.py".into()];
    }
    // No task gives up waiting: the chain runs to its end.
    scenario.limits = Some(Limits {
        lock_wait_ms: Some(1_000_000_000),
        ..Default::default()
    });
    let reads = Arc::new(AtomicUsize::new(0));
    let counter = reads.clone();
    let options = RunOptions {
        keep_records: false,
        build_report: false,
        // Every task is parked between its turns and every block spilled,
        // so each read of a parked task reaches the store.
        park_above_tasks: Some(0),
        park_memory_bytes: 0,
        spill: Some(SpillPort::new(move || {
            Ok(Box::new(Counted(counter.clone(), Vec::new())) as Box<dyn Spill>)
        })),
        ..Default::default()
    };
    let mut sink = CountingSink::default();
    let report = run_blocking(
        &playbook,
        &scenario,
        &options,
        playbook_orchestrator::agent::AutoApprove,
        &mut sink,
    );
    assert_eq!(report.outcome, Some(Outcome::Passed));
    assert_eq!(report.steps, reference::expected_steps(tasks));
    (reads.load(Ordering::Relaxed), sink.events)
}

#[test]
fn a_chain_of_dependencies_reads_each_task_a_bounded_number_of_times() {
    // Three stages: a task is read a few times in each (admission, its
    // exit gate, the run's end), whatever the length of the chain.
    for tasks in [50, 400] {
        let (reads, _) = reads_and_events(tasks, Shape::Chain);
        assert!(
            reads <= 8 * tasks,
            "{reads} blocks read for a chain of {tasks} tasks: the admission scan reads tasks that cannot start"
        );
    }
}

/// Tasks that all lock one file wait in turn: each is read back and said
/// to wait a bounded number of times, not once per task that held the
/// lock before it (which made 2 000 such tasks two million events).
#[test]
fn tasks_waiting_for_one_lock_cost_a_bounded_amount_each() {
    for tasks in [50, 400] {
        let (reads, events) = reads_and_events(tasks, Shape::OneLock);
        assert!(
            reads <= 8 * tasks,
            "{reads} blocks read for {tasks} tasks on one lock"
        );
        let steps = reference::expected_steps(tasks);
        assert!(
            events <= 8 * steps,
            "{events} events for {steps} steps of {tasks} tasks on one lock"
        );
    }
}

/// A task whose dependency ended without passing ends at once, as
/// admission decides it, even while a lock would also hold it back: the
/// lock is not waited out first.
#[test]
fn a_failed_dependency_ends_a_task_that_a_lock_also_holds_back() {
    use playbook_orchestrator::event::{EventRecord, VecSink};
    use playbook_orchestrator::scenario::Scenario;
    let playbook = playbook_orchestrator::load_playbook(reference::PLAYBOOK).unwrap();
    // T-1 fails review three times and escalates; T-2 depends on it and
    // locks what T-3, slow, locks too.
    let scenario = Scenario::parse(
        r#"
input:
  goal: g
  tasks:
    - {id: T-1, title: a}
    - {id: T-2, title: b, dependencies: [T-1], lock_scope: [src/a/]}
    - {id: T-3, title: c, lock_scope: [src/a/]}
roles:
  reviewer:
    tasks:
      T-1:
        iterations:
          - {output: {verdict: fail, issues: [x]}}
          - {output: {verdict: fail, issues: [x]}}
          - {output: {verdict: fail, issues: [x]}}
  worker:
    tasks:
      T-3: {default: {duration_ms: 1000000}}
"#,
    )
    .expect("valid scenario");
    let mut sink = VecSink::default();
    run_blocking(
        &playbook,
        &scenario,
        &RunOptions::default(),
        playbook_orchestrator::agent::AutoApprove,
        &mut sink,
    );
    let at = |wanted: &dyn Fn(&EventRecord) -> bool| {
        sink.0
            .iter()
            .find(|e| wanted(e))
            .map(|e| e.t_ms)
            .unwrap_or_else(|| panic!("event missing: {:#?}", sink.0))
    };
    use playbook_orchestrator::event::Event;
    let t2_blocked = at(&|e| {
        matches!(&e.event, Event::TaskBlocked { task_id, code, .. }
            if task_id == "T-2" && code.as_str() == "DEPENDENCY_BLOCKED")
    });
    let t1_escalated =
        at(&|e| matches!(&e.event, Event::Escalated { task_id, .. } if task_id == "T-1"));
    let t3_left = at(
        &|e| matches!(&e.event, Event::StageLeft { task_id, stage, .. } if task_id == "T-3" && stage == "build"),
    );
    assert_eq!(t2_blocked, t1_escalated, "T-2 ends when T-1 does");
    assert!(t2_blocked < t3_left, "not after T-3's lock is released");
}
