//! No secret reaches any record: scripted agents leak every form of secret
//! through every path an agent has (error text, questions, failing
//! evidence, notes, outputs, raw output text, tool arguments, changes,
//! review issues, a verbatim result, the role assigner's answer, the run
//! input itself), and every sink is searched for each secret: the JSONL
//! event log, the live report's lines, the worklogs, the ledger, the audit
//! log, the orchestrator outputs (deltas, blockers), the handoff bundle,
//! the task summaries and the store's recorded run.

use serde_json::{Value, json};

use playbook_orchestrator::event::describe;
use playbook_orchestrator::{Approval, Preview, preview};
use playbook_store::Store;

use crate::{events, fixture_playbook};

/// Every form, each with the exact text that must not appear anywhere.
const FORMS: &[(&str, &str)] = &[
    ("see api_key=sv-space-1x9q", "sv-space-1x9q"),
    ("line one\napi_key=sv-newline-2x9q", "sv-newline-2x9q"),
    ("col\tapi_key=sv-tab-3x9q\tend", "sv-tab-3x9q"),
    (r#"{"api_key": "sv-json-4x9q"}"#, "sv-json-4x9q"),
    (
        "token ghp_Zq8Wm3Kx7Vb2Nc5Lp9Rt4Hy6Jd1Fs0Ga2Ek7",
        "Zq8Wm3Kx7Vb2Nc5Lp9Rt4Hy6Jd1Fs0Ga2Ek7",
    ),
    ("key AKIAZ7Y6X5W4V3U2T1S0 in use", "Z7Y6X5W4V3U2T1S0"),
    ("Authorization: Bearer brSecret77xyzQ", "brSecret77xyzQ"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpemBodySecret123\nQkZ0x==\n-----END RSA PRIVATE KEY-----",
        "MIIEpemBodySecret123",
    ),
    (
        "clone https://bob:urlPassw0rd9@git.example.com/x.git",
        "urlPassw0rd9",
    ),
    ("PassWord: MixedCase9pw", "MixedCase9pw"),
    ("token='quotedTok3n99'", "quotedTok3n99"),
    (
        "aws_secret_access_key=wJalrXUtnFEMIK7MDENGbPxRfiCYsecr3t",
        "wJalrXUtnFEMIK7MDENGbPxRfiCYsecr3t",
    ),
    (
        "sk-ant-api03-Anthr0picSecretKey42xx",
        "Anthr0picSecretKey42xx",
    ),
    (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJqd3QifQ.jwtSignatureSecret55",
        "jwtSignatureSecret55",
    ),
];

/// All forms in one text, with a different separator before each.
fn leak(tag: &str) -> String {
    let separators = [" ", "\n", "\t", " | ", "\r\n"];
    let mut text = format!("{tag}:");
    for (i, (form, _)) in FORMS.iter().enumerate() {
        text.push_str(separators[i % separators.len()]);
        text.push_str(form);
    }
    text
}

/// One task per path an agent can leak through.
pub(crate) fn scenario() -> Value {
    let tasks: Vec<Value> = (1..=11)
        .map(|i| {
            json!({
                "id": format!("T-{i}"),
                // Titles are limited to 500 characters: one form each.
                "title": format!("task {i} {}", FORMS[i % FORMS.len()].0),
                "acceptance_criteria": [format!("criterion {}", leak("criterion"))],
            })
        })
        .collect();
    let structured = json!({
        "api_key": "sv-structured-5x9q",
        "nested": { "password": "MixedCase9pw", "log": leak("nested") },
        "list": [leak("list")],
    });
    json!({
        "schema_version": "1.0.0",
        "name": "secrets-everywhere",
        "input": {
            "goal": leak("goal"),
            "tasks": tasks,
            "values": { "repo": leak("repo"), "deploy_token": "sv-value-6x9q" },
        },
        "role_assignment": { "default": leak("assigner") },
        "roles": {
            "test_author": { "tasks": {
                "T-1": { "default": { "error": leak("error") } },
                "T-2": { "default": { "needs_input": [leak("question")] } },
                "T-3": { "default": {
                    "status": "done",
                    "acceptance_check": [{
                        "criterion": "the tests fail first",
                        "status": "fail",
                        "evidence": leak("evidence"),
                    }],
                } },
                "T-4": { "default": { "notes": [leak("note")] } },
                "T-5": { "default": { "output": structured } },
                "T-6": { "default": { "output_text": leak("output_text") } },
                "T-7": { "default": { "tool_calls": [
                    { "tool": "read_file", "args": { "path": leak("args"), "token": "sv-arg-7x9q" } },
                    { "tool": "deploy", "args": { "command": leak("blocked") } },
                ] } },
                "T-8": { "default": { "changes": [
                    { "resource": leak("resource"), "action": "modified", "evidence": leak("change") },
                ] } },
                "T-9": { "default": { "result": { "status": "done", "summary": leak("result"), "api_key": "sv-result-8x9q" } } },
                "T-10": { "default": { "status": "failed", "acceptance_check": [{
                    "criterion": "the tests fail first",
                    "status": "fail",
                    "evidence": leak("failed evidence"),
                }] } },
            } },
            "reviewer": { "tasks": {
                "T-11": { "default": { "output": { "verdict": "fail", "issues": [leak("issue")] } } },
            } },
        },
    })
}

/// Every text a run leaves behind, one string per sink.
fn sinks(run: &Preview) -> Vec<(&'static str, String)> {
    let report = &run.report;
    let mut out = vec![("jsonl", run.jsonl.clone())];
    let live: Vec<String> = events(run)
        .iter()
        .filter_map(|e| describe(&e.event))
        .collect();
    out.push(("live report", live.join("\n")));
    let worklogs: String = report
        .worklogs
        .tasks()
        .map(|(task, _)| report.worklogs.jsonl(task))
        .collect();
    out.push(("worklogs", worklogs));
    let ledger: Vec<String> = report
        .ledger
        .rows()
        .map(|(task, row)| format!("{task} {}", serde_json::to_string(row).unwrap()))
        .collect();
    out.push(("ledger", ledger.join("\n")));
    out.push(("audit", serde_json::to_string(&report.audit).unwrap()));
    out.push(("outputs", serde_json::to_string(&report.outputs).unwrap()));
    out.push(("handoff", serde_json::to_string(&report.handoff).unwrap()));
    out.push(("tasks", serde_json::to_string(&report.tasks).unwrap()));
    out.push(("findings", serde_json::to_string(&report.findings).unwrap()));
    out
}

/// Each secret, also as it reads inside JSON text (escaped).
pub(crate) fn leaks_in(text: &str) -> Vec<&'static str> {
    let mut found: Vec<&'static str> = FORMS
        .iter()
        .map(|(_, secret)| *secret)
        .chain([
            "sv-structured-5x9q",
            "sv-value-6x9q",
            "sv-arg-7x9q",
            "sv-result-8x9q",
        ])
        .filter(|secret| text.contains(secret))
        .collect();
    found.dedup();
    found
}

