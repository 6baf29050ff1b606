//! Messages too large for the relay: answered, never dropped in silence.
//!
//! The relay reads MCP as one JSON-RPC message per line. A line has to be
//! bounded (a peer that never sends a newline would fill the memory), and
//! rmcp's reader drops a line over its bound without a word: an agent that
//! sends one (`write_file` with 17 MiB of content) then waits for an answer
//! that never comes, until its heartbeat kills it. So the relay's standard
//! input passes through `framing::guard` first. A line within [`MAX_MESSAGE`] is
//! passed on as it is. A longer one is not kept: it is read to its end while
//! [`Scan`] picks out its `id`, `method` and tool name (wherever they are in
//! the object, even after megabytes of arguments), and rmcp is handed a
//! small request in its place: method [`METHOD`], same `id`. The relay
//! answers that request at once ([`answer`]): a `tools/call` gets a tool
//! error result saying the limit and how to proceed, anything else a
//! JSON-RPC error; and it goes on serving. A message without an `id` (a
//! notification, or one whose `id` cannot be found) needs no answer and is
//! dropped.

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock as Content, CustomResult};
use serde_json::{Value, json};

use super::wire::MAX_LINE;

/// Longest MCP message (one line, without its newline) the relay reads.
/// The relay forwards a call to the run in one line of at most
/// [`MAX_LINE`] bytes, and a forwarded call is no longer than the message
/// it came in (`Link::send` checks it anyway).
pub const MAX_MESSAGE: usize = MAX_LINE;

/// The method of the request that stands in for a message over
/// [`MAX_MESSAGE`]. Only the relay's own guard writes it; an agent that
/// sends it itself is told its message was too large, nothing more.
pub const METHOD: &str = "playbook/oversized";

/// Longest `id`, `method`, tool name or key kept by [`Scan`]; longer ones
/// are not recognised (an answer needs a short `id`).
const MAX_FIELD: usize = 256;

/// What a streaming read of one JSON object found at its top level: the
/// raw JSON of `id`, the `method` text, and `params.name` (the tool of a
/// `tools/call`). Bytes go in as they arrive; nothing but these short
/// fields is kept, so a message of any size costs constant memory.
#[derive(Debug, Default)]
pub(super) struct Scan {
    /// Containers open: 1 inside the top-level object.
    depth: usize,
    /// For depths 1 and 2: an object, the next string a key, its last key.
    frames: [Frame; 3],
    in_string: bool,
    escaped: bool,
    /// The string being read is a key.
    in_key: bool,
    /// A bare value (number, `true`...) is being read.
    in_scalar: bool,
    /// The current key or value, while it stays short.
    text: Vec<u8>,
    too_long: bool,
    id: Option<Vec<u8>>,
    method: Option<Vec<u8>>,
    tool: Option<Vec<u8>>,
}

#[derive(Debug, Default, Clone)]
struct Frame {
    object: bool,
    expect_key: bool,
    key: Vec<u8>,
}

/// Which field a value at the current place is, if any the answer needs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Id,
    Method,
    Tool,
}

impl Scan {
    pub(super) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn keep(&mut self, b: u8) {
        if self.text.len() < MAX_FIELD {
            self.text.push(b);
        } else {
            self.too_long = true;
        }
    }

    fn start_text(&mut self) {
        self.text.clear();
        self.too_long = false;
    }

    /// The field a value at the current depth would be.
    fn field(&self) -> Option<Field> {
        let top = &self.frames[1];
        match self.depth {
            1 if top.object && top.key == b"id" => Some(Field::Id),
            1 if top.object && top.key == b"method" => Some(Field::Method),
            2 if top.object
                && top.key == b"params"
                && self.frames[2].object
                && self.frames[2].key == b"name" =>
            {
                Some(Field::Tool)
            }
            _ => None,
        }
    }

    /// A value (a string with its quotes, or a bare scalar) has ended.
    fn value(&mut self, quoted: bool) {
        if self.too_long {
            return;
        }
        let raw = if quoted {
            let mut raw = Vec::with_capacity(self.text.len() + 2);
            raw.push(b'"');
            raw.extend_from_slice(&self.text);
            raw.push(b'"');
            raw
        } else {
            self.text.clone()
        };
        match self.field() {
            Some(Field::Id) => self.id = Some(raw),
            Some(Field::Method) if quoted => self.method = Some(raw),
            Some(Field::Tool) if quoted => self.tool = Some(raw),
            _ => {}
        }
    }

    fn end_scalar(&mut self) {
        if self.in_scalar {
            self.in_scalar = false;
            self.value(false);
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
                self.keep(b);
            } else if b == b'\\' {
                self.escaped = true;
                self.keep(b);
            } else if b == b'"' {
                self.in_string = false;
                if self.in_key {
                    self.in_key = false;
                    if let Some(frame) = self.frames.get_mut(self.depth) {
                        frame.key = if self.too_long {
                            Vec::new()
                        } else {
                            std::mem::take(&mut self.text)
                        };
                        frame.expect_key = false;
                    }
                } else {
                    self.value(true);
                }
            } else {
                self.keep(b);
            }
            return;
        }
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => self.end_scalar(),
            b'{' | b'[' => {
                self.end_scalar();
                self.depth += 1;
                if let Some(frame) = self.frames.get_mut(self.depth) {
                    *frame = Frame {
                        object: b == b'{',
                        expect_key: b == b'{',
                        key: Vec::new(),
                    };
                }
            }
            b'}' | b']' => {
                self.end_scalar();
                self.depth = self.depth.saturating_sub(1);
            }
            b',' => {
                self.end_scalar();
                if let Some(frame) = self.frames.get_mut(self.depth)
                    && frame.object
                {
                    frame.expect_key = true;
                }
            }
            b':' => self.end_scalar(),
            b'"' => {
                self.end_scalar();
                self.in_string = true;
                self.in_key = self
                    .frames
                    .get(self.depth)
                    .is_some_and(|f| self.depth > 0 && f.object && f.expect_key);
                self.start_text();
            }
            _ => {
                if !self.in_scalar {
                    self.in_scalar = true;
                    self.start_text();
                }
                self.keep(b);
            }
        }
    }

    /// The line to hand rmcp in place of the message (`bytes` long), or
    /// none when it cannot be answered: no `id` or `method` found.
    pub(super) fn stand_in(&self, bytes: usize) -> Option<Vec<u8>> {
        let parse = |raw: &Option<Vec<u8>>| -> Option<Value> {
            serde_json::from_slice(raw.as_deref()?).ok()
        };
        let id = parse(&self.id).filter(|id| id.is_string() || id.is_u64() || id.is_i64())?;
        let method = parse(&self.method)?;
        let tool = parse(&self.tool).unwrap_or(Value::Null);
        let request = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": METHOD,
            "params": { "method": method, "tool": tool, "bytes": bytes },
        });
        let mut line = request.to_string().into_bytes();
        line.push(b'\n');
        Some(line)
    }
}

