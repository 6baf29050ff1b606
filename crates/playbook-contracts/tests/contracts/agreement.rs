//! Our checks and an independent validator on the published schemas agree:
//! a table of envelopes — valid, and each invariant broken — goes through
//! both (strict mode, which is what the schemas say) and the verdicts must
//! match on every row.
//!
//! Left out on purpose, because JSON Schema cannot compare two fields or
//! look across array items: `heartbeat_interval_seconds <
//! timeout_seconds` and unique `delta_id`s (see
//! `assignment_packets_enforce_ids_ranges_and_invariants`).

use playbook_contracts::EnvelopeKind;
use serde_json::{Value, json};

use crate::timestamps::{handoff_bundle, orchestrator_output, worklog_entry};
use crate::{fixture, schema};

/// One row: a name, the envelope kind, the document and whether it is valid.
struct Row {
    name: String,
    kind: EnvelopeKind,
    value: Value,
    valid: bool,
}

fn edit(base: &Value, pointer: &str, new: Value) -> Value {
    let mut value = base.clone();
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    match value.pointer_mut(parent).unwrap() {
        Value::Object(object) => {
            if new.is_null() && key.starts_with('-') {
                object.remove(&key[1..]);
            } else {
                object.insert(key.to_string(), new);
            }
        }
        Value::Array(items) => items[key.parse::<usize>().unwrap()] = new,
        _ => panic!("{pointer}"),
    }
    value
}

fn remove(base: &Value, pointer: &str) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    edit(base, &format!("{parent}/-{key}"), Value::Null)
}

fn subagent_rows() -> Vec<(&'static str, Value, bool)> {
    let base = fixture("subagent-result");
    let check = |status: &str, evidence: Value| {
        let mut c = json!({"criterion": "c", "status": status});
        if !evidence.is_null() {
            c["evidence"] = evidence;
        }
        c
    };
    let with = |status: &str, checks: Vec<Value>| {
        let v = edit(&base, "/status", json!(status));
        edit(&v, "/acceptance_check", Value::Array(checks))
    };
    vec![
        ("the spec example", base.clone(), true),
        ("done, no checks", with("done", vec![]), false),
        (
            "done, a failing check",
            with("done", vec![check("fail", json!("log"))]),
            false,
        ),
        (
            "done, one pass one fail",
            with(
                "done",
                vec![check("pass", json!("log")), check("fail", json!("log"))],
            ),
            false,
        ),
        (
            "done, empty evidence",
            with("done", vec![check("pass", json!(""))]),
            false,
        ),
        (
            "done, blank evidence",
            with("done", vec![check("pass", json!(" \t\n"))]),
            false,
        ),
        (
            "done, ideographic-space evidence",
            with("done", vec![check("pass", json!("\u{3000}\u{a0}"))]),
            false,
        ),
        (
            "done, byte-order-mark evidence",
            with("done", vec![check("pass", json!("\u{feff}"))]),
            false,
        ),
        (
            "done, evidence missing",
            with("done", vec![check("pass", Value::Null)]),
            false,
        ),
        (
            "done, evidence not text",
            with("done", vec![check("pass", json!(1))]),
            false,
        ),
        (
            "done, evidence with a dot",
            with("done", vec![check("pass", json!("."))]),
            true,
        ),
        (
            "done, two passing checks",
            with(
                "done",
                vec![check("pass", json!("a")), check("pass", json!("b"))],
            ),
            true,
        ),
        (
            "failed, a failing check",
            with("failed", vec![check("fail", json!(""))]),
            true,
        ),
        ("failed, no checks", with("failed", vec![]), true),
        ("blocked, no checks", with("blocked", vec![]), true),
        (
            "blocked, blank evidence",
            with("blocked", vec![check("pass", json!(" "))]),
            true,
        ),
        (
            "status unknown",
            edit(&base, "/status", json!("finished")),
            false,
        ),
        ("status missing", remove(&base, "/status"), false),
        (
            "check status unknown",
            with("failed", vec![check("skipped", json!("x"))]),
            false,
        ),
        (
            "six notes",
            edit(
                &base,
                "/notes_for_orchestrator",
                json!(["a", "b", "c", "d", "e", "f"]),
            ),
            false,
        ),
        (
            "five notes",
            edit(
                &base,
                "/notes_for_orchestrator",
                json!(["a", "b", "c", "d", "e"]),
            ),
            true,
        ),
        (
            "an empty note",
            edit(&base, "/notes_for_orchestrator", json!([""])),
            false,
        ),
        (
            "a blank note",
            edit(&base, "/notes_for_orchestrator", json!(["  "])),
            false,
        ),
        (
            "no notes",
            edit(&base, "/notes_for_orchestrator", json!([])),
            true,
        ),
        (
            "bad run_id",
            edit(&base, "/run_id", json!("not-a-uuid")),
            false,
        ),
        (
            "uuid v1 run_id",
            edit(
                &base,
                "/run_id",
                json!("3f56dc4d-35cf-1f97-925c-0b04a6fe8bf4"),
            ),
            false,
        ),
        (
            "bad task_id",
            edit(&base, "/task_id", json!("task-12")),
            false,
        ),
        (
            "uuid task_id",
            edit(
                &base,
                "/task_id",
                json!("3f56dc4d-35cf-4f97-925c-0b04a6fe8bf4"),
            ),
            true,
        ),
        (
            "major version 2",
            edit(&base, "/schema_version", json!("2.0.0")),
            false,
        ),
        (
            "minor version 1.7.3",
            edit(&base, "/schema_version", json!("1.7.3")),
            true,
        ),
        (
            "generated_at UTC",
            edit(&base, "/generated_at", json!("2026-05-01T12:00:00Z")),
            true,
        ),
        (
            "generated_at last tuesday",
            edit(&base, "/generated_at", json!("last tuesday")),
            false,
        ),
        (
            "generated_at with an offset",
            edit(&base, "/generated_at", json!("2026-05-01T12:00:00+02:00")),
            false,
        ),
        (
            "generated_at February 30",
            edit(&base, "/generated_at", json!("2026-02-30T12:00:00Z")),
            false,
        ),
        (
            "generated_at null",
            edit(&base, "/generated_at", Value::Null),
            true,
        ),
        (
            "an unknown field",
            edit(&base, "/surprise", json!(1)),
            false,
        ),
        ("an x_ field", edit(&base, "/x_team", json!("studio")), true),
        (
            "an unknown field in a change",
            edit(&base, "/changes/0/surprise", json!(1)),
            false,
        ),
        (
            "an unknown field in a check",
            edit(&base, "/acceptance_check/0/surprise", json!(1)),
            false,
        ),
        (
            "an x_ field in a check",
            edit(&base, "/acceptance_check/0/x_note", json!(1)),
            true,
        ),
        (
            "worklog_path missing",
            remove(&base, "/worklog_path"),
            false,
        ),
        (
            "changes not a list",
            edit(&base, "/changes", json!({})),
            false,
        ),
    ]
}

