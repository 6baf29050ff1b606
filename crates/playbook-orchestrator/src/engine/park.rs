//! Parking: a task between stages is a byte block, not live state.
//!
//! Stages are barriers, so every task's state must reach the next stage;
//! kept live (its packet, the value map of every output so far, its ledger
//! row) that is kilobytes per task at a stage's start. A task that leaves
//! a stage, ends or waits is *parked*: its [`Body`] and ledger row are
//! written into one compact block (`codec`), and only its fixed-size
//! [`Task`] record stays live. Admission *unparks* it. Blocks stay in
//! memory up to `RunOptions::park_memory_bytes`; above that they go to
//! the run's spill store (a port, `crate::spill`), so a simulation's peak
//! heap does not grow with its tasks beyond their records.

use super::*;
use crate::codec::{Damaged, Reader, Writer};
use crate::ledger::Row;
use crate::spill::Spill;

/// Why a block kept in memory could not be read back.
const DAMAGED: &str = "a parked task's block is damaged";

/// A task's state that only a task in a stage needs; parked between stages.
pub(super) struct Body {
    pub(super) packet: PacketTask,
    pub(super) values: Map<String, Value>,
    pub(super) explicit_role: Option<String>,
    pub(super) reason: Option<String>,
    /// Invocations per flow role.
    pub(super) iterations: Vec<u32>,
    pub(super) last_verdict: Option<String>,
}

/// Where a task's [`Body`] is.
pub(super) enum Slot {
    Live(Box<Body>),
    /// Parked in memory.
    Memory(Box<[u8]>),
    /// Parked in the spill store.
    Spilled {
        at: u64,
        len: u32,
    },
    /// Dropped: its store failed, or the run no longer needs it.
    Gone,
}

impl Task {
    pub(super) fn is_live(&self) -> bool {
        matches!(self.slot, Slot::Live(_))
    }

    pub(super) fn body(&self) -> Option<&Body> {
        match &self.slot {
            Slot::Live(body) => Some(body),
            _ => None,
        }
    }
}

/// The engine reads a task's body only between unparking and parking it
/// (admission, its steps, its exit gate, the run's end); reading a parked
/// one is a bug of the engine, not a condition of the input.
impl std::ops::Deref for Task {
    type Target = Body;
    fn deref(&self) -> &Body {
        match &self.slot {
            Slot::Live(body) => body,
            _ => unreachable!("a parked task's state is read; unpark it first"),
        }
    }
}

impl std::ops::DerefMut for Task {
    fn deref_mut(&mut self) -> &mut Body {
        match &mut self.slot {
            Slot::Live(body) => body,
            _ => unreachable!("a parked task's state is changed; unpark it first"),
        }
    }
}

/// A run's parked blocks: the bytes in memory, the spill store once opened.
#[derive(Default)]
pub(super) struct Parking {
    memory: usize,
    spill: Option<Box<dyn Spill>>,
    /// The buffer each block is written into and read back through.
    buf: Vec<u8>,
    /// Why the spill store failed, once it has.
    pub(super) failed: Option<String>,
}

