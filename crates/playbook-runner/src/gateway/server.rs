//! `playbook gateway`: the MCP server an agent process starts. It relays
//! `tools/list` and `tools/call` to the run's broker and holds no rights of
//! its own.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use playbook_orchestrator::agent::ToolResult;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ContentBlock as Content, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::Mutex;
use tokio_util::codec::{FramedRead, FramedWrite, LinesCodec};

use super::wire::{MAX_LINE, Reply, Request, WIRE_VERSION};

struct Link {
    lines: FramedRead<OwnedReadHalf, LinesCodec>,
    out: FramedWrite<OwnedWriteHalf, LinesCodec>,
    next_id: u64,
}

impl Link {
    async fn send(&mut self, request: &Request) -> Result<(), String> {
        let line = serde_json::to_string(request).map_err(|e| e.to_string())?;
        self.out
            .send(line)
            .await
            .map_err(|e| format!("the run's gateway is gone: {e}"))
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
    async fn ask(&mut self, make: impl FnOnce(u64) -> Request) -> Result<Reply, String> {
        self.next_id += 1;
        let request = make(self.next_id);
        self.send(&request).await?;
        match self.receive().await? {
            Reply::Refused { message } => Err(message),
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
        link.send(&Request::Alive).await.map_err(internal)
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
            .map_err(internal)?
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
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let mut link = self.link.lock().await;
        let reply = link
            .ask(|id| Request::Call { id, tool, args })
            .await
            .map_err(internal)?;
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
    .await?;
    match link.receive().await? {
        Reply::Welcome => {}
        Reply::Refused { message } => return Err(message),
        _ => return Err("the run's gateway answered out of turn".into()),
    }
    let relay = Relay {
        link: Arc::new(Mutex::new(link)),
    };
    let service = relay
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("MCP initialisation failed: {e}"))?;
    service
        .waiting()
        .await
        .map_err(|e| format!("the MCP service failed: {e}"))?;
    Ok(())
}
