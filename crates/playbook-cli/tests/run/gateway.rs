//! The real `playbook gateway` relay, spoken to as an agent's MCP client
//! speaks to it (JSON-RPC, one message per line on its standard streams),
//! in front of a real broker whose session the test answers. A message
//! too large to read, a line that is not JSON and a second request with
//! the id of one in progress are each answered at once, and the relay goes
//! on serving: it used to drop them in silence, and the agent waited until
//! its heartbeat killed it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use playbook_orchestrator::agent::ToolResult;
use playbook_runner::gateway::{Broker, SessionEvent};
use serde_json::{Value, json};

/// The relay's limit on one message (`gateway::wire::MAX_LINE`).
const LIMIT: usize = 16 * 1024 * 1024;

struct Relay {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    _dir: tempfile::TempDir,
}

impl Relay {
    /// A broker in a runtime of its own, whose one session answers every
    /// call with the tool's name and the size of its arguments, and the
    /// relay process connected to it.
    fn start() -> Relay {
        let dir = tempfile::tempdir().unwrap();
        let socket_dir = dir.path().to_path_buf();
        let (ready, started) = mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let broker = Broker::bind(&socket_dir).unwrap();
                let mut session = broker.open_session(Vec::new()).unwrap();
                ready
                    .send((broker.socket_path().to_path_buf(), session.token.clone()))
                    .unwrap();
                while let Some(event) = session.events.recv().await {
                    if let SessionEvent::Call { call, reply } = event {
                        let bytes = call.args.to_string().len();
                        // `slow` is still in progress a second later.
                        let wait = if call.tool == "slow" { 1000 } else { 0 };
                        let result = json!({"ok": true, "tool": call.tool, "bytes": bytes});
                        tokio::spawn(async move {
                            tokio::time::sleep(Duration::from_millis(wait)).await;
                            let _ = reply.send(ToolResult::Ran { result });
                        });
                    }
                }
            });
        });
        let (socket, token) = started.recv_timeout(Duration::from_secs(10)).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_playbook"))
            .arg("gateway")
            .arg("--socket")
            .arg(&socket)
            .args(["--token", &token])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        let mut relay = Relay {
            child,
            stdin,
            lines,
            _dir: dir,
        };
        relay.send(
            &json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                           "clientInfo": {"name": "test", "version": "1"}}
            })
            .to_string(),
        );
        relay.answer(&json!(1), Duration::from_secs(20));
        relay.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        relay
    }

    fn send(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    fn send_bytes(&mut self, line: &[u8]) {
        self.stdin.write_all(line).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The answer to request `id`, or a failure after `within`.
    #[track_caller]
    fn answer(&mut self, id: &Value, within: Duration) -> Value {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|_| {
                panic!("no answer to request {id} within {within:?}: the relay went silent")
            });
            let message: Value = serde_json::from_str(&line).unwrap();
            if &message["id"] == id {
                return message;
            }
        }
    }

    /// A `tools/call` line of about `size` bytes, its `id` last (as
    /// Python's `json.dumps` orders a dict built that way).
    fn call_line(id: u64, tool: &str, size: usize) -> String {
        format!(
            r#"{{"jsonrpc": "2.0", "method": "tools/call", "params": {{"name": "{tool}", "arguments": {{"path": "big.txt", "content": "{}"}}}}, "id": {id}}}"#,
            "C".repeat(size)
        )
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text_of(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_message_over_the_limit_is_answered_at_once_and_the_relay_goes_on() {
    let mut relay = Relay::start();

    // 17 MiB of content: over the limit; answered as a tool error that
    // says the limit and how to proceed, well before any heartbeat.
    let started = Instant::now();
    relay.send(&Relay::call_line(2, "write_file", 17 * 1024 * 1024));
    let answer = relay.answer(&json!(2), Duration::from_secs(60));
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = text_of(&answer);
    assert!(text.contains(&LIMIT.to_string()), "{text}");
    assert!(
        text.contains("write_file") && text.contains("in parts"),
        "{text}"
    );
    assert!(started.elapsed() < Duration::from_secs(60));

    // The relay still serves: a later call reaches the broker.
    relay.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "list_files", "arguments": {}}})
        .to_string(),
    );
    let answer = relay.answer(&json!(3), Duration::from_secs(20));
    assert_eq!(
        answer["result"]["structuredContent"]["tool"], "list_files",
        "{answer}"
    );

    // Another request over the limit: a JSON-RPC error, with a text id.
    let params = json!({"uri": "C".repeat(LIMIT)});
    relay.send(
        &json!({"jsonrpc": "2.0", "id": "four", "method": "resources/read", "params": params})
            .to_string(),
    );
    let answer = relay.answer(&json!("four"), Duration::from_secs(60));
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(&LIMIT.to_string()), "{message}");

    // A notification over the limit needs no answer and stops nothing; a
    // large call within the limit is relayed whole.
    relay.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
            .to_string(),
    );
    relay.send(&Relay::call_line(5, "write_file", 1024 * 1024));
    let answer = relay.answer(&json!(5), Duration::from_secs(30));
    assert_eq!(
        answer["result"]["structuredContent"]["tool"], "write_file",
        "{answer}"
    );
    assert!(
        answer["result"]["structuredContent"]["bytes"]
            .as_u64()
            .unwrap()
            > 1024 * 1024,
        "{answer}"
    );
    assert!(
        relay.child.try_wait().unwrap().is_none(),
        "the relay is alive"
    );
}

#[test]
fn lines_that_are_not_json_and_a_reused_id_are_answered_and_the_relay_goes_on() {
    let mut relay = Relay::start();
    let call = |id: u64, tool: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": tool, "arguments": {}}})
        .to_string()
    };

    // JSON-RPC 2.0: a parse error is answered with -32700 and a null id.
    let whole = call(2, "list_files");
    let cut_short = &whole[..40];
    for line in [cut_short.as_bytes(), &b"\xff\xfe not UTF-8 at all"[..]] {
        relay.send_bytes(line);
        let answer = relay.answer(&Value::Null, Duration::from_secs(10));
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("not read"), "{message}");
    }

    // A second request with the id of one still in progress: answered on
    // its own (-32600, its id), and the first still gets its result.
    relay.send(&call(3, "slow"));
    relay.send(&call(3, "slow"));
    let first = relay.answer(&json!(3), Duration::from_secs(10));
    assert_eq!(first["error"]["code"], -32600, "{first}");
    let message = first["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("in progress"), "{message}");
    let second = relay.answer(&json!(3), Duration::from_secs(10));
    assert_eq!(
        second["result"]["structuredContent"]["tool"], "slow",
        "{second}"
    );

    // Answered, the id may be used again; the relay still serves.
    relay.send(&call(3, "list_files"));
    let again = relay.answer(&json!(3), Duration::from_secs(10));
    assert_eq!(
        again["result"]["structuredContent"]["tool"], "list_files",
        "{again}"
    );
    assert!(
        relay.child.try_wait().unwrap().is_none(),
        "the relay is alive"
    );
}
