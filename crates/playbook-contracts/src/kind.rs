//! Recognising which envelope a document is, from its fields.
//!
//! A document is recognised by how many of its top-level keys are fields of
//! each envelope's published schema, so a payload with a field missing or
//! misspelled is still recognised as the envelope it almost is — and its
//! problems are reported against that envelope's contract, not as a broken
//! playbook.

use std::sync::LazyLock;

use serde_json::Value;

use crate::{
    AssignmentPacket, AssociateResult, DirectorTask, Envelope, HandoffBundle, OrchestratorOutput,
    RoleAssignmentRequest, RoleAssignmentResponse, SubagentResult, ValidatorOutput, Violation,
    WorklogEntry,
};

/// Fewest top-level keys a document must share with an envelope to be
/// recognised as one; a single shared key (`run_id`, `code`) says nothing.
pub const MIN_SHARED_FIELDS: usize = 2;

macro_rules! kinds {
    ($($variant:ident = $type:ty, $name:literal;)*) => {
        /// The envelopes a document can be.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum EnvelopeKind {
            $($variant,)*
        }

        impl EnvelopeKind {
            /// Every kind, in the order ties are broken.
            pub const ALL: &'static [EnvelopeKind] = &[$(EnvelopeKind::$variant,)*];

            /// What a person calls it (`worklog entry`).
            pub fn name(self) -> &'static str {
                match self { $(EnvelopeKind::$variant => $name,)* }
            }

            /// Its file in `schemas/`.
            pub fn schema_file(self) -> &'static str {
                match self { $(EnvelopeKind::$variant => <$type as Envelope>::SCHEMA_FILE,)* }
            }

            /// Parses and checks `value` as this envelope: every violation,
            /// none when it is valid.
            pub fn check(self, value: &Value, strict: bool) -> Vec<Violation> {
                match self {
                    $(EnvelopeKind::$variant => crate::parse::<$type>(value, strict).err().unwrap_or_default(),)*
                }
            }
        }
    };
}

kinds! {
    AssignmentPacket = AssignmentPacket, "assignment packet";
    OrchestratorOutput = OrchestratorOutput, "orchestrator output";
    SubagentResult = SubagentResult, "subagent result";
    RoleAssignmentRequest = RoleAssignmentRequest, "role assignment request";
    RoleAssignmentResponse = RoleAssignmentResponse, "role assignment response";
    DirectorTask = DirectorTask, "director task";
    AssociateResult = AssociateResult, "associate result";
    HandoffBundle = HandoffBundle, "handoff bundle";
    WorklogEntry = WorklogEntry, "worklog entry";
    ValidatorOutput = ValidatorOutput, "validator output";
}

/// Top-level field names of each kind, from its published schema.
static FIELDS: LazyLock<Vec<(EnvelopeKind, Vec<String>)>> = LazyLock::new(|| {
    let published = crate::published();
    EnvelopeKind::ALL
        .iter()
        .map(|kind| {
            let fields = published
                .iter()
                .find(|p| p.file == kind.schema_file())
                .and_then(|p| p.schema.get("properties"))
                .and_then(Value::as_object)
                .map(|props| props.keys().cloned().collect())
                .unwrap_or_default();
            (*kind, fields)
        })
        .collect()
});

impl EnvelopeKind {
    /// The top-level field names of this envelope.
    pub fn fields(self) -> &'static [String] {
        FIELDS
            .iter()
            .find(|(k, _)| *k == self)
            .map(|(_, f)| f.as_slice())
            .unwrap_or_default()
    }

    /// How many top-level keys of `value` are fields of this envelope.
    pub fn shared_fields(self, value: &Value) -> usize {
        let fields = self.fields();
        value
            .as_object()
            .map_or(0, |o| o.keys().filter(|k| fields.contains(k)).count())
    }

    /// The envelope `value` most looks like, with the number of top-level
    /// keys it shares with it; `None` when it shares fewer than
    /// [`MIN_SHARED_FIELDS`] with every envelope. `packet_type: assignment`
    /// names an assignment packet outright.
    pub fn recognise(value: &Value) -> Option<(EnvelopeKind, usize)> {
        let object = value.as_object()?;
        if object.get("packet_type").and_then(Value::as_str) == Some("assignment") {
            return Some((EnvelopeKind::AssignmentPacket, usize::MAX));
        }
        let mut best: Option<(EnvelopeKind, usize)> = None;
        for kind in EnvelopeKind::ALL {
            let shared = kind.shared_fields(value);
            if shared >= MIN_SHARED_FIELDS && best.is_none_or(|(_, b)| shared > b) {
                best = Some((*kind, shared));
            }
        }
        best
    }
}