fn table() -> Vec<Row> {
    let mut rows: Vec<Row> = subagent_rows()
        .into_iter()
        .map(|(name, value, valid)| Row {
            name: format!("subagent result: {name}"),
            kind: EnvelopeKind::SubagentResult,
            value,
            valid,
        })
        .collect();
    let mut add = |kind: EnvelopeKind, name: &str, value: Value, valid: bool| {
        rows.push(Row {
            name: format!("{}: {name}", kind.name()),
            kind,
            value,
            valid,
        });
    };
    use EnvelopeKind as K;
    let w = worklog_entry();
    add(K::WorklogEntry, "valid", w.clone(), true);
    add(
        K::WorklogEntry,
        "actor missing",
        remove(&w, "/actor"),
        false,
    );
    add(
        K::WorklogEntry,
        "last tuesday",
        edit(&w, "/timestamp", json!("last tuesday")),
        false,
    );
    add(
        K::WorklogEntry,
        "code BANANA",
        edit(&w, "/code", json!("BANANA")),
        false,
    );
    add(
        K::WorklogEntry,
        "code AGENT_FAILED",
        edit(&w, "/code", json!("AGENT_FAILED")),
        true,
    );
    add(
        K::WorklogEntry,
        "code null",
        edit(&w, "/code", Value::Null),
        true,
    );
    add(
        K::WorklogEntry,
        "bad task_id",
        edit(&w, "/task_id", json!("x")),
        false,
    );
    add(
        K::WorklogEntry,
        "an unknown field",
        edit(&w, "/surprise", json!(1)),
        false,
    );
    let o = orchestrator_output();
    add(K::OrchestratorOutput, "valid", o.clone(), true);
    add(
        K::OrchestratorOutput,
        "blocker code BANANA",
        edit(&o, "/blockers/0/code", json!("BANANA")),
        false,
    );
    add(
        K::OrchestratorOutput,
        "blocker code missing",
        remove(&o, "/blockers/0/code"),
        false,
    );
    add(
        K::OrchestratorOutput,
        "blocker bad task_id",
        edit(&o, "/blockers/0/task_id", json!("x")),
        false,
    );
    add(
        K::OrchestratorOutput,
        "lock bad task_id",
        edit(&o, "/active_locks/0/task_id", json!("x")),
        false,
    );
    add(
        K::OrchestratorOutput,
        "heartbeat last tuesday",
        edit(
            &o,
            "/ledger_delta/0/last_heartbeat_at",
            json!("last tuesday"),
        ),
        false,
    );
    add(
        K::OrchestratorOutput,
        "blank delta_id",
        edit(&o, "/ledger_delta/0/delta_id", json!(" ")),
        false,
    );
    add(
        K::OrchestratorOutput,
        "unknown ledger status",
        edit(&o, "/ledger_delta/0/status", json!("paused")),
        false,
    );
    let b = handoff_bundle();
    add(K::HandoffBundle, "valid", b.clone(), true);
    add(
        K::HandoffBundle,
        "open blocker BANANA",
        edit(&b, "/open_blockers/0/code", json!("BANANA")),
        false,
    );
    add(
        K::HandoffBundle,
        "row heartbeat with offset",
        edit(
            &b,
            "/ledger/0/last_heartbeat_at",
            json!("2026-05-01T12:00:00+00:00"),
        ),
        false,
    );
    add(
        K::HandoffBundle,
        "an unknown field in a row",
        edit(&b, "/ledger/0/surprise", json!(1)),
        false,
    );
    let v = json!({"allow": false, "code": "VALIDATION_FAILED", "reason": "1 error"});
    add(K::ValidatorOutput, "refusal", v.clone(), true);
    add(
        K::ValidatorOutput,
        "allowed",
        json!({"allow": true, "code": "OK", "reason": "ok"}),
        true,
    );
    add(
        K::ValidatorOutput,
        "code BANANA",
        edit(&v, "/code", json!("BANANA")),
        false,
    );
    add(
        K::ValidatorOutput,
        "allowed with a failure code",
        edit(&v, "/allow", json!(true)),
        false,
    );
    add(
        K::ValidatorOutput,
        "refused with OK",
        json!({"allow": false, "code": "OK", "reason": "?"}),
        false,
    );
    let a = fixture("associate-result");
    add(K::AssociateResult, "valid", a.clone(), true);
    add(
        K::AssociateResult,
        "verify failed but ok",
        edit(&a, "/verify/status", json!("fail")),
        false,
    );
    let failed = edit(&a, "/verify/status", json!("fail"));
    add(
        K::AssociateResult,
        "verify failed and failed",
        edit(&failed, "/status", json!("failed")),
        true,
    );
    add(
        K::AssociateResult,
        "needs_input without questions",
        edit(
            &edit(&a, "/status", json!("needs_input")),
            "/questions",
            json!([]),
        ),
        false,
    );
    add(
        K::AssociateResult,
        "needs_input with a question",
        edit(
            &edit(&a, "/status", json!("needs_input")),
            "/questions",
            json!(["which?"]),
        ),
        true,
    );
    add(
        K::AssociateResult,
        "blank task_id",
        edit(&a, "/task_id", json!(" ")),
        false,
    );
    let d = fixture("director-task");
    add(K::DirectorTask, "valid", d.clone(), true);
    add(
        K::DirectorTask,
        "git without git_action",
        edit(&d, "/kind", json!("git")),
        false,
    );
    add(
        K::DirectorTask,
        "git with git_action",
        edit(
            &edit(&d, "/kind", json!("git")),
            "/git_action",
            json!("git_status"),
        ),
        true,
    );
    add(
        K::DirectorTask,
        "git_action on an edit",
        edit(&d, "/git_action", json!("git_status")),
        false,
    );
    add(
        K::DirectorTask,
        "git_action null on an edit",
        edit(&d, "/git_action", Value::Null),
        true,
    );
    add(
        K::DirectorTask,
        "zero time budget",
        edit(&d, "/time_budget_s", json!(0)),
        false,
    );
    add(
        K::DirectorTask,
        "blank instruction",
        edit(&d, "/instruction", json!("\u{2003}")),
        false,
    );
    let r = fixture("role-assignment-response");
    add(K::RoleAssignmentResponse, "valid", r.clone(), true);
    add(
        K::RoleAssignmentResponse,
        "blank role",
        edit(&r, "/role", json!("  ")),
        false,
    );
    add(
        K::RoleAssignmentResponse,
        "empty rationale",
        edit(&r, "/rationale", json!("")),
        false,
    );
    let q = fixture("role-assignment-request");
    add(K::RoleAssignmentRequest, "valid", q.clone(), true);
    add(
        K::RoleAssignmentRequest,
        "blank task path",
        edit(&q, "/task/path", json!(" ")),
        false,
    );
    let p = fixture("assignment-packet");
    add(K::AssignmentPacket, "valid", p.clone(), true);
    add(
        K::AssignmentPacket,
        "title of 501 characters",
        edit(&p, "/task/title", json!("é".repeat(501))),
        false,
    );
    add(
        K::AssignmentPacket,
        "title of 500 characters",
        edit(&p, "/task/title", json!("é".repeat(500))),
        true,
    );
    add(
        K::AssignmentPacket,
        "dependency not a task id",
        edit(&p, "/task/dependencies", json!(["x"])),
        false,
    );
    add(
        K::AssignmentPacket,
        "unknown priority",
        edit(&p, "/task/priority", json!("urgent")),
        false,
    );
    rows
}

#[test]
fn our_checks_and_an_independent_validator_agree_on_every_row() {
    let mut disagreements = Vec::new();
    for row in table() {
        let ours = row.kind.check(&row.value, true);
        let theirs: Vec<String> = schema(row.kind.schema_file())
            .iter_errors(&row.value)
            .map(|e| format!("{} {e}", e.instance_path()))
            .collect();
        if ours.is_empty() != row.valid || theirs.is_empty() != row.valid {
            disagreements.push(format!(
                "{} (expected {}): ours {ours:?}; schema {theirs:?}",
                row.name,
                if row.valid { "valid" } else { "invalid" }
            ));
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}
