//! Integration tests of the `playbook` binary, one module per group of
//! subcommands.

mod authoring;
mod ci;
mod claude_code;
mod crewai;
mod hostile;
mod library;
mod migrate;
mod preview;
mod report;
