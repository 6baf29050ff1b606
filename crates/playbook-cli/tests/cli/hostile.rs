//! Hostile inputs through the real binary: special files, closed pipes,
//! duplicate keys, alias bombs, deep nesting and an empty directory. The
//! rule: a clear error and a non-zero exit, never a panic (101), never a hang.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_playbook"));
    command.env_remove("PLAYBOOK_DB");
    command
}

/// Runs with a deadline: a hang is a failure, not a stuck test run.
fn run(args: &[&str]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("playbook {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[track_caller]
fn refused(output: &Output, says: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(output.status.code(), Some(101), "{stderr}");
    assert!(
        !output.status.success(),
        "must be refused: {stdout}{stderr}"
    );
    assert!(
        stderr.contains(says) || stdout.contains(says),
        "the message says `{says}`: {stdout}{stderr}"
    );
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_by_every_reader_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let zero = dir.path().join("zero.yaml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let zero = zero.to_string_lossy().into_owned();
    let fifo = dir.path().join("fifo.yaml");
    let has_fifo = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let fifo = fifo.to_string_lossy().into_owned();
    let playbook = write(
        dir.path(),
        "p.yaml",
        "id: p\nname: P\nworkflow:\n  s:\n    roles:\n      - name: r\n",
    );
    let db = dir.path().join("library.db");
    let db = db.to_string_lossy().into_owned();
    let mut specials = vec![zero.as_str(), "/dev/null"];
    if has_fifo {
        specials.push(fifo.as_str());
    }
    for special in specials {
        refused(&run(&["validate", special]), "not a regular file");
        refused(&run(&["fmt", "--check", special]), "not a regular file");
        refused(
            &run(&["preview", &playbook, "--scenario", special]),
            "not a regular file",
        );
        refused(
            &run(&["db", "import", special, "--db", &db]),
            "not a regular file",
        );
    }
    let directory = dir.path().to_string_lossy().into_owned();
    refused(&run(&["validate", &directory]), "directory");
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let dir = tempfile::tempdir().unwrap();
    // Enough findings to fill the pipe buffer many times over.
    let roles: String = (0..3000)
        .map(|i| format!("      - name: r{i}\n        handoff_to: [nobody{i}]\n"))
        .collect();
    let file = write(
        dir.path(),
        "many.yaml",
        &format!("id: many\nname: Many\nworkflow:\n  s:\n    roles:\n{roles}"),
    );
    let tdd = concat!(env!("CARGO_MANIFEST_DIR"), "/../../playbooks/tdd.yaml");
    for args in [
        vec!["validate", file.as_str()],
        vec!["schema"],
        vec!["preview", tdd, "--format", "jsonl"],
        vec!["preview", tdd],
    ] {
        let mut child = bin()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read one byte, then close the pipe, like `| head -c 1`.
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 1];
        let _ = stdout.read(&mut first);
        drop(stdout);
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_ne!(status.code(), Some(101), "{args:?}: {stderr}");
    }
}

#[test]
fn duplicate_keys_alias_bombs_and_deep_nesting_are_refused_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let duplicate = write(
        dir.path(),
        "dup.yaml",
        "id: a\nname: A\nworkflow:\n  s:\n    roles:\n      - name: r\n        gates:\n          requires_user_approval: true\n          requires_user_approval: false\n",
    );
    let mut bomb =
        String::from("id: b\nname: B\nworkflow: {}\nx_0: &a0 [l, l, l, l, l, l, l, l, l, l]\n");
    for level in 1..9 {
        let refs = vec![format!("*a{}", level - 1); 10].join(", ");
        bomb.push_str(&format!("x_{level}: &a{level} [{refs}]\n"));
    }
    bomb.push_str(&format!("x_pad: \"{}\"\n", "p".repeat(110_000)));
    let bomb = write(dir.path(), "bomb.yaml", &bomb);
    let deep = write(dir.path(), "deep.json", &"[".repeat(100_000));
    let db = dir.path().join("library.db");
    let db = db.to_string_lossy().into_owned();
    for (file, says) in [
        (duplicate.as_str(), "PB007"),
        (bomb.as_str(), "PB005"),
        (deep.as_str(), "PB005"),
    ] {
        refused(&run(&["validate", file]), says);
        refused(&run(&["fmt", "--check", file]), "");
        refused(&run(&["db", "import", file, "--db", &db]), "");
    }
    let scenario = write(dir.path(), "scenario.yaml", "name: s\nname: t\n");
    let playbook = write(
        dir.path(),
        "p.yaml",
        "id: p\nname: P\nworkflow:\n  s:\n    roles:\n      - name: r\n",
    );
    refused(
        &run(&["preview", &playbook, "--scenario", &scenario]),
        "twice",
    );
    // Nothing was stored by the refused imports.
    let listed = run(&["db", "list", "--db", &db]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        !listed.contains(" a ") && !listed.contains("\nb "),
        "{listed}"
    );
}

#[test]
fn importing_an_empty_directory_says_nothing_was_found() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let db = dir.path().join("library.db");
    refused(
        &run(&[
            "db",
            "import",
            &empty.to_string_lossy(),
            "--db",
            &db.to_string_lossy(),
        ]),
        "no playbook files",
    );
}

/// A file name may hold a line break or a terminal escape: `validate`'s
/// text report printed it as given, so a name could forge a line of the
/// report ("ok — 0 error(s)") or act on the terminal.
#[test]
fn a_file_name_forges_no_line_and_sends_no_escape() {
    let dir = tempfile::tempdir().unwrap();
    let name = "evil\n\u{1b}[2Jx.yaml (playbook): ok — 0 error(s)\r.yaml";
    let path = write(dir.path(), name, "schema_version: 1.0.0\nid: [\n");
    let missing = dir.path().join("gone\u{1b}[31m.yaml");
    let output = run(&["validate", &path, missing.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{stdout}");
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\r'),
        "{stdout:?}"
    );
    // Every line is one of the report's own, each starting with the file.
    for line in stdout.lines() {
        assert!(
            line.starts_with(&*dir.path().to_string_lossy()) || line.starts_with("    "),
            "a forged line: {line:?}\n{stdout}"
        );
    }
}