impl<A, P, R, T, C, S> Engine<'_, '_, A, P, R, T, C, S>
where
    A: Agent,
    P: Approver,
    R: RoleAssigner,
    T: Tools,
    C: Clock,
    S: EventSink,
{
    /// Parks a live task with its ledger row. When the spill store fails
    /// the task stays live (nothing is lost) and the run stops.
    pub(super) fn park(&mut self, task: usize) {
        if !self.tasks[task].is_live() || self.tasks.len() <= self.park_above_tasks() {
            return;
        }
        // A delta still pending for the task (it just ended) needs its
        // row: applied now rather than at the next assignment. Only when
        // the sink receives the record changes, not what it receives.
        self.flush_deltas();
        let Slot::Live(body) = std::mem::replace(&mut self.tasks[task].slot, Slot::Gone) else {
            return;
        };
        let row = self.ledger.take_row(&body.packet.task_id);
        let mut buf = std::mem::take(&mut self.parking.buf);
        buf.clear();
        encode(&body, row.as_ref(), &mut buf);
        let parked = self.place(&buf);
        self.parking.buf = buf;
        match parked {
            Ok(slot) => self.tasks[task].slot = slot,
            Err(message) => {
                if let Some(row) = row {
                    self.ledger.put_row(body.packet.task_id.clone(), row);
                }
                self.tasks[task].slot = Slot::Live(body);
                self.spill_failed(message);
            }
        }
    }

    /// The most tasks a run keeps live between stages
    /// (`RunOptions::park_above_tasks`).
    fn park_above_tasks(&self) -> usize {
        match self.options.park_above_tasks {
            Some(n) => n,
            None if self.options.build_report => usize::MAX,
            None => DEFAULT_PARK_ABOVE_TASKS,
        }
    }

    /// A block kept in memory up to `park_memory_bytes`, in the spill
    /// store beyond.
    fn place(&mut self, block: &[u8]) -> Result<Slot, String> {
        if self.options.spill.is_none()
            || self.parking.memory + block.len() <= self.options.park_memory_bytes
        {
            self.parking.memory += block.len();
            Ok(Slot::Memory(block.into()))
        } else {
            self.spill_write(block)
        }
    }

    fn spill_write(&mut self, block: &[u8]) -> Result<Slot, String> {
        let len =
            u32::try_from(block.len()).map_err(|_| "a task's state is over 4 GiB".to_string())?;
        if self.parking.spill.is_none() {
            let port = self.options.spill.as_ref().ok_or("no spill store")?;
            let store = port
                .open()
                .map_err(|e| format!("cannot open the spill store: {e}"))?;
            self.parking.spill = Some(store);
        }
        let store = self.parking.spill.as_mut().ok_or("no spill store")?;
        let at = store
            .write(block)
            .map_err(|e| format!("cannot write to the spill store: {e}"))?;
        Ok(Slot::Spilled { at, len })
    }

    /// Makes a task's body live again and puts its ledger row back.
    /// `false` when its block could not be read back: the task's state is
    /// lost, the run stops and fails, the task can only be canceled.
    pub(super) fn unpark(&mut self, task: usize) -> bool {
        let slot = std::mem::replace(&mut self.tasks[task].slot, Slot::Gone);
        let decoded = match slot {
            Slot::Live(body) => {
                self.tasks[task].slot = Slot::Live(body);
                return true;
            }
            Slot::Gone => return false,
            Slot::Memory(block) => {
                self.parking.memory -= block.len();
                decode(&block).map_err(|Damaged| DAMAGED.to_string())
            }
            Slot::Spilled { at, len } => self.spill_read(at, len),
        };
        match decoded {
            Ok((body, row)) => {
                if let Some(row) = row {
                    self.ledger.put_row(body.packet.task_id.clone(), row);
                }
                self.tasks[task].slot = Slot::Live(Box::new(body));
                true
            }
            Err(message) => {
                self.spill_failed(message);
                false
            }
        }
    }

    fn spill_read(&mut self, at: u64, len: u32) -> Result<(Body, Option<Row>), String> {
        self.spill_read_with(at, len, decode)
    }

    /// Reads a spilled block and gives it to `read`.
    fn spill_read_with<Out>(
        &mut self,
        at: u64,
        len: u32,
        read: impl FnOnce(&[u8]) -> Result<Out, Damaged>,
    ) -> Result<Out, String> {
        let store = self.parking.spill.as_mut().ok_or("no spill store")?;
        let mut buf = std::mem::take(&mut self.parking.buf);
        buf.clear();
        buf.resize(len as usize, 0);
        let result = store
            .read(at, &mut buf)
            .map_err(|e| format!("cannot read from the spill store: {e}"))
            .and_then(|()| {
                read(&buf)
                    .map_err(|Damaged| "the spill store gave back a damaged block".to_string())
            });
        self.parking.buf = buf;
        result
    }

    /// The first failure of the store stops the run; it is said once.
    fn spill_failed(&mut self, message: String) {
        self.stopped = true;
        if self.parking.failed.is_some() {
            return;
        }
        self.parking.failed = Some(message.clone());
        // A stop, not a contract's code: nothing the playbook or its input
        // did; the message names the store. The outcome is `failed`.
        self.emit(Event::Warning {
            code: ErrorCode::RunStopped,
            message: format!(
                "parked task state is lost: {message}; the run fails and its remaining tasks are canceled"
            ),
        });
    }

    /// The values of a parked task named by `wanted`, read without making
    /// the task live: its block is read in part and stays where it is (a
    /// stage's exit gate reads only the values it names). `None` for a live
    /// task (its values are read where they are) and when the block cannot
    /// be read; the caller then unparks the task, which reports the failure.
    pub(super) fn peek_values(
        &mut self,
        task: usize,
        wanted: impl Fn(&str) -> bool,
    ) -> Option<Map<String, Value>> {
        match &self.tasks[task].slot {
            Slot::Live(_) | Slot::Gone => None,
            Slot::Memory(block) => values_only(block, wanted).ok(),
            Slot::Spilled { at, len } => {
                let (at, len) = (*at, *len);
                self.spill_read_with(at, len, |block| values_only(block, wanted))
                    .ok()
            }
        }
    }

    /// A task's id without its body: a run input's task keeps the id it
    /// was given or `T-<n>` by its place, the goal task is `T-1` and a
    /// planned task `T-<n>` by its place (`build_tasks`, `fan_out`), so the
    /// ids need not be kept live per task.
    pub(super) fn task_id_of(&self, task: usize) -> String {
        if let Some(Slot::Live(body)) = self.tasks.get(task).map(|t| &t.slot) {
            return body.packet.task_id.clone();
        }
        match self
            .scenario
            .input
            .tasks
            .get(task)
            .and_then(|t| t.id.as_ref())
        {
            Some(id) => id.clone(),
            None => format!("T-{}", task + 1),
        }
    }

    /// Parks a task's new ledger row with it. A task parked before it had
    /// a row (as the run input's tasks are, made one at a time) gets the
    /// row added to its block, without the block being read; a live task
    /// is parked as [`Self::park`] does. `false` when the block cannot be
    /// read or written: the run stops, as for [`Self::unpark`].
    pub(super) fn park_row(&mut self, task: usize) -> bool {
        match &self.tasks[task].slot {
            Slot::Live(_) => {
                self.park(task);
                return self.parking.failed.is_none();
            }
            Slot::Gone => return false,
            Slot::Memory(_) | Slot::Spilled { .. } => {}
        }
        let task_id = self.task_id_of(task);
        let Some(row) = self.ledger.take_row(&task_id) else {
            return true;
        };
        let block = match std::mem::replace(&mut self.tasks[task].slot, Slot::Gone) {
            Slot::Memory(block) => {
                self.parking.memory -= block.len();
                Ok(block)
            }
            Slot::Spilled { at, len } => self.spill_read_with(at, len, |block| Ok(block.into())),
            Slot::Live(_) | Slot::Gone => unreachable!("matched above"),
        };
        // The longer block goes where `park`'s rule puts it.
        let mut out = Vec::new();
        let written = block.and_then(|block| match with_row(&block, &row, &mut out) {
            Some(()) => self.place(&out),
            None => Err(DAMAGED.to_string()),
        });
        match written {
            Ok(slot) => {
                self.tasks[task].slot = slot;
                true
            }
            Err(message) => {
                self.ledger.put_row(task_id, row);
                self.spill_failed(message);
                false
            }
        }
    }

    /// Puts a parked task's ledger row back without making the task live:
    /// the end of a simulation's task changes only its row (see
    /// [`Self::forget`]). `false` when its block cannot be read, as
    /// [`Self::unpark`].
    pub(super) fn unpark_row(&mut self, task: usize) -> bool {
        let row = match &self.tasks[task].slot {
            Slot::Live(_) => return true,
            Slot::Gone => return false,
            Slot::Memory(block) => row_only(block).map_err(|Damaged| DAMAGED.to_string()),
            Slot::Spilled { at, len } => {
                let (at, len) = (*at, *len);
                self.spill_read_with(at, len, row_only)
            }
        };
        match row {
            Ok(row) => {
                if let Some(row) = row {
                    self.ledger.put_row(self.task_id_of(task), row);
                }
                true
            }
            Err(message) => {
                self.tasks[task].slot = Slot::Gone;
                self.spill_failed(message);
                false
            }
        }
    }

    /// A task the run no longer reads (a simulation's task after its last
    /// ledger delta): its state and its row are dropped, not parked.
    pub(super) fn forget(&mut self, task: usize) {
        let task_id = self.task_id_of(task);
        match std::mem::replace(&mut self.tasks[task].slot, Slot::Gone) {
            Slot::Memory(block) => self.parking.memory -= block.len(),
            Slot::Live(_) | Slot::Spilled { .. } | Slot::Gone => {}
        }
        self.ledger.take_row(&task_id);
    }
}

