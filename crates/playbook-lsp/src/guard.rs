//! A guard in front of the protocol library, so malformed input costs one
//! error response instead of the session.
//!
//! `tower-lsp-server` answers a malformed frame with a parse error and then
//! stops reading (its framed reader ends after the first decoding error),
//! and it buffers whatever length a header announces. The guard reads each
//! frame first: headers through `httparse` (the header parser the library
//! uses), a size limit, the body checked against the library's own
//! `Request` and `Response` types. Frames that pass go to the server
//! unchanged; each other one gets a JSON-RPC error response. The server's
//! output and the guard's errors are merged frame by frame, so they never
//! interleave.
//!
//! A `Content-Length` that does not match its body (a client counting
//! characters, not bytes) leaves part of a body where the next header
//! should be, or swallows the start of the next frame. The reader then
//! skips to the next `Content-Length:` it finds in the header lines, so
//! the session loses the messages involved, not every later one.

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;
use tokio::sync::mpsc::Receiver;
use tower_lsp_server::jsonrpc::{Request, Response};

/// Largest message body accepted. A document is at most 8 MiB
/// (`MAX_DOCUMENT_BYTES`); JSON escapes can make its text up to six times
/// longer in a `didOpen`.
pub const MAX_MESSAGE_BYTES: u64 = 64 * 1024 * 1024;

/// Longest header block (all header lines of one message).
const MAX_HEADER_BYTES: u64 = 8 * 1024;

/// What reading one frame gave.
pub enum Frame {
    Body(Vec<u8>),
    /// Input that is not a frame, with what is wrong with it.
    Malformed(String),
    End,
}

/// Reads `Content-Length` framed messages, one at a time.
#[derive(Default)]
pub struct FrameReader {
    /// The start of the next header, found after bytes that were not part
    /// of any message (see [`FrameReader::read`]).
    carry: Vec<u8>,
}

impl FrameReader {
    /// Reads one framed message. A body longer than the limit is skipped
    /// without being held in memory. Header lines that are not
    /// `Name: value` before a `Content-Length:` (the rest of a body whose
    /// length was announced too short, or a body whose length was too
    /// long and ate the start of this header) are skipped up to it and
    /// reported as one malformed frame, so the frame after them is read
    /// in step.
    pub async fn read(&mut self, reader: &mut (impl AsyncBufRead + Unpin)) -> Frame {
        let mut header = std::mem::take(&mut self.carry);
        loop {
            let mut line = Vec::new();
            let limit = MAX_HEADER_BYTES.saturating_sub(header.len() as u64) + 1;
            match (&mut *reader)
                .take(limit)
                .read_until(b'\n', &mut line)
                .await
            {
                Ok(0) | Err(_) => return Frame::End,
                Ok(_) => {}
            }
            if let Some(at) = content_length_at(&line)
                && (at > 0 || !header.split(|&b| b == b'\n').all(is_header_line))
            {
                let skipped = header.len() + at;
                self.carry = line[at..].to_vec();
                return Frame::Malformed(format!(
                    "{skipped} bytes before a `Content-Length` header are not part of any message (was the previous message's Content-Length its length in bytes?)"
                ));
            }
            header.extend_from_slice(&line);
            if header.len() as u64 > MAX_HEADER_BYTES {
                return Frame::Malformed(format!(
                    "the message header is longer than {MAX_HEADER_BYTES} bytes"
                ));
            }
            if line == b"\r\n" || line == b"\n" {
                break;
            }
        }
        body(reader, &header).await
    }
}

/// Where a `Content-Length:` header name starts in a line, if it has one.
fn content_length_at(line: &[u8]) -> Option<usize> {
    const NAME: &[u8] = b"content-length:";
    line.windows(NAME.len())
        .position(|w| w.eq_ignore_ascii_case(NAME))
}

/// Whether a line of a header block is a `Name: value` header (an empty
/// piece after the last line break counts too).
fn is_header_line(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.is_empty() {
        return true;
    }
    let name_end = line.iter().position(|&b| b == b':').unwrap_or(0);
    name_end > 0
        && line[..name_end]
            .iter()
            .all(|b| b.is_ascii_graphic() && !b"()<>@,;\\\"/[]?={}".contains(b))
}

