//! `playbook-studio gateway --socket PATH --token TOKEN`: the MCP relay a real
//! run started from the app gives to its agent processes (the same relay as
//! `playbook gateway`, served by the app's own binary).

use std::path::PathBuf;

/// The relay's arguments, read strictly: anything else is a usage error,
/// never a window.
#[derive(Debug, PartialEq, Eq)]
pub struct GatewayArgs {
    pub socket: PathBuf,
    pub token: String,
}

const USAGE: &str = "usage: playbook-studio gateway --socket PATH --token TOKEN";

/// Parses `--socket PATH --token TOKEN` (either order, `--name=value` too).
pub fn parse(args: &[String]) -> Result<GatewayArgs, String> {
    let mut socket = None;
    let mut token = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) => (name, Some(value.to_string())),
            None => (arg.as_str(), None),
        };
        let slot = match name {
            "--socket" => &mut socket,
            "--token" => &mut token,
            _ => return Err(format!("unknown argument `{arg}`; {USAGE}")),
        };
        let value = match inline {
            Some(v) => v,
            None => rest
                .next()
                .cloned()
                .ok_or_else(|| format!("`{name}` needs a value; {USAGE}"))?,
        };
        if value.is_empty() {
            return Err(format!("`{name}` is empty; {USAGE}"));
        }
        if slot.replace(value).is_some() {
            return Err(format!("`{name}` is given twice; {USAGE}"));
        }
    }
    match (socket, token) {
        (Some(socket), Some(token)) => Ok(GatewayArgs {
            socket: PathBuf::from(socket),
            token,
        }),
        _ => Err(format!("both --socket and --token are required; {USAGE}")),
    }
}

/// Runs the relay until the agent closes its standard streams; the exit
/// code (0 when it ended normally, 2 on bad arguments, 1 on a failure).
pub fn main(args: &[String]) -> i32 {
    let parsed = match parse(args) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            return 2;
        }
    };
    match playbook_runner::gateway::relay(&parsed.socket, &parsed.token) {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("playbook gateway: {message}");
            1
        }
    }
}
