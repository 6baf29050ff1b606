//! Running a program with bounds: its own process group (so the whole tree
//! can be killed), a deadline, and a cap on what is kept of its output.
//!
//! Used for `git` and for the agent's commands alike, so no process the
//! workspace starts can hang a run or fill its memory: output beyond the cap
//! is read and dropped (the program never blocks on a full pipe), and at the
//! deadline — or as soon as the program itself exits — the whole group is
//! killed, so a grandchild left sleeping cannot keep a pipe open.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use std::os::unix::process::{CommandExt, ExitStatusExt};

/// Environment variables a child never inherits: git's own redirections
/// (they would point a worktree's git at another repository) and anything
/// that looks like a credential of the runner.
fn withheld(name: &str) -> bool {
    const GIT: &[&str] = &[
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_PREFIX",
    ];
    const SECRET: &[&str] = &[
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "API_KEY",
        "APIKEY",
        "ACCESS_KEY",
        "PRIVATE_KEY",
        "CREDENTIAL",
        "SESSION_KEY",
        "AUTH",
    ];
    let upper = name.to_ascii_uppercase();
    GIT.contains(&upper.as_str()) || SECRET.iter().any(|s| upper.contains(s))
}

/// What a process printed on one stream: at most the cap, and whether more
/// was dropped.
#[derive(Debug, Default, Clone)]
pub struct Captured {
    pub bytes: Vec<u8>,
    pub clipped: bool,
}

impl Captured {
    /// The text, lossily decoded (a clip may cut a character in two). Of a
    /// clipped stream, only what no credential cut at the clip can have
    /// touched (`playbook_redact::head_window`): the text reaches a tool
    /// result and the audit log, whose redaction must see every secret
    /// whole.
    pub fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.bytes);
        if self.clipped {
            playbook_redact::head_window(&text).to_string()
        } else {
            text.into_owned()
        }
    }
}

/// How a bounded run ended.
#[derive(Debug)]
pub struct Finished {
    pub status: Option<ExitStatus>,
    pub timed_out: bool,
    pub stdout: Captured,
    pub stderr: Captured,
    pub elapsed: Duration,
}

impl Finished {
    /// The exit code, when the program exited rather than died of a signal.
    pub fn code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }

    pub fn success(&self) -> bool {
        !self.timed_out && self.status.is_some_and(|s| s.success())
    }

    /// The signal that ended the program, if one did.
    pub fn signal(&self) -> Option<i32> {
        self.status.and_then(|s| s.signal())
    }
}

/// One program to run.
pub struct Spec<'a> {
    pub argv: &'a [OsString],
    pub cwd: &'a Path,
    pub env: &'a [(&'a str, &'a str)],
    pub timeout: Duration,
    /// Bytes kept of stdout and of stderr, each.
    pub limit: usize,
    /// Set by the caller to end the program early (its caller went away:
    /// the run was stopped); the group is killed as at the deadline.
    pub cancel: Option<Arc<AtomicBool>>,
}

/// Why a program could not be started.
#[derive(Debug)]
pub struct SpawnError(pub String);

fn drain<R: Read + Send + 'static>(mut stream: R, limit: usize) -> mpsc::Receiver<Captured> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut out = Captured::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let room = limit.saturating_sub(out.bytes.len());
                    out.bytes.extend_from_slice(&buf[..n.min(room)]);
                    out.clipped |= n > room;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = tx.send(out);
    });
    rx
}

fn kill_group(pgid: i32) {
    // SAFETY: killpg only sends a signal. The group is the one spawn made
    // the child lead; a group that is already gone fails with ESRCH.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Runs `spec` to its end or its deadline, whichever comes first. Blocks
/// the calling thread; async callers run it on a blocking thread.
pub fn run(spec: &Spec<'_>) -> Result<Finished, SpawnError> {
    let Some((program, args)) = spec.argv.split_first() else {
        return Err(SpawnError("the command line is empty".into()));
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(spec.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_none_or(withheld) {
            command.env_remove(&name);
        }
    }
    command.envs(spec.env.iter().copied());
    let started = Instant::now();
    let mut child = command.spawn().map_err(|e| {
        let name = program.to_string_lossy();
        SpawnError(match e.kind() {
            std::io::ErrorKind::NotFound => {
                format!("`{name}` was not found (not on PATH, or the working folder is gone)")
            }
            std::io::ErrorKind::PermissionDenied => format!("`{name}` is not executable"),
            _ => format!("`{name}` could not be started: {e}"),
        })
    })?;
    let pgid = i32::try_from(child.id()).unwrap_or(0);
    let stdout = child.stdout.take().map(|s| drain(s, spec.limit));
    let stderr = child.stderr.take().map(|s| drain(s, spec.limit));
    let deadline = started + spec.timeout;
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None)
                if Instant::now() >= deadline
                    || spec
                        .cancel
                        .as_ref()
                        .is_some_and(|c| c.load(Ordering::Relaxed)) =>
            {
                timed_out = true;
                if pgid > 0 {
                    kill_group(pgid);
                }
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => thread::sleep(Duration::from_millis(5)),
            Err(_) => {
                let _ = child.kill();
                break child.wait().ok();
            }
        }
    };
    // Whatever the leader left running in its group (a daemon holding the
    // pipes open) dies with it, so reading the pipes ends.
    if pgid > 0 {
        kill_group(pgid);
    }
    let collect = |rx: Option<mpsc::Receiver<Captured>>| {
        rx.and_then(|rx| rx.recv_timeout(Duration::from_secs(5)).ok())
            .unwrap_or_default()
    };
    Ok(Finished {
        status,
        timed_out,
        stdout: collect(stdout),
        stderr: collect(stderr),
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::withheld;

    #[test]
    fn secrets_and_git_redirections_are_withheld() {
        for name in [
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "GIT_DIR",
            "aws_secret_access_key",
        ] {
            assert!(withheld(name), "{name}");
        }
        for name in ["PATH", "HOME", "CARGO_HOME", "LANG"] {
            assert!(!withheld(name), "{name}");
        }
    }
}
