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

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc::UnboundedReceiver;
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

/// Reads one `Content-Length` framed message. A body longer than the
/// limit is skipped without being held in memory.
pub async fn read_frame(reader: &mut (impl AsyncBufRead + Unpin)) -> Frame {
    let mut header = Vec::new();
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
    let mut headers = [httparse::EMPTY_HEADER; 8];
    let length = match httparse::parse_headers(&header, &mut headers) {
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

/// Checks a frame's body: `Ok` when the server can take it, else the
/// error response to send instead.
pub fn check(body: &[u8]) -> Result<(), Value> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(e) => return Err(error(Value::Null, -32700, format!("parse error: {e}"))),
    };
    let fits = serde_json::from_value::<Request>(value.clone()).is_ok()
        || serde_json::from_value::<Response>(value.clone()).is_ok();
    if fits {
        return Ok(());
    }
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned()
        .unwrap_or(Value::Null);
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
/// output until the server's output ends, then writes the errors left.
pub async fn merge(
    mut server: impl AsyncBufRead + Unpin,
    mut errors: UnboundedReceiver<Value>,
    mut output: impl AsyncWrite + Unpin,
) {
    let mut errors_open = true;
    loop {
        tokio::select! {
            frame = read_frame(&mut server) => match frame {
                Frame::Body(body) => {
                    if write_frame(&mut output, &body).await.is_err() {
                        return;
                    }
                }
                Frame::Malformed(_) | Frame::End => break,
            },
            error = errors.recv(), if errors_open => match error {
                Some(error) => {
                    if write_frame(&mut output, error.to_string().as_bytes()).await.is_err() {
                        return;
                    }
                }
                None => errors_open = false,
            },
        }
    }
    while let Ok(error) = errors.try_recv() {
        if write_frame(&mut output, error.to_string().as_bytes())
            .await
            .is_err()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8]) -> Vec<String> {
        let mut reader = tokio::io::BufReader::new(input);
        let mut out = Vec::new();
        loop {
            match read_frame(&mut reader).await {
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
        assert!(check(br#"{"jsonrpc":"2.0","method":"exit"}"#).is_ok());
        assert!(check(br#"{"jsonrpc":"2.0","id":1,"result":null}"#).is_ok());
        assert_eq!(check(b"{\"jsonrpc").unwrap_err()["error"]["code"], -32700);
        let invalid = check(br#"{"jsonrpc":"1.0","id":7,"method":"x"}"#).unwrap_err();
        assert_eq!(
            (invalid["id"].clone(), invalid["error"]["code"].clone()),
            (json!(7), json!(-32600))
        );
        assert_eq!(check(b"[1,2]").unwrap_err()["error"]["code"], -32600);
    }
}
