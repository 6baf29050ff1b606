//! `playbook fix`: the quick fixes applied to files, comments kept;
//! `--dry-run` as a CI check; `validate --format json` naming the fixes.

use serde_json::Value;

use crate::playbook;

const BROKEN: &str = r#"# My team's playbook.
schema_version: "1.0.0"
id: demo
name: Demo
workflow:
  build:
    roles:
      # Writes the code.
      - name: coder
        mode: worker
        inputs_required: [task]
        outputs_contract: {required: [commit_sha]}
        actions_allowed: [read_file]
        allowed_agents: [claude]
        handoff_to: [reviwer]   # typo on purpose

      - name: reviewer   # judges
        mode: reviewer
        inputs_required: [spec_path, commit_sha]
        outputs_contract:
          required: [notes]
        actions_allowed: [read_file]
        allowed_agents: [claude]
        handoff_to: [coder]
# The end.
"#;

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn errors(path: &str) -> Vec<Value> {
    let output = playbook(&["validate", "--format", "json", path]);
    let contract: Value = serde_json::from_slice(&output.stdout).unwrap();
    contract["details"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .cloned()
        .collect()
}

#[test]
fn fix_clears_the_mechanical_errors_and_keeps_every_comment() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "team.yaml", BROKEN);
    // The loop coder ⇄ reviewer shows once the typo is fixed.
    assert_eq!(errors(&path).len(), 2);

    let output = playbook(&["fix", &path]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out = stdout(&output);
    assert!(
        out.contains(
            "fixed PB301 at /workflow/build/roles/0/handoff_to/0: Replace `reviwer` with `reviewer`"
        ),
        "{out}"
    );
    assert!(
        out.contains("Add `verdict` to the required fields"),
        "{out}"
    );
    assert!(
        out.contains("Add a retry limit of 3 escalating on retry_limit"),
        "{out}"
    );

    let after = std::fs::read_to_string(&path).unwrap();
    for line in BROKEN.lines().filter(|l| l.contains('#')) {
        let comment = &line[line.find('#').unwrap()..];
        assert!(after.contains(comment), "lost {comment:?}:\n{after}");
    }
    assert!(after.contains("handoff_to: [reviewer]   # typo on purpose"));
    assert!(
        after.contains("\n\n      - name: reviewer   # judges\n"),
        "blank line kept"
    );
    assert!(errors(&path).is_empty(), "{after}");

    // Nothing left: a second run changes nothing.
    let again = playbook(&["fix", &path]);
    assert!(again.status.success());
    assert!(stdout(&again).contains("nothing to fix"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), after);
}

#[test]
fn dry_run_prints_a_diff_fails_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "team.yaml", BROKEN);
    let output = playbook(&["fix", "--dry-run", &path]);
    assert_eq!(output.status.code(), Some(1));
    let out = stdout(&output);
    assert!(out.contains("would fix PB301"), "{out}");
    assert!(
        out.contains("-        handoff_to: [reviwer]   # typo on purpose"),
        "{out}"
    );
    assert!(
        out.contains("+        handoff_to: [reviewer]   # typo on purpose"),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), BROKEN);

    let clean = write(
        &dir,
        "clean.yaml",
        &crate::root()
            .join("playbooks/tdd.yaml")
            .to_str()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .unwrap(),
    );
    let output = playbook(&["fix", "--dry-run", &clean]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn code_limits_the_fixes_and_unknown_codes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "team.yaml", BROKEN);
    let output = playbook(&["fix", "--code", "PB301", &path]);
    assert!(output.status.success());
    let out = stdout(&output);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert_eq!(errors(&path).len(), 2, "the verdict and the loop are left");

    for bad in ["PB999", "PB205"] {
        let refused = playbook(&["fix", "--code", bad, &path]);
        assert_eq!(refused.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&refused.stderr).contains("codes with fixes: PB004"));
    }
}

