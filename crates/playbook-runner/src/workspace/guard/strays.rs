//! Processes of the run that outlived their invocation (see the guard's
//! documentation): found by the run's id in their environment or a working
//! folder inside the worktree of a task at work, started after the run.

use std::path::{Path, PathBuf};

use super::entries::QUOTED_WIDTH;

/// What marks a process as the run's.
#[derive(Debug)]
pub(super) struct Strays {
    /// `PLAYBOOK_RUN_ID=<run id>`, as the run's agent processes carry it.
    run_env: Vec<u8>,
    /// When the run started, in clock ticks since boot (`/proc` times).
    started_ticks: u64,
}

impl Strays {
    pub(super) fn new(run_id: &str) -> Strays {
        Strays {
            run_env: format!("PLAYBOOK_RUN_ID={run_id}").into_bytes(),
            // A second of slack: the clock of `/proc/uptime` and the start
            // times are both rounded.
            started_ticks: uptime_ticks().saturating_sub(ticks_per_second()),
        }
    }

    /// Kills the run's processes that are still running after their
    /// invocation (see the module's documentation); returns a few of them,
    /// named, and how many were killed. Looked for again until none is
    /// left, since one may be forking as it is killed.
    pub(super) fn kill(&self, live: &[PathBuf]) -> (Vec<String>, usize) {
        const NAMED: usize = 5;
        let me = std::process::id();
        let mut named = Vec::new();
        let mut count = 0;
        for _round in 0..10 {
            let strays = self.strays(me, live);
            if strays.is_empty() {
                break;
            }
            for (pid, command) in strays {
                // SAFETY: kill only sends a signal, to a process of this
                // user that carries this run's id or works in its
                // worktrees and started after the run.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
                count += 1;
                if named.len() < NAMED {
                    named.push(format!("{pid} `{command}`"));
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        (named, count)
    }

    /// The live processes (zombies aside) of this run other than this one.
    fn strays(&self, me: u32, live: &[PathBuf]) -> Vec<(i32, String)> {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for entry in dir.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            if u32::try_from(pid).ok() == Some(me) {
                continue;
            }
            let proc = entry.path();
            // Another user's environment cannot be read: not ours.
            let Ok(environ) = std::fs::read(proc.join("environ")) else {
                continue;
            };
            let ours = environ
                .split(|b| *b == 0)
                .any(|var| var == self.run_env.as_slice())
                || std::fs::read_link(proc.join("cwd"))
                    .is_ok_and(|cwd| live.iter().any(|w| cwd.starts_with(w)));
            if !ours {
                continue;
            }
            let Some((state, start)) = state_and_start(&proc) else {
                continue;
            };
            if state == 'Z' || start < self.started_ticks {
                continue;
            }
            let cmdline = std::fs::read(proc.join("cmdline")).unwrap_or_default();
            let command: String = String::from_utf8_lossy(&cmdline)
                .replace('\0', " ")
                .trim()
                .chars()
                .take(QUOTED_WIDTH)
                .collect();
            out.push((pid, command));
        }
        out
    }
}

/// A process's state letter and start time (clock ticks since boot), from
/// `/proc/<pid>/stat`; fields are counted after the command's closing
/// parenthesis, since the command may hold spaces and parentheses.
fn state_and_start(proc: &Path) -> Option<(char, u64)> {
    let stat = std::fs::read_to_string(proc.join("stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    // `state` is field 3 of stat(5); `starttime` is field 22.
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
}

fn ticks_per_second() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|t| *t > 0).unwrap_or(100)
}

/// Now, in clock ticks since boot, as `/proc/<pid>/stat` counts start
/// times. Zero when it cannot be read: every process then counts as
/// started after the run, and only the run's id and worktrees decide.
fn uptime_ticks() -> u64 {
    let seconds = std::fs::read_to_string("/proc/uptime")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    (seconds * ticks_per_second() as f64) as u64
}
