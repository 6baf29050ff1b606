//! The relay's own framing, below rmcp: every request the agent sends gets
//! an answer, even one rmcp would drop without a word.
//!
//! rmcp reads one JSON-RPC message per line and, by design, ignores a line
//! that is not JSON (rust-sdk #938: there is no `id` to answer), and when
//! two requests in progress share an `id`, it answers only the first (its
//! table of requests in progress is keyed by `id`). Either way an agent that
//! sent such a line waits for an answer that never comes, until its
//! heartbeat kills it. So the agent's standard input passes through
//! [`guard`] and rmcp's output through [`pump`]:
//!
//! - a line over the limit is replaced by its stand-in (`oversize.rs`);
//! - a line rmcp could not parse as JSON (not JSON, not UTF-8, cut short)
//!   is answered here, as JSON-RPC 2.0 says: error `-32700` (parse error)
//!   with `id: null`, and not passed on;
//! - a request whose `id` is that of a request still in progress is
//!   answered here with `-32600` (invalid request) and that `id`, and not
//!   passed on, so each request gets exactly one answer;
//! - anything else goes to rmcp unchanged (rmcp answers well-formed JSON
//!   that is not a valid message itself, with `-32600`).
//!
//! Which requests are in progress is kept in [`InFlight`]: a request enters
//! it when it is passed to rmcp, and leaves it when [`pump`] sees rmcp's
//! answer to it (before writing that answer, so the agent can reuse the
//! `id` as soon as it has read it) or the agent cancels it
//! (`notifications/cancelled`: rmcp sends no answer then). [`pump`] writes
//! rmcp's output and this module's own answers to standard output a whole
//! line at a time, so the two never interleave inside a line.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ClientJsonRpcMessage, ClientNotification, JsonRpcMessage, RequestId};
use serde::Deserialize;
use serde_json::error::Category;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::oversize::Scan;

/// JSON-RPC 2.0: invalid JSON was received.
const PARSE_ERROR: i32 = -32700;
/// JSON-RPC 2.0: the JSON sent is not a valid request.
const INVALID_REQUEST: i32 = -32600;

/// The ids of the agent's requests passed to rmcp and not answered yet.
#[derive(Debug, Default, Clone)]
pub(super) struct InFlight(Arc<Mutex<HashSet<RequestId>>>);

impl InFlight {
    /// Records a request as in progress; `false` when its id already is.
    fn start(&self, id: &RequestId) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone())
    }

    fn end(&self, id: &RequestId) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
    }
}

/// An error answer, as one line.
fn error_line(id: Option<&RequestId>, code: i32, message: String) -> Vec<u8> {
    let id = id.map_or(serde_json::Value::Null, |id| id.clone().into_json_value());
    let answer = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    });
    let mut line = answer.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// What becomes of one whole line from the agent (without its newline):
/// `None` to pass it to rmcp, or the answer to give in its place.
fn judge(line: &[u8], in_flight: &InFlight) -> Option<Vec<u8>> {
    // As rmcp reads a line: a CR before the newline and a BOM are not part
    // of the message, and an empty line is skipped (no answer is owed).
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let body = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.is_empty() {
        return None;
    }
    match serde_json::from_slice::<ClientJsonRpcMessage>(body) {
        Ok(JsonRpcMessage::Request(request)) => {
            if in_flight.start(&request.id) {
                return None;
            }
            Some(error_line(
                Some(&request.id),
                INVALID_REQUEST,
                format!(
                    "Invalid request: the id {} is that of a request still in progress, so this request was not run; give every request an id of its own",
                    request.id.clone().into_json_value()
                ),
            ))
        }
        Ok(JsonRpcMessage::Notification(note)) => {
            if let ClientNotification::CancelledNotification(cancel) = &note.notification
                && let Some(id) = &cancel.params.request_id
            {
                in_flight.end(id);
            }
            None
        }
        Ok(_) => None,
        // What rmcp drops in silence (see the module comment).
        Err(e) if matches!(e.classify(), Category::Syntax | Category::Eof) => {
            let what = if std::str::from_utf8(body).is_err() {
                "the message is not UTF-8 text"
            } else {
                "the message is not valid JSON"
            };
            Some(error_line(
                None,
                PARSE_ERROR,
                format!(
                    "Parse error: {what} ({e}), so it was not read and nothing was done; send one JSON-RPC message per line, as UTF-8 JSON"
                ),
            ))
        }
        // Well-formed JSON that is not a valid message: rmcp answers it.
        Err(_) => None,
    }
}

