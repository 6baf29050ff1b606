//! The task ledger and its delta semantics (spec/contracts.md, Ledger Delta
//! Application Semantics, rules D1–D5).
//!
//! The ledger is the canonical status of every task. It changes only through
//! deltas; a stream of deltas is applied in order (D1), a `delta_id` seen
//! before is skipped (D2), later deltas overwrite earlier ones field by field
//! for the same task (D3), a delta for a task without a row is rejected unless
//! it creates the row (D4), and a stream computed against an older version of
//! a row another stream has since changed is refused whole with
//! `CONCURRENCY_CONFLICT` (D5), so the caller re-reads and recomputes.

use std::collections::HashSet;

use indexmap::IndexMap;
use playbook_redact::Redact;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::code::ErrorCode;
use crate::envelope::{LedgerDelta, LedgerStatus};

/// One row of the ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Row {
    pub status: LedgerStatus,
    pub owner: String,
    pub reason: String,
    /// Ledger version of the last delta applied to the row.
    pub version: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub last_heartbeat_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub timed_out: Option<bool>,
}

/// A stream of deltas computed against ledger version `base_version`.
#[derive(Debug, Clone)]
pub struct DeltaStream<'a> {
    pub base_version: u64,
    pub deltas: &'a [LedgerDelta],
}

/// What applying a stream did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    pub applied: u32,
    /// Duplicates skipped by `delta_id` (D2).
    pub duplicates: u32,
    /// Deltas rejected because their row does not exist (D4), by delta id.
    pub rejected: Vec<String>,
}

/// Why a stream was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct LedgerError {
    pub code: ErrorCode,
    pub message: String,
}

/// The ledger.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    rows: IndexMap<String, Row>,
    seen: Seen,
    version: u64,
}

/// The delta ids a ledger has seen (D2). The engine numbers its own deltas
/// `D-1`, `D-2`, … in the order it applies them, so those are a watermark
/// (every `D-n` up to it seen), not a set that grows with the run; any
/// other id (a foreign stream's, or an engine id out of order) is kept in
/// the set, so what counts as seen is exactly what a set of every id says.
#[derive(Debug, Clone, Default)]
struct Seen {
    /// `D-1` … `D-own` have all been seen.
    own: u64,
    others: HashSet<String>,
}

impl Seen {
    fn contains(&self, id: &str) -> bool {
        matches!(numbered(id), Some(n) if n <= self.own) || self.others.contains(id)
    }

    /// Records `id`; `false` when it was seen before.
    fn insert(&mut self, id: &str) -> bool {
        if self.contains(id) {
            return false;
        }
        if numbered(id) == Some(self.own + 1) {
            self.own += 1;
            // Ids that arrived ahead of the watermark join it once the
            // gap closes.
            while !self.others.is_empty() && self.others.remove(&format!("D-{}", self.own + 1)) {
                self.own += 1;
            }
        } else {
            self.others.insert(id.to_string());
        }
        true
    }
}

