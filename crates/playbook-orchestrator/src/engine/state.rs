//! The small state the phases share: tasks, what runs on a worktree, what a
//! step ended with, what admission and a step tell the stage loop.

pub(super) use super::park::{Body, Slot};
use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    Active,
    Done,
    Blocked,
    Failed,
    Canceled,
}

/// A task's fixed-size record, live for the whole run; what only a task in
/// a stage needs is its [`Body`], parked between stages (`park.rs`) and
/// reached through `Deref` while live.
pub(super) struct Task {
    pub(super) slot: Slot,
    /// Whether the task's id (fixed once made) holds nothing the redactor
    /// hides: scanned once per task, not once per stage.
    pub(super) id_clean: bool,
    pub(super) status: Status,
    pub(super) code: Option<ErrorCode>,
    /// The goal task whose planner output creates the tasks of later stages.
    pub(super) is_goal: bool,
    /// What the task is for; the gateway refuses tools its kind forbids.
    pub(super) kind: crate::toolset::TaskKind,
    /// Whether the run input gave a `lock_scope`; without one the task owns
    /// its whole worktree.
    pub(super) scoped: bool,
    /// What may hold it back beside other tasks, when the run input says
    /// anything: one box, so a task of the common kind (no dependency, no
    /// scope) pays a pointer for it.
    pub(super) ties: Option<Box<Ties>>,
}

/// A task's dependencies and scopes, read by admission without reading the
/// parked task.
#[derive(Default)]
pub(super) struct Ties {
    /// The tasks it depends on, by index, in the order the run input lists
    /// them.
    pub(super) deps: Box<[usize]>,
    /// Its lock and forbidden scopes when the run input gave either (else
    /// it locks its own worktree, `worktrees/<id>/`, and forbids nothing).
    pub(super) scopes: Option<Scopes>,
}

impl Task {
    pub(super) fn deps(&self) -> &[usize] {
        self.ties.as_deref().map_or(&[], |t| &t.deps)
    }

    pub(super) fn scopes(&self) -> Option<&Scopes> {
        self.ties.as_deref().and_then(|t| t.scopes.as_ref())
    }
}

/// A task's scopes as its packet carries them.
pub(super) struct Scopes {
    pub(super) lock: Vec<String>,
    pub(super) forbidden: Vec<String>,
}

/// What holds a waiting task back from a lock.
pub(super) enum LockWait {
    /// A running task whose scopes overlap: its index and id.
    Task(usize, String),
    /// A lock held outside the run, as the waits report it.
    External(String),
}

pub(super) struct Pending {
    pub(super) answer: Answer,
    pub(super) record: AgentRunRecord,
}

/// What an invocation produced, as the post-execution checks see it.
pub(super) struct Answer {
    pub(super) outcome: AgentOutcome,
    pub(super) duration_ms: u64,
    pub(super) blocked_tool: bool,
    pub(super) denied_approval: bool,
    /// A violation found before or while the agent ran (missing inputs,
    /// too many tool calls): the output is not looked at.
    pub(super) precheck: Option<(ErrorCode, String)>,
}

/// One worklog entry as a step or an end state writes it; the engine adds
/// time, run, task and actor.
pub(super) struct WorklogLine {
    pub(super) action: String,
    pub(super) files: Vec<String>,
    pub(super) decision: String,
    pub(super) result: String,
    pub(super) next_step: String,
    pub(super) code: Option<ErrorCode>,
}

/// A stage as admission sees it: its roles, what runs on its worktrees and
/// its counters (what waits is [`super::waiting::Waiting`]).
#[derive(Clone, Copy)]
pub(super) struct StageView<'a> {
    pub(super) index: usize,
    pub(super) name: &'a str,
    pub(super) roles: &'a [usize],
    pub(super) slots: &'a [Option<Running>],
    pub(super) counters: Counters,
}

/// Where a task's dependencies stand as it may start.
pub(super) enum Dependency {
    /// Every one passed the stage (or is not in it).
    Clear,
    /// This one ended blocked, failed or canceled: the task cannot start.
    Ended(usize),
    /// This one still waits or runs in the stage.
    Pending(usize),
}

/// Which step: the task, the role it is at and the role's round for it.
#[derive(Debug, Clone, Copy)]
pub(super) struct StepAt {
    pub(super) task: usize,
    pub(super) role: usize,
    pub(super) iteration: u32,
    /// The task's id, stage and role names were found clean as it entered
    /// the stage (`Running::ids_clean`).
    pub(super) ids_clean: bool,
}

pub(super) struct Running {
    pub(super) task: usize,
    pub(super) role: usize,
    /// Order in which each role of the stage first ran for the task (0 = never).
    pub(super) first_run: Vec<u32>,
    pub(super) runs: u32,
    pub(super) pending: Option<Pending>,
    /// The assignment packet last sent for the task in this stage, and
    /// what checking it found: the same packet is built and checked once
    /// and sent again while the values it is built from stay the same.
    pub(super) sent: Option<Sent>,
    /// The task's id, the stage's name and every role name of the flow
    /// hold nothing the redactor hides: an event made of these alone (and
    /// numbers, hashes and fixed words) is clean and is not scanned again.
    pub(super) ids_clean: bool,
}

/// An assignment packet as checked before it was first sent.
pub(super) struct Sent {
    pub(super) packet: AssignmentPacket,
    /// The warning the check raised, raised again each time it is sent.
    pub(super) warning: Option<(ErrorCode, String)>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Phase {
    Start,
    Complete,
}

/// The stage-local counters stage gates read.
#[derive(Default, Clone, Copy)]
pub(super) struct Counters {
    pub(super) total: u32,
    pub(super) done: u32,
    pub(super) failed: u32,
    pub(super) blocked: u32,
}

/// How a role's step ended, for routing.
pub(super) enum StepEnd<'g> {
    /// The output was accepted; `gate` is the role's gate that passed, if
    /// any, reported once the route is known.
    Passed { gate: Option<GateDecision<'g>> },
    /// Gate failed or contract violated: route back if possible. `gate` is
    /// set when the role's gate failed, reported once the route is known.
    Failed {
        code: ErrorCode,
        trigger: &'static str,
        reason: String,
        gate: Option<GateDecision<'g>>,
    },
    /// Ends the task now (escalation or a hard failure).
    Terminal {
        code: ErrorCode,
        trigger: &'static str,
        reason: String,
    },
}

/// A role gate's decision, held until the route after it is known so that
/// its event can say what happens next. The gate is the prepared one,
/// borrowed: a compiled gate is not copied per step.
pub(super) struct GateDecision<'g> {
    pub(super) gate: &'g Gate,
    pub(super) manual: bool,
    pub(super) reason: String,
}

pub(super) enum Admit {
    Start(usize),
    /// The task waits; under the task (or [`super::waiting::NEVER`]) whose
    /// finishing is the first thing that could change that, if any.
    Wait(Option<usize>),
    Ended,
}

pub(super) enum Next {
    At(u64, Phase),
    LeftStage,
    Ended,
}
