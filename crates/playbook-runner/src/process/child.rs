//! A started agent process: its own process group (so the whole tree can be
//! killed), bounded capture of what it prints, and signs of life.

use std::io;
use std::path::Path;
use std::process::Stdio;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// What a process printed on one stream, at most `limit` bytes of it.
#[derive(Debug, Default)]
pub struct Captured {
    pub bytes: Vec<u8>,
    /// It printed more than the limit; the rest was read and dropped, so the
    /// process never blocks on a full pipe.
    pub flooded: bool,
}

/// Reads a stream to its end, keeping at most `limit` bytes (the tail when
/// `keep_tail`, else the head), and signalling each read as a sign of life.
fn capture<R: AsyncRead + Unpin + Send + 'static>(
    mut stream: R,
    limit: usize,
    keep_tail: bool,
    alive: mpsc::UnboundedSender<()>,
) -> JoinHandle<Captured> {
    tokio::spawn(async move {
        let mut out = Captured::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match stream.read(&mut buf).await {
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
        let stdout = child
            .stdout
            .take()
            .map(|s| capture(s, stdout_limit, false, tx.clone()));
        let stderr = child.stderr.take().map(|s| capture(s, 4096, true, tx));
        let empty = || tokio::spawn(async { Captured::default() });
        Ok(AgentProcess {
            child,
            pgid,
            stdout: stdout.unwrap_or_else(empty),
            stderr: stderr.unwrap_or_else(empty),
            alive,
        })
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
