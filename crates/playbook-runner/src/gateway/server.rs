//! `playbook gateway`: the MCP server an agent process starts. It relays
//! `tools/list` and `tools/call` to the run's broker and holds no rights of
//! its own.
//!
//! Every request gets an answer (`framing.rs`): a message from the agent
//! longer than [`MAX_MESSAGE`] is answered with the limit and how to
//! proceed (`oversize.rs`), a line that is not JSON with a parse error, a
//! request reusing the id of one in progress with an invalid-request
//! error. A call whose line to the broker would be longer than
//! [`MAX_LINE`] is refused the same way before it is sent, since the broker
//! cannot read such a line and would end the connection.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use playbook_orchestrator::agent::ToolResult;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ContentBlock as Content, CustomRequest, CustomResult,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::Mutex;
use tokio_util::codec::{FramedRead, FramedWrite, LinesCodec};

use super::framing::{self, InFlight};
use super::oversize::{self, MAX_MESSAGE};
use super::wire::{MAX_LINE, Reply, Request, WIRE_VERSION};

struct Link {
    lines: FramedRead<OwnedReadHalf, LinesCodec>,
    out: FramedWrite<OwnedWriteHalf, LinesCodec>,
    next_id: u64,
}

/// Why a request did not reach the broker.
enum SendError {
    /// Its line would be longer than [`MAX_LINE`]: not sent, since the
    /// broker would refuse it and close the connection, ending every later
    /// call too.
    TooLarge(usize),
    Failed(String),
}

impl From<SendError> for String {
    fn from(e: SendError) -> String {
        match e {
            SendError::TooLarge(bytes) => format!(
                "the request is {bytes} bytes; the run's gateway reads lines of at most {MAX_LINE}"
            ),
            SendError::Failed(message) => message,
        }
    }
}

impl Link {
    async fn send(&mut self, request: &Request) -> Result<(), SendError> {
        let line = serde_json::to_string(request).map_err(|e| SendError::Failed(e.to_string()))?;
        if line.len() > MAX_LINE {
            return Err(SendError::TooLarge(line.len()));
        }
        self.out
            .send(line)
            .await
            .map_err(|e| SendError::Failed(format!("the run's gateway is gone: {e}")))
    }

    async fn receive(&mut self) -> Result<Reply, String> {
        match self.lines.next().await {
            Some(Ok(line)) => serde_json::from_str(&line)
                .map_err(|e| format!("the run's gateway answered something unreadable: {e}")),
            Some(Err(e)) => Err(format!(
                "the run's gateway answered something unreadable: {e}"
            )),
            None => Err("the run's gateway closed the connection (the invocation ended)".into()),
        }
    }

    /// One request, one reply: calls are answered in order.
    async fn ask(&mut self, make: impl FnOnce(u64) -> Request) -> Result<Reply, SendError> {
        self.next_id += 1;
        let request = make(self.next_id);
        self.send(&request).await?;
        match self.receive().await.map_err(SendError::Failed)? {
            Reply::Refused { message } => Err(SendError::Failed(message)),
            reply => Ok(reply),
        }
    }
}

#[derive(Clone)]
struct Relay {
    link: Arc<Mutex<Link>>,
}

fn internal(message: String) -> ErrorData {
    ErrorData::internal_error(message, None)
}

impl ServerHandler for Relay {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("playbook", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Playbook Studio's tool gateway. Every call is checked against your role's \
                 contract before it runs; a refused call says which rule refused it.",
            )
    }

    async fn ping(&self, _context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        let mut link = self.link.lock().await;
        link.send(&Request::Alive)
            .await
            .map_err(|e| internal(e.into()))
    }

    /// The stand-in for a message too large to read (`oversize.rs`): told
    /// at once, without waiting for a call in progress.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != oversize::METHOD {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            ));
        }
        // A sign of life, if the link is free (a call in progress is one).
        if let Ok(mut link) = self.link.try_lock() {
            let _ = link.send(&Request::Alive).await;
        }
        oversize::answer(request.params.as_ref())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut link = self.link.lock().await;
        let Reply::Tools { tools, .. } = link
            .ask(|id| Request::List { id })
            .await
            .map_err(|e| internal(e.into()))?
        else {
            return Err(internal("the run's gateway answered out of turn".into()));
        };
        let tools = tools
            .into_iter()
            .map(|t| {
                let schema = match t.input_schema {
                    Value::Object(map) => map,
                    _ => Default::default(),
                };
                Tool::new(
                    Cow::Owned(t.name),
                    Cow::Owned(t.description),
                    Arc::new(schema),
                )
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = request.name.to_string();
        let name = tool.clone();
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let mut link = self.link.lock().await;
        let reply = match link.ask(|id| Request::Call { id, tool, args }).await {
            Ok(reply) => reply,
            // A tool error the model reads, not a protocol error it may
            // never see: the call was not made, and it can be made smaller.
            Err(SendError::TooLarge(bytes)) => {
                return Ok(rmcp::model::CallToolResult::error(vec![Content::text(
                    oversize::message("tools/call", Some(&name), bytes as u64),
                )])
                .into());
            }
            Err(SendError::Failed(message)) => return Err(internal(message)),
        };
        let Reply::Result { result, .. } = reply else {
            return Err(internal("the run's gateway answered out of turn".into()));
        };
        Ok(to_mcp(result).into())
    }
}

