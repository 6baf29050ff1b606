//! Stable error codes of the orchestrator, documented in `docs/error-codes.md`.
//! They are part of the wire contracts and live in `playbook-contracts`;
//! this module keeps `crate::code::ErrorCode` working for the engine.

pub use playbook_contracts::code::*;
