//! The verification that follows a worker (spec/director-associate-contracts.md,
//! "Smart Defaults"): run the `verify_profile`'s commands if it gives any,
//! else the fastest obvious check [`discover`] finds, else report
//! `status: unknown`.
//!
//! Commands run in the task's worktree as argv, never through a shell: a
//! profile's command string is split with shell quoting rules (`shlex`), so
//! `cargo test -p "my crate"` is three arguments, but `;`, `&&`, `|`, `$()`
//! and redirections are plain text. A profile comes from a playbook and a
//! worktree is written by an agent; without a shell, neither can turn a
//! check into something else. A check that needs a shell says so
//! explicitly: `sh -c "make lint && make test"`.
//!
//! Each command runs as the leader of its own process group under one
//! deadline for the whole verification; on timeout the whole group is
//! killed. The first failing command ends the verification. Output is kept
//! as a scrubbed tail, since a test runner's verdict is at the end.

mod discover;
mod exec;

use std::path::Path;
use std::time::Duration;

use playbook_contracts::director::VerifyProfile;
use serde::Serialize;

pub use discover::discover;
pub use exec::OUTPUT_TAIL_BYTES;

/// The verdict of a verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VerifyStatus {
    Pass,
    Fail,
    /// Nothing to run: no command given and none discoverable.
    Unknown,
}

/// One command that ran (or could not start).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandRun {
    pub argv: Vec<String>,
    /// None: it could not start, was killed at the deadline, or died by a
    /// signal.
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// The last [`OUTPUT_TAIL_BYTES`] of standard output then standard
    /// error, secrets scrubbed.
    pub output_tail: String,
}

/// What a verification found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verification {
    /// The profile's mode (`smoke` by default).
    pub mode: String,
    pub status: VerifyStatus,
    /// The commands were discovered, not given by the profile.
    pub discovered: bool,
    pub commands: Vec<CommandRun>,
}

impl Verification {
    /// A one-line account for a result envelope or an event.
    pub fn summary(&self) -> String {
        let status = match self.status {
            VerifyStatus::Pass => "passed",
            VerifyStatus::Fail => "failed",
            VerifyStatus::Unknown => "unknown (nothing to run)",
        };
        match self.commands.last() {
            Some(last) => format!("verification {status}: `{}`", last.argv.join(" ")),
            None => format!("verification {status}"),
        }
    }
}

/// Runs the verification of the worktree `root` within `timeout`.
pub async fn verify(root: &Path, profile: &VerifyProfile, timeout: Duration) -> Verification {
    if !root.is_dir() {
        return Verification {
            mode: profile.mode.clone(),
            status: VerifyStatus::Fail,
            discovered: false,
            commands: vec![CommandRun {
                argv: Vec::new(),
                exit_code: None,
                timed_out: false,
                output_tail: format!("the worktree {} is not a directory", root.display()),
            }],
        };
    }
    let (commands, discovered) = if profile.commands.is_empty() {
        (discover(root).unwrap_or_default(), true)
    } else {
        let mut split = Vec::new();
        for command in &profile.commands {
            match shlex::split(command) {
                Some(argv) if !argv.is_empty() => split.push(argv),
                _ => {
                    // A command that cannot be split is a failed check,
                    // not a skipped one: the profile asked for it.
                    return Verification {
                        mode: profile.mode.clone(),
                        status: VerifyStatus::Fail,
                        discovered: false,
                        commands: vec![CommandRun {
                            argv: vec![command.clone()],
                            exit_code: None,
                            timed_out: false,
                            output_tail: "the command is empty or has an unclosed quote; write it as a command line, e.g. `cargo test`".into(),
                        }],
                    };
                }
            }
        }
        (split, false)
    };
    if commands.is_empty() {
        return Verification {
            mode: profile.mode.clone(),
            status: VerifyStatus::Unknown,
            discovered,
            commands: Vec::new(),
        };
    }
    let deadline = tokio::time::Instant::now() + timeout;
    let mut runs = Vec::new();
    let mut status = VerifyStatus::Pass;
    for argv in commands {
        let run = exec::run(&argv, root, deadline).await;
        let ok = run.exit_code == Some(0) && !run.timed_out;
        runs.push(run);
        if !ok {
            status = VerifyStatus::Fail;
            break;
        }
    }
    Verification {
        mode: profile.mode.clone(),
        status,
        discovered,
        commands: runs,
    }
}
