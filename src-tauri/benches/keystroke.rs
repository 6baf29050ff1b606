//! The Rust part of a keystroke in the editor: the `check_document` command
//! on a 200-role playbook, from the JSON text the IPC delivers to the JSON
//! text it sends back. The rest of keystroke-to-hint (IPC transport, React,
//! paint) is measured in the real window: `scripts/e2e.sh measure`.

use criterion::{Criterion, criterion_group, criterion_main};
use playbook_core::Format;
use playbook_studio::api::{DocumentChange, Include};
use playbook_studio::workbench;
use serde_json::Value;

/// The 200-role playbook of the window measurement: one review loop.
fn playbook(roles: usize) -> Value {
    let roles: Vec<Value> = (0..roles)
        .map(|i| {
            serde_json::json!({
                "name": format!("role{i}"),
                "mode": "worker",
                "responsibilities": format!("Role {i} of the benchmark."),
                "allowed_agents": ["claude"],
                "inputs_required": ["task"],
                "outputs_contract": {"type": "work_result", "required": ["summary"]},
                "actions_allowed": ["read_file"],
                "handoff_to": [format!("role{}", (i + 1) % roles)],
                "retry_policy": {"max_iterations": 3, "escalate_on": ["retry_limit"]},
                "completion_criteria": ["Done"],
            })
        })
        .collect();
    serde_json::json!({
        "schema_version": "1.0.0",
        "id": "big",
        "name": "Two hundred roles",
        "workflow": {"build": {"roles": roles}},
    })
}

/// One keystroke's edit of `pointer` as the app sends it, from the patch
/// to the answer's JSON text.
fn edit(last: &workbench::LastChecked, revision: &mut u64, pointer: &str) -> String {
    let change = DocumentChange::Patch {
        base: *revision,
        revision: *revision + 1,
        pointer: pointer.to_string(),
        value: Some(Value::String(format!("Role 100, edit {revision}."))),
    };
    *revision += 1;
    last.check(change, |document| {
        let checked =
            workbench::check_document_in(document, Format::Yaml, Include::default(), None).unwrap();
        serde_json::to_string(&checked).unwrap()
    })
    .unwrap()
}

fn keystroke(c: &mut Criterion) {
    let request = serde_json::to_string(&playbook(200)).unwrap();
    let mut group = c.benchmark_group("check_document, 200 roles");
    group.bench_function("request JSON → answer JSON", |b| {
        b.iter(|| {
            let document: Value = serde_json::from_str(&request).unwrap();
            let checked =
                workbench::check_document(&document, Format::Yaml, Include::default()).unwrap();
            serde_json::to_string(&checked).unwrap()
        })
    });
    // A keystroke as the app sends it: one changed value against the
    // revision the backend holds, split into its steps.
    let last = workbench::LastChecked::default();
    let whole: Value = serde_json::from_str(&request).unwrap();
    last.check(
        DocumentChange::Whole {
            revision: 0,
            document: whole.clone(),
        },
        |_| (),
    )
    .unwrap();
    let mut revision = 0;
    let pointer = "/workflow/build/roles/100/responsibilities".to_string();
    group.bench_function("keystroke: patch → answer JSON", |b| {
        b.iter(|| edit(&last, &mut revision, &pointer))
    });
    group.bench_function("of which: the core's validation of the value", |b| {
        b.iter(|| playbook_core::validate_parsed(&whole, &playbook_core::Options::default()))
    });
    let checked =
        workbench::check_document_in(&whole, Format::Yaml, Include::default(), None).unwrap();
    group.bench_function("of which: the answer serialised", |b| {
        b.iter(|| serde_json::to_string(&checked).unwrap())
    });
    let answer = {
        let document: Value = serde_json::from_str(&request).unwrap();
        serde_json::to_string(
            &workbench::check_document(&document, Format::Yaml, Include::default()).unwrap(),
        )
        .unwrap()
    };
    println!(
        "request {} KB, answer {} KB",
        request.len() / 1024,
        answer.len() / 1024
    );
    group.finish();
}

criterion_group!(benches, keystroke);
criterion_main!(benches);
