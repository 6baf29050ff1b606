//! Integration tests of the `playbook` binary, one module per group of
//! subcommands.

mod authoring;
mod ci;
mod claude_code;
mod crewai;
mod error_secrets;
mod fix;
mod hostile;
mod interop_secrets;
mod library;
mod migrate;
mod preview;
mod report;
mod validate_secrets;
mod whatif;

use std::path::PathBuf;
use std::process::{Command, Output};

/// The repository root, where the examples and fixtures are.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `playbook ARGS` from the repository root.
pub fn playbook(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_playbook"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("the binary runs")
}
