//! `playbook run` and the gateway relay it hands to agent processes.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, anyhow};
use clap::Args;

#[derive(Args)]
pub struct GatewayArgs {
    /// The run's gateway socket.
    #[arg(long)]
    socket: PathBuf,
    /// The invocation's token.
    #[arg(long)]
    token: String,
}

pub fn gateway(args: GatewayArgs) -> Result<ExitCode> {
    playbook_runner::gateway::relay(&args.socket, &args.token).map_err(|e| anyhow!(e))?;
    Ok(ExitCode::SUCCESS)
}
