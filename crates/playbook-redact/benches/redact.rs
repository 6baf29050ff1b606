//! What redaction costs per text: every event, worklog entry, audit record
//! and ledger row of a run passes `redact_str` (docs/benchmarks.md,
//! "Redaction"). Clean texts are the common case and take the prefilter's
//! shortcut; texts with a key word or a secret take the rule scan; texts
//! outside ASCII or with an escape also take the fold's check (`fold.rs`).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use playbook_redact::redact_str;

/// A record's usual texts: ids, roles, a short message.
const CLEAN_SHORT: &[&str] = &[
    "T-1",
    "worker",
    "gate `tests_passed == true` passed",
    "3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a",
];

/// Record texts with characters outside ASCII, a `%` or a `\` but nothing
/// to fold (`fold.rs`): the prefilter rules them out.
const CLEAN_UNICODE: &[&str] = &[
    "worker ⇄ reviewer — done…",
    "T-1 ünïcödé 日本語のタスク",
    "50% done",
    "line one\\nline two \\\"quoted\\\"",
];

/// Clean texts with something to fold: an escape, an invisible character.
const CLEAN_FOLDED: &[&str] = &[
    "100%25 sure, see %E2%9C%93",
    "zero\u{200b}width and\u{ad}soft",
];

/// Secrets only the folded text shows: split by invisible characters,
/// percent-encoded, escaped.
const FOLDED: &[&str] = &[
    "push failed (token ghp_abcdefghijklmnopqr\u{200b}stuvwxyzABCDEF0123)",
    "sk-ant-api03-abcdefghij\u{ad}klmnopqrstuvwxyz leaked",
    "https://x.example/cb?next=https%3A%2F%2Fbob%3AS3cr3tPw9%40git.example.com",
    "role `ghp_abcdefghijklmnopqr\\u{200b}stuvwxyzABCDEF0123` hands off",
];

/// Texts the prefilter lets through (a key word) that hold no secret, and
/// texts with secrets of several forms: the rule scan's work.
const KEYED: &[&str] = &[
    "token_count: 5, max_tokens=4096, secret_name: prod-database",
    "auth: required; the cache key: user-42; keyboard: qwerty",
    "failed: api_key=abc123def456 and password: hunter2 was set",
    "DEBUG auth: aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "clone https://alice:Sup3rS3cret@git.example.com/repo.git then curl -u admin:pw1234 https://x",
    "push failed (token ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123) Authorization: Bearer abc123.def456",
];

fn stderr_like() -> String {
    // An agent's standard error: lines of log with a few key words and one
    // secret among them, 64 KiB.
    let lines = [
        "INFO compiling crate playbook-core v0.1.0\n",
        "DEBUG session started, token_count=512 of max_tokens=4096\n",
        "WARN retrying request 3 of 5 after 250 ms\n",
        "INFO test result: ok. 412 passed; 0 failed; 0 ignored\n",
        "DEBUG connecting to postgres://app:pa55word@db:5432/app\n",
    ];
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 64 * 1024 {
        text.push_str(lines[i % lines.len()]);
        i += 1;
    }
    text
}

fn hostile() -> Vec<(&'static str, String)> {
    vec![
        ("key_colon", "key:".repeat(16 * 1024)),
        ("token_eq", "token=".repeat(16 * 1024)),
        ("a_key_space", "a_key: ".repeat(16 * 1024)),
        ("url_at", format!("a://:{}", "x@".repeat(32 * 1024))),
        // Every character folds: the folded copy and its runs.
        ("zwsp_token", "ghp_\u{200b}".repeat(16 * 1024)),
        ("percent", "%41".repeat(21 * 1024)),
    ]
}

fn bench(c: &mut Criterion) {
    c.bench_function("redact/clean_short", |b| {
        b.iter(|| {
            for text in CLEAN_SHORT {
                black_box(redact_str(black_box(text)));
            }
        })
    });
    c.bench_function("redact/clean_unicode", |b| {
        b.iter(|| {
            for text in CLEAN_UNICODE {
                black_box(redact_str(black_box(text)));
            }
        })
    });
    c.bench_function("redact/clean_folded", |b| {
        b.iter(|| {
            for text in CLEAN_FOLDED {
                black_box(redact_str(black_box(text)));
            }
        })
    });
    c.bench_function("redact/folded", |b| {
        b.iter(|| {
            for text in FOLDED {
                black_box(redact_str(black_box(text)));
            }
        })
    });
    c.bench_function("redact/keyed", |b| {
        b.iter(|| {
            for text in KEYED {
                black_box(redact_str(black_box(text)));
            }
        })
    });
    let stderr = stderr_like();
    let mut group = c.benchmark_group("redact/large");
    group.throughput(Throughput::Bytes(stderr.len() as u64));
    group.bench_function("stderr_64k", |b| {
        b.iter(|| black_box(redact_str(black_box(&stderr))))
    });
    for (name, text) in hostile() {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| black_box(redact_str(black_box(&text)))));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
