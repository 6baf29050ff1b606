//! A started agent process: its own process group (so the whole tree can be
//! killed), bounded capture of what it prints, and signs of life.

use std::io;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// Bytes of an agent's standard error a record quotes: its last words.
pub const STDERR_TAIL: usize = 4096;

/// Bytes of standard error kept to choose those last words from. Wider
/// than [`STDERR_TAIL`]: the window's partial first line is dropped (a
/// credential may have been cut there, `playbook_redact::tail_window`), and
/// the words are taken from the end of what is left, once redacted.
pub const STDERR_WINDOW: usize = 4 * STDERR_TAIL;

/// Once the agent process has exited, how long its output may stay silent
/// before it is no longer read. What it printed before exiting is already
/// in the pipe and reads at once; the pipe stays open past that only when a
/// program it started still holds it (`sleep 300 &`), and waiting for that
/// program to end would hang the run.
pub const QUIET_AFTER_EXIT: Duration = Duration::from_millis(300);

/// Once the agent process has exited, how long its output is read at most:
/// a program it left behind that keeps printing cannot keep the run
/// waiting either.
pub const READ_AFTER_EXIT: Duration = Duration::from_secs(2);

/// What a process printed on one stream, at most `limit` bytes of it.
#[derive(Debug, Default)]
pub struct Captured {
    pub bytes: Vec<u8>,
    /// It printed more than the limit; the rest was read and dropped, so the
    /// process never blocks on a full pipe. For a tail, what was dropped is
    /// the beginning.
    pub flooded: bool,
}

impl Captured {
    /// The last words of a tail capture, as a record may quote them:
    /// redacted whole before they are cut to `max_bytes`.
    pub fn last_words(&self, max_bytes: usize) -> String {
        let text = String::from_utf8_lossy(&self.bytes);
        playbook_redact::redact_tail(&text, self.flooded, max_bytes)
            .trim()
            .to_string()
    }
}

