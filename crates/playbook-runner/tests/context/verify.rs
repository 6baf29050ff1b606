//! Verification: the profile's commands, else a discovered check, else
//! unknown; with real tiny projects.

use std::time::{Duration, Instant};

use playbook_contracts::director::VerifyProfile;
use playbook_runner::verify::{VerifyStatus, discover, verify};

fn profile(commands: &[&str]) -> VerifyProfile {
    serde_json::from_value(serde_json::json!({ "commands": commands })).unwrap()
}

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    dir
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[track_caller]
fn check_discovers(files: &[(&str, &str)], expected: Option<&[&str]>) {
    let dir = project(files);
    let found = discover(dir.path());
    let expected =
        expected.map(|argv| vec![argv.iter().map(|s| s.to_string()).collect::<Vec<_>>()]);
    assert_eq!(found, expected, "{files:?}");
}

#[test]
fn discovery_finds_the_obvious_check_in_the_documented_order() {
    check_discovers(
        &[("Cargo.toml", "[package]"), ("Makefile", "test:\n\ttrue\n")],
        Some(&["cargo", "test"]),
    );
    check_discovers(
        &[("package.json", r#"{"scripts": {"test": "jest"}}"#)],
        Some(&["npm", "test"]),
    );
    check_discovers(
        &[("pytest.ini", "")],
        Some(&["python3", "-m", "pytest", "-q"]),
    );
    check_discovers(
        &[(
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = \"-q\"\n",
        )],
        Some(&["python3", "-m", "pytest", "-q"]),
    );
    check_discovers(
        &[("setup.cfg", "[metadata]\n[tool:pytest]\n")],
        Some(&["python3", "-m", "pytest", "-q"]),
    );
    check_discovers(
        &[("tests/test_a.py", "")],
        Some(&["python3", "-m", "pytest", "-q"]),
    );
    check_discovers(
        &[("conftest.py", "")],
        Some(&["python3", "-m", "pytest", "-q"]),
    );
    check_discovers(&[("go.mod", "module x")], Some(&["go", "test", "./..."]));
    check_discovers(
        &[("makefile", "all:\n\ttrue\ntest :: all\n")],
        Some(&["make", "test"]),
    );
}

#[test]
fn placeholders_and_lookalikes_are_not_discovered() {
    check_discovers(
        &[(
            "package.json",
            r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#,
        )],
        None,
    );
    check_discovers(&[("package.json", "{not json")], None);
    check_discovers(
        &[("pyproject.toml", "[tool.black]\n# [tool.pytest]\n")],
        None,
    );
    check_discovers(&[("pyproject.toml", "[[[ broken")], None);
    check_discovers(&[("Makefile", "test := 1\ntesting:\n\ttrue\n")], None);
    check_discovers(&[("tests/helper.py", "")], None);
    check_discovers(
        &[("Cargo.toml/inner", "a directory named Cargo.toml")],
        None,
    );
    check_discovers(&[], None);
}

#[test]
fn a_make_test_target_that_passes_or_fails_decides_the_status() {
    let pass = project(&[("Makefile", "test:\n\t@echo all good\n")]);
    let v = rt().block_on(verify(pass.path(), &profile(&[]), Duration::from_secs(30)));
    assert_eq!(v.status, VerifyStatus::Pass, "{v:?}");
    assert!(v.discovered);
    assert_eq!(v.mode, "smoke");
    assert_eq!(v.commands[0].argv, ["make", "test"]);
    assert_eq!(v.commands[0].exit_code, Some(0));
    assert!(v.commands[0].output_tail.contains("all good"));

    let fail = project(&[("Makefile", "test:\n\t@echo broken >&2; exit 3\n")]);
    let v = rt().block_on(verify(fail.path(), &profile(&[]), Duration::from_secs(30)));
    assert_eq!(v.status, VerifyStatus::Fail);
    assert_ne!(v.commands[0].exit_code, Some(0));
    assert!(
        v.commands[0].output_tail.contains("broken"),
        "stderr is kept: {v:?}"
    );
}

#[test]
fn nothing_discoverable_is_unknown() {
    let dir = project(&[(
        "package.json",
        r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#,
    )]);
    let v = rt().block_on(verify(dir.path(), &profile(&[]), Duration::from_secs(5)));
    assert_eq!(v.status, VerifyStatus::Unknown);
    assert!(v.commands.is_empty());
}

#[test]
fn given_commands_run_as_argv_without_a_shell_and_stop_at_the_first_failure() {
    let dir = project(&[]);
    let v = rt().block_on(verify(
        dir.path(),
        &profile(&["echo 'a b' ; touch pwned", "false", "touch never"]),
        Duration::from_secs(10),
    ));
    assert_eq!(v.status, VerifyStatus::Fail);
    assert_eq!(
        v.commands[0].argv,
        ["echo", "a b", ";", "touch", "pwned"],
        "quotes split, `;` is text"
    );
    assert!(
        !dir.path().join("pwned").exists(),
        "no shell ran the text after `;`"
    );
    assert_eq!(v.commands.len(), 2, "the third command never ran");
    assert!(!dir.path().join("never").exists());
}

#[test]
fn a_missing_program_or_an_unsplittable_command_fails_with_a_reason() {
    let dir = project(&[]);
    let v = rt().block_on(verify(
        dir.path(),
        &profile(&["no-such-program-xyz"]),
        Duration::from_secs(5),
    ));
    assert_eq!(v.status, VerifyStatus::Fail);
    assert!(v.commands[0].output_tail.contains("not found"), "{v:?}");
    let v = rt().block_on(verify(
        dir.path(),
        &profile(&["echo 'unclosed"]),
        Duration::from_secs(5),
    ));
    assert_eq!(v.status, VerifyStatus::Fail);
    assert!(v.commands[0].output_tail.contains("quote"));
    let v = rt().block_on(verify(
        dir.path(),
        &profile(&["   "]),
        Duration::from_secs(5),
    ));
    assert_eq!(v.status, VerifyStatus::Fail);
}

#[test]
fn a_check_that_hangs_is_killed_at_the_deadline_with_its_children() {
    let dir = project(&[]);
    let started = Instant::now();
    let marker = dir.path().join("child-ran");
    let script = format!("(sleep 3; touch {}) & sleep 60", marker.display());
    let v = rt().block_on(verify(
        dir.path(),
        &profile(&[&format!("sh -c '{script}'")]),
        Duration::from_millis(500),
    ));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "never a hung run"
    );
    assert_eq!(v.status, VerifyStatus::Fail);
    assert!(v.commands[0].timed_out);
    assert!(v.commands[0].output_tail.contains("ran out of time"));
    std::thread::sleep(Duration::from_secs(4));
    assert!(
        !marker.exists(),
        "the background child was killed with the group"
    );
}

#[test]
fn a_flood_of_output_is_clipped_to_its_tail_and_secrets_are_scrubbed() {
    let dir = project(&[]);
    let v = rt().block_on(verify(
        dir.path(),
        &profile(&["sh -c 'yes filler | head -c 2000000; echo; echo token=ghp_0123456789abcdefghijABCDEFGHIJ012345; echo THE-END'"]),
        Duration::from_secs(30),
    ));
    assert_eq!(
        v.status,
        VerifyStatus::Pass,
        "{:?}",
        v.commands[0].exit_code
    );
    let tail = &v.commands[0].output_tail;
    assert!(
        tail.len() <= 2 * playbook_runner::verify::OUTPUT_TAIL_BYTES + 100,
        "{}",
        tail.len()
    );
    assert!(tail.contains("THE-END"), "the end is kept");
    assert!(
        !tail.contains("ghp_0123456789abcdefghijABCDEFGHIJ012345"),
        "the token is scrubbed"
    );
}

#[test]
fn a_worktree_that_does_not_exist_fails_with_its_path() {
    let dir = project(&[]);
    let gone = dir.path().join("gone");
    let v = rt().block_on(verify(&gone, &profile(&["true"]), Duration::from_secs(5)));
    assert_eq!(v.status, VerifyStatus::Fail);
    assert!(v.commands[0].output_tail.contains("gone"));
}

#[test]
fn a_token_cut_by_the_start_of_the_tail_leaves_no_piece_of_it() {
    // 2 000 lines of 41 bytes: wherever the kept window of the output
    // starts, it starts inside a token line (41 divides no power of two).
    // Cut first and redacted after, that line's remainder had lost its
    // `ghp_` prefix and was kept as it was.
    let dir = project(&[]);
    let v = rt().block_on(verify(
        dir.path(),
        &profile(&[
            "sh -c 'for i in $(seq 2000); do echo ghp_0123456789abcdefghijABCDEFGHIJ012345; done'",
        ]),
        Duration::from_secs(30),
    ));
    assert_eq!(v.status, VerifyStatus::Pass, "{v:?}");
    let tail = &v.commands[0].output_tail;
    let secret = "0123456789abcdefghijABCDEFGHIJ012345";
    for i in 0..=secret.len() - 8 {
        assert!(
            !tail.contains(&secret[i..i + 8]),
            "{} in {tail}",
            &secret[i..i + 8]
        );
    }
    assert!(tail.contains("[REDACTED]"), "{tail}");
}