fn status_byte(status: LedgerStatus) -> u8 {
    match status {
        LedgerStatus::Todo => 0,
        LedgerStatus::InProgress => 1,
        LedgerStatus::Blocked => 2,
        LedgerStatus::Done => 3,
        LedgerStatus::Failed => 4,
        LedgerStatus::Canceled => 5,
    }
}

fn status_of(b: u8) -> Result<LedgerStatus, Damaged> {
    Ok(match b {
        0 => LedgerStatus::Todo,
        1 => LedgerStatus::InProgress,
        2 => LedgerStatus::Blocked,
        3 => LedgerStatus::Done,
        4 => LedgerStatus::Failed,
        5 => LedgerStatus::Canceled,
        _ => return Err(Damaged),
    })
}

/// Field by field, in one fixed order: the block is read back by the same
/// build, within the run that wrote it, so it needs no version or names.
fn encode(body: &Body, row: Option<&Row>, out: &mut Vec<u8>) {
    let mut w = Writer(out);
    let p = &body.packet;
    w.str(&p.task_id);
    w.str(&p.title);
    w.byte(match p.kind {
        TaskType::Parallelizable => 0,
        TaskType::Serial => 1,
    });
    w.strs(p.dependencies.iter().map(|d| &d.0));
    w.strs(p.lock_scope.iter());
    w.strs(p.forbidden_scope.iter());
    w.strs(p.acceptance_criteria.iter());
    w.str(&p.worklog_path);
    w.uint(p.timeout_seconds);
    w.uint(p.heartbeat_interval_seconds);
    w.byte(match p.priority {
        Priority::Low => 0,
        Priority::Normal => 1,
        Priority::High => 2,
        Priority::Critical => 3,
    });
    w.map(p.extra.iter());
    w.map(body.values.iter());
    w.opt_str(body.explicit_role.as_deref());
    w.opt_str(body.reason.as_deref());
    w.opt_str(body.last_verdict.as_deref());
    w.uint(body.iterations.len() as u64);
    for &n in &body.iterations {
        w.uint(u64::from(n));
    }
    write_row(&mut w, row);
}

