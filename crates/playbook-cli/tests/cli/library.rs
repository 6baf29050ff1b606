//! `playbook db ...` and `playbook diff` through the real binary, on a
//! library file in a temporary directory.

use std::path::Path;
use std::process::{Command, Output};

fn playbook(db: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_playbook"))
        .args(args)
        .arg("--db")
        .arg(db)
        .env_remove("PLAYBOOK_DB")
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Writes each text as `v1.yaml`, `v2.yaml`... in `dir`; their paths.
fn write_versions(dir: &Path, texts: &[impl AsRef<str>]) -> Vec<String> {
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let path = dir.join(format!("v{}.yaml", i + 1));
            std::fs::write(&path, text.as_ref()).unwrap();
            path.to_string_lossy().into_owned()
        })
        .collect()
}

#[test]
fn export_edit_conflict_restore_and_diff_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.db");
    let file = dir.path().join("tdd.yaml");
    let file = file.to_str().unwrap();

    let listed = playbook(&db, &["db", "list"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    assert!(
        stdout(&listed).contains("tdd"),
        "a new library is seeded with the examples"
    );

    let exported = playbook(&db, &["db", "export", "tdd", "-o", file]);
    assert!(exported.status.success(), "{}", stderr(&exported));
    let text = std::fs::read_to_string(file).unwrap();
    let edited = text.replacen("max_iterations: 3", "max_iterations: 5", 1);
    assert_ne!(edited, text, "the example has a retry limit of 3 to edit");
    std::fs::write(file, &edited).unwrap();

    let saved = playbook(
        &db,
        &[
            "db",
            "save",
            "tdd",
            file,
            "--base",
            "1",
            "--note",
            "more rounds",
        ],
    );
    assert!(saved.status.success(), "{}", stderr(&saved));
    assert!(stdout(&saved).contains("version 2"), "{}", stdout(&saved));

    let stale = playbook(&db, &["db", "save", "tdd", file, "--base", "1"]);
    assert_eq!(stale.status.code(), Some(1), "a conflict is a failure");
    let message = stderr(&stale);
    assert!(
        message.contains("CONCURRENCY_CONFLICT")
            && message.contains("version 1")
            && message.contains("version 2"),
        "{message}"
    );

    let diff = playbook(&db, &["db", "diff", "tdd", "1", "2"]);
    assert!(
        stdout(&diff).contains("3 → 5"),
        "the diff says what changed: {}",
        stdout(&diff)
    );

    let restored = playbook(&db, &["db", "restore", "tdd", "1"]);
    assert!(
        stdout(&restored).contains("version 3"),
        "{}",
        stdout(&restored)
    );

    let json = playbook(&db, &["db", "history", "tdd", "--format", "json"]);
    let history: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON output");
    assert_eq!(history.as_array().map(Vec::len), Some(3));
    assert_eq!(
        history[0]["content_hash"], history[2]["content_hash"],
        "restore brings back the same content"
    );

    let files = Command::new(env!("CARGO_BIN_EXE_playbook"))
        .args(["diff", file, file])
        .output()
        .unwrap();
    assert_eq!(stdout(&files).trim(), "no changes", "{}", stderr(&files));
}

#[test]
fn a_file_that_is_not_a_library_is_reported_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("notes.txt");
    std::fs::write(&db, "my notes\n").unwrap();
    let output = playbook(&db, &["db", "list"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("NOT_A_DATABASE"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        std::fs::read_to_string(&db).unwrap(),
        "my notes\n",
        "the file is untouched"
    );
}

#[test]
fn a_refused_import_names_the_file_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.db");
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "id: x\nname: [unclosed\n").unwrap();
    let before = stdout(&playbook(&db, &["db", "list", "--format", "json"]));
    let output = playbook(
        &db,
        &["db", "import", bad.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(output.status.code(), Some(1));
    let error: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON error");
    assert_eq!(error["code"], "IMPORT_REFUSED");
    assert!(error["message"].as_str().unwrap().contains("bad.yaml"));
    assert_eq!(
        stdout(&playbook(&db, &["db", "list", "--format", "json"])),
        before
    );
}

/// `kill -9` of `playbook db import` at random points, 100 times: after every
/// kill the library passes `playbook db check`, and every import that had
/// exited successfully is in the history with its content.
#[test]
fn killing_db_import_at_random_points_loses_no_finished_import() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.db");
    let text = |i: usize| {
        format!(
            "schema_version: 1.0.0\nid: crash\nname: Crash {i}\nworkflow:\n  build:\n    roles:\n      - name: coder\n        mode: worker\n        actions_allowed: [read_file]\n"
        )
    };
    // Nanosecond noise of the clock is a good enough seed; it is printed on failure.
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(1) as u64;
    let mut state = seed | 1;
    let mut random_micros = move || {
        // xorshift64: no dependency needed for a random delay.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % 60_000
    };
    assert!(playbook(&db, &["db", "list"]).status.success());
    let mut finished = Vec::new();
    for i in 0..100 {
        let file = dir.path().join(format!("crash-{i}.yaml"));
        std::fs::write(&file, text(i)).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_playbook"))
            .args(["db", "import"])
            .arg(&file)
            .arg("--db")
            .arg(&db)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_micros(random_micros()));
        if let Ok(Some(status)) = child.try_wait() {
            assert!(
                status.success(),
                "import {i} failed without being killed (seed {seed})"
            );
            finished.push(i);
        } else {
            child.kill().unwrap();
            child.wait().unwrap();
        }
        let check = playbook(&db, &["db", "check"]);
        assert_eq!(
            stdout(&check).trim(),
            "ok",
            "after kill {i} (seed {seed}): {}",
            stderr(&check)
        );
    }
    let history = playbook(&db, &["db", "history", "crash", "--format", "json"]);
    let history: serde_json::Value = serde_json::from_slice(&history.stdout).unwrap();
    let numbers: Vec<u64> = history
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["number"].as_u64())
        .collect();
    eprintln!(
        "{} of 100 imports finished before the kill (seed {seed})",
        finished.len()
    );
    let contents: Vec<String> = numbers
        .iter()
        .map(|n| {
            stdout(&playbook(
                &db,
                &["db", "show", "crash", "--version", &n.to_string()],
            ))
        })
        .collect();
    for i in &finished {
        let name = format!("name: Crash {i}\n");
        assert!(
            contents.iter().any(|c| c.contains(&name)),
            "import {i} exited successfully, so its version exists (seed {seed})"
        );
    }
    assert!(
        finished.len() < 100,
        "some imports were killed, or the test proves nothing (seed {seed})"
    );
}

