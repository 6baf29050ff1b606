//! The spill port: where a run puts parked task state once the bytes it
//! keeps in memory reach their bound (`RunOptions::park_memory_bytes`).
//! The engine does no IO itself; a caller that runs many tasks gives it a
//! store (the runner's temporary file), and without one every parked task
//! stays in memory.

use std::sync::Arc;

/// Where parked blocks go beyond the memory bound: an append-only store
/// that gives a block back by the position it returned. A block is read
/// once, when its task is taken into a stage, so a store may reuse or
/// forget the space afterwards; the engine drops the store when the run
/// ends. Any error stops the run, which then fails with a warning that
/// names the store's error (never a panic).
pub trait Spill {
    /// Stores `block`; returns the position [`Spill::read`] takes.
    fn write(&mut self, block: &[u8]) -> std::io::Result<u64>;
    /// Fills `into` (as long as the block written at `at`) with the block.
    fn read(&mut self, at: u64, into: &mut [u8]) -> std::io::Result<()>;
}

/// Makes a run's spill store, the first time the run needs one (most runs
/// never do, so most runs open nothing).
#[derive(Clone)]
pub struct SpillPort(Arc<dyn Fn() -> std::io::Result<Box<dyn Spill>> + Send + Sync>);

impl SpillPort {
    pub fn new(open: impl Fn() -> std::io::Result<Box<dyn Spill>> + Send + Sync + 'static) -> Self {
        SpillPort(Arc::new(open))
    }

    pub(crate) fn open(&self) -> std::io::Result<Box<dyn Spill>> {
        (self.0)()
    }

    /// Opens a store as a run would: for the tests of a store.
    #[doc(hidden)]
    pub fn open_for_test(&self) -> Box<dyn Spill> {
        self.open().expect("the store opens")
    }
}

impl std::fmt::Debug for SpillPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SpillPort")
    }
}