/// A block's last field: its task's ledger row, if it has one.
fn write_row(w: &mut Writer<'_>, row: Option<&Row>) {
    match row {
        None => w.byte(0),
        Some(row) => {
            w.byte(1);
            w.byte(status_byte(row.status));
            w.str(&row.owner);
            w.str(&row.reason);
            w.uint(row.version);
            w.opt_str(row.last_heartbeat_at.as_deref());
            w.byte(match row.timed_out {
                None => 0,
                Some(false) => 1,
                Some(true) => 2,
            });
        }
    }
}

/// A block without a row given `row` in place of its last byte, the
/// "no row" mark [`write_row`] wrote; `None` for a block that ends
/// otherwise.
fn with_row(block: &[u8], row: &Row, out: &mut Vec<u8>) -> Option<()> {
    let (&last, body) = block.split_last()?;
    if last != 0 {
        return None;
    }
    out.clear();
    out.extend_from_slice(body);
    write_row(&mut Writer(out), Some(row));
    Some(())
}

/// The entries of a block's value map that `wanted` accepts: the packet
/// before it is stepped over in [`encode`]'s order, nothing after it is read.
fn values_only(block: &[u8], wanted: impl Fn(&str) -> bool) -> Result<Map<String, Value>, Damaged> {
    let mut r = Reader::new(block);
    skip_packet(&mut r)?;
    r.map_only(wanted)
}