/// The three versions of the reported review: rename `worker` to `coder`
/// (handoffs follow), add `doc_writer` from the worker template, turn off
/// `coder`'s approval.
fn renamed_added_approval_dropped() -> [String; 3] {
    let v1 = include_str!("../../../../playbooks/tdd.yaml")
        .replace("$schema: ../schemas/playbook.schema.json\n", "");
    let renamed = v1
        .replace("- name: worker", "- name: coder")
        .replace("handoff_to: [worker]", "handoff_to: [coder]");
    let doc_writer = "      - name: doc_writer
        responsibilities: Implement one task against the spec and commit the change.
        allowed_agents: [claude, codex]
        mode: worker
        inputs_required: [task, spec_path]
        outputs_contract: {type: work_result, required: [commit_sha, summary]}
        actions_allowed: [read_file, write_file, edit_file, run_tests, git_commit]
        gates: {requires_user_approval: true, pass_condition: size(commit_sha) > 0}
        handoff_to: [reviewer]
  test:
";
    let v2 = renamed.replacen("  test:\n", doc_writer, 1);
    let (head, coder) = v2.split_once("- name: coder").expect("coder");
    let v3 = format!(
        "{head}- name: coder{}",
        coder.replacen(
            "requires_user_approval: true",
            "requires_user_approval: false",
            1
        )
    );
    [v1, v2, v3]
}

