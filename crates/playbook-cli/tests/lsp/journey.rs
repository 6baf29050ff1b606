//! One editing session, start to end, as an editor runs it.

use serde_json::{Value, json};

use crate::{Client, DOCS_URL, range};

const TDD: &str = include_str!("../../../../playbooks/tdd.yaml");
const URI: &str = "file:///home/user/team/tdd.yaml";

/// 0-based line of the first line of `text` that contains `needle`, and the
/// UTF-16 column where the needle starts on it.
fn find(text: &str, needle: &str) -> (u64, u64) {
    text.lines()
        .enumerate()
        .find_map(|(i, line)| {
            let byte = line.find(needle)?;
            Some((i as u64, line[..byte].encode_utf16().count() as u64))
        })
        .expect("the needle is in the text")
}

fn position(at: (u64, u64)) -> Value {
    json!({"textDocument": {"uri": URI}, "position": {"line": at.0, "character": at.1}})
}

/// Asks for the code actions at a diagnostic, picks one by title and
/// returns the text with its edit applied.
fn code_action(
    client: &mut Client,
    id: i64,
    text: &str,
    diagnostic: &Value,
    title: &str,
) -> String {
    let response = client.request(
        id,
        "textDocument/codeAction",
        json!({"textDocument": {"uri": URI}, "range": diagnostic["range"],
               "context": {"diagnostics": [diagnostic]}}),
    );
    let actions = response["result"].as_array().expect("a list of actions");
    let action = actions
        .iter()
        .find(|a| a["title"] == title)
        .unwrap_or_else(|| panic!("{title} in {response}"));
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["diagnostics"][0]["code"], diagnostic["code"]);
    let edits = action["edit"]["changes"][URI]
        .as_array()
        .expect("edits of this file");
    assert_eq!(edits.len(), 1, "one edit: {action}");
    let (start, end) = range(&edits[0]["range"]);
    let (start, end) = (offset(text, start), offset(text, end));
    let new_text = edits[0]["newText"].as_str().expect("the new text");
    format!("{}{new_text}{}", &text[..start], &text[end..])
}

/// Byte offset of an LSP position (UTF-16 columns).
fn offset(text: &str, (line, character): (u64, u64)) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line as usize)
        .map(str::len)
        .sum();
    let mut units = 0;
    for (i, c) in text[line_start..].char_indices() {
        if units >= character || c == '\n' {
            return line_start + i;
        }
        units += c.len_utf16() as u64;
    }
    text.len()
}