/// Copies `input` (the agent's standard input) to `output` (rmcp) line by
/// line, as the module comment says: a line longer than `limit` bytes is
/// replaced by its stand-in; a line answered here goes to `answers` in its
/// place. Ends when either side closes; `output` is then shut down, so
/// rmcp sees the end.
pub(super) async fn guard<R, W>(
    mut input: R,
    mut output: W,
    limit: usize,
    answers: mpsc::UnboundedSender<Vec<u8>>,
    in_flight: InFlight,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buf = vec![0u8; 64 * 1024];
    let mut line: Vec<u8> = Vec::new();
    // The line being read is over the limit: what it holds so far, read.
    let mut over: Option<(Scan, usize)> = None;
    'read: loop {
        let n = match input.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut chunk = &buf[..n];
        while !chunk.is_empty() {
            let end = chunk.iter().position(|&b| b == b'\n');
            let part = &chunk[..end.unwrap_or(chunk.len())];
            chunk = &chunk[end.map_or(chunk.len(), |i| i + 1)..];
            match &mut over {
                Some((scan, bytes)) => {
                    scan.feed(part);
                    *bytes += part.len();
                }
                None if line.len() + part.len() > limit => {
                    let mut scan = Scan::default();
                    scan.feed(&line);
                    scan.feed(part);
                    over = Some((scan, line.len() + part.len()));
                    // Not kept: a message this large is refused, not read.
                    line = Vec::new();
                }
                None => line.extend_from_slice(part),
            }
            if end.is_none() {
                continue;
            }
            let mut out = match over.take() {
                Some((scan, bytes)) => match scan.stand_in(bytes) {
                    Some(stand_in) => stand_in,
                    None => continue,
                },
                None => std::mem::take(&mut line),
            };
            if out.last() == Some(&b'\n') {
                out.pop();
            }
            if let Some(answer) = judge(&out, &in_flight) {
                if answers.send(answer).is_err() {
                    break 'read;
                }
                continue;
            }
            out.push(b'\n');
            if output.write_all(&out).await.is_err() {
                break 'read;
            }
        }
    }
    // A last line without its newline is passed on as it is (rmcp drops an
    // unfinished message at the end of its input).
    if over.is_none() && !line.is_empty() {
        let _ = output.write_all(&line).await;
    }
    let _ = output.shutdown().await;
}

/// The part of an outgoing message [`pump`] looks at.
#[derive(Deserialize)]
struct Outgoing {
    #[serde(default)]
    id: Option<RequestId>,
    #[serde(default)]
    method: Option<serde::de::IgnoredAny>,
}

