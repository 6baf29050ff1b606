//! What a team wires into CI: the composite action (`action.yml`), the
//! pre-commit hook (`.pre-commit-hooks.yaml`) and `playbook completions`.
//! The action's validate step is run for real, with the binary under test
//! on PATH, as the runner would run it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn yaml(file: &str) -> Value {
    let text = std::fs::read_to_string(root().join(file)).expect("the file is committed");
    yaml_serde::from_str(&text).unwrap_or_else(|e| panic!("{file} is not YAML: {e}"))
}

fn playbook(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_playbook"))
        .current_dir(root())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

#[test]
fn the_action_is_a_composite_with_the_documented_inputs() {
    let action = yaml("action.yml");
    assert_eq!(action["runs"]["using"], "composite");
    let inputs = &action["inputs"];
    for input in ["files", "format", "strict", "sarif-file"] {
        assert!(inputs[input]["description"].is_string(), "input {input}");
    }
    assert_eq!(inputs["format"]["default"], "github");
    assert_eq!(inputs["strict"]["default"], "false");
    for step in action["runs"]["steps"].as_array().expect("steps") {
        let Some(script) = step["run"].as_str() else {
            continue;
        };
        assert_eq!(
            step["shell"], "bash",
            "composite run steps name their shell"
        );
        assert!(
            !script.contains("${{"),
            "inputs reach scripts through env, never pasted in: {script}"
        );
        let check = Command::new("bash")
            .args(["-n", "-c", script])
            .output()
            .expect("bash runs");
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
}

/// Runs the action's validate step the way the runner does: its script in
/// bash, its inputs as environment variables, `playbook` on PATH.
fn run_validate_step(dir: &Path, files: &str, format: &str, strict: &str) -> (Output, String) {
    let action = yaml("action.yml");
    let steps = action["runs"]["steps"].as_array().expect("steps");
    let step = steps
        .iter()
        .find(|s| s["id"] == "validate")
        .expect("a step with id validate");
    let script = step["run"].as_str().expect("a script");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_playbook"))
        .parent()
        .expect("a directory");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let github_output = dir.join("github-output");
    let output = Command::new("bash")
        .args(["-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env("FILES", files)
        .env("FORMAT", format)
        .env("STRICT", strict)
        .env("SARIF_FILE", "out.sarif")
        .env("DOCS_URL", "")
        .env("GITHUB_OUTPUT", &github_output)
        .env(
            "GITHUB_ACTION_PATH",
            "/home/runner/work/_actions/acme/playbook-studio/v1",
        )
        .env("GITHUB_SERVER_URL", "https://github.com")
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    let outputs = std::fs::read_to_string(github_output).unwrap_or_default();
    (output, outputs)
}

fn repo_with_playbooks() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("playbooks/team a");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::copy(
        root().join("playbooks/tdd.yaml"),
        dir.path().join("playbooks/tdd.yaml"),
    )
    .unwrap();
    std::fs::copy(
        root().join("tests/fixtures/lints/pb301-unknown-handoff.yaml"),
        nested.join("broken.yaml"),
    )
    .unwrap();
    dir
}

#[test]
fn the_action_annotates_every_matched_file_and_fails_on_errors() {
    let dir = repo_with_playbooks();
    let (output, _) = run_validate_step(
        dir.path(),
        "playbooks/**/*.yaml\nplaybooks/**/*.json",
        "github",
        "false",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("::error file=playbooks/team a/broken.yaml,line="),
        "{stdout}"
    );
    let (clean, _) = run_validate_step(dir.path(), "playbooks/tdd.yaml", "github", "true");
    assert_eq!(clean.status.code(), Some(0));
}

#[test]
fn the_action_writes_sarif_and_names_it_as_an_output() {
    let dir = repo_with_playbooks();
    let (output, outputs) = run_validate_step(dir.path(), "playbooks/**/*.yaml", "sarif", "false");
    assert_eq!(output.status.code(), Some(1));
    assert!(outputs.contains("sarif-file=out.sarif"), "{outputs}");
    let log: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out.sarif")).unwrap()).unwrap();
    let rule = &log["runs"][0]["tool"]["driver"]["rules"][0];
    assert_eq!(
        rule["helpUri"],
        "https://github.com/acme/playbook-studio/blob/v1/docs/lints.md#pb001--syntax-error-error"
    );
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            == "playbooks/team%20a/broken.yaml"
    }));
}

#[test]
fn the_action_refuses_a_bad_format_and_an_empty_match() {
    let dir = repo_with_playbooks();
    let (output, _) = run_validate_step(dir.path(), "playbooks/*.yaml", "xml; rm -rf /", "false");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stdout).contains("format input must be"));
    let (output, _) = run_validate_step(dir.path(), "nowhere/**/*.yaml", "github", "false");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stdout).contains("no file matches"));
}

#[test]
fn the_pre_commit_hook_runs_a_real_subcommand_on_playbook_files() {
    let hooks = yaml(".pre-commit-hooks.yaml");
    let hook = hooks
        .as_array()
        .and_then(|h| h.iter().find(|h| h["id"] == "playbook-validate"))
        .expect("a hook with id playbook-validate");
    assert!(matches!(hook["language"].as_str(), Some("system" | "rust")));
    let entry: Vec<&str> = hook["entry"]
        .as_str()
        .expect("entry")
        .split_whitespace()
        .collect();
    assert_eq!(entry.first(), Some(&"playbook"));
    let subcommand = entry.get(1).expect("a subcommand");
    let help = playbook(&[subcommand, "--help"]);
    assert!(help.status.success(), "`playbook {subcommand}` exists");
    // The hook passes file names after the entry: validate them as such.
    let run = playbook(&[subcommand, "playbooks/tdd.yaml"]);
    assert!(run.status.success());
    let files = regex::Regex::new(hook["files"].as_str().expect("files")).expect("a regex");
    for path in [
        "playbooks/tdd.yaml",
        "team/playbooks/review.yml",
        "playbooks/x.json",
        "ci/release.playbook.yaml",
    ] {
        assert!(files.is_match(path), "{path} is checked");
    }
    for path in [
        "src/main.rs",
        "docs/playbooks.md",
        ".github/workflows/ci.yml",
    ] {
        assert!(!files.is_match(path), "{path} is not checked");
    }
}

#[test]
fn completions_cover_every_shell_and_name_the_subcommands() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = playbook(&["completions", shell]);
        assert!(output.status.success(), "{shell}");
        assert!(!output.stdout.is_empty(), "{shell}");
    }
    let bash = String::from_utf8(playbook(&["completions", "bash"]).stdout).unwrap();
    for subcommand in ["validate", "fmt", "schema", "preview", "run", "completions"] {
        assert!(bash.contains(subcommand), "bash completes {subcommand}");
    }
    assert!(bash.contains("--format"), "options too");
    assert!(bash.contains("sarif"), "and their values");
    let unknown = playbook(&["completions", "tcsh"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("bash"));
}