#[test]
fn a_dropped_approval_after_a_rename_and_an_added_role_is_listed_first_as_widening() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write_versions(dir.path(), &renamed_added_approval_dropped());
    let expected = "WIDENS: coder no longer requires user approval (renamed from worker)\n\
                    role worker renamed to coder\n\
                    role doc_writer added to stage build\n\
                    handoff doc_writer → reviewer added\n";

    let files = Command::new(env!("CARGO_BIN_EXE_playbook"))
        .args(["diff", &paths[0], &paths[2]])
        .output()
        .unwrap();
    assert_eq!(stdout(&files), expected, "{}", stderr(&files));

    let json = Command::new(env!("CARGO_BIN_EXE_playbook"))
        .args(["diff", &paths[0], &paths[2], "--format", "json"])
        .output()
        .unwrap();
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON output");
    assert_eq!(value["changes"][0]["kind"], "approval_dropped");
    assert_eq!(value["changes"][0]["role"], "coder");
    assert_eq!(value["changes"][0]["widening"], true);
    assert_eq!(value["changes"][1]["widening"], false);

    // The same versions saved in the library read the same.
    let db = dir.path().join("library.db");
    for (base, path) in [("1", &paths[0]), ("2", &paths[1]), ("3", &paths[2])] {
        let saved = playbook(&db, &["db", "save", "tdd", path, "--base", base]);
        assert!(saved.status.success(), "{}", stderr(&saved));
    }
    let diff = playbook(&db, &["db", "diff", "tdd", "2", "4"]);
    assert_eq!(stdout(&diff), expected, "{}", stderr(&diff));
    let step = playbook(&db, &["db", "diff", "tdd", "3", "4"]);
    assert_eq!(
        stdout(&step),
        "WIDENS: coder no longer requires user approval\n"
    );
}

/// A token pasted into a prompt, a description or a removed role reached
/// the terminal: `playbook diff` and `db diff` printed the JSON's values
/// as written, and the text quoted a long value cut inside the key.
#[test]
fn no_diff_prints_a_credential_the_playbooks_hold() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.db");
    let token = "ghp_Zq8Wm2Xr4Tn6Vb0Lp3Kd9Hs1Fg7Jc5Ny2Qa4R";
    let key = format!("sk-ant-api03-{}", "A1b2C3d4E5".repeat(8));
    let v1 = include_str!("../../../../playbooks/tdd.yaml")
        .replace("$schema: ../schemas/playbook.schema.json\n", "");
    let v2 = v1
        .replacen(
            "Commit when green.",
            &format!("Commit when green. Push with {token}."),
            1,
        )
        .replacen(
            "  Red, green, review.",
            &format!("  {} {key} Red, green, review.", "x".repeat(60)),
            1,
        );
    let (head, tester) = v2.split_once("      - name: tester").expect("tester");
    let v3 = format!(
        "{head}      - name: tester{}",
        tester.replacen(
            "Run the full suite",
            &format!("Use {token} to run the full suite"),
            1
        )
    );
    let v4 = v1.replacen("- name: tester", "- name: qa", 1);
    let paths = write_versions(dir.path(), &[v1, v2, v3, v4]);
    let secrets = ["Zq8Wm2Xr4Tn6", "sk-ant-api03-", "A1b2C3d4E5"];
    let clean = |what: &str, output: &Output| {
        assert!(output.status.success(), "{what}: {}", stderr(output));
        let (out, err) = (stdout(output), stderr(output));
        assert!(!out.is_empty(), "{what}: something changed");
        for secret in secrets {
            assert!(
                !out.contains(secret) && !err.contains(secret),
                "{what}: {out}{err}"
            );
        }
    };
    // v3 → v4 removes a role whose prompt holds the token (its value is in
    // the JSON), and renames one.
    for (a, b) in [(0, 1), (1, 2), (2, 3), (1, 3)] {
        for format in ["text", "json"] {
            let output = Command::new(env!("CARGO_BIN_EXE_playbook"))
                .args(["diff", &paths[a], &paths[b], "--format", format])
                .output()
                .unwrap();
            clean(&format!("diff v{} v{} as {format}", a + 1, b + 1), &output);
        }
    }
    // The same versions in the library.
    for (base, path) in paths.iter().enumerate().skip(1) {
        let base = base.to_string();
        let saved = playbook(&db, &["db", "save", "tdd", path, "--base", &base]);
        assert!(saved.status.success(), "{}", stderr(&saved));
    }
    for format in ["text", "json"] {
        let output = playbook(&db, &["db", "--format", format, "diff", "tdd", "2", "4"]);
        clean(&format!("db diff as {format}"), &output);
    }
}