/// `n` of an id written `D-n` as the engine writes it (decimal, no sign,
/// no leading zero); other spellings are other ids.
fn numbered(id: &str) -> Option<u64> {
    let digits = id.strip_prefix("D-")?;
    if digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

impl Ledger {
    pub fn new() -> Ledger {
        Ledger::default()
    }

    /// Current version; bumps with every applied delta.
    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn row(&self, task_id: &str) -> Option<&Row> {
        self.rows.get(task_id)
    }

    pub fn rows(&self) -> impl Iterator<Item = (&str, &Row)> {
        self.rows.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Takes a task's row out while the engine parks the task (the row
    /// travels in the task's block); the row order is restored by
    /// [`Self::order_rows`] before a report reads it.
    pub(crate) fn take_row(&mut self, task_id: &str) -> Option<Row> {
        self.rows.swap_remove(task_id)
    }

    /// Puts back a row [`Self::take_row`] took.
    pub(crate) fn put_row(&mut self, task_id: String, row: Row) {
        self.rows.insert(task_id, row);
    }

    /// Orders the rows as `task_ids` lists them (the order they were
    /// created in), rows not listed last.
    pub(crate) fn order_rows<'a>(&mut self, task_ids: impl Iterator<Item = &'a str>) {
        let mut rows = std::mem::take(&mut self.rows);
        let mut ordered = IndexMap::with_capacity(rows.len());
        for id in task_ids {
            if let Some((id, row)) = rows.swap_remove_entry(id) {
                ordered.insert(id, row);
            }
        }
        ordered.extend(rows);
        self.rows = ordered;
    }

    /// Applies a stream (D1–D5). On a conflict nothing is applied.
    pub fn apply(&mut self, stream: DeltaStream<'_>) -> Result<Applied, LedgerError> {
        self.apply_with(stream, Texts::Scan)
    }

    /// [`Self::apply`] of deltas whose `owner`, `reason` and
    /// `last_heartbeat_at` the caller already redacted
    /// (`redact::ledger_delta_texts`): the rows copy them unscanned, so a
    /// delta's texts are scanned once, not once for the row and once for
    /// the record.
    pub(crate) fn apply_redacted(
        &mut self,
        stream: DeltaStream<'_>,
    ) -> Result<Applied, LedgerError> {
        debug_assert!(stream.deltas.iter().all(|d| {
            playbook_redact::is_clean(&d.owner)
                && playbook_redact::is_clean(&d.reason)
                && d.last_heartbeat_at
                    .as_deref()
                    .is_none_or(playbook_redact::is_clean)
        }));
        self.apply_with(stream, Texts::Redacted)
    }

    fn apply_with(
        &mut self,
        stream: DeltaStream<'_>,
        texts: Texts,
    ) -> Result<Applied, LedgerError> {
        // D5: refuse the whole stream when a row it touches moved on since
        // the stream was computed.
        for delta in stream.deltas {
            if self.seen.contains(&delta.delta_id) {
                continue;
            }
            if let Some(row) = self.rows.get(&delta.task_id)
                && row.version > stream.base_version
            {
                return Err(LedgerError {
                    code: ErrorCode::ConcurrencyConflict,
                    message: format!(
                        "task {} changed at version {} after this stream's base {}; re-read the ledger",
                        delta.task_id, row.version, stream.base_version
                    ),
                });
            }
        }
        let mut result = Applied::default();
        // D1: in listed order.
        for delta in stream.deltas {
            // D2: idempotent replay.
            if !self.seen.insert(&delta.delta_id) {
                result.duplicates += 1;
                continue;
            }
            let version = self.version + 1;
            match self.rows.get_mut(&delta.task_id) {
                // D3: last applied wins for mutable fields.
                Some(row) => {
                    row.status = delta.status;
                    row.owner.clone_from(&delta.owner);
                    row.reason.clone_from(&delta.reason);
                    if delta.last_heartbeat_at.is_some() {
                        row.last_heartbeat_at.clone_from(&delta.last_heartbeat_at);
                    }
                    if delta.timed_out.is_some() {
                        row.timed_out = delta.timed_out;
                    }
                    row.version = version;
                    if texts == Texts::Scan {
                        redact_row(row);
                    }
                }
                None if delta.create => {
                    let mut row = Row {
                        status: delta.status,
                        owner: delta.owner.clone(),
                        reason: delta.reason.clone(),
                        version,
                        last_heartbeat_at: delta.last_heartbeat_at.clone(),
                        timed_out: delta.timed_out,
                    };
                    if texts == Texts::Scan {
                        redact_row(&mut row);
                    }
                    self.rows.insert(delta.task_id.clone(), row);
                }
                // D4: no base row and not a create.
                None => {
                    result.rejected.push(delta.delta_id.clone());
                    continue;
                }
            }
            self.version = version;
            result.applied += 1;
        }
        Ok(result)
    }
}

/// Whether a delta's texts still need the redactor as a row takes them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Texts {
    Scan,
    Redacted,
}

