//! `playbook gate`: Claude Code's `PreToolUse` hook for a playbook. Reads
//! the hook input on stdin and prints the documented decision
//! (<https://code.claude.com/docs/en/hooks#pretooluse-decision-control>);
//! the decision itself is `playbook_core::interop::claude_code::decide`.
//!
//! It always exits 0 with a decision on stdout, and denies whenever it
//! cannot decide safely (unreadable input or playbook): Claude Code runs the
//! tool when a hook fails with any exit code other than 2.

use std::io::Read;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use playbook_core::interop::claude_code::{self as cc, Decision, MAX_HOOK_INPUT_BYTES, Scopes};

use crate::input;

#[derive(Args)]
pub struct GateArgs {
    /// The playbook whose contracts the hook enforces.
    #[arg(long)]
    playbook: String,
    /// The role to hold calls to (default: the subagent's name, `agent_type` in the input).
    #[arg(long)]
    role: Option<String>,
    /// Paths the role may write, relative to the hook's `cwd` (repeatable).
    #[arg(long)]
    lock_scope: Vec<String>,
    /// Paths the role must not write (repeatable).
    #[arg(long)]
    forbidden_scope: Vec<String>,
    /// Deny the calls of subagents that are not roles of the playbook.
    #[arg(long)]
    strict: bool,
}

pub fn gate(args: GateArgs) -> Result<ExitCode> {
    let mut decision = decide(&args);
    // The reason quotes the call (a command, a path, a tool name), which may
    // hold a credential (`git push https://user:TOKEN@...`); Claude Code keeps
    // the reason in its transcript and logs, so it is redacted like every
    // record the product writes.
    playbook_redact::redact_string(&mut decision.reason);
    if let Some(output) = decision.output() {
        println!("{output}");
    }
    if decision.permission != Some(cc::Permission::Allow) {
        // Shown in Claude Code's verbose mode; the reason above is what
        // Claude and the person see.
        eprintln!("playbook gate: {}", decision.reason);
    }
    Ok(ExitCode::SUCCESS)
}

fn decide(args: &GateArgs) -> Decision {
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin()
        .take(MAX_HOOK_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
    {
        return Decision::malformed(&format!("cannot read standard input: {e}"));
    }
    let Ok(text) = String::from_utf8(bytes) else {
        return Decision::malformed("the input is not UTF-8 text");
    };
    let input = match cc::parse_input(&text) {
        Ok(input) => input,
        Err(why) => return Decision::malformed(&why),
    };
    let playbook = match load(&args.playbook) {
        Ok(p) => p,
        Err(why) => {
            return Decision {
                permission: Some(cc::Permission::Deny),
                reason: format!(
                    "the playbook {} cannot be used: {why}; every call is denied until it can",
                    args.playbook
                ),
            };
        }
    };
    // The playbook as given and as resolved (the hook's `cwd` may name the
    // project through a symlink, or not).
    let protected = [
        std::path::absolute(&args.playbook).ok(),
        std::fs::canonicalize(&args.playbook).ok(),
    ]
    .into_iter()
    .flatten()
    .map(|p| p.to_string_lossy().into_owned())
    .collect();
    let scopes = Scopes {
        lock_scope: args.lock_scope.clone(),
        forbidden_scope: args.forbidden_scope.clone(),
        protected,
    };
    cc::decide(
        &playbook,
        args.role.as_deref(),
        &input,
        &scopes,
        args.strict,
    )
}

fn load(path: &str) -> Result<playbook_core::Playbook, String> {
    if path == "-" {
        return Err("standard input carries the hook input; give the playbook as a file".into());
    }
    let source = input::read(path).map_err(|e| format!("{e:#}"))?;
    let report = playbook_core::validate_source(&source.text, source.format, &source.options());
    report.playbook.ok_or_else(|| {
        "it is not a structurally valid playbook (`playbook validate` says why)".into()
    })
}