/// `db export --all` over existing files says how to replace them (not
/// the id hint of ALREADY_EXISTS); `db export -o` refuses likewise.
#[test]
fn exporting_over_existing_files_says_to_pass_force() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.db");
    let out = dir.path().join("exp");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("tdd.yaml"), "x\n").unwrap();
    let refused = playbook(&db, &["db", "export", "--all", "-o", out.to_str().unwrap()]);
    let said = stderr(&refused);
    assert!(!refused.status.success());
    assert!(
        said.contains("error[ALREADY_EXISTS]") && said.contains("tdd.yaml"),
        "{said}"
    );
    assert!(said.contains("pass --force"), "{said}");
    assert!(!said.contains("pick another id"), "{said}");
    assert_eq!(
        std::fs::read_to_string(out.join("tdd.yaml")).unwrap(),
        "x\n"
    );

    let file = out.join("tdd.yaml");
    let refused = playbook(&db, &["db", "export", "tdd", "-o", file.to_str().unwrap()]);
    assert!(stderr(&refused).contains("exists; pass --force to replace it"));
    let forced = playbook(
        &db,
        &[
            "db",
            "export",
            "--all",
            "-o",
            out.to_str().unwrap(),
            "--force",
        ],
    );
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert!(std::fs::read_to_string(&file).unwrap().contains("id: tdd"));
}

/// A name the schema refuses is refused by rename before a version is saved.
#[test]
fn rename_refuses_a_name_the_schema_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.db");
    let long = "x".repeat(300);
    let refused = playbook(&db, &["db", "rename", "tdd", &long]);
    let said = stderr(&refused);
    assert!(!refused.status.success());
    assert!(
        said.contains("error[INVALID_NAME]") && said.contains("300 characters"),
        "{said}"
    );
    let history = playbook(&db, &["db", "history", "tdd"]);
    assert!(
        !stdout(&history).contains("version 2"),
        "{}",
        stdout(&history)
    );
    let renamed = playbook(&db, &["db", "rename", "tdd", &"x".repeat(200)]);
    assert!(renamed.status.success(), "{}", stderr(&renamed));
    let checked = playbook(&db, &["db", "list"]);
    assert!(!stdout(&checked).contains("error"), "{}", stdout(&checked));
}

