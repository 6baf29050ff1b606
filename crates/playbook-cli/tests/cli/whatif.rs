//! `playbook whatif` and `playbook diff --behaviour` through the binary.

use crate::playbook;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn whatif_is_deterministic_for_a_seed_and_reports_per_stage() {
    let args = [
        "whatif",
        "playbooks/tdd.yaml",
        "--runs",
        "150",
        "--seed",
        "7",
        "--format",
        "json",
    ];
    let first = playbook(&args);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let again = playbook(&[&args[..], &["--threads", "1"]].concat());
    assert_eq!(
        first.stdout, again.stdout,
        "the thread count changes nothing"
    );
    let report: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(report["runs"], 150);
    assert_eq!(report["partial"], false);
    assert_eq!(report["bound_violations"], serde_json::json!([]));
    let stages = report["stages"].as_array().unwrap();
    assert_eq!(stages.len(), 3);
    for s in stages {
        assert!(s["calls"]["max"].as_f64().unwrap() <= s["bound_per_task"].as_f64().unwrap());
    }
    assert_eq!(report["costliest_loop"], "worker ⇄ reviewer");
    // Without a model every value is a built-in default, and the report says so.
    let out = playbook(&["whatif", "playbooks/tdd.yaml", "--runs", "20"]);
    let out = text(&out.stdout);
    assert!(
        out.contains("[built-in default]") && out.contains("no model given"),
        "{out}"
    );
}

#[test]
fn runs_out_of_range_and_bad_models_are_refused_with_exit_2() {
    for runs in ["0", "1000001", "-3", "many"] {
        let out = playbook(&["whatif", "playbooks/tdd.yaml", "--runs", runs]);
        assert_eq!(out.status.code(), Some(2), "--runs {runs}");
    }
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.yaml");
    std::fs::write(&model, "roles:\n  reviewer: {pass: 1e308}\n").unwrap();
    let out = playbook(&[
        "whatif",
        "playbooks/tdd.yaml",
        "--model",
        model.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("/roles/reviewer/pass (line 2") && err.contains("1e308"),
        "{err}"
    );
    std::fs::write(&model, "roles:\n  nobody: {pass: 0.5}\n").unwrap();
    let out = playbook(&[
        "whatif",
        "playbooks/tdd.yaml",
        "--model",
        model.to_str().unwrap(),
    ]);
    assert!(
        text(&out.stderr).contains("roles: planner, test_author"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn behaviour_diff_says_what_changed_and_compares_scenarios() {
    let dir = tempfile::tempdir().unwrap();
    let after = dir.path().join("tdd-b.yaml");
    let tdd = std::fs::read_to_string(crate::root().join("playbooks/tdd.yaml")).unwrap();
    std::fs::write(
        &after,
        tdd.replacen("max_iterations: 3", "max_iterations: 1", 1),
    )
    .unwrap();
    let model = dir.path().join("model.yaml");
    std::fs::write(
        &model,
        "defaults: {pass: 1, violation: 0, blocked_tool: 0, needs_input: 0, error: 0}\nroles:\n  reviewer: {pass: 0.5}\n",
    )
    .unwrap();
    let out = playbook(&[
        "diff",
        "--behaviour",
        "playbooks/tdd.yaml",
        after.to_str().unwrap(),
        "--model",
        model.to_str().unwrap(),
        "--runs",
        "300",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = text(&out.stdout);
    // (1/2)^3 = 12.5 % → (1/2)^1 = 50 %: far outside each other's intervals.
    assert!(out.contains("SIGNIFICANT escalations "), "{out}");
    assert!(
        out.contains("worst-case calls per task in stage `build` 7 → 3"),
        "{out}"
    );
    assert!(
        out.contains("review-fails-twice: passed → escalated"),
        "{out}"
    );
    assert!(out.contains("happy-path: passed (unchanged)"), "{out}");
}

#[test]
fn db_diff_compares_the_behaviour_of_two_stored_versions() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.db");
    let file = dir.path().join("tdd.yaml");
    let db_run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_playbook"))
            .current_dir(crate::root())
            .args(args)
            .arg("--db")
            .arg(&db)
            .env_remove("PLAYBOOK_DB")
            .output()
            .unwrap()
    };
    let file_arg = file.to_str().unwrap();
    assert!(
        db_run(&["db", "export", "tdd", "-o", file_arg])
            .status
            .success()
    );
    let tdd = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        tdd.replacen("max_iterations: 3", "max_iterations: 5", 1),
    )
    .unwrap();
    let saved = db_run(&["db", "save", "tdd", file_arg, "--base", "1"]);
    assert!(saved.status.success(), "{}", text(&saved.stderr));
    let out = db_run(&[
        "db",
        "diff",
        "tdd",
        "1",
        "2",
        "--behaviour",
        "--runs",
        "100",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let diff: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sentences: Vec<&str> = diff["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["sentence"].as_str())
        .collect();
    assert!(
        sentences.contains(&"worst-case calls per task in stage `build` 7 → 11"),
        "{sentences:?}"
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_cleanly_with_a_partial_result() {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_playbook"))
        .current_dir(crate::root())
        .args([
            "whatif",
            "playbooks/tdd.yaml",
            "--runs",
            "1000000",
            "--format",
            "json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["partial"], true);
    assert_eq!(report["runs_requested"], 1_000_000);
    let runs = report["runs"].as_u64().unwrap();
    assert!(
        runs < 1_000_000 && runs.is_multiple_of(64),
        "whole blocks only: {runs}"
    );
    assert!(
        text(&out.stderr).contains("stopped"),
        "{}",
        text(&out.stderr)
    );
}
