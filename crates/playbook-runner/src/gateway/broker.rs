//! The run's side of the gateway: a Unix socket in a private directory,
//! one session per agent invocation, each identified by a random token.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::{SinkExt, StreamExt};
use playbook_orchestrator::ErrorCode;
use playbook_orchestrator::agent::{ToolCall, ToolResult};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::{FramedRead, FramedWrite, LinesCodec};

use super::wire::{MAX_LINE, Reply, Request, ToolInfo, WIRE_VERSION};

/// What a session's relay asks of its invocation.
#[derive(Debug)]
pub enum SessionEvent {
    /// A tool call; answer it through `reply`.
    Call {
        call: ToolCall,
        reply: oneshot::Sender<ToolResult>,
    },
    /// The agent showed a sign of life (any MCP message).
    Alive,
}

struct Entry {
    tools: Arc<Vec<ToolInfo>>,
    events: mpsc::UnboundedSender<SessionEvent>,
}

type Sessions = Arc<Mutex<HashMap<String, Entry>>>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic elsewhere must not turn every later call into a panic too.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The gateway's socket and its sessions. Dropping it stops accepting.
pub struct Broker {
    socket: PathBuf,
    sessions: Sessions,
    accept: tokio::task::JoinHandle<()>,
}

/// One invocation's access to the gateway; dropping it revokes the token.
pub struct Session {
    pub token: String,
    pub events: mpsc::UnboundedReceiver<SessionEvent>,
    sessions: Sessions,
}

impl Drop for Session {
    fn drop(&mut self) {
        lock(&self.sessions).remove(&self.token);
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.accept.abort();
        let _ = std::fs::remove_file(&self.socket);
    }
}

impl Broker {
    /// Listens on `dir/gateway.sock`. `dir` must be private to the user
    /// (the runner makes it with mode 0700): the token is the second lock,
    /// not the only one.
    pub fn bind(dir: &Path) -> io::Result<Broker> {
        let socket = dir.join("gateway.sock");
        let listener = UnixListener::bind(&socket)?;
        let sessions: Sessions = Arc::default();
        let shared = sessions.clone();
        let accept = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve_connection(stream, shared.clone()));
            }
        });
        Ok(Broker {
            socket,
            sessions,
            accept,
        })
    }

    pub fn socket_path(&self) -> &Path {
        &self.socket
    }

    /// A session that lists `tools` and forwards calls to its receiver.
    pub fn open_session(&self, tools: Vec<ToolInfo>) -> io::Result<Session> {
        let token = random_token()?;
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.sessions).insert(
            token.clone(),
            Entry {
                tools: Arc::new(tools),
                events: tx,
            },
        );
        Ok(Session {
            token,
            events: rx,
            sessions: self.sessions.clone(),
        })
    }
}

/// 128 random bits as hex, from the operating system.
fn random_token() -> io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

async fn serve_connection(stream: UnixStream, sessions: Sessions) {
    let (read, write) = stream.into_split();
    let mut lines = FramedRead::new(read, LinesCodec::new_with_max_length(MAX_LINE));
    let mut out = FramedWrite::new(write, LinesCodec::new_with_max_length(MAX_LINE));
    let mut send = async |reply: Reply| -> bool {
        let Ok(mut line) = serde_json::to_string(&reply) else {
            return false;
        };
        if line.len() > MAX_LINE {
            // The relay cannot read a longer line and would lose the
            // connection, and every later call with it: the call is told
            // its result was too large instead.
            match serde_json::to_string(&too_large(reply, line.len())) {
                Ok(small) => line = small,
                Err(_) => return false,
            }
        }
        out.send(line).await.is_ok()
    };
    let token = match next(&mut lines).await {
        Some(Request::Hello { version, token }) if version == WIRE_VERSION => token,
        Some(Request::Hello { version, .. }) => {
            let message = format!(
                "the gateway speaks version {WIRE_VERSION}, the relay {version}; use the same playbook binary"
            );
            send(Reply::Refused { message }).await;
            return;
        }
        _ => return,
    };
    if !lock(&sessions).contains_key(&token) {
        let message = "unknown or expired gateway token".to_string();
        send(Reply::Refused { message }).await;
        return;
    }
    if !send(Reply::Welcome).await {
        return;
    }
    while let Some(request) = next(&mut lines).await {
        // Looked up for every request: a token dies with its invocation.
        let session = lock(&sessions)
            .get(&token)
            .map(|e| (e.tools.clone(), e.events.clone()));
        let Some((tools, events)) = session else {
            let message = "the invocation this gateway served has ended".to_string();
            send(Reply::Refused { message }).await;
            return;
        };
        let _ = events.send(SessionEvent::Alive);
        let reply = match request {
            Request::Hello { .. } | Request::Alive => continue,
            Request::List { id } => Reply::Tools {
                id,
                tools: tools.as_ref().clone(),
            },
            Request::Call { id, tool, args } => {
                let (tx, rx) = oneshot::channel();
                let call = ToolCall { tool, args };
                let sent = events.send(SessionEvent::Call { call, reply: tx }).is_ok();
                let result = match (sent, rx.await) {
                    (true, Ok(result)) => result,
                    _ => ToolResult::Denied {
                        code: ErrorCode::RunStopped,
                        message: "the invocation ended before the call could run".into(),
                    },
                };
                Reply::Result { id, result }
            }
        };
        if !send(reply).await {
            return;
        }
    }
}

/// What is sent instead of a reply whose line would be longer than
/// [`MAX_LINE`] bytes (`bytes`).
fn too_large(reply: Reply, bytes: usize) -> Reply {
    let message = format!(
        "the answer is {bytes} bytes, more than the {MAX_LINE} the tool gateway carries; \
         ask for less at a time (a smaller file or part, a narrower search)"
    );
    match reply {
        Reply::Result { id, .. } => Reply::Result {
            id,
            result: ToolResult::Ran {
                result: serde_json::json!({ "ok": false, "error": message }),
            },
        },
        Reply::Tools { .. } | Reply::Welcome | Reply::Refused { .. } => Reply::Refused { message },
    }
}

/// The next well-formed request; a malformed line, a line longer than
/// [`MAX_LINE`] (the relay never sends one: it refuses such a call itself)
/// or a closed connection ends the conversation.
async fn next<R: tokio::io::AsyncRead + Unpin>(
    lines: &mut FramedRead<R, LinesCodec>,
) -> Option<Request> {
    let line = lines.next().await?.ok()?;
    serde_json::from_str(&line).ok()
}