/// Regression (sweep B, repro 6): two saves from version 1 after version 2
/// were both told their text was kept as "the draft", and the second
/// replaced the first. Each is kept, and the hint's commands reach it.
#[test]
fn every_refused_save_is_kept_and_the_hint_commands_reach_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.db");
    let exported = playbook(&db, &["db", "show", "tdd"]);
    let text = stdout(&exported);
    let write = |name: &str, display: &str| {
        let path = dir.path().join(name);
        let edited = text.replacen(
            "name: Test-driven development",
            &format!("name: {display}"),
            1,
        );
        assert_ne!(edited, text);
        std::fs::write(&path, edited).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (a, b, c) = (
        write("a.yaml", "A"),
        write("b.yaml", "B alice"),
        write("c.yaml", "C bob"),
    );
    assert!(
        playbook(&db, &["db", "save", "tdd", &a, "--base", "1"])
            .status
            .success()
    );
    let mut numbers = Vec::new();
    let kept = regex::Regex::new(r"kept as draft (\d+)").unwrap();
    let commands = regex::Regex::new(r"`playbook ([^`]*)`").unwrap();
    for file in [&b, &c] {
        let refused = playbook(&db, &["db", "save", "tdd", file, "--base", "1"]);
        assert_eq!(refused.status.code(), Some(1));
        let said = stderr(&refused);
        let number = kept
            .captures(&said)
            .unwrap_or_else(|| panic!("the message names the draft: {said}"))[1]
            .to_string();
        // The hint's commands run as written.
        for command in commands.captures_iter(&said) {
            let words: Vec<&str> = command[1].split_whitespace().collect();
            if words.contains(&"FILE") {
                continue;
            }
            let ran = playbook(&db, &words);
            assert!(
                ran.status.success(),
                "`playbook {}`: {}",
                &command[1],
                stderr(&ran)
            );
        }
        numbers.push(number);
    }
    assert_ne!(numbers[0], numbers[1]);
    let alice = playbook(&db, &["db", "draft", "tdd", "--number", &numbers[0]]);
    assert!(
        stdout(&alice).contains("name: B alice"),
        "{}",
        stdout(&alice)
    );
    let newest = playbook(&db, &["db", "draft", "tdd"]);
    assert!(stdout(&newest).contains("name: C bob"));
    assert!(stderr(&newest).contains("2 drafts"), "{}", stderr(&newest));
    let listed = playbook(&db, &["db", "list"]);
    assert!(
        stdout(&listed).contains("[2 drafts]"),
        "{}",
        stdout(&listed)
    );
    let discarded = playbook(
        &db,
        &["db", "draft", "tdd", "--number", &numbers[1], "--discard"],
    );
    assert!(discarded.status.success(), "{}", stderr(&discarded));
    let list = playbook(&db, &["db", "draft", "tdd", "--list"]);
    assert_eq!(stdout(&list).lines().count(), 1, "{}", stdout(&list));
}

/// Regression (sweep B, repro 7): names with escape sequences were taken
/// and printed raw. They are refused, and library text already stored (a
/// note, a file name) is printed escaped in every table.
#[test]
fn no_library_text_acts_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.db");
    let forged = "Evil\u{1b}[31mRED\nfake-id   v99  valid";
    let refused = playbook(&db, &["db", "rename", "tdd", forged]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("character 5 is U+001B"),
        "{}",
        stderr(&refused)
    );
    let evil = dir.path().join("evil\u{1b}[2J.yaml");
    std::fs::write(
        &evil,
        "schema_version: 1.0.0\nid: imported\nname: \"x\\e[2J\\u202egnp.exe\"\nworkflow: {}\n",
    )
    .unwrap();
    let import = playbook(&db, &["db", "import", evil.to_str().unwrap()]);
    assert_eq!(import.status.code(), Some(1), "{}", stderr(&import));
    // Text the library keeps as given: a note, the name of an imported file.
    std::fs::write(
        &evil,
        stdout(&playbook(&db, &["db", "show", "tdd"])).replacen(
            "max_iterations: 3",
            "max_iterations: 4",
            1,
        ),
    )
    .unwrap();
    let saved = playbook(
        &db,
        &[
            "db",
            "save",
            "tdd",
            evil.to_str().unwrap(),
            "--force",
            "--note",
            "\u{1b}]0;pwned\u{7}",
        ],
    );
    assert!(saved.status.success(), "{}", stderr(&saved));
    let imported = playbook(&db, &["db", "import", evil.to_str().unwrap()]);
    for output in [
        &refused,
        &import,
        &imported,
        &playbook(&db, &["db", "list"]),
        &playbook(&db, &["db", "history", "tdd"]),
    ] {
        for text in [stdout(output), stderr(output)] {
            assert!(
                !text.contains('\u{1b}') && !text.contains('\u{202e}') && !text.contains('\u{7}'),
                "{text:?}"
            );
        }
    }
    assert!(stdout(&playbook(&db, &["db", "history", "tdd"])).contains("\\u{1b}]0;pwned"));
}

