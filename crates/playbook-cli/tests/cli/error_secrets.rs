//! No credential in the errors and reports of the commands that read a
//! playbook, a scenario or a model. A refusal quotes the value it refuses
//! (`"worker ghp_…" is not one of "planner", "worker"…`), and every
//! command's error reaches the terminal through `main`, so a token pasted
//! into a field would be printed as it is, into CI logs. `validate` redacts
//! its findings; these are the other readers. The files a command writes
//! (`fix`, `fmt`, `migrate` output) are the author's text and are not
//! checked here.
//!
//! Also: a refusal of a playbook that `whatif` and `diff` cannot read, and
//! of a legacy file `migrate` cannot migrate, says where its error is (the
//! pointer, and the line and column), as `validate` does.

use std::path::Path;
use std::process::Output;

use crate::playbook;

const TOKEN: &str = "ghp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[track_caller]
fn no_token(what: &str, out: &Output) {
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(!all.contains("panicked"), "{what}: {all}");
    // Any 8 characters of the token in a row would be a piece of it.
    for i in 0..=TOKEN.len() - 8 {
        let piece = &TOKEN[i..i + 8];
        assert!(!all.contains(piece), "{what} holds `{piece}`: {all}");
    }
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// tdd.yaml with the token pasted into a role's mode: a schema error that
/// quotes the value.
fn invalid_playbook() -> String {
    let tdd = std::fs::read_to_string(crate::root().join("playbooks/tdd.yaml")).unwrap();
    let bad = tdd.replacen("mode: worker", &format!("mode: worker {TOKEN}"), 1);
    assert_ne!(bad, tdd);
    bad
}

#[test]
fn refusals_of_a_playbook_scenario_or_model_are_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(dir.path(), "bad.yaml", &invalid_playbook());
    let tdd = "playbooks/tdd.yaml";
    let scenario = write(
        dir.path(),
        "scenario.yaml",
        &format!("name: s\non_violation: \"continue {TOKEN}\"\n"),
    );
    let model = write(
        dir.path(),
        "model.yaml",
        &format!("roles:\n  worker: {TOKEN}\n"),
    );
    let fmt_copy = write(dir.path(), "fmt.yaml", &invalid_playbook());
    let runs: &[&[&str]] = &[
        &["whatif", &bad, "--runs", "5"],
        &["whatif", tdd, "--model", &model, "--runs", "5"],
        &["diff", tdd, &bad],
        &["diff", "--format", "json", &bad, tdd],
        &["diff", "--behaviour", tdd, &bad, "--runs", "5"],
        &["preview", tdd, "--scenario", &scenario],
        &["fmt", "--check", &bad],
        &["fmt", &fmt_copy],
    ];
    for args in runs {
        let out = playbook(args);
        assert!(!out.status.success(), "{args:?} accepted it");
        assert!(
            text(&out.stderr).contains("[REDACTED]"),
            "{args:?}: {}",
            text(&out.stderr)
        );
        no_token(&format!("{args:?}"), &out);
    }
}

#[test]
fn migrate_reports_and_fix_titles_are_redacted() {
    let dir = tempfile::tempdir().unwrap();
    // A legacy file the legacy reading refuses (a role that is not a
    // mapping), quoting it.
    let legacy = write(
        dir.path(),
        "legacy.yaml",
        &format!("id: l\nname: L\nworkflow:\n  build:\n    roles:\n      - {TOKEN}\n"),
    );
    let out = playbook(&["migrate", &legacy]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    no_token("migrate of a refused legacy file", &out);
    // A file that is not legacy: its version is quoted.
    let versioned = write(
        dir.path(),
        "versioned.yaml",
        &format!("schema_version: \"1.0.0 {TOKEN}\"\nid: v\nname: V\n"),
    );
    no_token(
        "migrate of a versioned file",
        &playbook(&["migrate", &versioned]),
    );
    // An unknown field named by a token: the fix's title and pointer quote
    // it. Fixed in place, so standard output is only the report.
    let tdd = std::fs::read_to_string(crate::root().join("playbooks/tdd.yaml")).unwrap();
    let fixable = write(
        dir.path(),
        "fixable.yaml",
        &tdd.replacen(
            "mode: worker",
            &format!("mode: worker\n        {TOKEN}: 1"),
            1,
        ),
    );
    let out = playbook(&["fix", &fixable]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("PB004"), "{}", text(&out.stdout));
    no_token("fix", &out);
}

#[test]
fn a_refused_playbook_is_named_with_its_pointer_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let tdd = std::fs::read_to_string(crate::root().join("playbooks/tdd.yaml")).unwrap();
    let bad = write(
        dir.path(),
        "bad.yaml",
        &tdd.replacen("mode: worker", "mode: wrker", 1),
    );
    let line = tdd[..tdd.find("mode: worker").unwrap()]
        .matches('\n')
        .count()
        + 1;
    for args in [
        vec!["whatif", bad.as_str(), "--runs", "5"],
        vec!["diff", "playbooks/tdd.yaml", bad.as_str()],
    ] {
        let out = playbook(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "at /workflow/build/roles/0/mode (line {line}, column 9)"
            )),
            "{args:?}: {err}"
        );
    }
    // A legacy file refused by the legacy reading: each error at its line.
    let legacy = write(
        dir.path(),
        "legacy.yaml",
        "id: l\nname: L\nworkflow:\n  build:\n    roles:\n      - 42\n",
    );
    let out = playbook(&["migrate", &legacy]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{legacy}:6:9: error[PB002]"))
            && err.contains("at /workflow/build/roles/0"),
        "{err}"
    );
}