/// The body of a message whose header block has been read.
async fn body(reader: &mut (impl AsyncBufRead + Unpin), header: &[u8]) -> Frame {
    let mut headers = [httparse::EMPTY_HEADER; 8];
    let length = match httparse::parse_headers(header, &mut headers) {
        Ok(httparse::Status::Complete((_, headers))) => headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case("Content-Length"))
            .map(|h| {
                std::str::from_utf8(h.value)
                    .ok()
                    .and_then(|v| v.trim().parse::<u64>().ok())
            }),
        Ok(httparse::Status::Partial) | Err(_) => {
            return Frame::Malformed(
                "the message header is not `Content-Length: N` lines ended by an empty line"
                    .to_string(),
            );
        }
    };
    let length = match length {
        Some(Some(length)) => length,
        Some(None) => {
            return Frame::Malformed("the Content-Length is not a number of bytes".to_string());
        }
        None => return Frame::Malformed("the message has no Content-Length header".to_string()),
    };
    if length > MAX_MESSAGE_BYTES {
        // Skipped as it streams in, so the next frame is read in step.
        let _ = tokio::io::copy(&mut (&mut *reader).take(length), &mut tokio::io::sink()).await;
        return Frame::Malformed(format!(
            "a message of {length} bytes is larger than the limit of {MAX_MESSAGE_BYTES} bytes"
        ));
    }
    let mut body = Vec::new();
    match (&mut *reader).take(length).read_to_end(&mut body).await {
        Ok(n) if n as u64 == length => Frame::Body(body),
        _ => Frame::End,
    }
}

/// Writes one framed message.
pub async fn write_frame(
    writer: &mut (impl AsyncWrite + Unpin),
    body: &[u8],
) -> std::io::Result<()> {
    writer
        .write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes())
        .await?;
    writer.write_all(body).await?;
    writer.flush().await
}

/// What passed the guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passed {
    /// A `shutdown` request.
    Shutdown,
    /// Any other message.
    Other,
}

/// Checks a frame's body: `Ok` when the server can take it (saying whether
/// it asks for shutdown), else the error response to send instead.
pub fn check(body: &[u8]) -> Result<Passed, Value> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(e) => return Err(error(Value::Null, -32700, format!("parse error: {e}"))),
    };
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned()
        .unwrap_or(Value::Null);
    if let Ok(request) = serde_json::from_value::<Request>(value.clone()) {
        // The protocol: a `$/` request the server does not implement is
        // answered with MethodNotFound (only `$/` notifications may be
        // ignored). The library drops that answer, and this server
        // implements no `$/` request (the protocol's are notifications).
        if request.id().is_some() && request.method().starts_with("$/") {
            return Err(json!({"jsonrpc": "2.0", "id": request.id(), "error": {
                "code": -32601,
                "message": format!("method not found: {}", request.method()),
            }}));
        }
        if request.id().is_some() && request.method() == "shutdown" {
            return Ok(Passed::Shutdown);
        }
        return Ok(Passed::Other);
    }
    if serde_json::from_value::<Response>(value.clone()).is_ok() {
        return Ok(Passed::Other);
    }
    Err(error(
        id,
        -32600,
        "invalid request: a JSON-RPC 2.0 message is an object with \"jsonrpc\": \"2.0\" and a \"method\" (a request or notification) or a \"result\" or \"error\" (a response)".to_string(),
    ))
}

