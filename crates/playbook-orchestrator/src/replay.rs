//! Replay: run a stored run again and check that it gives the same events.
//!
//! A run is a pure function of playbook, scenario and seed, so replaying it
//! must reproduce every event byte for byte. A difference means the stored
//! run was produced by a different playbook version, scenario or engine
//! version, and [`Divergence`] says where the two first part.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::event::{EventRecord, EventSink};

/// Where a replay first differs from the stored run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Divergence {
    /// Index of the first differing event.
    pub seq: u64,
    /// The stored event there, as JSON (absent: the replay has more events).
    pub stored: Option<String>,
    /// The replayed event there, as JSON (absent: the replay has fewer).
    pub replayed: Option<String>,
}

/// Compares a stored event log with a replayed one.
pub fn compare(stored: &[EventRecord], replayed: &[EventRecord]) -> Result<(), Divergence> {
    let n = stored.len().max(replayed.len());
    for i in 0..n {
        let a = stored.get(i);
        let b = replayed.get(i);
        if a != b {
            let json = |e: Option<&EventRecord>| e.and_then(|e| serde_json::to_string(e).ok());
            return Err(Divergence {
                seq: i as u64,
                stored: json(a),
                replayed: json(b),
            });
        }
    }
    Ok(())
}

/// A sink that checks events against a stored log as they are produced,
/// without keeping the replayed run in memory.
pub struct Verifier<'a> {
    stored: &'a [EventRecord],
    next: usize,
    pub divergence: Option<Divergence>,
}

impl<'a> Verifier<'a> {
    pub fn new(stored: &'a [EventRecord]) -> Self {
        Verifier {
            stored,
            next: 0,
            divergence: None,
        }
    }

    /// The verdict once the replay has finished.
    pub fn finish(self) -> Result<(), Divergence> {
        if let Some(d) = self.divergence {
            return Err(d);
        }
        if self.next < self.stored.len() {
            return Err(Divergence {
                seq: self.next as u64,
                stored: serde_json::to_string(&self.stored[self.next]).ok(),
                replayed: None,
            });
        }
        Ok(())
    }
}

impl EventSink for Verifier<'_> {
    fn emit(&mut self, record: &EventRecord) {
        if self.divergence.is_some() {
            return;
        }
        let stored = self.stored.get(self.next);
        if stored != Some(record) {
            self.divergence = Some(Divergence {
                seq: self.next as u64,
                stored: stored.and_then(|e| serde_json::to_string(e).ok()),
                replayed: serde_json::to_string(record).ok(),
            });
        }
        self.next += 1;
    }
}