/// Writes rmcp's output (`from_rmcp`) and the guard's `answers` to `out`,
/// whole lines each; an answer of rmcp's ends its request in `in_flight`
/// before it is written. Ends when rmcp's output ends (its answers still
/// waiting are written first) or `out` fails.
pub(super) async fn pump<R, W>(
    mut from_rmcp: R,
    mut out: W,
    mut answers: mpsc::UnboundedReceiver<Vec<u8>>,
    in_flight: InFlight,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buf = vec![0u8; 64 * 1024];
    let mut line: Vec<u8> = Vec::new();
    let mut guard_open = true;
    loop {
        // What to write, and whether rmcp wrote it (the guard's own answers
        // end no request: a duplicate's answer carries the id of the request
        // still in progress).
        let (write, from_rmcp_side) = tokio::select! {
            read = from_rmcp.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    // Whole lines only; the rest waits for its newline. Only
                    // the new bytes are searched: a long answer arrives in
                    // many reads.
                    let before = line.len();
                    line.extend_from_slice(&buf[..n]);
                    match buf[..n].iter().rposition(|&b| b == b'\n') {
                        Some(last) => {
                            let rest = line.split_off(before + last + 1);
                            (std::mem::replace(&mut line, rest), true)
                        }
                        None => continue,
                    }
                }
            },
            answer = answers.recv(), if guard_open => match answer {
                Some(answer) => (answer, false),
                None => {
                    guard_open = false;
                    continue;
                }
            },
        };
        let messages = write.split(|&b| b == b'\n').filter(|m| !m.is_empty());
        for message in messages.take_while(|_| from_rmcp_side) {
            if let Ok(Outgoing {
                id: Some(id),
                method: None,
            }) = serde_json::from_slice::<Outgoing>(message)
            {
                in_flight.end(&id);
            }
        }
        if out.write_all(&write).await.is_err() || out.flush().await.is_err() {
            return;
        }
    }
    // rmcp has ended: what it left unfinished and the guard's answers still
    // waiting are written, then nothing more comes.
    line.extend(std::iter::from_fn(|| answers.try_recv().ok()).flatten());
    if !line.is_empty() {
        let _ = out.write_all(&line).await;
    }
    let _ = out.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(line: &str, in_flight: &InFlight) -> Option<serde_json::Value> {
        judge(line.as_bytes(), in_flight).map(|a| serde_json::from_slice(&a).unwrap())
    }

    #[test]
    fn a_line_rmcp_would_drop_is_answered_with_a_parse_error() {
        let in_flight = InFlight::default();
        for line in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x""#,
            "\u{ff}\u{fe} garbage",
            "   ",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":1e400}}"#,
        ] {
            let answer = judged(line, &in_flight).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(answer["error"]["code"], PARSE_ERROR, "{answer}");
            assert_eq!(answer["id"], serde_json::Value::Null);
        }
        let not_utf8 = judge(b"\xff\xfe{}", &in_flight).unwrap();
        assert!(String::from_utf8_lossy(&not_utf8).contains("not UTF-8"));
        // Passed on: rmcp answers these itself, or no answer is owed.
        for line in [
            "",
            "\r",
            r#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#,
            r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ] {
            assert!(judged(line, &in_flight).is_none(), "{line}");
        }
    }

    #[test]
    fn a_request_reusing_the_id_of_one_in_progress_is_answered_alone() {
        let in_flight = InFlight::default();
        let call = r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#;
        assert!(judged(call, &in_flight).is_none(), "the first is passed on");
        let answer = judged(call, &in_flight).expect("the second is answered");
        assert_eq!(answer["id"], "a");
        assert_eq!(answer["error"]["code"], INVALID_REQUEST);
        // Once cancelled (or answered), the id is free again.
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}"#;
        assert!(judged(cancel, &in_flight).is_none());
        assert!(judged(call, &in_flight).is_none());
    }

    #[tokio::test]
    async fn lines_within_the_limit_pass_and_a_longer_one_is_replaced() {
        let (mut agent, relay_in) = tokio::io::duplex(1024);
        let (guarded, mut rmcp) = tokio::io::duplex(1024);
        let (answers, _answered) = mpsc::unbounded_channel();
        let guarding = tokio::spawn(guard(relay_in, guarded, 100, answers, InFlight::default()));
        let small = |id: u32| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
        let big = format!(
            "{{\"method\":\"tools/call\",\"params\":{{\"name\":\"write_file\",\"arguments\":{{\"content\":\"{}\"}}}},\"id\":2}}\n",
            "x".repeat(5000)
        );
        let (first, last) = (small(1), small(3));
        let writing = tokio::spawn(async move {
            agent.write_all(small(1).as_bytes()).await.unwrap();
            agent.write_all(big.as_bytes()).await.unwrap();
            agent.write_all(small(3).as_bytes()).await.unwrap();
        });
        let mut out = String::new();
        rmcp.read_to_string(&mut out).await.unwrap();
        writing.await.unwrap();
        guarding.await.unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(lines[0], first.trim_end());
        assert_eq!(lines[2], last.trim_end());
        let stand_in: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(stand_in["id"], 2);
        assert_eq!(stand_in["method"], super::super::oversize::METHOD);
        assert_eq!(stand_in["params"]["tool"], "write_file");
    }

    #[tokio::test]
    async fn an_answer_frees_its_id_before_it_is_written_and_lines_stay_whole() {
        let in_flight = InFlight::default();
        assert!(in_flight.start(&RequestId::Number(5)));
        let (mut rmcp, from_rmcp) = tokio::io::duplex(1024);
        let (to_agent, mut agent) = tokio::io::duplex(1 << 16);
        let (answers, answered) = mpsc::unbounded_channel();
        let pumping = tokio::spawn(pump(from_rmcp, to_agent, answered, in_flight.clone()));
        // Half a line from rmcp, then one of the guard's answers, then the
        // rest: the answer must not land inside rmcp's line.
        rmcp.write_all(br#"{"jsonrpc":"2.0","id":5,"#)
            .await
            .unwrap();
        tokio::task::yield_now().await;
        answers
            .send(error_line(None, PARSE_ERROR, "x".into()))
            .unwrap();
        rmcp.write_all(b"\"result\":{}}\n").await.unwrap();
        drop(rmcp);
        pumping.await.unwrap();
        let mut out = String::new();
        agent.read_to_string(&mut out).await.unwrap();
        for line in out.lines() {
            serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|_| panic!("{out}"));
        }
        assert_eq!(out.lines().count(), 2, "{out}");
        assert!(in_flight.start(&RequestId::Number(5)), "5 was freed");
    }

    #[tokio::test]
    async fn the_answer_to_a_duplicate_does_not_free_the_id_in_progress() {
        let in_flight = InFlight::default();
        let call = r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#;
        assert!(judge(call.as_bytes(), &in_flight).is_none());
        let duplicate = judge(call.as_bytes(), &in_flight).expect("answered here");
        let (_rmcp, from_rmcp) = tokio::io::duplex(1024);
        let (to_agent, mut agent) = tokio::io::duplex(1 << 16);
        let (answers, answered) = mpsc::unbounded_channel();
        let pumping = tokio::spawn(pump(from_rmcp, to_agent, answered, in_flight.clone()));
        answers.send(duplicate).unwrap();
        // Once the agent has read the duplicate's answer, the first request
        // must still be in progress.
        let mut got = Vec::new();
        while !got.ends_with(b"\n") {
            let mut byte = [0u8; 1];
            agent.read_exact(&mut byte).await.unwrap();
            got.push(byte[0]);
        }
        assert!(
            judge(call.as_bytes(), &in_flight).is_some(),
            "9 is still taken"
        );
        pumping.abort();
    }
}
