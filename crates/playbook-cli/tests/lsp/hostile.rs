//! Input no editor should send: the server answers with JSON-RPC errors and
//! keeps serving, and never panics or hangs.

use serde_json::{Value, json};

use crate::Client;

fn error_code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error response: {response}"))
}

#[test]
fn malformed_frames_get_error_responses_and_the_server_goes_on() {
    let mut client = Client::start();
    // A request before initialize.
    let early = client.request(1, "textDocument/hover", json!({}));
    assert_eq!(error_code(&early), -32002, "server not initialized");
    let init = client.request(2, "initialize", json!({"capabilities": {}}));
    assert!(init["result"]["capabilities"].is_object(), "{init}");
    client.notify("initialized", json!({}));

    // A body that is not JSON: a parse error for id null.
    client.send_raw(b"Content-Length: 9\r\n\r\n{\"jsonrpc");
    let parse = client.response(Value::Null);
    assert_eq!(error_code(&parse), -32700, "{parse}");
    // A Content-Length that does not fit any integer.
    client.send_raw(b"Content-Length: 99999999999999999999999999\r\n\r\n");
    let too_long = client.response(Value::Null);
    assert!(too_long["error"].is_object(), "{too_long}");
    // Bytes without any header, then a frame that is valid JSON but not
    // JSON-RPC.
    client.send_raw(b"GET / HTTP/1.1\r\n\r\n");
    let not_a_header = client.response(Value::Null);
    assert_eq!(error_code(&not_a_header), -32700, "{not_a_header}");
    client.send(&json!([1, 2, 3]));
    let batch = client.response(Value::Null);
    assert_eq!(error_code(&batch), -32600, "{batch}");
    // A JSON-RPC 1.0 request keeps its id in the error.
    client.send(&json!({"jsonrpc": "1.0", "id": 42, "method": "initialize"}));
    let old = client.response(json!(42));
    assert_eq!(error_code(&old), -32600, "{old}");

    // An unknown method: method not found, with its id.
    let unknown = client.request(3, "playbook/selfDestruct", json!({}));
    assert_eq!(error_code(&unknown), -32601, "{unknown}");
    // Wrong parameters: invalid params.
    let bad = client.request(4, "textDocument/hover", json!({"nope": true}));
    assert_eq!(error_code(&bad), -32602, "{bad}");
    // A position far outside an open document.
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "file:///p/playbook.yaml", "languageId": "yaml",
               "version": 1, "text": "id: x\nworkflow: {b: {roles: [{name: é😀}]}}\n"}}),
    );
    let far = json!({"textDocument": {"uri": "file:///p/playbook.yaml"},
                     "position": {"line": 4_000_000_000u32, "character": 4_000_000_000u32}});
    for (id, method) in [
        (5, "textDocument/hover"),
        (6, "textDocument/completion"),
        (7, "textDocument/definition"),
    ] {
        let response = client.request(id, method, far.clone());
        assert!(response.get("error").is_none(), "{method}: {response}");
    }

    // A ranged change, though the server asked for full sync: applied.
    client.notification("textDocument/publishDiagnostics");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "file:///p/playbook.yaml", "version": 2},
               "contentChanges": [{"range": {"start": {"line": 0, "character": 4},
                                             "end": {"line": 0, "character": 5}},
                                   "text": "renamed"}]}),
    );
    let changed = client.notification("textDocument/publishDiagnostics");
    assert_eq!(changed["params"]["version"], 2, "{changed}");

    // Still serving after all that.
    let shutdown = client.request(8, "shutdown", Value::Null);
    assert!(shutdown.get("error").is_none(), "{shutdown}");
    client.notify("exit", Value::Null);
    let (status, stderr) = client.finish();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_huge_content_length_with_no_body_does_not_hang_or_allocate() {
    let mut client = Client::start();
    client.initialize();
    // 1 TiB announced, never sent: the server must wait for the bytes
    // without reserving them, and end when the input closes.
    client.send_raw(b"Content-Length: 1099511627776\r\n\r\n{\"jsonrpc\":\"2.0\"");
    let (status, stderr) = client.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
    // No shutdown came first, so not a clean exit.
    assert_eq!(status.code(), Some(1), "stderr: {stderr}");
}

#[test]
fn huge_and_deep_documents_get_findings_not_a_stall() {
    let mut client = Client::start();
    client.initialize();
    let huge = format!("id: x\nname: {}\n", "a".repeat(9 * 1024 * 1024));
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "file:///p/big.playbook.yaml", "languageId": "yaml",
               "version": 1, "text": huge}}),
    );
    let published = client.notification("textDocument/publishDiagnostics");
    assert_eq!(
        published["params"]["diagnostics"][0]["code"], "PB005",
        "{published}"
    );
    let deep = "[".repeat(200_000);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "file:///p/deep.playbook.json", "languageId": "json",
               "version": 1, "text": deep}}),
    );
    let published = client.notification("textDocument/publishDiagnostics");
    assert!(
        !published["params"]["diagnostics"]
            .as_array()
            .expect("a list")
            .is_empty()
    );
    for (id, uri) in [
        (2, "file:///p/big.playbook.yaml"),
        (3, "file:///p/deep.playbook.json"),
    ] {
        let at = json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 3}});
        let response = client.request(id, "textDocument/completion", at);
        assert!(response.get("error").is_none(), "{response}");
    }
    let shutdown = client.request(9, "shutdown", Value::Null);
    assert!(shutdown.get("error").is_none());
    client.notify("exit", Value::Null);
    let (status, stderr) = client.finish();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
}