/// What the agent is told about a message of `bytes` bytes that was too
/// large: the limit, and how to proceed.
pub(super) fn message(method: &str, tool: Option<&str>, bytes: u64) -> String {
    let what = match tool {
        Some(tool) => format!("this `{method}` of `{tool}`"),
        None => format!("this `{method}` message"),
    };
    let mut text = format!(
        "{what} is {bytes} bytes; the tool gateway reads messages of at most {MAX_MESSAGE} bytes, \
         so it was not read and nothing was done. Send less in one message"
    );
    if method == "tools/call" {
        text.push_str(
            ": write a large file in parts (several smaller files, or `write_file` of a first \
             part and `edit_file` to add the rest), keeping each call's arguments well under \
             the limit",
        );
    }
    text.push('.');
    text
}

/// The answer to the stand-in request (its `params`): a tool error result
/// for a `tools/call`, which the model reads and can act on, else a
/// JSON-RPC error.
pub(super) fn answer(params: Option<&Value>) -> Result<CustomResult, ErrorData> {
    let field = |name: &str| params.and_then(|p| p.get(name));
    let method = field("method").and_then(Value::as_str).unwrap_or(METHOD);
    let tool = field("tool").and_then(Value::as_str);
    let bytes = field("bytes").and_then(Value::as_u64).unwrap_or(0);
    let text = message(method, tool, bytes);
    if method == "tools/call" {
        let result = CallToolResult::error(vec![Content::text(text)]);
        serde_json::to_value(result)
            .map(CustomResult::new)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    } else {
        Err(ErrorData::invalid_request(text, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(text: &str) -> Option<Value> {
        let mut scan = Scan::default();
        // Fed in small pieces, as a pipe delivers them.
        for piece in text.as_bytes().chunks(7) {
            scan.feed(piece);
        }
        let line = scan.stand_in(text.len())?;
        serde_json::from_slice(&line).ok()
    }

    #[test]
    fn the_id_method_and_tool_are_found_wherever_they_are() {
        let big = "C".repeat(100_000);
        for text in [
            // Python's json.dumps order: the id after megabytes of params.
            format!(
                r#"{{"jsonrpc": "2.0", "method": "tools/call", "params": {{"name": "write_file", "arguments": {{"path": "a", "content": "{big}"}}}}, "id": 7}}"#
            ),
            format!(
                r#"{{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{{"arguments":{{"content":"{big}","name":"decoy"}},"name":"write_file"}}}}"#
            ),
        ] {
            let stand_in = scanned(&text).expect("answerable");
            assert_eq!(stand_in["id"], 7);
            assert_eq!(stand_in["method"], METHOD);
            assert_eq!(stand_in["params"]["method"], "tools/call");
            assert_eq!(
                stand_in["params"]["tool"], "write_file",
                "not the nested decoy"
            );
            assert_eq!(stand_in["params"]["bytes"], text.len());
        }
    }

    #[test]
    fn strings_that_look_like_structure_do_not_confuse_the_scan() {
        let text = r#"{"params":{"name":"x\"}, \"id\": 99, {","arguments":{"id":5,"k":"\\"}},"method":"tools/call","id":"abc"}"#;
        let stand_in = scanned(text).unwrap();
        assert_eq!(stand_in["id"], "abc");
        assert_eq!(stand_in["params"]["tool"], "x\"}, \"id\": 99, {");
    }

    #[test]
    fn a_message_without_an_id_or_method_is_not_answered() {
        assert!(scanned(r#"{"jsonrpc":"2.0","method":"notifications/x","params":{}}"#).is_none());
        assert!(scanned(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#).is_none());
        assert!(scanned(r#"[{"id":3,"method":"tools/call"}]"#).is_none());
        assert!(scanned("garbage").is_none());
        assert!(scanned(r#"{"id":{"x":1},"method":"tools/call"}"#).is_none());
    }

    #[test]
    fn the_answer_says_the_limit_and_what_to_do() {
        let params = json!({"method": "tools/call", "tool": "write_file", "bytes": 17_825_850});
        let result = answer(Some(&params)).unwrap();
        assert_eq!(result.0["isError"], true);
        let text = result.0["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("17825850") && text.contains(&MAX_MESSAGE.to_string()));
        assert!(text.contains("in parts"), "{text}");
        let params = json!({"method": "resources/read", "bytes": 20_000_000});
        let error = answer(Some(&params)).unwrap_err();
        assert!(error.message.contains("20000000"), "{}", error.message);
    }
}
