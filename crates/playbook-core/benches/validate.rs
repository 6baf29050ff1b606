//! Full validation (schema + every lint) of a generated 500-role playbook.
//! Figures are recorded in docs/benchmarks.md.
//!
//! `BENCH_CPU_TIME=1` measures the CPU time of the benchmark's thread
//! instead of wall time: on a machine shared with other work, wall time
//! mostly measures the others, while CPU time still compares two builds.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{BatchSize, Criterion};
use playbook_core::{Format, Options, validate_source};

/// 100 stages, each a planner → worker ⇄ reviewer → tester → documenter
/// team with its own names, gates and a bounded review loop: 500 roles.
fn generated_playbook(teams: usize) -> String {
    let mut text = String::from("schema_version: 1.0.0\nid: big\nname: Generated\nworkflow:\n");
    for t in 0..teams {
        text.push_str(&format!(
            r#"  team{t}:
    stage_policy: {{max_parallel_worktrees: 2, exit_gate: "failed_cases_{t} == 0"}}
    roles:
      - name: planner{t}
        mode: planner
        allowed_agents: [claude]
        inputs_required: [goal]
        outputs_contract: {{type: plan, required: [spec_path_{t}, tasks_{t}]}}
        actions_allowed: [read_file, search_code]
        gates: {{pass_condition: "size(tasks_{t}) > 0"}}
        handoff_to: [worker{t}]
      - name: worker{t}
        mode: worker
        allowed_agents: [codex]
        inputs_required: [task, spec_path_{t}]
        outputs_contract: {{type: work, required: [commit_sha_{t}, summary_{t}]}}
        actions_allowed: [read_file, write_file, git_commit]
        gates: {{requires_user_approval: true, pass_condition: "size(commit_sha_{t}) > 0"}}
        handoff_to: [reviewer{t}]
      - name: reviewer{t}
        mode: reviewer
        allowed_agents: [claude]
        inputs_required: [spec_path, commit_sha, spec_path_{t}, commit_sha_{t}]
        outputs_contract: {{type: review, required: [verdict, issues_{t}]}}
        actions_allowed: [read_file, git_diff]
        gates: {{pass_condition: "verdict == 'pass' && size(issues_{t}) == 0"}}
        handoff_to: [worker{t}, tester{t}]
        retry_policy: {{max_iterations: 3, escalate_on: [retry_limit]}}
      - name: tester{t}
        mode: tester
        allowed_agents: [codex]
        inputs_required: [commit_sha_{t}]
        outputs_contract: {{type: test, required: [failed_cases_{t}]}}
        actions_allowed: [run_tests]
        gates: {{pass_condition: "failed_cases_{t} == 0"}}
        handoff_to: [documenter{t}]
      - name: documenter{t}
        mode: worker
        allowed_agents: [claude]
        inputs_required: [commit_sha_{t}]
        outputs_contract: {{type: docs, required: [docs_path_{t}]}}
        actions_allowed: [read_file]
        gates: {{pass_condition: "size(docs_path_{t}) > 0"}}
        handoff_to: []
"#
        ));
    }
    text
}