/// A change or save of a document the client never opened made the
/// server analyse the change's text alone (a ranged change's fragment as
/// the whole file) and publish findings of text no editor holds. The
/// protocol sends changes only for open documents; others are ignored.
#[test]
fn changes_to_documents_never_opened_are_ignored() {
    let mut client = Client::start();
    client.initialize();
    let uri = "file:///p/never.playbook.yaml";
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 5},
               "contentChanges": [{"range": {"start": {"line": 3, "character": 0},
                                             "end": {"line": 3, "character": 2}},
                                   "text": "id: fragment\n"}]}),
    );
    client.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}, "text": "id: saved\n"}),
    );
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}});
    let hover = client.request(2, "textDocument/hover", at);
    assert!(hover["result"].is_null(), "{hover}");
    let published: Vec<Value> = client
        .drain()
        .into_iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .collect();
    assert!(published.is_empty(), "{published:?}");
    // Opened, it is analysed as usual.
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
               "text": "id: x\n"}}),
    );
    let opened = client.notification("textDocument/publishDiagnostics");
    assert_eq!(opened["params"]["uri"], uri);
    let shutdown = client.request(3, "shutdown", Value::Null);
    assert!(shutdown.get("error").is_none());
    client.notify("exit", Value::Null);
    let (status, stderr) = client.finish();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
}

/// A document opened again without a close (a client reloading a file),
/// or changed with a lower version number (a client that numbers from 0
/// again), was ignored when its version was lower than the one held: the
/// server kept the old text, its diagnostics and code actions whose
/// ranges no longer matched the editor's text (applied, they corrupt it).
/// Messages are handled in the order sent; that order is the text.
#[test]
fn a_reopened_or_renumbered_document_is_the_text_last_sent() {
    let mut client = Client::start();
    client.initialize();
    let uri = "file:///p/reopened.playbook.yaml";
    let clean = include_str!("../../../../playbooks/tdd.yaml");
    let broken = clean.replacen("max_parallel_worktrees: 1", "max_parallel_worktrees: 0", 1);
    assert_ne!(clean, broken);
    let open = |client: &mut Client, version: i64, text: &str| {
        client.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": version,
                   "text": text}}),
        );
        client.notification("textDocument/publishDiagnostics")
    };
    let first = open(&mut client, 10, &broken);
    assert_eq!(
        first["params"]["diagnostics"][0]["code"], "PB102",
        "{first}"
    );
    // Opened again, numbered from 1: the new text counts.
    let again = open(&mut client, 1, clean);
    assert_eq!(again["params"]["version"], 1);
    assert_eq!(again["params"]["diagnostics"], json!([]), "{again}");
    let everything = json!({"textDocument": {"uri": uri},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 999, "character": 0}},
        "context": {"diagnostics": [], "only": ["source.fixAll"]}});
    let actions = client.request(2, "textDocument/codeAction", everything);
    assert_eq!(
        actions["result"],
        json!([]),
        "nothing to fix in the editor's text"
    );
    // A change with a lower version still is the editor's next text.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 0},
               "contentChanges": [{"text": broken}]}),
    );
    let changed = client.notification("textDocument/publishDiagnostics");
    assert_eq!(changed["params"]["version"], 0);
    assert_eq!(
        changed["params"]["diagnostics"][0]["code"], "PB102",
        "{changed}"
    );
    let shutdown = client.request(3, "shutdown", Value::Null);
    assert!(shutdown.get("error").is_none());
    client.notify("exit", Value::Null);
    let (status, stderr) = client.finish();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
}

/// A legacy file without `id` takes its id from its file name; the name is
/// the one the user sees, not its URI spelling (`%20` for a space).
#[test]
fn a_legacy_id_comes_from_the_decoded_file_name() {
    let mut client = Client::start();
    client.initialize();
    let text = "name: Flow\nworkflow:\n  build:\n    roles:\n      - name: worker\n";
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "file:///p/My%20Flow.playbook.yaml", "languageId": "yaml",
               "version": 1, "text": text}}),
    );
    let published = client.notification("textDocument/publishDiagnostics");
    let messages: Vec<&str> = published["params"]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("read as `my flow.playbook`")),
        "{messages:?}"
    );
    assert!(!messages.iter().any(|m| m.contains("%20")), "{messages:?}");
    let shutdown = client.request(2, "shutdown", Value::Null);
    assert!(shutdown.get("error").is_none());
    client.notify("exit", Value::Null);
    let (status, stderr) = client.finish();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
}
