//! Where a report and a behavioural diff pass through the redactor before
//! anyone sees them.
//!
//! A playbook's stage, role and task names, and the notes that quote them,
//! are user text: a credential pasted as a stage name (`sk-ant-api03-…`)
//! must not come back in a what-if report, its JSON or the app's panel,
//! any more than in a preview. The simulation itself runs on the names as
//! written (the sink looks them up as the engine's records hold them, see
//! [`crate::sink::RecordedNames`]); the report is redacted as a whole once
//! it is written up ([`crate::report::Report::new`]), and a diff once it
//! is built, so every consumer (the CLI's text and JSON, the desktop app's
//! commands) gets the same clean text. A field added to either that holds
//! a name must be added here; `tests/whatif/secrets.rs` checks the JSON of
//! both whole.

use indexmap::IndexMap;

use crate::diff::{BehaviourDiff, ScenarioChange};
use crate::model::{Explained, Source};
use crate::report::Report;
use crate::text::redact;

/// Redacts the keys of a map of names (triggers, states) in place, keeping
/// their order. Two keys that redact alike keep the first entry: such
/// names cannot be told apart in the records either.
fn keys<V>(map: &mut IndexMap<String, V>) {
    if map.keys().all(|k| playbook_redact::is_clean(k)) {
        return;
    }
    let old = std::mem::take(map);
    for (mut key, value) in old {
        redact(&mut key);
        map.entry(key).or_insert(value);
    }
}

impl Source {
    fn redact(&mut self) {
        match self {
            Source::Role(key) | Source::Mode(key) | Source::Defaults(key) => redact(key),
            Source::Builtin => {}
        }
    }
}

impl Explained {
    fn redact(&mut self) {
        self.sources.values_mut().for_each(Source::redact);
    }
}

impl Report {
    /// Replaces every secret in the report's names and notes by
    /// `[REDACTED]`.
    pub fn redact(&mut self) {
        redact(&mut self.playbook_id);
        redact(&mut self.cost_unit);
        for row in &mut self.model {
            redact(&mut row.role);
            redact(&mut row.stage);
            row.values.redact();
            for (_, e) in &mut row.overrides {
                e.redact();
            }
        }
        self.notes.iter_mut().for_each(redact);
        keys(&mut self.outcomes);
        keys(&mut self.escalation_by_trigger);
        for t in &mut self.tasks {
            redact(&mut t.task_id);
            keys(&mut t.escalation_by_trigger);
            keys(&mut t.states);
        }
        for s in &mut self.stages {
            redact(&mut s.stage);
            keys(&mut s.escalation_by_trigger);
        }
        for r in &mut self.roles {
            redact(&mut r.role);
            redact(&mut r.stage);
        }
        for l in &mut self.loops {
            redact(&mut l.name);
            l.roles.iter_mut().for_each(redact);
        }
        if let Some(name) = &mut self.costliest_loop {
            redact(name);
        }
        self.bound_violations.iter_mut().for_each(redact);
    }
}

impl ScenarioChange {
    pub(crate) fn redact(&mut self) {
        redact(&mut self.scenario);
        redact(&mut self.before);
        redact(&mut self.after);
    }
}

impl BehaviourDiff {
    /// Replaces every secret in the diff's sentences, notes and scenario
    /// names by `[REDACTED]`. [`BehaviourDiff::new`] does; call it again
    /// after adding scenarios by hand ([`crate::diff::scenario_change`]
    /// returns them redacted).
    pub fn redact(&mut self) {
        redact(&mut self.cost_unit);
        for c in &mut self.changes {
            redact(&mut c.metric);
            redact(&mut c.sentence);
        }
        self.notes.iter_mut().for_each(redact);
        self.scenarios.iter_mut().for_each(ScenarioChange::redact);
    }
}