pub fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Copies the server's frames and the guard's error responses to the
/// output, each whole, until both have ended (the server's output closes
/// when the session ends; the queue when the guard stops).
///
/// Two loops share the output under a lock instead of one loop choosing
/// with `select!`: reading a frame is not cancel-safe (what was read of
/// it lives in the reading future), and an error response arriving while
/// a large frame streamed in dropped the half read, after which no frame
/// of the server was copied again. Each loop waits on its own side only.
pub async fn merge(
    mut server: impl AsyncBufRead + Unpin,
    mut errors: Receiver<Value>,
    output: impl AsyncWrite + Unpin,
) {
    let output = Mutex::new(output);
    let frames = async {
        let mut frames = FrameReader::default();
        while let Frame::Body(body) = frames.read(&mut server).await {
            if write_frame(&mut *output.lock().await, &body).await.is_err() {
                break;
            }
        }
        // Dropping the reader closes the pipe: a server writing into a
        // closed output stops instead of waiting for ever.
        drop(server);
    };
    let errors = async {
        while let Some(error) = errors.recv().await {
            let body = error.to_string();
            if write_frame(&mut *output.lock().await, body.as_bytes())
                .await
                .is_err()
            {
                break;
            }
        }
        // Closing the queue ends the guard's sends once no one writes them.
        errors.close();
    };
    tokio::join!(frames, errors);
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8]) -> Vec<String> {
        let mut reader = tokio::io::BufReader::new(input);
        let mut frames = FrameReader::default();
        let mut out = Vec::new();
        loop {
            match frames.read(&mut reader).await {
                Frame::Body(body) => out.push(String::from_utf8_lossy(&body).into_owned()),
                Frame::Malformed(why) => out.push(format!("malformed: {why}")),
                Frame::End => return out,
            }
        }
    }

    #[tokio::test]
    async fn frames_are_read_and_garbage_is_named() {
        let got = frames(b"Content-Length: 2\r\n\r\n{}garbage\r\n\r\nContent-Length: x\r\n\r\nContent-Length: 3\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n[1]").await;
        assert_eq!(got.len(), 4, "{got:?}");
        assert_eq!(got[0], "{}");
        assert!(got[1].starts_with("malformed"));
        assert!(got[2].contains("not a number"));
        assert_eq!(got[3], "[1]");
    }

    /// Regression: a length announced too short or too long put the
    /// reader out of step for good (each body read as the next header).
    #[tokio::test]
    async fn a_wrong_length_skips_to_the_next_header() {
        let got = frames(b"Content-Length: 4\r\n\r\n{\"a\":1}Content-Length: 2\r\n\r\n[]").await;
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0], "{\"a\"");
        assert!(
            got[1].contains("3 bytes before a `Content-Length`"),
            "{got:?}"
        );
        assert_eq!(got[2], "[]");
        // Leftovers on lines of their own, then a header in any case.
        let got = frames(b"junk\r\nmore: junk\r\ncontent-length: 2\r\n\r\n{}").await;
        assert!(got[0].starts_with("malformed"), "{got:?}");
        assert_eq!(got[1], "{}");
        // Other headers before the length are kept.
        let got = frames(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}").await;
        assert_eq!(got, ["{}"]);
    }

    #[tokio::test]
    async fn oversized_and_truncated_frames_end_cleanly() {
        let huge = format!("Content-Length: {}\r\n\r\nabc", MAX_MESSAGE_BYTES + 1);
        let got = frames(huge.as_bytes()).await;
        assert_eq!(got.len(), 1);
        assert!(got[0].contains("larger than the limit"));
        assert!(frames(b"Content-Length: 10\r\n\r\nabc").await.is_empty());
        let long_header = vec![b'a'; 100_000];
        let got = frames(&long_header).await;
        assert!(got[0].contains("longer than"), "{got:?}");
    }

    #[test]
    fn bodies_are_checked_against_json_rpc() {
        assert!(check(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#).is_ok());
        assert_eq!(
            check(br#"{"jsonrpc":"2.0","method":"exit"}"#),
            Ok(Passed::Other)
        );
        assert_eq!(
            check(br#"{"jsonrpc":"2.0","id":9,"method":"shutdown"}"#),
            Ok(Passed::Shutdown)
        );
        assert!(check(br#"{"jsonrpc":"2.0","id":1,"result":null}"#).is_ok());
        assert_eq!(check(b"{\"jsonrpc").unwrap_err()["error"]["code"], -32700);
        let invalid = check(br#"{"jsonrpc":"1.0","id":7,"method":"x"}"#).unwrap_err();
        assert_eq!(
            (invalid["id"].clone(), invalid["error"]["code"].clone()),
            (json!(7), json!(-32600))
        );
        assert_eq!(check(b"[1,2]").unwrap_err()["error"]["code"], -32600);
        // A `$/` request has no handler: MethodNotFound, with its id; a `$/`
        // notification passes (the library ignores it).
        let dollar = check(br#"{"jsonrpc":"2.0","id":"q","method":"$/x"}"#).unwrap_err();
        assert_eq!(
            (dollar["id"].clone(), dollar["error"]["code"].clone()),
            (json!("q"), json!(-32601))
        );
        assert!(
            check(br#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#).is_ok()
        );
    }
}
