//! Same playbook, scenario and seed: the same bytes.

use playbook_orchestrator::replay;

use crate::{events, fixture_playbook, run, scenario};

#[test]
fn two_runs_with_the_same_seed_are_byte_identical() {
    for name in ["happy-path", "lock-conflict", "review-fails-twice"] {
        let a = run(
            &fixture_playbook("compound-engineering"),
            &scenario(name),
            42,
        );
        let b = run(
            &fixture_playbook("compound-engineering"),
            &scenario(name),
            42,
        );
        assert_eq!(
            a.jsonl, b.jsonl,
            "{name}: a preview must not depend on anything but its inputs"
        );
    }
}

#[test]
fn the_seed_decides_the_run_id_and_seeded_durations() {
    let a = run(&fixture_playbook("tdd"), &scenario("happy-path"), 1);
    let b = run(&fixture_playbook("tdd"), &scenario("happy-path"), 2);
    assert_ne!(a.report.run_id, b.report.run_id);
    assert_ne!(
        a.report.virtual_ms, b.report.virtual_ms,
        "worker durations are drawn from a seeded range"
    );
}

#[test]
fn replaying_a_stored_log_reproduces_it_and_a_tampered_log_diverges() {
    let stored = run(&fixture_playbook("tdd"), &scenario("review-fails-twice"), 9);
    let stored_events = events(&stored);
    let replayed = run(&fixture_playbook("tdd"), &scenario("review-fails-twice"), 9);
    assert_eq!(replay::compare(&stored_events, &events(&replayed)), Ok(()));

    let mut tampered = stored_events.clone();
    tampered.remove(5);
    let divergence = replay::compare(&tampered, &events(&replayed)).unwrap_err();
    assert_eq!(divergence.seq, 5, "the first differing event is reported");
}
