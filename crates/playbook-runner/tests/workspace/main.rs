//! The workspace of a real run, against real git repositories made with the
//! git CLI in temporary folders: opening a repository, worktrees, path
//! confinement, and every tool — including hostile calls, whose effect on
//! the file system and the refs is checked to be nothing.

mod support;

mod commands;
mod confinement;
mod git_tools;
mod guard;
mod open;
mod secrets;
mod tools;
mod worktrees;