#[test]
fn json_files_are_fixed_in_their_own_layout() {
    let dir = tempfile::tempdir().unwrap();
    let text = "{\n  \"schema_version\": \"1.0.0\",\n  \"id\": \"demo\",\n  \"name\": \"Demo\",\n  \"workflow\": {\n    \"build\": {\n      \"roles\": [\n        {\"name\": \"coder\", \"mode\": \"worker\", \"inputs_required\": [\"task\"], \"outputs_contract\": {\"required\": [\"commit_sha\"]}, \"actions_allowed\": [\"read_file\"], \"allowed_agents\": [\"claude\"], \"handoff_to\": [\"codr\"]}\n      ]\n    }\n  }\n}\n";
    let path = write(&dir, "team.json", text);
    assert!(playbook(&["fix", &path]).status.success());
    let after = std::fs::read_to_string(&path).unwrap();
    // The only name near the misspelt target is the role's own, and a role
    // never hands a task to itself: the handoff is removed, in place.
    assert_eq!(
        after,
        text.replace("\"handoff_to\": [\"codr\"]", "\"handoff_to\": []")
    );
}

#[test]
fn unreadable_files_are_reported_not_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "broken.yaml", "a: [\n");
    let output = playbook(&["fix", &path]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot be fixed"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: [\n");
    let stdin = playbook(&["fix", "-"]);
    assert_eq!(stdin.status.code(), Some(2));
}

#[test]
fn validate_json_names_the_fixes_of_each_finding() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "team.yaml", BROKEN);
    let output = playbook(&["validate", "--format", "json", &path]);
    let contract: Value = serde_json::from_slice(&output.stdout).unwrap();
    let findings = contract["details"]["findings"].as_array().unwrap();
    let handoff = findings.iter().find(|f| f["code"] == "PB301").unwrap();
    assert_eq!(
        handoff["fixes"][0]["title"],
        "Replace `reviwer` with `reviewer`"
    );
    assert_eq!(
        handoff["fixes"][1]["title"],
        "Remove the handoff to `reviwer`"
    );
}

#[test]
fn a_key_given_twice_is_fixed_then_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let text = BROKEN.replacen("id: demo\n", "id: demo\nid: other  # stray\n", 1);
    let path = write(&dir, "team.yaml", &text);
    let output = playbook(&["fix", &path]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out = stdout(&output);
    assert!(
        out.contains("fixed PB007 at /id: Remove the later `id` (line 4)"),
        "{out}"
    );
    assert!(out.contains("fixed PB301"), "{out}");
    let after = std::fs::read_to_string(&path).unwrap();
    // The removed entry's comment stays, as a line where it was.
    assert!(after.contains("id: demo\n# stray\nname: Demo\n"), "{after}");
    assert!(errors(&path).is_empty(), "{after}");
}

#[test]
fn a_fix_that_cannot_keep_the_layout_is_not_written_unless_allowed() {
    // The reviewer's contract is an alias of the coder's: a fix of it has
    // no text of its own to change, so the document would be rendered afresh.
    let text = BROKEN
        .replacen(
            "outputs_contract: {required: [commit_sha]}",
            "outputs_contract: &contract {required: [commit_sha]}",
            1,
        )
        .replacen(
            "        outputs_contract:\n          required: [notes]\n",
            "        outputs_contract: *contract\n",
            1,
        );
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "team.yaml", &text);
    let refused = playbook(&["fix", "--code", "PB207", &path]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("--allow-reformat"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text,
        "nothing written"
    );

    // The dry run says what the real run does: refuse, and no diff.
    let dry = playbook(&["fix", "--dry-run", "--code", "PB207", &path]);
    assert_eq!(dry.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&dry.stderr);
    assert!(
        stderr.contains("would not be written") && stderr.contains("PB207"),
        "{stderr}"
    );
    assert!(!stdout(&dry).contains("would fix"), "{}", stdout(&dry));
    let dry = playbook(&[
        "fix",
        "--dry-run",
        "--allow-reformat",
        "--code",
        "PB207",
        &path,
    ]);
    assert_eq!(dry.status.code(), Some(1));
    assert!(stdout(&dry).contains("would be written afresh"));

    let allowed = playbook(&["fix", "--allow-reformat", "--code", "PB207", &path]);
    assert!(allowed.status.success());
    assert!(errors(&path).iter().all(|f| f["code"] != "PB207"));
}

