//! A scripted agent process, for tests. It does what a real agent CLI does
//! with the files a run gives it — reads the MCP configuration named by
//! `PLAYBOOK_MCP_CONFIG`, starts the `playbook` server from it, lists the
//! tools, calls them over MCP — but decides nothing: a JSON script (the
//! path in `TESTAGENT_SCRIPT`) says, per role and iteration, which calls to
//! make and what to answer. It knows only docs/agent-protocol.md.
//!
//! Script: `{"<role>": [turn, ...]}` where the turn for iteration k is the
//! k-th (the last repeats), and a turn is
//! `{"calls": [{"tool": "...", "args": {...}}], "list": true, "answer": {...},
//!   "stdout": "raw text instead of the answer", "stderr": "written to
//!   standard error before the answer or exit", "exit": 3, "hang": true,
//!   "flood_bytes": 100000000, "stop_on_denied": true, "hang_after": true}`
//! (`hang_after`: once the calls are made, hang with the gateway still
//! running, as an agent busy thinking does).
//! `{task_id}`, `{run_id}` and `{iteration}` are filled in anywhere in a turn.
//! Every call's result is appended to `TESTAGENT_LOG` (a JSON line each),
//! so a test can see what the agent was told.

use std::io::Write;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

fn env(name: &str) -> Result<String, String> {
    std::env::var(name).map_err(|_| format!("{name} is not set"))
}

fn turn() -> Result<Value, String> {
    let script: Value = serde_json::from_str(
        &std::fs::read_to_string(env("TESTAGENT_SCRIPT")?).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let role = env("PLAYBOOK_ROLE")?;
    let k: usize = env("PLAYBOOK_ITERATION")?
        .parse()
        .map_err(|_| "bad iteration")?;
    let turns = script
        .get(&role)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Ok(turns
        .get(k.saturating_sub(1))
        .or(turns.last())
        .cloned()
        .unwrap_or_else(|| json!({})))
}

fn log(line: &Value) {
    if let Ok(path) = std::env::var("TESTAGENT_LOG")
        && let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
    {
        let _ = writeln!(f, "{line}");
    }
}

/// Fills `{task_id}`, `{run_id}` and `{iteration}` in a turn (its calls'
/// arguments and its answer), so one script serves every task and round.
fn fill(value: &Value) -> Value {
    let text = value.to_string();
    let vars = [
        (
            "{task_id}",
            std::env::var("PLAYBOOK_TASK_ID").unwrap_or_default(),
        ),
        (
            "{run_id}",
            std::env::var("PLAYBOOK_RUN_ID").unwrap_or_default(),
        ),
        (
            "{iteration}",
            std::env::var("PLAYBOOK_ITERATION").unwrap_or_default(),
        ),
    ];
    let text = vars.iter().fold(text, |t, (k, v)| t.replace(k, v));
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

async fn calls(turn: &Value) -> Result<(), String> {
    let calls = turn
        .get("calls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if calls.is_empty() && turn.get("list") != Some(&Value::Bool(true)) {
        return Ok(());
    }
    let config: Value = serde_json::from_str(
        &std::fs::read_to_string(env("PLAYBOOK_MCP_CONFIG")?).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let server = &config["mcpServers"]["playbook"];
    let mut command = tokio::process::Command::new(server["command"].as_str().unwrap_or_default());
    for a in server["args"].as_array().into_iter().flatten() {
        command.arg(a.as_str().unwrap_or_default());
    }
    let client =
        ().serve(TokioChildProcess::new(command).map_err(|e| e.to_string())?)
            .await
            .map_err(|e| format!("MCP initialisation failed: {e}"))?;
    let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    log(&json!({ "listed": names }));
    for call in calls {
        let tool = call["tool"].as_str().unwrap_or_default().to_string();
        let mut params = CallToolRequestParams::new(tool.clone());
        if let Some(args) = call.get("args").and_then(Value::as_object) {
            params = params.with_arguments(args.clone());
        }
        let result = client.call_tool(params).await.map_err(|e| e.to_string())?;
        let denied = result.is_error == Some(true);
        let text: Vec<String> = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        log(&json!({ "tool": tool, "error": denied, "text": text }));
        if denied && turn.get("stop_on_denied") == Some(&Value::Bool(true)) {
            break;
        }
    }
    if turn.get("hang_after") == Some(&Value::Bool(true)) {
        // Busy, silent, with the gateway (a child) still running.
        loop {
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        }
    }
    let _ = client.cancel().await;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let turn = match turn() {
        Ok(t) => fill(&t),
        Err(e) => {
            eprintln!("testagent: {e}");
            std::process::exit(2);
        }
    };
    if turn.get("hang") == Some(&Value::Bool(true)) {
        // A hung agent: silent, forever.
        loop {
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        }
    }
    if let Err(e) = calls(&turn).await {
        eprintln!("testagent: {e}");
        std::process::exit(3);
    }
    if let Some(text) = turn.get("stderr").and_then(Value::as_str) {
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
    if let Some(n) = turn.get("flood_bytes").and_then(Value::as_u64) {
        let chunk = vec![b'x'; 64 * 1024];
        let mut out = std::io::stdout().lock();
        let mut left = n;
        while left > 0 {
            let k = left.min(chunk.len() as u64) as usize;
            if out.write_all(&chunk[..k]).is_err() {
                break;
            }
            left -= k as u64;
        }
        std::process::exit(0);
    }
    if let Some(code) = turn.get("exit").and_then(Value::as_i64) {
        eprintln!("testagent: exiting with {code} as scripted");
        std::process::exit(code as i32);
    }
    match turn.get("stdout").and_then(Value::as_str) {
        Some(raw) => print!("{raw}"),
        None => println!("{}", turn.get("answer").unwrap_or(&json!({"output": {}}))),
    }
}