/// Reads a stream to its end, keeping at most `limit` bytes (the tail when
/// `keep_tail`, else the head), and signalling each read as a sign of life.
/// Once `exited` says the process has exited (or its sender is dropped),
/// reading also stops after [`QUIET_AFTER_EXIT`] without data, and at the
/// latest [`READ_AFTER_EXIT`] later.
fn capture<R: AsyncRead + Unpin + Send + 'static>(
    mut stream: R,
    limit: usize,
    keep_tail: bool,
    alive: mpsc::UnboundedSender<()>,
    mut exited: watch::Receiver<bool>,
) -> JoinHandle<Captured> {
    tokio::spawn(async move {
        let mut out = Captured::default();
        let mut buf = vec![0u8; 64 * 1024];
        // Set when the process has exited: when reading stops at the latest.
        let mut stop_at: Option<Instant> = None;
        loop {
            let read = match stop_at {
                None => tokio::select! {
                    read = stream.read(&mut buf) => read,
                    // `read` is cancel-safe: no byte is lost by leaving it.
                    _ = exited.changed() => {
                        stop_at = Some(Instant::now() + READ_AFTER_EXIT);
                        continue;
                    }
                },
                // Checked before reading, not by the timeout below: a
                // timeout lets a read that is ready win, and a stream that
                // is always ready would never end.
                Some(at) if Instant::now() >= at => break,
                Some(at) => {
                    let quiet = (Instant::now() + QUIET_AFTER_EXIT).min(at);
                    match tokio::time::timeout_at(quiet, stream.read(&mut buf)).await {
                        Ok(read) => read,
                        // Nothing came: what the process printed has been
                        // read; a program it started holds the pipe.
                        Err(_) => break,
                    }
                }
            };
            let n = match read {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let _ = alive.send(());
            if keep_tail {
                out.bytes.extend_from_slice(&buf[..n]);
                if out.bytes.len() > limit {
                    let cut = out.bytes.len() - limit;
                    out.bytes.drain(..cut);
                    out.flooded = true;
                }
            } else if out.bytes.len() < limit {
                let room = limit - out.bytes.len();
                out.bytes.extend_from_slice(&buf[..n.min(room)]);
                out.flooded |= n > room;
            } else {
                out.flooded = true;
            }
        }
        out
    })
}

/// A running agent process.
pub struct AgentProcess {
    pub child: Child,
    pgid: Option<i32>,
    pub stdout: JoinHandle<Captured>,
    pub stderr: JoinHandle<Captured>,
    /// A message per read on stdout or stderr.
    pub alive: mpsc::UnboundedReceiver<()>,
    /// Tells the readers of stdout and stderr that the process has exited.
    exited: watch::Sender<bool>,
}

impl AgentProcess {
    /// Starts `argv` in `cwd` as the leader of a new process group, with the
    /// given environment added and `stdin_text` (if any) on its input.
    pub fn spawn(
        argv: &[String],
        cwd: &Path,
        env: &[(String, String)],
        stdin_text: Option<String>,
        stdout_limit: usize,
    ) -> io::Result<AgentProcess> {
        let (program, args) = argv.split_first().ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "the command line is empty")
        })?;
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(cwd)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(if stdin_text.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let pgid = child.id().and_then(|id| i32::try_from(id).ok());
        if let (Some(text), Some(mut stdin)) = (stdin_text, child.stdin.take()) {
            tokio::spawn(async move {
                let _ = stdin.write_all(text.as_bytes()).await;
            });
        }
        let (tx, alive) = mpsc::unbounded_channel();
        let (exited, exited_rx) = watch::channel(false);
        let stdout = child
            .stdout
            .take()
            .map(|s| capture(s, stdout_limit, false, tx.clone(), exited_rx.clone()));
        let stderr = child
            .stderr
            .take()
            .map(|s| capture(s, STDERR_WINDOW, true, tx, exited_rx));
        let empty = || tokio::spawn(async { Captured::default() });
        Ok(AgentProcess {
            child,
            pgid,
            stdout: stdout.unwrap_or_else(empty),
            stderr: stderr.unwrap_or_else(empty),
            alive,
            exited,
        })
    }

    /// Says the process has exited: [`AgentProcess::stdout`] and
    /// [`AgentProcess::stderr`] then end at the end of their stream as
    /// before, or once it has been quiet for [`QUIET_AFTER_EXIT`] (at most
    /// [`READ_AFTER_EXIT`]), when a program the process started still
    /// holds it open.
    pub fn mark_exited(&self) {
        let _ = self.exited.send(true);
    }

    /// Kills the whole process group: the agent and everything it started
    /// (the MCP relay, shells, test runners). Safe to call more than once.
    pub fn kill_tree(&mut self) {
        if let Some(pgid) = self.pgid {
            // SAFETY: killpg only sends a signal; a stale group id at worst
            // fails with ESRCH. The group is ours: spawn made the child its
            // leader.
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
        }
        let _ = self.child.start_kill();
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        // Whatever ends the invocation, nothing it started outlives it.
        self.kill_tree();
    }
}

#[cfg(test)]
mod tests {
    use super::{AgentProcess, Captured};

    /// Starts `script` under `sh`, waits for it to exit, and returns what it
    /// printed on stdout, as the runner reads it.
    async fn printed(script: &str) -> Captured {
        let argv = ["sh", "-c", script].map(String::from);
        let dir = std::env::temp_dir();
        let mut process = AgentProcess::spawn(&argv, &dir, &[], None, 1 << 20).unwrap();
        assert!(process.child.wait().await.unwrap().success());
        process.mark_exited();
        // Far longer than the quiet period, far shorter than the sleep.
        tokio::time::timeout(std::time::Duration::from_secs(20), &mut process.stdout)
            .await
            .expect("reading ends once the process has exited")
            .unwrap()
    }

    #[tokio::test]
    async fn output_held_open_by_a_leftover_program_is_read_whole_without_waiting_for_it() {
        // More than a pipe holds: the shell exits with the last of it still
        // in the pipe, which a `sleep` it started keeps open.
        let out = printed("head -c 300000 /dev/zero; sleep 30 &").await;
        assert_eq!(out.bytes.len(), 300_000);
        assert!(!out.flooded);
    }

    #[test]
    fn last_words_keep_no_piece_of_a_credential_the_window_cut() {
        // The probe's stderr: a token, then 4 096 bytes of padding; the
        // window kept its end, cutting the token's first two characters.
        let token = "ghp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo";
        let printed = format!("{token}\n{}\n", "y".repeat(4096));
        let captured = Captured {
            bytes: printed.as_bytes()[2..].to_vec(),
            flooded: true,
        };
        let words = captured.last_words(4096);
        assert!(!words.contains("Zq8Wm2"), "{words}");
        assert!(words.ends_with("yyy"), "the last line is kept");
        assert!(words.len() <= 4096 + "…".len());
    }
}
