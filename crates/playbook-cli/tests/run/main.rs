//! `playbook run` through the real binary, on real git repositories made in
//! temporary directories, with agents that are real processes speaking MCP
//! to the run's gateway (`playbook-testagent`, scripted; no model). Each
//! hostile action must be refused before it happens, and the file system
//! and the repository's refs must show that it did not.

mod budgets;
mod cap;
mod clean;
mod faults;
mod gateway;
mod harness;
mod hostile;
mod journey;
mod planted;
mod secrets;
mod stream;
