//! The JSON Schemas of the envelopes, as published in `schemas/` (one file
//! per envelope; a test fails when a file is stale).

use playbook_core::schema::{Published, SCHEMA_BASE};
use schemars::JsonSchema;
use serde_json::Value;

use crate::{
    AssignmentPacket, AssociateResult, DirectorTask, Envelope, HandoffBundle, OrchestratorOutput,
    RoleAssignmentRequest, RoleAssignmentResponse, SubagentResult, ValidatorOutput, WorklogEntry,
};

/// The JSON Schema of a type, `$id` set to its published location.
///
/// Unlike the playbook schema, `Option` fields keep accepting `null`: the
/// contracts allow it (`diff: unified diff or null`), and senders write it.
pub fn schema_of<T: JsonSchema>(file: &str) -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    if let Some(object) = schema.as_object_mut() {
        object.insert("$id".into(), Value::String(format!("{SCHEMA_BASE}/{file}")));
    }
    schema
}

/// The published schema of an envelope: its type's schema plus its
/// cross-field invariants.
pub fn envelope_schema<E: Envelope>() -> Value {
    let mut schema = schema_of::<E>(E::SCHEMA_FILE);
    let invariants = E::schema_invariants();
    if !invariants.is_empty()
        && let Some(object) = schema.as_object_mut()
    {
        object.insert("allOf".into(), Value::Array(invariants));
    }
    schema
}

/// Every envelope schema this crate publishes into `schemas/`.
pub fn published() -> Vec<Published> {
    fn one<E: Envelope>() -> Published {
        Published {
            file: E::SCHEMA_FILE,
            schema: envelope_schema::<E>(),
        }
    }
    vec![
        one::<AssignmentPacket>(),
        one::<SubagentResult>(),
        one::<OrchestratorOutput>(),
        one::<WorklogEntry>(),
        one::<HandoffBundle>(),
        one::<ValidatorOutput>(),
        one::<RoleAssignmentRequest>(),
        one::<RoleAssignmentResponse>(),
        one::<DirectorTask>(),
        one::<AssociateResult>(),
    ]
}
