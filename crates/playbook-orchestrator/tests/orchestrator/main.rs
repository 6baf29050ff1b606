//! Integration tests of the orchestrator: one binary, modules by concern.
//! Data driven: a playbook and a scenario go in, events come out.

mod bad_input;
mod bound;
mod contracts;
mod determinism;
mod gateway;
mod legacy;
mod limits;
mod parking;
mod persistence;
mod prepared;
mod records;
mod routing;
mod scenario_check;
mod scenarios;
mod schemas;
mod secrets;
mod selectors;
mod streaming;
mod waits;

use std::path::{Path, PathBuf};

use playbook_orchestrator::event::{EventRecord, from_jsonl};
use playbook_orchestrator::{Approval, Preview, preview};

/// The crate directory.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository root.
pub fn repo_dir() -> PathBuf {
    crate_dir().join("../..")
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A frozen copy of an example playbook (so snapshots change only when the
/// engine does, not when the examples are edited).
pub fn fixture_playbook(name: &str) -> String {
    read(&crate_dir().join(format!("tests/fixtures/playbooks/{name}.yaml")))
}

pub fn scenario(name: &str) -> String {
    read(&repo_dir().join(format!("playbooks/scenarios/{name}.yaml")))
}

#[track_caller]
pub fn run(playbook: &str, scenario: &str, seed: u64) -> Preview {
    preview(playbook, scenario, seed, Approval::Scenario).expect("the preview starts")
}

pub fn events(preview: &Preview) -> Vec<EventRecord> {
    from_jsonl(&preview.jsonl).expect("the event log parses back")
}

/// One line per event: virtual time, type and the fields that matter to a
/// reader (hashes and run ids are left out so snapshots stay readable).
pub fn trace(preview: &Preview) -> String {
    let mut out = String::new();
    for line in preview.jsonl.lines() {
        let value: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
        let map = value.as_object().expect("each event is an object");
        let mut parts = vec![
            format!("{:>7}", map["t_ms"]),
            map["type"].as_str().unwrap_or("?").to_string(),
        ];
        for (k, v) in map {
            if matches!(
                k.as_str(),
                "seq"
                    | "t_ms"
                    | "type"
                    | "run_id"
                    | "playbook_hash"
                    | "prompt_hash"
                    | "bounds"
                    | "started_at"
            ) || v.is_null()
            {
                continue;
            }
            let text = match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            parts.push(format!("{k}={text}"));
        }
        out.push_str(&parts.join(" "));
        out.push('\n');
    }
    out
}
