//! `run_command` and `run_tests`: programs run in the task's worktree, as
//! argv (no shell), time-limited, with their output clipped and the whole
//! process tree killed at the deadline.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use super::command::{self, Finished, Spec};
use super::files::fail;

/// Default and largest time limit of `run_command`, in seconds.
pub const DEFAULT_TIMEOUT: u64 = 120;
pub const MAX_TIMEOUT: u64 = 3600;
/// Time limit of each test command.
pub const TEST_TIMEOUT: u64 = 1800;
/// Bytes kept of stdout and of stderr, each.
pub const OUTPUT_LIMIT: usize = 64 * 1024;

/// Reads `run_command`'s arguments: the argv and the time limit.
pub fn parse(args: &Value) -> Result<(Vec<String>, u64), String> {
    let argv = match args.get("argv") {
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|v| match v {
                Value::String(s) if !s.contains('\0') => Ok(s.clone()),
                _ => Err("every item of `argv` must be text without NUL bytes".to_string()),
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => {
            return Err(
                "`argv` must be a non-empty list of strings, program first (no shell)".into(),
            );
        }
    };
    if argv.len() > 256 {
        return Err("`argv` has more than 256 items".into());
    }
    if argv[0].is_empty() {
        return Err("the program (`argv[0]`) is empty".into());
    }
    let timeout = match args.get("timeout_seconds") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT,
        Some(v) => match v.as_u64() {
            Some(t) if (1..=MAX_TIMEOUT).contains(&t) => t,
            _ => {
                return Err(format!(
                    "`timeout_seconds` must be a whole number from 1 to {MAX_TIMEOUT}"
                ));
            }
        },
    };
    Ok((argv, timeout))
}

/// Runs `argv` in `cwd` on a blocking thread, so the run's other tasks
/// (the gateway, heartbeats) keep going while it runs.
pub async fn run_in(cwd: PathBuf, argv: Vec<String>, timeout: u64) -> Result<Finished, String> {
    // If this future is dropped (the engine ended the invocation, the run
    // was stopped), the program is killed rather than left to its deadline.
    struct CancelOnDrop(Arc<AtomicBool>);
    impl Drop for CancelOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let _guard = CancelOnDrop(cancel.clone());
    let joined = tokio::task::spawn_blocking(move || {
        let argv: Vec<OsString> = argv.into_iter().map(OsString::from).collect();
        command::run(&Spec {
            argv: &argv,
            cwd: &cwd,
            env: &[],
            timeout: Duration::from_secs(timeout),
            limit: OUTPUT_LIMIT,
            cancel: Some(cancel),
        })
    })
    .await;
    match joined {
        Ok(Ok(finished)) => Ok(finished),
        Ok(Err(e)) => Err(e.0),
        Err(e) => Err(format!("the command could not be waited for: {e}")),
    }
}

/// The JSON of one finished command.
fn report(argv: &[String], f: &Finished, timeout: u64) -> Value {
    let mut out = json!({
        "argv": argv,
        "exit_code": f.code(),
        "timed_out": f.timed_out,
        "duration_ms": u64::try_from(f.elapsed.as_millis()).unwrap_or(u64::MAX),
        "stdout": f.stdout.text(),
        "stderr": f.stderr.text(),
        "stdout_clipped": f.stdout.clipped,
        "stderr_clipped": f.stderr.clipped,
    });
    if let Some(signal) = f.signal() {
        out["signal"] = json!(signal);
    }
    if f.timed_out {
        out["note"] = json!(format!(
            "killed with its whole process group after {timeout} s; raise timeout_seconds (at most {MAX_TIMEOUT}) if it needs longer"
        ));
    }
    out
}

pub async fn run_command(cwd: &Path, args: &Value) -> Value {
    let (argv, timeout) = match parse(args) {
        Ok(parsed) => parsed,
        Err(e) => return fail(e),
    };
    match run_in(cwd.to_path_buf(), argv.clone(), timeout).await {
        Ok(f) => {
            let mut out = report(&argv, &f, timeout);
            out["ok"] = json!(!f.timed_out);
            if f.timed_out {
                out["error"] = out["note"].clone();
            }
            out
        }
        Err(e) => fail(e),
    }
}

pub async fn run_tests(cwd: &Path, commands: &[Vec<String>]) -> Value {
    let commands: Vec<&Vec<String>> = commands
        .iter()
        .filter(|argv| argv.first().is_some_and(|p| !p.is_empty()))
        .collect();
    if commands.is_empty() {
        return json!({
            "ok": true,
            "status": "unknown",
            "note": "no test command is known for this repository (no verify profile and none discovered)",
        });
    }
    let mut reports = Vec::new();
    let mut passed = true;
    for argv in commands {
        match run_in(cwd.to_path_buf(), argv.clone(), TEST_TIMEOUT).await {
            Ok(f) => {
                reports.push(report(argv, &f, TEST_TIMEOUT));
                if !f.success() {
                    passed = false;
                    break;
                }
            }
            Err(e) => {
                reports.push(json!({ "argv": argv, "error": e }));
                passed = false;
                break;
            }
        }
    }
    json!({
        "ok": true,
        "status": if passed { "passed" } else { "failed" },
        "commands": reports,
    })
}
