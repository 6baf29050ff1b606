//! The framing and the output under pressure: a frame whose
//! `Content-Length` does not match its body, malformed frames arriving
//! while a large response is on its way out, a client that stops reading,
//! requests the protocol reserves (`$/`). Each costs at most the messages
//! involved, never the session.

use serde_json::{Value, json};

use crate::Client;

fn error_code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error response: {response}"))
}

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn shut_down_cleanly(mut client: Client, id: i64) {
    let shutdown = client.request(id, "shutdown", Value::Null);
    assert!(shutdown.get("error").is_none(), "{shutdown}");
    client.notify("exit", Value::Null);
    let (status, stderr) = client.wait();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
}

/// The protocol: a request whose method starts with `$/` that the server
/// does not know is answered with MethodNotFound (only such notifications
/// may be ignored). The library dropped the answer, so the client waited
/// for ever.
#[test]
fn dollar_requests_are_answered_method_not_found() {
    let mut client = Client::start();
    client.initialize();
    let answer = client.request(2, "$/playbook/unknown", json!({}));
    assert_eq!(error_code(&answer), -32601, "{answer}");
    // A `$/` notification is still ignored, and the session goes on.
    client.notify("$/playbook/unknown", json!({}));
    let unknown = client.request(3, "playbook/unknown", json!({}));
    assert_eq!(error_code(&unknown), -32601, "{unknown}");
    shut_down_cleanly(client, 4);
}

/// A client that counts characters instead of bytes sends a length that
/// is too short; the rest of that body then ran into the next frame's
/// header, and every frame after it was read as the previous one's
/// leftovers: no request was answered again, not even `exit`.
#[test]
fn a_wrong_content_length_costs_one_message_not_the_session() {
    let mut client = Client::start();
    client.initialize();
    // Too short: three bytes of this body are left before the next header.
    let body = r#"{"jsonrpc":"2.0","id":2,"method":"playbook/é"}"#;
    let mut short = format!("Content-Length: {}\r\n\r\n{body}", body.len() - 3).into_bytes();
    short.extend(frame(
        r#"{"jsonrpc":"2.0","id":3,"method":"playbook/next"}"#,
    ));
    client.send_raw(&short);
    let next = client.response(json!(3));
    assert_eq!(
        error_code(&next),
        -32601,
        "the next request is read: {next}"
    );
    // Too long: the body swallows the start of the next frame, which is
    // lost; the one after it is read.
    let body = r#"{"jsonrpc":"2.0","id":4,"method":"playbook/a"}"#;
    let mut long = format!("Content-Length: {}\r\n\r\n{body}", body.len() + 10).into_bytes();
    long.extend(frame(r#"{"jsonrpc":"2.0","id":5,"method":"playbook/b"}"#));
    client.send_raw(&long);
    let after = client.request(6, "playbook/c", json!({}));
    assert_eq!(error_code(&after), -32601, "{after}");
    // A pretty-printed leftover (lines of its own) before the next header.
    client.send_raw(b"Content-Length: 3\r\n\r\n{\n  \"jsonrpc\": \"2.0\"\n}\r\n");
    let pretty = client.request(7, "playbook/d", json!({}));
    assert_eq!(error_code(&pretty), -32601, "{pretty}");
    // Each skipped piece was named in a parse error.
    let errors: Vec<Value> = client
        .drain()
        .into_iter()
        .filter(|m| m["id"].is_null())
        .collect();
    assert!(errors.iter().all(|e| error_code(e) == -32700), "{errors:?}");
    shut_down_cleanly(client, 8);
}

/// The merge of the server's frames and the guard's error responses read
/// a frame inside a `select!`: an error arriving while a large frame was
/// still being read dropped what had been read of it, and the merge
/// stopped copying the server's output for good.
#[test]
fn errors_while_a_large_response_streams_out_do_not_cut_the_output() {
    let mut client = Client::start();
    client.initialize();
    // 1 500 roles, each handing off to a role that does not exist: a
    // publishDiagnostics of several hundred kilobytes.
    let roles: String = (0..1500)
        .map(|i| format!("      - name: r{i}\n        handoff_to: [nope{i}]\n"))
        .collect();
    let text =
        format!("schema_version: 1.0.0\nid: d\nname: D\nworkflow:\n  b:\n    roles:\n{roles}");
    let garbage = b"Content-Length: 1\r\n\r\nx".repeat(300);
    for version in 1..4 {
        if version == 1 {
            client.notify(
                "textDocument/didOpen",
                json!({"textDocument": {"uri": "file:///p/big.playbook.yaml", "languageId": "yaml",
                       "version": 1, "text": text}}),
            );
        } else {
            client.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": "file:///p/big.playbook.yaml", "version": version},
                       "contentChanges": [{"text": format!("{text}# {version}\n")}]}),
            );
        }
        client.send_raw(&garbage);
        let published = client.notification("textDocument/publishDiagnostics");
        assert_eq!(published["params"]["version"], version);
        assert!(
            published["params"]["diagnostics"]
                .as_array()
                .is_some_and(|d| d.len() >= 1500),
            "every finding arrives"
        );
    }
    let parse_errors = client
        .drain()
        .iter()
        .filter(|m| m["error"]["code"] == -32700)
        .count();
    assert_eq!(parse_errors, 900, "one error per malformed frame");
    shut_down_cleanly(client, 2);
}

