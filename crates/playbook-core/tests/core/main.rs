//! Integration tests of playbook-core, one binary; modules mirror concerns.

mod bad_input;
mod edits;
mod examples;
mod fixes;
mod legacy;
mod lints;
mod schemas;
mod templates;

use std::path::PathBuf;

/// The repository root, where `playbooks/`, `schemas/` and `tests/` live.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}