#[test]
fn an_editing_session() {
    let mut client = Client::start();
    let init = client.initialize();
    let capabilities = &init["result"]["capabilities"];
    assert_eq!(
        capabilities["textDocumentSync"]["change"], 1,
        "full sync: {init}"
    );
    assert_eq!(capabilities["hoverProvider"], true);
    assert_eq!(capabilities["definitionProvider"], true);
    assert!(capabilities["completionProvider"].is_object());
    assert!(capabilities["codeActionProvider"].is_object());

    // Unrelated YAML gets nothing, not even an empty list.
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "file:///home/user/compose.yaml", "languageId": "yaml",
               "version": 1, "text": "services:\n  web: {image: x}\nhandoff_to: 3\n"}}),
    );

    // A playbook (by its `$schema`) with two unknown roles in one
    // handoff_to, the first after non-ASCII text: columns are UTF-16 units.
    let broken = TDD.replacen(
        "handoff_to: [worker]",
        "handoff_to: [\"ünknown😀\", workr]",
        1,
    );
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "yaml", "version": 1, "text": broken}}),
    );
    let published = client.notification("textDocument/publishDiagnostics");
    assert_eq!(
        published["params"]["uri"], URI,
        "only the playbook is linted: {published}"
    );
    assert_eq!(published["params"]["version"], 1);
    let diagnostics = published["params"]["diagnostics"]
        .as_array()
        .expect("a list");
    let unknown: Vec<&Value> = diagnostics
        .iter()
        .filter(|d| d["code"] == "PB301")
        .collect();
    assert_eq!(unknown.len(), 2, "{diagnostics:?}");
    let (line, quote) = find(&broken, "\"ünknown😀\"");
    // The quoted value: 10 characters, 11 UTF-16 units with the emoji.
    assert_eq!(
        range(&unknown[0]["range"]),
        ((line, quote), (line, quote + 11))
    );
    let (_, typo) = find(&broken, "workr]");
    assert_eq!(typo, quote + 13, "the emoji counts two units");
    assert_eq!(
        range(&unknown[1]["range"]),
        ((line, typo), (line, typo + 5))
    );
    for diagnostic in &unknown {
        assert_eq!(diagnostic["severity"], 1, "an error");
        assert_eq!(diagnostic["source"], "playbook");
        let href = diagnostic["codeDescription"]["href"]
            .as_str()
            .unwrap_or_default();
        assert!(
            href.starts_with(&format!("{DOCS_URL}lints.md#pb301")),
            "the code links its docs: {diagnostic}"
        );
        let message = diagnostic["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("hint:"),
            "the hint is in the message: {message}"
        );
    }

    // Hover on the finding: the lint's documentation.
    let hover = client.request(2, "textDocument/hover", position((line, typo + 2)));
    let text = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("PB301"), "{hover}");
    assert!(
        text.len() > 80,
        "the docs section, not only the title: {text}"
    );

    // The quick fixes, as code actions: replace the typo, then remove the
    // unknown role. Each edit is applied as the editor would.
    let replaced = code_action(
        &mut client,
        10,
        &broken,
        unknown[1],
        "Replace `workr` with `worker`",
    );
    assert!(
        replaced.contains("handoff_to: [\"ünknown😀\", worker]"),
        "{replaced}"
    );
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": replaced}]}),
    );
    let published = client.notification("textDocument/publishDiagnostics");
    let left: Vec<Value> = published["params"]["diagnostics"]
        .as_array()
        .expect("a list")
        .iter()
        .filter(|d| d["code"] == "PB301")
        .cloned()
        .collect();
    assert_eq!(left.len(), 1, "{published}");
    let fixed = code_action(
        &mut client,
        11,
        &replaced,
        &left[0],
        "Remove the handoff to `ünknown😀`",
    );

    // The fixed text: the findings are cleared.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"text": fixed}]}),
    );
    let cleared = client.notification("textDocument/publishDiagnostics");
    assert_eq!(cleared["params"]["version"], 3);
    assert_eq!(
        cleared["params"]["diagnostics"],
        json!([]),
        "{cleared}\n{fixed}"
    );
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 4}, "contentChanges": [{"text": TDD}]}),
    );
    client.notification("textDocument/publishDiagnostics");

    // Hover on a key: the schema's description of the field.
    let (mode_line, mode_column) = find(TDD, "mode:");
    let hover = client.request(
        3,
        "textDocument/hover",
        position((mode_line, mode_column + 1)),
    );
    let text = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("mode") && text.contains("reviewer"),
        "{hover}"
    );

    // Completion inside `handoff_to: [worker]`: every role name.
    let (handoff_line, handoff_column) = find(TDD, "handoff_to: [worker]");
    let inside = (handoff_line, handoff_column + "handoff_to: [".len() as u64);
    let completion = client.request(4, "textDocument/completion", position(inside));
    let labels: Vec<&str> = completion["result"]
        .as_array()
        .expect("a list of items")
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    for role in ["planner", "test_author", "worker", "reviewer", "tester"] {
        assert!(labels.contains(&role), "{role} in {labels:?}");
    }

    // Go to definition from `worker` in handoff_to to the worker's name.
    let on_worker = (inside.0, inside.1 + 2);
    let definition = client.request(5, "textDocument/definition", position(on_worker));
    let (name_line, name_column) = find(TDD, "- name: worker");
    assert_eq!(definition["result"]["uri"], URI, "{definition}");
    assert_eq!(
        range(&definition["result"]["range"]),
        ((name_line, name_column + 8), (name_line, name_column + 14))
    );

    // Closing the file clears its diagnostics.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    );
    let closed = client.notification("textDocument/publishDiagnostics");
    assert_eq!(closed["params"]["diagnostics"], json!([]));

    let shutdown = client.request(6, "shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
    assert!(shutdown.get("error").is_none());
    client.notify("exit", Value::Null);
    let leftovers = client.drain();
    assert!(
        leftovers
            .iter()
            .all(|m| m["params"]["uri"] != "file:///home/user/compose.yaml"),
        "no diagnostics for unrelated YAML: {leftovers:?}"
    );
    // The input stays open: `exit` alone ends the process.
    let (status, stderr) = client.wait();
    assert_eq!(
        status.code(),
        Some(0),
        "exit after shutdown is a clean exit; stderr: {stderr}"
    );
}