/// Some clients send `exit` right behind `shutdown`, without waiting for
/// its answer. The client did ask for shutdown first, so the session ended
/// as the protocol says it should (exit code 0), even when `shutdown` was
/// still queued behind a long analysis when `exit` arrived.
#[test]
fn exit_sent_right_behind_shutdown_still_exits_0() {
    let roles: String = (0..3000)
        .map(|i| format!("      - name: r{i}\n        handoff_to: [nope{i}]\n"))
        .collect();
    let text =
        format!("schema_version: 1.0.0\nid: d\nname: D\nworkflow:\n  b:\n    roles:\n{roles}");
    for round in 0..3 {
        let mut client = Client::start();
        client.initialize();
        let open = json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": "file:///p/big.playbook.yaml", "languageId": "yaml",
                       "version": 1, "text": text}}});
        let shutdown = json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"});
        let exit = json!({"jsonrpc": "2.0", "method": "exit"});
        // One write: the three frames arrive together.
        let bytes: Vec<u8> = [open, shutdown, exit]
            .iter()
            .flat_map(|m| frame(&m.to_string()))
            .collect();
        client.send_raw(&bytes);
        let (status, stderr) = client.wait();
        assert_eq!(status.code(), Some(0), "round {round}; stderr: {stderr}");
    }
}

/// A client that stops reading, measured by the server's resident memory
/// (Linux's `/proc`).
#[cfg(target_os = "linux")]
mod unread {
    use std::io::{BufReader, Read, Write};
    use std::process::{Command, Stdio};
    use std::thread;
    use std::time::{Duration, Instant};

    use super::frame;

    /// The resident memory of a process, in KiB (Linux).
    fn resident_kib(pid: u32) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// A client that sends and never reads: the guard queued an error
    /// response per malformed frame without bound (44 MB of garbage grew the
    /// server to 1.8 GB). Now the queue is bounded, the server stops reading
    /// when its answers cannot be written, and nothing is lost once the
    /// client reads again.
    #[test]
    fn a_client_that_does_not_read_holds_the_server_back_not_its_memory() {
        let mut child = Command::new(env!("CARGO_BIN_EXE_playbook"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("playbook lsp starts");
        let pid = child.id();
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        stdin
            .write_all(&frame(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
            ))
            .expect("the server reads");
        thread::sleep(Duration::from_millis(300));
        let before = resident_kib(pid).expect("the process's memory can be read");
        // 4.4 MB of malformed frames from a writer that may block: that is
        // the back-pressure working.
        const FRAMES: usize = 200_000;
        let writer = thread::spawn(move || {
            let garbage = b"Content-Length: 1\r\n\r\nx".repeat(10_000);
            for _ in 0..FRAMES / 10_000 {
                if stdin.write_all(&garbage).is_err() {
                    return None;
                }
            }
            let _ = stdin.flush();
            Some(stdin)
        });
        let deadline = Instant::now() + Duration::from_secs(3);
        let mut peak = before;
        while Instant::now() < deadline && !writer.is_finished() {
            peak = peak.max(resident_kib(pid).unwrap_or(0));
            thread::sleep(Duration::from_millis(50));
        }
        peak = peak.max(resident_kib(pid).unwrap_or(0));
        assert!(
            peak < before + 64 * 1024,
            "the server grew from {before} KiB to {peak} KiB while its output was not read"
        );
        // Reading again: every answer arrives, in order, and the server ends
        // when its input does.
        let reading = thread::spawn(move || {
            let mut buffer = Vec::new();
            let _ = BufReader::new(stdout).read_to_end(&mut buffer);
            buffer
        });
        let stdin = writer
            .join()
            .expect("the writer ends once the server reads");
        drop(stdin);
        let output = reading.join().expect("the output is read");
        let answers = String::from_utf8_lossy(&output)
            .matches("\"code\":-32700")
            .count();
        assert_eq!(answers, FRAMES, "one answer per malformed frame");
        let _ = child.wait();
    }
}
