//! `playbook`: the headless face of Playbook Studio, for terminals and CI.
//!
//! Every subcommand is a thin layer over the libraries: it reads files,
//! calls one library function and prints the result. Exit codes follow the
//! Validator Output Contract: 0 only when the outcome is allowed.

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod authoring;
mod completions;
mod fix;
mod gate;
#[cfg(test)]
mod hints;
mod input;
mod interop;
mod library;
mod lsp;
mod migrate;
mod preview;
mod report;
mod run;
mod whatif;

/// The engine makes and frees several short-lived records per agent step
/// (events, audit and worklog entries); a simulation runs millions of
/// steps. mimalloc's thread-local free lists serve them in a fraction of
/// the instructions glibc's malloc spends (see docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "playbook",
    version,
    about = "Author, check and preview agent playbooks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate playbook files (YAML or JSON) and print every finding.
    Validate(authoring::ValidateArgs),
    /// Normalise playbook files in place (`--check` only reports).
    Fmt(authoring::FmtArgs),
    /// Apply the quick fixes of every finding whose fix is mechanical, keeping comments
    /// (`--dry-run` prints the diff and exits 1 if anything would change).
    Fix(fix::FixArgs),
    /// Print a published JSON Schema, or write them all to a directory.
    Schema(authoring::SchemaArgs),
    /// Print a built-in role template (planner, worker, reviewer, tester).
    Template(authoring::TemplateArgs),
    /// The playbook library: list, show, history, import, export, diff, restore, rm, templates.
    Db(library::DbArgs),
    /// Show what changed between two playbook files, in domain terms (`--behaviour`: in simulated runs).
    Diff(library::DiffArgs),
    /// Upgrade a legacy (agenterm) playbook to schema_version 1.0.0.
    Migrate(migrate::MigrateArgs),
    /// Preview a run with scripted agents: live progress, or the JSONL event log.
    Preview(preview::PreviewArgs),
    /// Simulate thousands of runs under a probability model: calls, escalations, duration, cost.
    Whatif(whatif::WhatifArgs),
    /// Print the system prompt a role receives, contract block included.
    Prompt(preview::PromptArgs),
    /// Run a playbook with real agent processes on a git repository (`run clean` removes left worktrees).
    Run(run::RunArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
    /// Read other tools' agent files into a playbook (`--from claude-code`).
    Import(interop::ImportArgs),
    /// Write a playbook as other tools' agent files (`--to claude-code`, with the gate hook).
    Export(interop::ExportArgs),
    /// The language server for editors (LSP over standard input and output).
    Lsp(lsp::LspArgs),
    /// Claude Code `PreToolUse` hook: hold a subagent's tool call to its role's contract.
    Gate(gate::GateArgs),
    /// The MCP tool gateway an agent process starts during a run (from the
    /// MCP configuration the run gives it); not for direct use.
    #[command(hide = true)]
    Gateway(run::GatewayArgs),
}

fn main() -> ExitCode {
    restore_default_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Validate(args) => authoring::validate(args),
        Command::Fmt(args) => authoring::fmt(args),
        Command::Fix(args) => fix::fix(args),
        Command::Schema(args) => authoring::schema(args),
        Command::Template(args) => authoring::template(args),
        Command::Db(args) => library::db(args),
        Command::Diff(args) => library::diff_files(args),
        Command::Migrate(args) => migrate::migrate(args),
        Command::Preview(args) => preview::preview(args),
        Command::Prompt(args) => preview::prompt(args),
        Command::Whatif(args) => whatif::whatif(args),
        Command::Run(args) => run::run(args),
        Command::Completions(args) => completions::completions(args, Cli::command()),
        Command::Gateway(args) => run::gateway(args),
        Command::Import(args) => interop::import(args),
        Command::Export(args) => interop::export(args),
        Command::Gate(args) => gate::gate(args),
        Command::Lsp(args) => lsp::lsp(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            // Errors quote what the files say (a refusal names the value
            // it refuses, a scenario's or model's first error quotes it),
            // so the one place every command's error is printed redacts it,
            // as every other line the CLI prints is.
            eprintln!("error: {}", redacted_error(&error));
            if input::is_disk_full(&error) {
                eprintln!("hint: the disk is full; free some space and run the command again");
            }
            ExitCode::from(2)
        }
    }
}

/// An error as it is printed: its whole chain, redacted.
pub(crate) fn redacted_error(error: &anyhow::Error) -> String {
    playbook_redact::redact_str(&format!("{error:#}")).into_owned()
}

/// Rust ignores SIGPIPE, so `print!` into a closed pipe (`playbook validate
/// x | head -1`) would panic. Restoring the default makes the process end
/// quietly when the reader goes away, as other Unix tools do.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists; it only
    // resets one signal's disposition to the system default.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