/// The texts of a row go through the redactor as the row changes, so the
/// ledger never holds a secret a delta carried (its `reason` is often an
/// agent's error text).
fn redact_row(row: &mut Row) {
    let Row {
        status: _,
        owner,
        reason,
        version: _,
        last_heartbeat_at,
        timed_out: _,
    } = row;
    owner.redact();
    reason.redact();
    last_heartbeat_at.redact();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's way (a delta's texts redacted once, before the ledger
    /// applies it) leaves the row and the streamed delta exactly as the
    /// general way (the row scanned as it changes, the delta as recorded).
    #[test]
    fn texts_redacted_once_give_the_rows_and_deltas_scanned_twice() {
        let secret = "token=sv9x8y7z6w5";
        let stream = |reason: &str| {
            let mut create = delta("D-1", "T-1", LedgerStatus::Todo, true);
            create.reason = format!("created; {secret}");
            let mut update = delta("D-2", "T-1", LedgerStatus::Failed, false);
            update.reason = reason.to_string();
            update.owner = format!("worker {secret}");
            update.last_heartbeat_at = Some(secret.to_string());
            vec![create, update]
        };
        for reason in ["failed", secret, "an error: password=hunter22 at line 3"] {
            let mut general = Ledger::new();
            let mut general_deltas = stream(reason);
            general
                .apply(DeltaStream {
                    base_version: 0,
                    deltas: &general_deltas,
                })
                .expect("applies");
            general_deltas
                .iter_mut()
                .for_each(crate::redact::ledger_delta);

            let mut engine = Ledger::new();
            let mut engine_deltas = stream(reason);
            engine_deltas
                .iter_mut()
                .for_each(crate::redact::ledger_delta_texts);
            engine
                .apply_redacted(DeltaStream {
                    base_version: 0,
                    deltas: &engine_deltas,
                })
                .expect("applies");
            engine_deltas
                .iter_mut()
                .for_each(crate::redact::ledger_delta_rest);

            assert_eq!(engine.row("T-1"), general.row("T-1"), "{reason}");
            assert_eq!(engine_deltas, general_deltas, "{reason}");
            let row = format!("{:?}", engine.row("T-1"));
            assert!(!row.contains("sv9x8y7z6w5"), "{row}");
        }
    }

    fn delta(id: &str, task: &str, status: LedgerStatus, create: bool) -> LedgerDelta {
        LedgerDelta {
            task_id: task.into(),
            status,
            owner: "worker".into(),
            reason: id.into(),
            delta_id: id.into(),
            last_heartbeat_at: None,
            timed_out: None,
            retry_after_ms: None,
            create,
            extra: Default::default(),
        }
    }

    #[test]
    fn deltas_apply_in_order_and_the_last_one_wins_d1_d3() {
        let mut ledger = Ledger::new();
        let deltas = [
            delta("D-1", "T-1", LedgerStatus::Todo, true),
            delta("D-2", "T-1", LedgerStatus::InProgress, false),
            delta("D-3", "T-1", LedgerStatus::Done, false),
        ];
        let applied = ledger
            .apply(DeltaStream {
                base_version: 0,
                deltas: &deltas,
            })
            .unwrap();
        assert_eq!(applied.applied, 3);
        assert_eq!(
            ledger.row("T-1").unwrap().status,
            LedgerStatus::Done,
            "the last delta of the stream decides the status"
        );
    }

    #[test]
    fn a_secret_in_a_delta_reason_never_reaches_a_row() {
        let mut ledger = Ledger::new();
        let mut create = delta("D-1", "T-1", LedgerStatus::Todo, true);
        create.reason = "agent error: password=hunter22".into();
        let mut update = delta("D-2", "T-1", LedgerStatus::Failed, false);
        update.reason = "push failed\taws_secret_access_key=wJalrXUtnFEMI/K7MDENG".into();
        for (base_version, d) in [(0, create), (1, update)] {
            ledger
                .apply(DeltaStream {
                    base_version,
                    deltas: std::slice::from_ref(&d),
                })
                .unwrap();
            let row = ledger.row("T-1").unwrap();
            assert!(
                !row.reason.contains("hunter22") && !row.reason.contains("wJalrXUtnFEMI"),
                "{}",
                row.reason
            );
        }
    }

    #[test]
    fn a_replayed_delta_id_is_ignored_d2() {
        let mut ledger = Ledger::new();
        let first = [delta("D-1", "T-1", LedgerStatus::Todo, true)];
        ledger
            .apply(DeltaStream {
                base_version: 0,
                deltas: &first,
            })
            .unwrap();
        let again = [
            delta("D-1", "T-1", LedgerStatus::Failed, true),
            delta("D-2", "T-1", LedgerStatus::InProgress, false),
        ];
        let applied = ledger
            .apply(DeltaStream {
                base_version: 1,
                deltas: &again,
            })
            .unwrap();
        assert_eq!(applied.duplicates, 1, "D-1 was applied before");
        assert_eq!(ledger.row("T-1").unwrap().status, LedgerStatus::InProgress);
    }

    /// The watermark of engine ids and the set of other ids say "seen"
    /// exactly when a set of every id would.
    #[test]
    fn the_seen_ids_are_those_a_set_of_every_id_holds() {
        let ids = [
            "D-1", "D-3", "D-2", "D-2", "D-01", "D-4", "x", "D-", "D-5", "D-7", "D-6", "D-3",
            "D-+8", "D-8", "x", "D-01", "D-10", "D-9", "D-11",
        ];
        let mut seen = Seen::default();
        let mut all = HashSet::new();
        for id in ids {
            assert_eq!(seen.insert(id), all.insert(id), "{id}");
            for probe in ids {
                assert_eq!(
                    seen.contains(probe),
                    all.contains(probe),
                    "{probe} after {id}"
                );
            }
        }
        assert_eq!(seen.own, 11);
        assert_eq!(seen.others.len(), 4, "{:?}", seen.others);
    }

    #[test]
    fn an_update_of_a_missing_row_is_rejected_unless_it_creates_d4() {
        let mut ledger = Ledger::new();
        let deltas = [delta("D-1", "T-9", LedgerStatus::Done, false)];
        let applied = ledger
            .apply(DeltaStream {
                base_version: 0,
                deltas: &deltas,
            })
            .unwrap();
        assert_eq!(applied.rejected, ["D-1"]);
        assert!(
            ledger.row("T-9").is_none(),
            "a rejected delta must not create the row"
        );
    }

    #[test]
    fn conflicting_streams_return_concurrency_conflict_d5() {
        let mut ledger = Ledger::new();
        let base = [delta("D-1", "T-1", LedgerStatus::Todo, true)];
        ledger
            .apply(DeltaStream {
                base_version: 0,
                deltas: &base,
            })
            .unwrap();
        // Two streams both computed against version 1.
        let a = [delta("D-2", "T-1", LedgerStatus::InProgress, false)];
        let b = [delta("D-3", "T-1", LedgerStatus::Canceled, false)];
        ledger
            .apply(DeltaStream {
                base_version: 1,
                deltas: &a,
            })
            .unwrap();
        let err = ledger
            .apply(DeltaStream {
                base_version: 1,
                deltas: &b,
            })
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::ConcurrencyConflict);
        assert_eq!(
            ledger.row("T-1").unwrap().status,
            LedgerStatus::InProgress,
            "a refused stream changes nothing"
        );
    }
}
