//! The envelopes of the specs (assignment packets, subagent results,
//! orchestrator outputs, worklog entries...), their checks and schemas.
//! They are the wire contracts and live in `playbook-contracts`, which has
//! no tokio, so the CLI's `validate` and the store share them; this module
//! re-exports them for the engine and adds the scenario schema, which is a
//! preview input rather than a contract.

pub use playbook_contracts::*;

/// Every schema the preview publishes into `schemas/`: the envelopes and
/// the scenario.
pub fn published() -> Vec<playbook_core::schema::Published> {
    let mut all = playbook_contracts::published();
    all.push(playbook_core::schema::Published {
        file: "scenario.schema.json",
        schema: schema_of::<crate::scenario::Scenario>("scenario.schema.json"),
    });
    all
}