/// Regression (sweep B, repro 10): `show` of a damaged version said
/// "database error: invalid utf-8" and called it a bug; it now says what
/// `db check` says, and the hint's export command runs.
#[test]
fn a_damaged_version_is_named_alike_by_show_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.db");
    assert!(playbook(&db, &["db", "list"]).status.success());
    // Damage the bytes of tdd's first version inside the file, as a bad
    // disk would; SQLite's own structure stays sound.
    let mut bytes = std::fs::read(&db).unwrap();
    let needle = b"\"name\": \"Test-driven development\"";
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the version's content is in the file");
    bytes[at + 10..at + 14].copy_from_slice(&[0xff, 0xfe, 0xff, 0xfe]);
    std::fs::write(&db, bytes).unwrap();

    let shown = playbook(&db, &["db", "show", "tdd"]);
    assert_eq!(shown.status.code(), Some(1));
    let said = stderr(&shown);
    assert!(
        said.contains("error[CORRUPT]")
            && said.contains("version 1 of tdd does not read: it is not UTF-8 text"),
        "{said}"
    );
    assert!(!said.contains("bug"), "{said}");
    let check = playbook(&db, &["db", "check"]);
    assert!(stdout(&check).contains("version 1 of tdd does not read: it is not UTF-8 text"));
    let out = dir.path().join("out");
    let export = playbook(
        &db,
        &["db", "export", "--all", "--out", out.to_str().unwrap()],
    );
    assert!(stderr(&export).contains("tdd"), "{}", stderr(&export));
    assert!(out.join("pairing.yaml").exists(), "the others are exported");
}

/// A name, a note or an error quoting the playbook can hold a pasted token;
/// `db list`, `db history` and a refused save printed them as stored, in
/// text and JSON. `db show` prints the playbook itself, as `export` writes
/// it: the author's text, kept.
#[test]
fn library_listings_and_errors_print_no_credential() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.db");
    let token = "ghp_Zq8Wm2Xr4Tn6Vb0Lp3Kd9Hs1Fg7Jc5Ny2Qa4R";
    let v1 = include_str!("../../../../playbooks/tdd.yaml")
        .replace("$schema: ../schemas/playbook.schema.json\n", "")
        .replacen("name: ", &format!("name: Release {token} "), 1);
    let file = dir.path().join("tdd.yaml");
    std::fs::write(&file, &v1).unwrap();
    let file = file.to_str().unwrap();
    // The library starts with the examples: the import is tdd's version 2.
    let imported = playbook(&db, &["db", "import", file]);
    assert!(imported.status.success(), "{}", stderr(&imported));
    let note = format!("rotated the key {token}");
    let v2 = v1.replacen("Red, green, review.", "Red, green, review!", 1);
    std::fs::write(dir.path().join("v2.yaml"), &v2).unwrap();
    let v2_path = dir.path().join("v2.yaml");
    let saved = playbook(
        &db,
        &[
            "db",
            "save",
            "tdd",
            v2_path.to_str().unwrap(),
            "--base",
            "2",
            "--note",
            &note,
        ],
    );
    assert!(saved.status.success(), "{}", stderr(&saved));
    // A save the library refuses: its error quotes the refused text.
    let broken = dir.path().join("broken.yaml");
    std::fs::write(&broken, v2.replacen("id: tdd", &format!("id: {token}"), 1)).unwrap();
    let refused = playbook(
        &db,
        &["db", "save", "tdd", broken.to_str().unwrap(), "--base", "3"],
    );
    assert!(!refused.status.success());

    let mut outputs = vec![("refused save", refused)];
    for format in ["text", "json"] {
        for command in [vec!["list"], vec!["history", "tdd"]] {
            let mut args = vec!["db", "--format", format];
            args.extend(&command);
            let output = playbook(&db, &args);
            assert!(output.status.success(), "{command:?}: {}", stderr(&output));
            outputs.push(("listing", output));
        }
    }
    for (what, output) in &outputs {
        let (out, err) = (stdout(output), stderr(output));
        assert!(
            !out.contains("Zq8Wm2Xr4Tn6") && !err.contains("Zq8Wm2Xr4Tn6"),
            "{what}: {out}{err}"
        );
        assert!(
            out.contains("[REDACTED") || err.contains("[REDACTED"),
            "{what}: {out}{err}"
        );
    }
    // The playbook itself, as its author wrote it.
    let shown = playbook(&db, &["db", "show", "tdd"]);
    assert!(stdout(&shown).contains(token), "{}", stderr(&shown));
}
