//! Benchmarks of the library file: saving a version, reading a history of
//! 10 000 versions, listing 1 000 playbooks. Results are recorded in
//! `docs/benchmarks.md` (section "Store").
//!
//! Large libraries are built with one `import` of many files, which is one
//! transaction, so setting up does not take 10 000 fsyncs.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use playbook_core::Format;
use playbook_store::{Base, Durability, PlaybookId, Source, Store};

fn text(id: &str, round: usize) -> String {
    format!(
        "schema_version: 1.0.0\nid: {id}\nname: Bench {round}\nworkflow:\n  build:\n    roles:\n      - name: coder\n        mode: worker\n        actions_allowed: [read_file, write_file]\n        handoff_to: [reviewer]\n        retry_policy: {{max_iterations: {}, escalate_on: [retry_limit]}}\n      - name: reviewer\n        mode: reviewer\n        inputs_required: [spec_path, commit_sha]\n        outputs_contract: {{type: review_result, required: [verdict, issues]}}\n        actions_allowed: [read_file]\n        handoff_to: [coder]\n",
        1 + round % 9
    )
}

fn source(id: &str, round: usize) -> Source {
    Source {
        name: format!("{id}-{round}.yaml"),
        text: text(id, round),
        format: Format::Yaml,
    }
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)]
}

fn save(c: &mut Criterion) {
    save_with(c, Durability::Full, "store/save_version");
    // The same save without the per-commit disk flush: what the store itself costs.
    save_with(c, Durability::Relaxed, "store/save_version_relaxed");
}

fn save_with(c: &mut Criterion, durability: Durability, name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open_with(dir.path().join("bench.db"), durability).unwrap();
    store.import(&[source("save", 0)]).unwrap();
    let id = PlaybookId::new("save").unwrap();
    let mut round = 1;
    c.bench_function(name, |b| {
        b.iter(|| {
            round += 1;
            let saved = store.save_version(
                &id,
                Base::Latest,
                &text("save", round),
                Format::Yaml,
                "bench",
            );
            black_box(saved.unwrap());
        })
    });
    // Criterion reports means; the target is on the tail, so measure it too.
    let mut samples: Vec<Duration> = (0..1000)
        .map(|_| {
            round += 1;
            let t = text("save", round);
            let start = Instant::now();
            store
                .save_version(&id, Base::Latest, &t, Format::Yaml, "bench")
                .unwrap();
            start.elapsed()
        })
        .collect();
    println!(
        "{name} over 1000 saves: p50 {:?}, p99 {:?}, max {:?}",
        percentile(&mut samples, 0.50),
        percentile(&mut samples, 0.99),
        percentile(&mut samples, 1.0)
    );
}

fn history(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("bench.db")).unwrap();
    let sources: Vec<Source> = (0..10_000).map(|round| source("long", round)).collect();
    store.import(&sources).unwrap();
    let id = PlaybookId::new("long").unwrap();
    assert_eq!(store.history(&id).unwrap().len(), 10_000);
    c.bench_function("store/history_10000_versions", |b| {
        b.iter(|| black_box(store.history(&id).unwrap()))
    });
}

fn list(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("bench.db")).unwrap();
    let sources: Vec<Source> = (0..1_000)
        .map(|n| source(&format!("playbook-{n:04}"), n))
        .collect();
    store.import(&sources).unwrap();
    assert!(store.list(false).unwrap().len() >= 1_000);
    c.bench_function("store/list_1000_playbooks", |b| {
        b.iter(|| black_box(store.list(false).unwrap()))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50).measurement_time(Duration::from_secs(5));
    targets = save, history, list
}
criterion_main!(benches);
