//! The wire contracts of Playbook Studio: the machine payloads of
//! spec/contracts.md, spec/director-associate-contracts.md and
//! spec/role-assignment-llm-contract.md as Rust types, their checks, the
//! stable codes of `docs/error-codes.md` and the JSON Schemas published in
//! `schemas/`.
//!
//! This crate has no tokio and does no IO, so the engine, the CLI's
//! `validate` and the store share one definition of every envelope without
//! carrying the engine.
//!
//! Each envelope has two faces that must agree: a JSON Schema generated
//! from the type ([`schema`]), and [`Envelope::check`], the typed validation
//! the engine runs on every envelope it sends or receives. Rules a JSON
//! Schema can say (patterns, closed code sets, the completion invariants of
//! a subagent result as `if`/`then`) are said in both, from the same
//! constants; the few it cannot (`heartbeat_interval_seconds <
//! timeout_seconds`, unique `delta_id`s) only in the typed check.
//!
//! **Extension policy.** Every object keeps unknown keys. `x_` keys are
//! always allowed; other unknown keys are reported only in strict mode. The
//! published schemas are the strict form: they allow `x_` keys and nothing
//! else beyond the documented fields.

pub mod artifacts;
pub mod assignment;
pub mod check;
pub mod code;
pub mod director;
pub mod kind;
pub mod output;
pub mod result;
pub mod role_assignment;
pub mod schema;
mod structure;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use artifacts::{HandoffBundle, LedgerRow, ValidatorOutput, WorklogEntry};
pub use assignment::{
    ActiveLock, AssignmentPacket, ContextItem, ContextKind, OutputSchemaName, PacketTask,
    PacketType, Priority, TaskIdString, TaskType,
};
pub use check::{
    NON_BLANK_PATTERN, RUN_ID_PATTERN, TASK_ID_PATTERN, TIMESTAMP_PATTERN, VERSION_PATTERN,
    Violation, is_non_blank, is_supported_version, is_task_id, is_utc_timestamp, is_uuid_v4,
};
pub use code::{ErrorCode, ValidatorCode};
pub use director::{
    AssociateResult, AssociateStatus, CommandRun, Diff, DirectorTask, DirectorTaskKind,
    EgressProfile, GitAction, ReturnSpec, VerifyProfile, VerifyResult, VerifyStatus,
};
pub use kind::EnvelopeKind;
pub use output::{Blocker, LedgerDelta, LedgerStatus, OrchestratorOutput};
pub use result::{AcceptanceCheck, Change, CheckStatus, Note, ResultStatus, SubagentResult};
pub use role_assignment::{
    AssignmentStage, AssignmentTask, Caps, RoleAssignmentRequest, RoleAssignmentResponse,
};
pub use schema::{published, schema_of};

/// The contract version this build writes and reads.
pub const CONTRACT_VERSION: &str = "1.0.0";

/// Unknown keys of an envelope object, kept verbatim.
pub type Extra = IndexMap<String, Value>;

/// Envelopes know how to check themselves and where their schema is published.
pub trait Envelope: Serialize + for<'de> Deserialize<'de> + JsonSchema {
    /// File name in `schemas/`.
    const SCHEMA_FILE: &'static str;
    /// Every violation; `strict` rejects unknown non-`x_` fields.
    fn check(&self, strict: bool) -> Vec<Violation>;
    /// Cross-field invariants in JSON Schema form (`if`/`then`), added to the
    /// published schema as `allOf`, so that an independent validator refuses
    /// what [`Envelope::check`] refuses.
    fn schema_invariants() -> Vec<Value> {
        Vec::new()
    }
}

/// Parses and checks an envelope received as JSON.
///
/// Structural problems (a missing required field, a wrong type, an unknown
/// enum value, in strict mode an unknown field at any depth) are reported by
/// the published schema, one violation per problem at its JSON pointer, so
/// `parse` and an independent validator name the same problems. Typed
/// violations follow.
pub fn parse<E: Envelope>(value: &Value, strict: bool) -> Result<E, Vec<Violation>> {
    if let Some(version) = value.get("schema_version").and_then(Value::as_str)
        && !check::is_supported_version(version)
    {
        return Err(vec![check::violation(
            ErrorCode::UnsupportedVersion,
            "/schema_version",
            format!("schema_version `{version}` is not 1.x.y; unknown major versions fail closed"),
        )]);
    }
    let parsed = match E::deserialize(value) {
        Ok(parsed) => parsed,
        Err(e) => return Err(structure::violations(E::SCHEMA_FILE, value, strict, &e)),
    };
    // Unknown keys are found by the schema, which sees every object at every
    // depth, including the ones whose Rust type does not keep them.
    let mut violations = if strict {
        structure::unknown_fields(E::SCHEMA_FILE, value)
    } else {
        Vec::new()
    };
    violations.extend(parsed.check(false));
    if violations.is_empty() {
        Ok(parsed)
    } else {
        Err(violations)
    }
}