fn run_leaky() -> Preview {
    let scenario = serde_json::to_string(&scenario()).unwrap();
    for (_, secret) in FORMS {
        assert!(scenario.contains(secret), "the scenario carries {secret}");
    }
    preview(&fixture_playbook("tdd"), &scenario, 3, Approval::Auto).expect("the preview starts")
}

#[test]
fn no_secret_reaches_any_record() {
    let run = run_leaky();
    let mut leaks = Vec::new();
    for (sink, text) in sinks(&run) {
        let found = leaks_in(&text);
        if !found.is_empty() {
            leaks.push(format!("{sink}: {found:?}"));
        }
    }
    assert!(
        leaks.is_empty(),
        "secrets in records:\n{}",
        leaks.join("\n")
    );
}

#[test]
fn every_leak_path_was_taken() {
    // The redactor is only proven if the secrets went where records are
    // written: each path left its redacted trace.
    let run = run_leaky();
    let jsonl = &run.jsonl;
    for code in [
        "AGENT_FAILED",
        "NEEDS_INPUT",
        "RESULT_INCONSISTENT",
        "OUTPUT_NOT_JSON",
        "TOOL_NOT_ALLOWED",
    ] {
        assert!(jsonl.contains(code), "no {code} in the log:\n{jsonl}");
    }
    assert!(jsonl.contains("[REDACTED]"));
    let audit = serde_json::to_string(&run.report.audit).unwrap();
    assert!(
        audit.contains("[REDACTED]"),
        "raw outputs and tool args are kept, redacted"
    );
    let outputs = serde_json::to_string(&run.report.outputs).unwrap();
    assert!(outputs.contains("blockers") && outputs.contains("[REDACTED]"));
    let worklogs: String = run
        .report
        .worklogs
        .tasks()
        .map(|(task, _)| run.report.worklogs.jsonl(task))
        .collect();
    assert!(worklogs.contains("[REDACTED]"));
}

#[test]
fn the_store_keeps_no_secret_even_when_given_one() {
    let run = run_leaky();
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("library.db")).unwrap();
    let saved = store
        .create_from_text(
            playbook_orchestrator::reference::PLAYBOOK,
            playbook_core::Format::Yaml,
            "reference flow",
        )
        .unwrap();
    let stored = store
        .create_run(&saved.playbook, None, &leak("scenario name"), 3)
        .unwrap();
    // The run's own (already redacted) events, plus raw lines a client
    // might send unredacted.
    let raw_json =
        serde_json::to_string(&json!({ "type": "warning", "message": leak("raw") })).unwrap();
    let raw_text = leak("not json");
    let mut lines: Vec<(u64, &str)> = run
        .jsonl
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u64, l))
        .collect();
    let next = lines.len() as u64;
    lines.push((next, &raw_json));
    store.append_events(stored, &lines).unwrap();
    // Appending the same raw line again is an idempotent retry, not a conflict.
    store
        .append_events(stored, &[(next, raw_json.as_str())])
        .unwrap();
    assert!(
        store
            .append_events(stored, &[(next + 1, &raw_text)])
            .is_err(),
        "not JSON"
    );
    let summary = serde_json::to_string(&json!({ "note": leak("summary") })).unwrap();
    store.finish_run(stored, "failed", Some(&summary)).unwrap();

    let record = store.run(stored).unwrap();
    let events: String = store
        .run_events(stored)
        .unwrap()
        .into_iter()
        .map(|e| e.event + "\n")
        .collect();
    let text = format!(
        "{}\n{}\n{}",
        record.scenario,
        record.summary.unwrap_or_default(),
        events
    );
    assert_eq!(leaks_in(&text), Vec::<&str>::new(), "secrets stored");
    assert!(events.contains("[REDACTED]"));
}

#[test]
fn a_refused_run_redacts_its_reasons_too() {
    let scenario = json!({
        "input": { "goal": "x" },
        "repo": { "README.md": "hello" },
        "preflight": [{ "name": leak("preflight"), "path": "README.md", "contains": leak("needle") }],
    });
    let run = preview(
        &fixture_playbook("tdd"),
        &serde_json::to_string(&scenario).unwrap(),
        0,
        Approval::Auto,
    )
    .unwrap();
    assert!(run.jsonl.contains("PREFLIGHT_FAILED"));
    for (sink, text) in sinks(&run) {
        assert_eq!(leaks_in(&text), Vec::<&str>::new(), "secrets in {sink}");
    }
}