/// A gateway answer as MCP's tool result: a refusal and a tool's own failure
/// (`"ok": false`) are `isError` results the model reads and can act on.
fn to_mcp(result: ToolResult) -> rmcp::model::CallToolResult {
    use rmcp::model::CallToolResult;
    match result {
        ToolResult::Denied { code, message } => {
            CallToolResult::error(vec![Content::text(format!("{code}: {message}"))])
        }
        ToolResult::Ran { result } => {
            let failed = result.get("ok") == Some(&Value::Bool(false));
            let text = serde_json::to_string_pretty(&result).unwrap_or_default();
            let mut out = if failed {
                CallToolResult::error(vec![Content::text(text)])
            } else {
                CallToolResult::success(vec![Content::text(text)])
            };
            out.structured_content = Some(result);
            out
        }
    }
}

/// Serves MCP on standard input and output until the agent closes it,
/// relaying to the broker at `socket` under `token`.
pub async fn serve_stdio(socket: &Path, token: &str) -> Result<(), String> {
    let stream = UnixStream::connect(socket).await.map_err(|e| {
        format!(
            "cannot reach the run's gateway at {}: {e}",
            socket.display()
        )
    })?;
    let (read, write) = stream.into_split();
    let mut link = Link {
        lines: FramedRead::new(read, LinesCodec::new_with_max_length(MAX_LINE)),
        out: FramedWrite::new(write, LinesCodec::new_with_max_length(MAX_LINE)),
        next_id: 0,
    };
    link.send(&Request::Hello {
        version: WIRE_VERSION,
        token: token.to_string(),
    })
    .await
    .map_err(String::from)?;
    match link.receive().await? {
        Reply::Welcome => {}
        Reply::Refused { message } => return Err(message),
        _ => return Err("the run's gateway answered out of turn".into()),
    }
    let relay = Relay {
        link: Arc::new(Mutex::new(link)),
    };
    // Standard input reaches rmcp through the guard, and rmcp's output
    // reaches standard output through the pump (`framing.rs`): together they
    // answer what rmcp would leave unanswered (a message over MAX_MESSAGE, a
    // line that is not JSON, a second request with the id of one in
    // progress). rmcp's own bound is set above MAX_MESSAGE, so it never
    // drops a line itself.
    let in_flight = InFlight::default();
    let (answers, answered) = tokio::sync::mpsc::unbounded_channel();
    let (guarded, agent_in) = tokio::io::duplex(64 * 1024);
    tokio::spawn(framing::guard(
        tokio::io::stdin(),
        agent_in,
        MAX_MESSAGE,
        answers,
        in_flight.clone(),
    ));
    let (rmcp_out, to_agent) = tokio::io::duplex(64 * 1024);
    let pump = tokio::spawn(framing::pump(
        to_agent,
        tokio::io::stdout(),
        answered,
        in_flight,
    ));
    let transport =
        AsyncRwTransport::new_server(guarded, rmcp_out).with_max_line_length(MAX_MESSAGE + 2);
    let served = match relay.serve(transport).await {
        Ok(service) => service
            .waiting()
            .await
            .map(drop)
            .map_err(|e| format!("the MCP service failed: {e}")),
        Err(e) => Err(format!("MCP initialisation failed: {e}")),
    };
    // rmcp has closed its output (the transport is dropped): the pump
    // writes what is left and ends, so no answer is lost when the process
    // exits.
    let _ = pump.await;
    served
}
