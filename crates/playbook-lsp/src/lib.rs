//! The playbook language server: the core's findings as diagnostics, field
//! and lint documentation on hover, completion from the schema and from the
//! playbook itself, go-to-definition from a `handoff_to` entry to its role,
//! and the core's quick fixes as code actions, for any editor that speaks
//! the Language Server Protocol.
//!
//! The protocol (framing, JSON-RPC, request routing, error responses to
//! malformed messages) is `tower-lsp-server`'s; this crate holds what a
//! playbook means, and a guard that answers malformed frames before they
//! reach the library (see the `guard` module). [`serve`] runs the server over any reader and writer;
//! `playbook lsp` runs it over standard input and output. [`embedded`]
//! offers the same completion and hover as plain functions, for a program
//! with its own editor (the desktop app's Source tab).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tower_lsp_server::{LspService, Server};

mod actions;
mod complete;
mod definition;
mod detect;
mod diagnostics;
mod document;
pub mod embedded;
mod guard;
#[cfg(test)]
mod hostile_tests;
mod hover;
mod outline;
mod roles;
mod schema;
mod server;
mod text;

/// The documentation of a finding code, as the embedding program has it
/// (the CLI takes it from docs/lints.md).
#[derive(Debug, Clone, Default)]
pub struct CodeDoc {
    /// The code's section of the docs, as Markdown.
    pub markdown: String,
    /// An absolute link to that section, when the docs are published.
    pub href: Option<String>,
}

/// Looks up the documentation of a code such as `PB301`.
pub type CodeDocs = Arc<dyn Fn(&str) -> Option<CodeDoc> + Send + Sync>;

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// The client asked for `shutdown` before it ended the session, as the
    /// protocol says it must; a process should exit 0 only then.
    pub shutdown_requested: bool,
}

/// Error responses of the guard waiting to be written.
const ERROR_QUEUE: usize = 64;

/// Serves one client until it sends `exit` or closes the input.
pub async fn serve<I, O>(input: I, output: O, docs: CodeDocs) -> Outcome
where
    I: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let shutdown = Arc::new(AtomicBool::new(false));
    let guard_flag = Arc::clone(&shutdown);
    let (service, socket) = LspService::new(move |client| server::Backend::new(client, docs));
    // The guard writes checked frames into one pipe, the server answers
    // into another, and the merge copies its frames and the guard's errors
    // to the real output.
    let (server_input, mut guard_output) = tokio::io::duplex(64 * 1024);
    let (server_output, merge_input) = tokio::io::duplex(64 * 1024);
    // Bounded, as both pipes are: a client that sends and never reads
    // stops being read once its answers cannot be written, instead of
    // growing a queue of answers without limit.
    let (errors, error_queue) = tokio::sync::mpsc::channel(ERROR_QUEUE);
    let server = Server::new(server_input, server_output, socket).serve(service);
    let guard = async move {
        let mut input = BufReader::new(input);
        let mut frames = guard::FrameReader::default();
        loop {
            let message = match frames.read(&mut input).await {
                guard::Frame::Body(body) => guard::check(&body).map(|passed| {
                    // Said here, in the order the client sent it: the
                    // library handles `exit` at once, while the `shutdown`
                    // before it may still wait behind a long analysis.
                    if passed == guard::Passed::Shutdown {
                        guard_flag.store(true, Ordering::SeqCst);
                    }
                    body
                }),
                guard::Frame::Malformed(why) => Err(guard::error(
                    serde_json::Value::Null,
                    -32700,
                    format!("parse error: {why}"),
                )),
                guard::Frame::End => break,
            };
            match message {
                Ok(body) => {
                    if guard::write_frame(&mut guard_output, &body).await.is_err() {
                        break;
                    }
                }
                Err(error) => {
                    // Fails only once the output is gone; reading goes on
                    // until `exit` or the end of the input all the same.
                    let _ = errors.send(error).await;
                }
            }
        }
        // Dropping the pipe ends the server's input: the session ends as
        // when a client closes the stream.
    };
    let merge = guard::merge(BufReader::new(merge_input), error_queue, output);
    let session = async {
        let mut server = std::pin::pin!(server);
        let mut guard = std::pin::pin!(guard);
        tokio::select! {
            // `exit`: the input is no longer read, even if the client keeps it open.
            () = &mut server => {}
            () = &mut guard => server.await,
        }
    };
    tokio::join!(session, merge);
    Outcome {
        shutdown_requested: shutdown.load(Ordering::SeqCst),
    }
}