/// The ledger row of a block, its task's state stepped over.
fn row_only(block: &[u8]) -> Result<Option<Row>, Damaged> {
    let mut r = Reader::new(block);
    skip_packet(&mut r)?;
    r.skip_map()?; // values
    for _ in 0..3 {
        // explicit role, reason, last verdict
        if r.bool()? {
            r.skip_str()?;
        }
    }
    let n = r.len()?;
    for _ in 0..n {
        r.u32()?; // iterations
    }
    let row = read_row(&mut r)?;
    if !r.is_empty() {
        return Err(Damaged);
    }
    Ok(row)
}

/// Steps over the packet at the start of a block, in [`encode`]'s order.
fn skip_packet(r: &mut Reader<'_>) -> Result<(), Damaged> {
    r.skip_str()?; // task id
    r.skip_str()?; // title
    r.byte()?; // kind
    r.skip_strs()?; // dependencies
    r.skip_strs()?; // lock scope
    r.skip_strs()?; // forbidden scope
    r.skip_strs()?; // acceptance criteria
    r.skip_str()?; // worklog path
    r.uint()?; // timeout
    r.uint()?; // heartbeat interval
    r.byte()?; // priority
    r.skip_map() // extra
}

fn read_row(r: &mut Reader<'_>) -> Result<Option<Row>, Damaged> {
    if !r.bool()? {
        return Ok(None);
    }
    Ok(Some(Row {
        status: status_of(r.byte()?)?,
        owner: r.str()?,
        reason: r.str()?,
        version: r.uint()?,
        last_heartbeat_at: r.opt_str()?,
        timed_out: match r.byte()? {
            0 => None,
            1 => Some(false),
            2 => Some(true),
            _ => return Err(Damaged),
        },
    }))
}

fn decode(block: &[u8]) -> Result<(Body, Option<Row>), Damaged> {
    let mut r = Reader::new(block);
    let packet = PacketTask {
        task_id: r.str()?,
        title: r.str()?,
        kind: match r.byte()? {
            0 => TaskType::Parallelizable,
            1 => TaskType::Serial,
            _ => return Err(Damaged),
        },
        dependencies: r.strs()?.into_iter().map(TaskIdString).collect(),
        lock_scope: r.strs()?,
        forbidden_scope: r.strs()?,
        acceptance_criteria: r.strs()?,
        worklog_path: r.str()?,
        timeout_seconds: r.uint()?,
        heartbeat_interval_seconds: r.uint()?,
        priority: match r.byte()? {
            0 => Priority::Low,
            1 => Priority::Normal,
            2 => Priority::High,
            3 => Priority::Critical,
            _ => return Err(Damaged),
        },
        extra: r.map()?,
    };
    let values = r.map()?;
    let explicit_role = r.opt_str()?;
    let reason = r.opt_str()?;
    let last_verdict = r.opt_str()?;
    let n = r.len()?;
    let iterations = (0..n).map(|_| r.u32()).collect::<Result<_, _>>()?;
    let row = read_row(&mut r)?;
    if !r.is_empty() {
        return Err(Damaged);
    }
    let body = Body {
        packet,
        values,
        explicit_role,
        reason,
        iterations,
        last_verdict,
    };
    Ok((body, row))
}
