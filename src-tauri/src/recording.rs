//! How a run in the app reaches the window and the library: each event is
//! shown as it happens and, when the run is recorded, written to the
//! library's `runs` table. Shared by preview runs and real runs, so both
//! are recorded the same way.

use playbook_orchestrator::{Event, EventRecord, EventSink, Outcome};
use playbook_store::RunId;
use serde_json::Value;

use crate::error::AppError;
use crate::library::Library;

/// Events buffered before they are written to the library at once.
const RECORD_BATCH: usize = 256;

/// Records a run's events in the library as they happen: in batches, and
/// before every approval request, so the record is complete up to the
/// question while the run waits for its answer. A failing write stops the
/// recording, never the run.
pub(crate) struct Recorder<'l> {
    library: &'l Library,
    pub(crate) run: RunId,
    buffer: Vec<EventRecord>,
    error: Option<AppError>,
}

impl<'l> Recorder<'l> {
    pub(crate) fn new(library: &'l Library, run: RunId) -> Self {
        Recorder {
            library,
            run,
            buffer: Vec::new(),
            error: None,
        }
    }

    fn push(&mut self, record: &EventRecord) {
        if self.error.is_some() {
            return;
        }
        self.buffer.push(record.clone());
        if self.buffer.len() >= RECORD_BATCH
            || matches!(record.event, Event::ApprovalRequested { .. })
        {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.error.is_none() && !self.buffer.is_empty() {
            self.error = self.library.record_events(self.run, &self.buffer).err();
        }
        self.buffer.clear();
    }

    /// Writes what is left, the run's status and `summary`; the error if
    /// recording failed.
    pub(crate) fn finish(mut self, outcome: Option<Outcome>, summary: &Value) -> Option<AppError> {
        self.flush();
        if self.error.is_none() {
            let status = outcome.map_or("unfinished".to_string(), |o| {
                serde_json::to_value(o)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_else(|| format!("{o:?}"))
            });
            self.error = self.library.finish_run(self.run, &status, summary).err();
        }
        self.error
    }
}

/// The sink of a run in the app: each event goes to the window and, when
/// the run is recorded, to the library.
pub(crate) struct Live<'l, F: FnMut(&EventRecord)> {
    show: F,
    pub(crate) recorder: Option<Recorder<'l>>,
}

impl<'l, F: FnMut(&EventRecord)> Live<'l, F> {
    pub(crate) fn new(show: F, recorder: Option<Recorder<'l>>) -> Self {
        Live { show, recorder }
    }
}

impl<F: FnMut(&EventRecord)> EventSink for Live<'_, F> {
    fn emit(&mut self, record: &EventRecord) {
        (self.show)(record);
        if let Some(recorder) = &mut self.recorder {
            recorder.push(record);
        }
    }
}