fn bench<M: Measurement + 'static>(c: &mut Criterion<M>) {
    let text = generated_playbook(100);
    let options = Options::default();
    let report = validate_source(&text, Format::Yaml, &options);
    let roles = report
        .playbook
        .as_ref()
        .map(|p| p.roles().count())
        .unwrap_or(0);
    assert_eq!(roles, 500, "the benchmark playbook has 500 roles");
    eprintln!(
        "the benchmark playbook has {} findings",
        report.findings.len()
    );
    assert!(
        report.allow(),
        "the benchmark playbook validates: {:?}",
        report.findings.first()
    );
    c.bench_function(
        "validate 500-role playbook (parse + schema + lints + locate)",
        |b| b.iter(|| validate_source(black_box(&text), Format::Yaml, &options)),
    );
    // Where the time of the whole goes: the pre-scan for deep nesting, the
    // YAML parse into a value, and the source map that places findings.
    c.bench_function("validate 500-role playbook (nesting pre-scan)", |b| {
        b.iter(|| playbook_core::document::nesting::too_deep(black_box(&text)))
    });
    c.bench_function("validate 500-role playbook (YAML to value)", |b| {
        b.iter(|| playbook_core::document::parse_value(black_box(&text), Format::Yaml))
    });
    c.bench_function("validate 500-role playbook (source map)", |b| {
        b.iter(|| playbook_core::locate::SourceMap::new(black_box(&text)))
    });
    let value = playbook_core::document::parse_value(&text, Format::Yaml).unwrap();
    // The parsed value is the caller's (the editor keeps the document it
    // validates); the report is dropped outside the timing, as a caller
    // keeps it too.
    c.bench_function("validate 500-role playbook (schema + lints, parsed)", |b| {
        b.iter_with_large_drop(|| playbook_core::validate_parsed(black_box(&value), &options))
    });
    // The same from a value handed over, which is then freed in the timing
    // (as `validate_source` frees what it parsed); the copy each iteration
    // needs is made outside the timing.
    c.bench_function(
        "validate 500-role playbook (schema + lints, parsed, value consumed)",
        |b| {
            b.iter_batched(
                || value.clone(),
                |value| playbook_core::validate_value(black_box(value), &options),
                BatchSize::LargeInput,
            )
        },
    );
    c.bench_function("validate 500-role playbook (JSON Schema only)", |b| {
        b.iter(|| playbook_core::schema::check_playbook(black_box(&value)))
    });
    c.bench_function("validate 500-role playbook (typed model from value)", |b| {
        b.iter_with_large_drop(|| playbook_core::document::from_parsed(black_box(&value)))
    });
    c.bench_function(
        "validate 500-role playbook (typed model from value, consumed)",
        |b| {
            b.iter_batched(
                || value.clone(),
                |value| playbook_core::document::from_value(black_box(value)),
                BatchSize::LargeInput,
            )
        },
    );
    c.bench_function(
        "validate 500-role playbook (typed model, serde derive)",
        |b| {
            b.iter_batched(
                || value.clone(),
                |value| playbook_core::document::from_value_derived(black_box(value)),
                BatchSize::LargeInput,
            )
        },
    );
    // An editor's keystroke: the text differs from the last one checked
    // in one value, mid-document; the session parses that entry alone.
    let edited = text.replacen(
        "max_iterations: 3, escalate_on: [retry_limit]}\n      - name: tester50",
        "max_iterations: 4, escalate_on: [retry_limit]}\n      - name: tester50",
        1,
    );
    assert_ne!(edited, text, "the benchmark edit applies");
    let mut session = playbook_core::Session::default();
    session.check(&text, Format::Yaml, &options);
    let mut probe = session.clone();
    let report = probe.check(&edited, Format::Yaml, &options);
    assert!(probe.parsed_part_only(), "the edit is parsed alone");
    let whole = validate_source(&edited, Format::Yaml, &options);
    assert_eq!(report.findings, whole.findings, "the same findings");
    assert_eq!(report.playbook, whole.playbook, "the same playbook");
    c.bench_function(
        "validate 500-role playbook (one edit, from the last parse)",
        |b| {
            b.iter_batched(
                || session.clone(),
                |mut session| {
                    let report = session.check(black_box(&edited), Format::Yaml, &options);
                    (session, report)
                },
                BatchSize::LargeInput,
            )
        },
    );
    let playbook = whole.playbook.unwrap();
    c.bench_function("validate 500-role playbook (lints only)", |b| {
        b.iter(|| playbook_core::validate(black_box(&playbook), &options))
    });
}

/// CPU time of the calling thread, which runs the benchmarked code.
struct ThreadCpuTime;

fn thread_cpu_now() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec for the call's duration.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(status, 0, "the thread's CPU clock is readable");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

impl Measurement for ThreadCpuTime {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu_now()
    }
    fn end(&self, start: Duration) -> Duration {
        thread_cpu_now().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        static WALL: WallTime = WallTime;
        WALL.formatter()
    }
}

fn main() {
    if std::env::var_os("BENCH_CPU_TIME").is_some() {
        let mut c = Criterion::default()
            .with_measurement(ThreadCpuTime)
            .configure_from_args();
        bench(&mut c);
        c.final_summary();
    } else {
        let mut c = Criterion::default().configure_from_args();
        bench(&mut c);
        c.final_summary();
    }
}