/// `fix` and `fmt` replace a file keeping what the person set on it: its
/// mode, a symbolic link (written through to the target), a read-only bit
/// (refused, nothing reported as fixed); a hard link is replaced and said.
#[cfg(unix)]
#[test]
fn rewriting_a_file_keeps_its_mode_links_and_read_only_bit() {
    use std::os::unix::fs::PermissionsExt;
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let set_mode = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    let dir = tempfile::tempdir().unwrap();

    let private = write(&dir, "private.yaml", BROKEN);
    set_mode(private.as_ref(), 0o600);
    assert!(playbook(&["fix", &private]).status.success());
    assert!(
        !std::fs::read_to_string(&private)
            .unwrap()
            .contains("reviwer")
    );
    assert_eq!(
        mode(private.as_ref()),
        0o600,
        "a private file stays private"
    );

    let formatted = write(&dir, "fmt.yaml", BROKEN);
    set_mode(formatted.as_ref(), 0o640);
    assert!(
        playbook(&["fmt", "--drop-comments", &formatted])
            .status
            .success()
    );
    assert!(!std::fs::read_to_string(&formatted).unwrap().contains('#'));
    assert_eq!(mode(formatted.as_ref()), 0o640);

    // Judged on the mode bits, so this holds when the tests run as root.
    let read_only = write(&dir, "ro.yaml", BROKEN);
    set_mode(read_only.as_ref(), 0o444);
    let output = playbook(&["fix", &read_only]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("read-only (mode 0444)") && stderr.contains("chmod u+w"),
        "{stderr}"
    );
    assert!(!stdout(&output).contains("fixed"), "{}", stdout(&output));
    assert_eq!(std::fs::read_to_string(&read_only).unwrap(), BROKEN);
    assert_eq!(mode(read_only.as_ref()), 0o444);

    std::fs::create_dir(dir.path().join("real")).unwrap();
    let target = dir.path().join("real/target.yaml");
    std::fs::write(&target, BROKEN).unwrap();
    let link = dir.path().join("link.yaml");
    std::os::unix::fs::symlink("real/target.yaml", &link).unwrap();
    assert!(playbook(&["fix", link.to_str().unwrap()]).status.success());
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        !std::fs::read_to_string(&target)
            .unwrap()
            .contains("reviwer")
    );

    let first = write(&dir, "h1.yaml", BROKEN);
    let second = dir.path().join("h2.yaml");
    std::fs::hard_link(&first, &second).unwrap();
    let output = playbook(&["fix", &first]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("1 other hard link(s)"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&second).unwrap(), BROKEN);
}

/// Regression (sweep C): `fix a.yaml b.yaml` printed "fixed" for a file it
/// then refused to write, and stopped before the next file. Now a refused
/// file is said once, on standard error, the others are fixed, and the
/// exit status tells of the refusal.
#[test]
fn a_refused_file_is_not_reported_as_fixed_and_the_next_is_still_fixed() {
    let aliased = BROKEN
        .replacen(
            "outputs_contract: {required: [commit_sha]}",
            "outputs_contract: &contract {required: [commit_sha]}",
            1,
        )
        .replacen(
            "        outputs_contract:\n          required: [notes]\n",
            "        outputs_contract: *contract\n",
            1,
        );
    let dir = tempfile::tempdir().unwrap();
    let refused = write(&dir, "aliased.yaml", &aliased);
    let other = write(&dir, "other.yaml", BROKEN);
    let output = playbook(&["fix", "--code", "PB207", &refused, &other]);
    assert_eq!(output.status.code(), Some(2));
    let out = stdout(&output);
    assert!(!out.contains("aliased.yaml: fixed"), "{out}");
    assert!(out.contains("other.yaml: fixed PB207"), "{out}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("aliased.yaml was not written"));
    assert_eq!(std::fs::read_to_string(&refused).unwrap(), aliased);
    assert!(std::fs::read_to_string(&other).unwrap().contains("verdict"));
}

/// A diff names a relative file `a/<path>` as git does, and an absolute
/// one as it is (not `a//tmp/...`).
#[test]
fn dry_run_diff_headers_name_absolute_paths_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "team.yaml", BROKEN);
    let out = stdout(&playbook(&["fix", "--dry-run", &path]));
    assert!(out.contains(&format!("--- {path}\n+++ {path}\n")), "{out}");
}
