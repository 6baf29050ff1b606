//! The protocol handlers: each one finds the document and hands it to the
//! module that knows the feature. Analysis runs under `catch_unwind`, so a
//! defect in it answers one request with an internal error instead of
//! ending the session.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, MutexGuard};

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use crate::document::Document;
use crate::{CodeDocs, actions, complete, definition, diagnostics, hover};

pub struct Backend {
    client: Client,
    docs: CodeDocs,
    documents: Mutex<HashMap<Uri, Document>>,
}

impl Backend {
    pub fn new(client: Client, docs: CodeDocs) -> Backend {
        Backend {
            client,
            docs,
            documents: Mutex::new(HashMap::new()),
        }
    }

    /// A panic while the lock is held leaves the map as it was before the
    /// failed update, which is still a valid map.
    fn documents(&self) -> MutexGuard<'_, HashMap<Uri, Document>> {
        self.documents.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Analyses a new text of a document and publishes its diagnostics.
    async fn update(&self, uri: Uri, language: Option<String>, text: String, version: i32) {
        // Decoded: a legacy file without `id` takes its id from the name
        // the user gave it (`my flow.yaml`), not from its URI spelling.
        let path = uri.path().decode().to_string_lossy().into_owned();
        // Only didOpen names the language; later changes keep it.
        let (language, session) = {
            let mut documents = self.documents();
            // Taken, not copied: the stored document's parse moves on to
            // the new text (a copy of a large playbook's parse would cost
            // what it saves).
            let old = documents.get_mut(&uri);
            let language = language.or_else(|| old.as_ref().and_then(|d| d.language.clone()));
            let session = old.map(|d| std::mem::take(&mut d.session));
            (language, session.unwrap_or_default())
        };
        let analysed = catch_unwind(AssertUnwindSafe(|| {
            Document::analyse_after(&path, language.as_deref(), text, version, session)
        }));
        let Ok(document) = analysed else {
            self.client
                .log_message(
                    MessageType::ERROR,
                    format!(
                        "playbook: could not analyse {}; this is a bug, please report it",
                        uri.as_str()
                    ),
                )
                .await;
            return;
        };
        let publish = {
            let mut documents = self.documents();
            // No version is compared: the text is what the client's
            // notifications say, in the order sent (handlers start in that
            // order and store their text before they first yield), and a
            // client may number again from 0 (a file opened again without a
            // close). Keeping an older text by its higher number left
            // diagnostics and code actions whose ranges no longer matched
            // the editor's text.
            let was_playbook = documents.get(&uri).is_some_and(|old| old.is_playbook);
            let publish = if document.is_playbook {
                Some(diagnostics::of(&document, &self.docs))
            } else {
                // A file that stopped being a playbook keeps no stale findings.
                was_playbook.then(Vec::new)
            };
            documents.insert(uri.clone(), document);
            publish
        };
        if let Some(diagnostics) = publish {
            self.client
                .publish_diagnostics(uri, diagnostics, Some(version))
                .await;
        }
    }

    /// Runs a feature on a playbook document; `None` for other files.
    fn with_playbook<T>(
        &self,
        uri: &Uri,
        feature: impl FnOnce(&Document) -> Option<T>,
    ) -> Result<Option<T>> {
        let documents = self.documents();
        let Some(document) = documents.get(uri).filter(|d| d.is_playbook) else {
            return Ok(None);
        };
        catch_unwind(AssertUnwindSafe(|| feature(document))).map_err(|_| Error::internal_error())
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, _: InitializeParams) -> Result<InitializeResult> {
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::FULL),
                        save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                            include_text: Some(true),
                        })),
                        ..TextDocumentSyncOptions::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(
                        [":", " ", "-", "[", ",", "\""].map(String::from).to_vec(),
                    ),
                    ..CompletionOptions::default()
                }),
                definition_provider: Some(OneOf::Left(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![
                            CodeActionKind::QUICKFIX,
                            CodeActionKind::SOURCE_FIX_ALL,
                        ]),
                        ..CodeActionOptions::default()
                    },
                )),
                position_encoding: Some(PositionEncodingKind::UTF16),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "playbook".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            offset_encoding: None,
        })
    }

    /// The guard noted the request as it passed (`crate::serve`), in the
    /// order the client sent it.
    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.update(doc.uri, Some(doc.language_id), doc.text, doc.version)
            .await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        // Changes come only for open documents: one never opened has no
        // text a ranged change could apply to, and no editor shows its
        // diagnostics, so it is not analysed.
        let Some(mut text) = self.documents().get(&uri).map(|d| d.text.clone()) else {
            return;
        };
        // Full sync is what the server asks for; a client that sends ranged
        // changes anyway gets them applied in order to the last text.
        for change in params.content_changes {
            text = match change.range {
                Some(range) => crate::text::replace(&text, range, &change.text),
                None => change.text,
            };
        }
        self.update(uri, None, text, params.text_document.version)
            .await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        let uri = params.text_document.uri;
        // As for changes: only an open document is analysed.
        let (text, version) = {
            let documents = self.documents();
            let Some(open) = documents.get(&uri) else {
                return;
            };
            let text = params.text.unwrap_or_else(|| open.text.clone());
            (text, open.version)
        };
        self.update(uri, None, text, version).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        let removed = self.documents().remove(&uri);
        if removed.is_some_and(|d| d.is_playbook) {
            self.client.publish_diagnostics(uri, Vec::new(), None).await;
        }
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let at = params.text_document_position_params;
        self.with_playbook(&at.text_document.uri, |d| {
            hover::at(d, at.position, &self.docs)
        })
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let at = params.text_document_position;
        self.with_playbook(&at.text_document.uri, |d| {
            Some(CompletionResponse::Array(complete::at(d, at.position)))
        })
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let at = params.text_document_position_params;
        let uri = at.text_document.uri;
        self.with_playbook(&uri, |d| {
            definition::at(d, &uri, at.position).map(GotoDefinitionResponse::Scalar)
        })
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri;
        let only = params.context.only;
        self.with_playbook(&uri, |d| {
            Some(actions::at(
                d,
                &uri,
                params.range,
                only.as_deref(),
                &self.docs,
            ))
        })
    }
}
