//! Tests of `playbook lsp` as an editor drives it: the binary is spawned and
//! spoken to in JSON-RPC with `Content-Length` framing over its standard
//! input and output, as every LSP client does.

mod framing;
mod hostile;
mod journey;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Longest wait for any one message: a server that hangs fails the test
/// instead of stalling the suite.
const TIMEOUT: Duration = Duration::from_secs(20);

/// The docs folder the server is told about.
pub const DOCS_URL: &str = "https://docs.example.org/playbook/docs/";

/// A running `playbook lsp` and the messages it sent that no one read yet.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    unread: Vec<Value>,
    stderr: thread::JoinHandle<String>,
}

impl Client {
    pub fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_playbook"))
            .arg("lsp")
            // Where the docs are published: diagnostics link their code's section.
            .env("PLAYBOOK_DOCS_URL", DOCS_URL)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("playbook lsp starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let (sender, messages) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_frame(&mut reader) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Client {
            stdin: child.stdin.take(),
            child,
            messages,
            unread: Vec::new(),
            stderr,
        }
    }

    /// Writes raw bytes, framing included (or not, for hostile input).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("the server reads its input");
        stdin.flush().expect("the server reads its input");
    }

    pub fn send(&mut self, message: &Value) {
        let body = message.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its response (result or error).
    pub fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(json!(id))
    }

    /// The response with this id (`null` for errors about unreadable input).
    pub fn response(&mut self, id: Value) -> Value {
        self.wait_for(|m| m.get("method").is_none() && m.get("id") == Some(&id))
    }

    /// The next notification of a method.
    pub fn notification(&mut self, method: &str) -> Value {
        self.wait_for(|m| m.get("id").is_none() && m["method"] == method)
    }

    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.unread.iter().position(&wanted) {
            return self.unread.remove(i);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => self.unread.push(message),
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no such message within {TIMEOUT:?}; unread: {}",
                    self.unread_summary()
                ),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!(
                        "the server closed its output; unread: {}",
                        self.unread_summary()
                    )
                }
            }
        }
    }

    /// How many messages are unread and the last few, so a failure after
    /// a flood of error responses stays readable.
    fn unread_summary(&self) -> String {
        let last = &self.unread[self.unread.len().saturating_sub(3)..];
        format!("{} message(s), the last: {last:?}", self.unread.len())
    }

    /// Messages that arrived and were not asked for.
    pub fn drain(&mut self) -> Vec<Value> {
        while let Ok(message) = self.messages.recv_timeout(Duration::from_millis(300)) {
            self.unread.push(message);
        }
        std::mem::take(&mut self.unread)
    }

    pub fn initialize(&mut self) -> Value {
        let response = self.request(
            1,
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {}}),
        );
        self.notify("initialized", json!({}));
        response
    }

    /// Closes the input and waits for the process; returns its status and
    /// what it wrote to standard error.
    pub fn finish(mut self) -> (ExitStatus, String) {
        drop(self.stdin.take());
        self.wait()
    }

    /// Waits for the process with its input still open, as after `exit`
    /// from a client that does not close the stream.
    pub fn wait(mut self) -> (ExitStatus, String) {
        let deadline = Instant::now() + TIMEOUT;
        let status = loop {
            if let Some(status) = self
                .child
                .try_wait()
                .expect("the process can be waited for")
            {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("playbook lsp did not exit within {TIMEOUT:?}");
            }
            thread::sleep(Duration::from_millis(20));
        };
        drop(self.stdin.take());
        let stderr = self.stderr.join().unwrap_or_default();
        (status, stderr)
    }
}

/// Reads one `Content-Length` framed message; `None` at the end.
fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The `(line, character)` start and end of an LSP range.
pub fn range(value: &Value) -> ((u64, u64), (u64, u64)) {
    let at = |p: &Value| {
        (
            p["line"].as_u64().expect("a line"),
            p["character"].as_u64().expect("a character"),
        )
    };
    (at(&value["start"]), at(&value["end"]))
}
