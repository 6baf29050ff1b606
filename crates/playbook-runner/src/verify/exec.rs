//! Running one check command: its own process group, a deadline, and the
//! tail of what it printed.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::CommandRun;

/// How much of a command's output is kept, per stream.
pub const OUTPUT_TAIL_BYTES: usize = 8 * 1024;

/// Bytes of a stream read into the window the tail is chosen from: wider
/// than the tail, since the window's partial first line is dropped (a
/// credential may have been cut there) before the tail is taken from the
/// redacted rest (`playbook_redact::redact_tail`).
const WINDOW_BYTES: usize = 4 * OUTPUT_TAIL_BYTES;

/// What is kept of a stream: its last bytes, and whether any came before.
#[derive(Default)]
struct Kept {
    bytes: Vec<u8>,
    cut: bool,
}

impl Kept {
    /// The tail as a record shows it: redacted whole, then cut.
    fn tail(&self) -> String {
        playbook_redact::redact_tail(
            &String::from_utf8_lossy(&self.bytes),
            self.cut,
            OUTPUT_TAIL_BYTES,
        )
    }
}

/// Reads a stream to its end, keeping its last `limit` bytes, so a command
/// that floods its output never blocks on a full pipe.
fn tail<R: AsyncRead + Unpin + Send + 'static>(mut stream: R, limit: usize) -> JoinHandle<Kept> {
    tokio::spawn(async move {
        let mut kept = Kept::default();
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    kept.bytes.extend_from_slice(&buf[..n]);
                    if kept.bytes.len() > 2 * limit {
                        kept.bytes.drain(..kept.bytes.len() - limit);
                        kept.cut = true;
                    }
                }
            }
        }
        if kept.bytes.len() > limit {
            kept.bytes.drain(..kept.bytes.len() - limit);
            kept.cut = true;
        }
        kept
    })
}

fn kill_group(pgid: Option<i32>) {
    if let Some(pgid) = pgid {
        // SAFETY: killpg only sends a signal; the group is the one spawn
        // created for this command, and a stale id at worst fails (ESRCH).
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

/// Runs `argv` in `cwd` until it exits or `deadline` passes.
pub(super) async fn run(argv: &[String], cwd: &Path, deadline: Instant) -> CommandRun {
    let mut outcome = CommandRun {
        argv: argv.to_vec(),
        exit_code: None,
        timed_out: false,
        output_tail: String::new(),
    };
    let Some((program, args)) = argv.split_first() else {
        outcome.output_tail = "empty command".into();
        return outcome;
    };
    let spawned = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            outcome.output_tail = if e.kind() == std::io::ErrorKind::NotFound {
                format!("program `{program}` not found on PATH")
            } else {
                format!("cannot start `{program}`: {e}")
            };
            return outcome;
        }
    };
    let pgid = child.id().and_then(|id| i32::try_from(id).ok());
    let stdout = child.stdout.take().map(|s| tail(s, WINDOW_BYTES));
    let stderr = child.stderr.take().map(|s| tail(s, WINDOW_BYTES));
    match tokio::time::timeout_at(deadline, child.wait()).await {
        Ok(Ok(status)) => outcome.exit_code = status.code(),
        Ok(Err(e)) => outcome.output_tail = format!("waiting for `{program}` failed: {e}"),
        Err(_) => outcome.timed_out = true,
    }
    // Whatever ended the command, what it left running in the background
    // (and holding its output open) goes with it.
    kill_group(pgid);
    let _ = child.start_kill();
    let mut printed = String::new();
    for mut handle in [stdout, stderr].into_iter().flatten() {
        match tokio::time::timeout(Duration::from_secs(5), &mut handle).await {
            Ok(Ok(kept)) => printed.push_str(&kept.tail()),
            // A process that left the group still holds the pipe: stop
            // reading rather than wait for it.
            _ => handle.abort(),
        }
    }
    if outcome.timed_out {
        printed.push_str("\n[killed: the verification ran out of time]");
    }
    outcome.output_tail.insert_str(0, &printed);
    // Each stream's tail is redacted whole before it is cut (above); the
    // whole is redacted again for the messages added to it.
    outcome.output_tail = playbook_redact::redact_str(&outcome.output_tail).into_owned();
    outcome
}
