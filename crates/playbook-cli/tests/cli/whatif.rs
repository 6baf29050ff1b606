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
    // A model that only names its unit was given: the note says what it
    // lacks, not that it is missing.
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("unit-only.yaml");
    std::fs::write(&model, "cost_unit: USD\n").unwrap();
    let out = playbook(&[
        "whatif",
        "playbooks/tdd.yaml",
        "--runs",
        "20",
        "--model",
        model.to_str().unwrap(),
    ]);
    let out = text(&out.stdout);
    assert!(
        !out.contains("no model given") && out.contains("sets no `defaults` and no `roles`"),
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

/// One worker, retried once: the playbook of the reports these tests keep.
const SINGLE: &str = r#"schema_version: 1.0.0
id: single
name: Single
description: one worker
workflow:
  build:
    roles:
      - name: worker
        responsibilities: Do it.
        allowed_agents: [claude]
        suggested_prompt: "Do {task}."
        mode: worker
        inputs_required: [task]
        outputs_contract:
          type: work_result
          required: [commit_sha, failed_cases]
        actions_allowed: [read_file]
        gates:
          requires_user_approval: false
          pass_condition: failed_cases == 0
        retry_policy:
          max_iterations: 2
          escalate_on: [tool_blocked, needs_input]
        completion_criteria: [done]
"#;

/// `playbook whatif PLAYBOOK --model MODEL`'s standard error, the model's
/// path written `MODEL`; `playbook_file` None is [`SINGLE`].
fn refused_model(playbook_file: Option<&str>, model_text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("single.yaml");
    std::fs::write(&single, SINGLE).unwrap();
    let playbook_file = playbook_file.unwrap_or(single.to_str().unwrap());
    let model = dir.path().join("team.whatif.yaml");
    std::fs::write(&model, model_text).unwrap();
    let out = playbook(&[
        "whatif",
        playbook_file,
        "--model",
        model.to_str().unwrap(),
        "--runs",
        "5",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{model_text:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err.replace(model.to_str().unwrap(), "MODEL")
}

#[test]
fn a_model_error_names_the_model_file_a_pointer_in_it_and_its_line() {
    // Each kind of check: the reader, serde, the model's own checks, the
    // checks against the playbook, and a sum that only defaults merged with
    // built-in values exceed (which named the playbook and `/roles/worker`).
    let cases: &[(&str, &str)] = &[
        (
            "defaults: {pass: 0x1}\n",
            "error: MODEL: /defaults/pass (line 1, column 12): for role `planner` at iteration 1 the exclusive outcomes sum to 1.0500",
        ),
        (
            "defaults:\n  pass: 0.5\nroles:\n  worker:\n    iterations:\n      2: {pass: 0.99}\n",
            "error: MODEL: /roles/worker/iterations/2/pass (line 6, column 11): for role `worker` at iteration 2",
        ),
        (
            "defaults:\n  contract_violation: 3\n",
            "error: MODEL: /defaults/contract_violation (line 2, column 3):",
        ),
        (
            "defaults:\n  duration: -5\n",
            "error: MODEL: /defaults/duration (line 2, column 3): the duration is -5",
        ),
        (
            "roles:\n  nobody: {pass: 0.5}\n",
            "error: MODEL: /roles/nobody (line 2, column 3): the model sets role `nobody`",
        ),
        (
            "roles:\n  worker: {passs: 0.5}\n",
            "error: MODEL: /roles/worker/passs (line 2, column 12):",
        ),
        (
            "defaults: {pass: 0.5}\ndefaults: {pass: 0.6}\n",
            "error: MODEL: /defaults (line 2, column 1):",
        ),
    ];
    for (model, says) in cases {
        let err = refused_model(Some("playbooks/tdd.yaml"), model);
        assert!(
            err.contains(says),
            "{model:?}\nexpected: {says}\ngot: {err}"
        );
        assert!(!err.contains("tdd.yaml"), "names the playbook: {err}");
    }
    // The reproducer of the report: a one-role playbook, defaults only.
    let err = refused_model(None, "defaults: {pass: 0x1}\n");
    assert!(
        err.contains("error: MODEL: /defaults/pass (line 1, column 12)")
            && err.contains("pass 1 (from /defaults)")
            && err.contains("violation 0.02 (built-in default)")
            && !err.contains("/roles/worker"),
        "{err}"
    );
}

#[test]
fn an_empty_model_gets_a_model_hint() {
    for model in ["null\n", "# to do\n", "[1]\n"] {
        let err = refused_model(Some("playbooks/tdd.yaml"), model);
        assert!(
            err.contains("error: MODEL: model")
                && err.contains("docs/whatif.md")
                && !err.contains("playbook template"),
            "{model:?}: {err}"
        );
    }
}

#[test]
fn no_model_or_playbook_text_reaches_the_terminal_raw() {
    // A cost unit is refused, naming the field and the character.
    let err = refused_model(None, "cost_unit: \"\\u001b[31mRED\\r\\nFAKE LINE\"\n");
    assert!(
        err.contains("MODEL: /cost_unit (line 1, column 1)") && err.contains("U+001B"),
        "{err}"
    );
    assert!(!err.contains('\u{1b}'), "{err:?}");
    // A model key is quoted in the error: escaped.
    let err = refused_model(
        Some("playbooks/tdd.yaml"),
        "roles:\n  \"\\e[2Jx\": {pass: 0.5}\n",
    );
    assert!(
        !err.contains('\u{1b}') && err.contains("\\u{1b}[2Jx"),
        "{err:?}"
    );

    // Role and stage names a playbook may hold are escaped in both reports.
    let dir = tempfile::tempdir().unwrap();
    let evil = SINGLE
        .replace("- name: worker", "- name: \"wo\\e[31mrker\\r\\nFAKE\"")
        .replace("  build:", "  \"bu\\u202eild\":");
    assert_ne!(evil, SINGLE);
    let evil_path = dir.path().join("evil.yaml");
    std::fs::write(&evil_path, &evil).unwrap();
    let out = playbook(&["whatif", evil_path.to_str().unwrap(), "--runs", "5"]);
    let report = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        report.contains("wo\\u{1b}[31mrker\\r\\nFAKE (bu\\u{202e}ild)"),
        "{report}"
    );
    assert!(
        !report.contains('\u{1b}') && !report.contains('\r') && !report.contains('\u{202e}'),
        "{report:?}"
    );
    let fixed = dir.path().join("fixed.yaml");
    std::fs::write(
        &fixed,
        evil.replace("max_iterations: 2", "max_iterations: 1"),
    )
    .unwrap();
    // A scenario is named by its file name, which may hold anything.
    let scenarios = dir.path().join("scenarios");
    std::fs::create_dir_all(&scenarios).unwrap();
    std::fs::copy(
        crate::root().join("playbooks/scenarios/happy-path.yaml"),
        scenarios.join("happy\u{1b}[31m.yaml"),
    )
    .unwrap();
    let out = playbook(&[
        "diff",
        "--behaviour",
        evil_path.to_str().unwrap(),
        fixed.to_str().unwrap(),
        "--runs",
        "50",
        "--scenarios",
        scenarios.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("happy\\u{1b}[31m: "), "{report}");
    assert!(
        !report.contains('\u{1b}') && !report.contains('\r') && !report.contains('\u{202e}'),
        "{report:?}"
    );
}

/// A stage and a role named like credentials: no output of `whatif` or
/// `diff --behaviour` shows them, text or JSON, and neither does a model
/// error; a cost unit that reads as one is refused without being quoted.
#[test]
fn credential_like_names_never_reach_the_output() {
    const STAGE: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghij";
    const ROLE: &str = "ghp_1234567890abcdefghijABCDEFGHIJ123456";
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret.yaml");
    std::fs::write(
        &secret,
        SINGLE
            .replace("  build:", &format!("  {STAGE}:"))
            .replace("- name: worker", &format!("- name: {ROLE}")),
    )
    .unwrap();
    let single = dir.path().join("single.yaml");
    std::fs::write(&single, SINGLE).unwrap();
    let model = dir.path().join("model.yaml");
    std::fs::write(&model, format!("roles:\n  {ROLE}: {{pass: 0.5}}\n")).unwrap();
    let empty = dir.path().join("no-scenarios");
    std::fs::create_dir(&empty).unwrap();
    let (secret, single, model, empty) = (
        secret.to_str().unwrap(),
        single.to_str().unwrap(),
        model.to_str().unwrap(),
        empty.to_str().unwrap(),
    );
    let clean = |what: &str, out: &std::process::Output| {
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(
            !all.contains("sk-ant-api03") && !all.contains("ghp_1234"),
            "{what}:\n{all}"
        );
        all
    };
    for format in ["text", "json"] {
        let out = playbook(&[
            "whatif", secret, "--model", model, "--runs", "20", "--format", format,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(clean("whatif", &out).contains("[REDACTED]"));
        let out = playbook(&[
            "diff",
            "--behaviour",
            single,
            secret,
            "--runs",
            "20",
            "--scenarios",
            empty,
            "--format",
            format,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(clean("diff --behaviour", &out).contains("stage `[REDACTED]` is new"));
    }
    // The model names a role the plain playbook lacks: the error quotes it.
    let out = playbook(&["whatif", single, "--model", model, "--runs", "5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(clean("the model error", &out).contains("/roles/[REDACTED] (line 2"));
    let err = refused_model(None, &format!("cost_unit: {ROLE}\n"));
    assert!(
        err.contains("/cost_unit (line 1, column 1)") && err.contains("reads as a credential"),
        "{err}"
    );
    assert!(!err.contains("ghp_1234"), "{err}");
}

#[test]
fn scenario_directories_that_are_missing_are_said() {
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("single.yaml");
    std::fs::write(&single, SINGLE).unwrap();
    let single = single.to_str().unwrap();
    // Given and missing: an error, not a diff without its scenarios.
    let out = playbook(&[
        "diff",
        "--behaviour",
        single,
        single,
        "--runs",
        "5",
        "--scenarios",
        "/does/not/exist",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--scenarios /does/not/exist does not exist"),
        "{}",
        text(&out.stderr)
    );
    // The default, from a directory that has none: a note.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_playbook"))
        .current_dir(dir.path())
        .args(["diff", "--behaviour", single, single, "--runs", "5"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout)
            .contains("note: no scenario was compared: the default directory playbooks/scenarios"),
        "{}",
        text(&out.stdout)
    );
    // More files than are read: the note says how many were left out.
    let many = dir.path().join("many");
    std::fs::create_dir(&many).unwrap();
    let scenario = "schema_version: \"1.0.0\"\nname: quiet\n";
    for i in 0..201 {
        std::fs::write(many.join(format!("s{i:03}.yaml")), scenario).unwrap();
    }
    let out = playbook(&[
        "diff",
        "--behaviour",
        single,
        single,
        "--runs",
        "5",
        "--scenarios",
        many.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let diff: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(diff["scenarios"].as_array().unwrap().len(), 200);
    let notes = diff["notes"].to_string();
    assert!(
        notes.contains("only the first 200 of the 201 scenario files"),
        "{notes}"
    );
}

#[test]
fn simulation_flags_without_behaviour_are_refused() {
    for flags in [
        &["--runs", "100"][..],
        &["--model", "team.whatif.yaml"],
        &["--seed", "3"],
        &["--scenarios", "playbooks/scenarios"],
    ] {
        let out = playbook(
            &[
                &["diff", "playbooks/tdd.yaml", "playbooks/tdd.yaml"][..],
                flags,
            ]
            .concat(),
        );
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        assert!(
            text(&out.stderr).contains("--behaviour"),
            "{flags:?}: {}",
            text(&out.stderr)
        );
    }
    // The text diff itself still takes no flag.
    let out = playbook(&["diff", "playbooks/tdd.yaml", "playbooks/tdd.yaml"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}
