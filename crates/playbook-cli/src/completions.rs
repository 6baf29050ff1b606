//! `completions SHELL`: the completion script of a shell, generated from the
//! same command definitions the parser uses, so it never lags behind them.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use clap_complete::Shell;

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

/// Prints the script to standard output, for the user to save where their
/// shell loads completions from (see README, "In your CI").
pub fn completions(args: CompletionsArgs, mut command: clap::Command) -> Result<ExitCode> {
    let name = command.get_name().to_string();
    clap_complete::generate(args.shell, &mut command, name, &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}
