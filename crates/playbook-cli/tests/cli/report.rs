//! `validate --format sarif` and `--format github` through the real binary:
//! every SARIF log is checked against the official SARIF 2.1.0 JSON Schema,
//! results agree with the JSON contract, and annotations survive hostile
//! file names and messages.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::LazyLock;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn playbook_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_playbook"));
    command
        .current_dir(dir)
        .args(args)
        .env_remove("PLAYBOOK_DOCS_URL")
        .env_remove("GITHUB_WORKSPACE")
        .stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("the binary runs")
}

fn playbook(args: &[&str]) -> Output {
    playbook_in(&root(), args, &[])
}

static SARIF_SCHEMA: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
    let text = std::fs::read_to_string(root().join("tests/fixtures/sarif/sarif-schema-2.1.0.json"))
        .expect("the SARIF schema fixture is committed");
    let mut schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    // Formats are checked (`uri` for help links, `uri-reference` for
    // artifacts), which makes the validator check the schema's own patterns
    // as regexes too. The published `language` patterns have a stray `]`
    // (`...[a-zA-Z]{2}]?$`) that strict regex checking refuses; the report
    // never writes `language`, so those patterns are replaced by what they
    // mean, in memory only.
    let fixed = fix_language_patterns(&mut schema);
    assert!(fixed >= 1, "the schema changed: review this workaround");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
});

fn fix_language_patterns(value: &mut Value) -> usize {
    const PUBLISHED: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    match value {
        Value::String(text) if text == PUBLISHED => {
            *text = "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".into();
            1
        }
        Value::Array(items) => items.iter_mut().map(fix_language_patterns).sum(),
        Value::Object(map) => map.values_mut().map(fix_language_patterns).sum(),
        _ => 0,
    }
}

/// Runs `validate --format sarif`, checks the log against the schema and the
/// internal consistency a viewer relies on, and returns it with the exit code.
#[track_caller]
pub(super) fn sarif(dir: &Path, files: &[&str], env: &[(&str, &str)]) -> (Value, Option<i32>) {
    let mut args = vec!["validate", "--format", "sarif"];
    args.extend_from_slice(files);
    let output = playbook_in(dir, &args, env);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(101), "panicked: {stderr}");
    let log: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is JSON ({e}); stderr: {stderr}"));
    let errors: Vec<String> = SARIF_SCHEMA
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "not valid SARIF 2.1.0: {errors:#?}");
    assert_eq!(log["version"], "2.1.0");
    let runs = log["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "one run for all files");
    let rules = runs[0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    for result in runs[0]["results"].as_array().expect("results") {
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"], "{result:#}");
        assert!(
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].is_string(),
            "{result:#}"
        );
    }
    (log, output.status.code())
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().expect("results")
}

fn json_contract(dir: &Path, files: &[&str]) -> (Value, Option<i32>) {
    let mut args = vec!["validate", "--format", "json"];
    args.extend_from_slice(files);
    let output = playbook_in(dir, &args, &[]);
    (
        serde_json::from_slice(&output.stdout).expect("the JSON contract"),
        output.status.code(),
    )
}

#[test]
fn every_lint_code_is_a_rule_with_its_documentation() {
    let (log, code) = sarif(&root(), &["playbooks/tdd.yaml"], &[]);
    assert_eq!(code, Some(0));
    let driver = &log["runs"][0]["tool"]["driver"];
    assert_eq!(driver["name"], "playbook");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let rules = driver["rules"].as_array().unwrap();
    let pb301 = rules.iter().find(|r| r["id"] == "PB301").expect("PB301");
    assert_eq!(
        pb301["shortDescription"]["text"],
        "handoff_to names a role that does not exist."
    );
    assert_eq!(pb301["defaultConfiguration"]["level"], "error");
    assert_eq!(
        pb301["properties"]["documentation"],
        "docs/lints.md#pb301--unknown-handoff-target-error"
    );
    let pb006 = rules.iter().find(|r| r["id"] == "PB006").expect("PB006");
    assert_eq!(pb006["defaultConfiguration"]["level"], "note");
    assert!(
        pb006["fullDescription"]["text"]
            .as_str()
            .unwrap()
            .contains("schema_version")
    );
    assert!(
        pb301.get("helpUri").is_none(),
        "no absolute docs URL configured, so no helpUri"
    );
    assert!(results(&log).is_empty());
}

#[test]
fn a_configured_docs_url_gives_absolute_help_links() {
    let env = [(
        "PLAYBOOK_DOCS_URL",
        "https://example.com/team/playbook/blob/v1/docs",
    )];
    let (log, _) = sarif(&root(), &["playbooks/tdd.yaml"], &env);
    let driver = &log["runs"][0]["tool"]["driver"];
    assert_eq!(
        driver["informationUri"],
        "https://example.com/team/playbook/blob/v1/docs/"
    );
    let pb001 = &driver["rules"][0];
    assert_eq!(
        pb001["helpUri"],
        "https://example.com/team/playbook/blob/v1/docs/lints.md#pb001--syntax-error-error"
    );
    // A relative or malformed value would break the log: it is ignored.
    let (log, _) = sarif(
        &root(),
        &["playbooks/tdd.yaml"],
        &[("PLAYBOOK_DOCS_URL", "docs/ x")],
    );
    assert!(
        log["runs"][0]["tool"]["driver"]
            .get("informationUri")
            .is_none()
    );
}

#[test]
fn results_match_the_json_contract_with_regions_and_exit_code() {
    let files = [
        "tests/fixtures/lints/pb301-unknown-handoff.yaml",
        "tests/fixtures/lints/pb006-no-version.yaml",
        "playbooks/legacy.yaml",
    ];
    let (log, code) = sarif(&root(), &files, &[]);
    let (contract, json_code) = json_contract(&root(), &files);
    assert_eq!(code, json_code, "same exit code as --format json");
    assert_eq!(code, Some(1));
    let findings = contract["details"]["findings"].as_array().unwrap();
    let results = results(&log);
    assert_eq!(results.len(), findings.len());
    for (result, finding) in results.iter().zip(findings) {
        assert_eq!(result["ruleId"], finding["code"]);
        let level = match finding["severity"].as_str().unwrap() {
            "info" => "note",
            other => other,
        };
        assert_eq!(result["level"], level);
        let text = result["message"]["text"].as_str().unwrap();
        assert!(text.starts_with(finding["message"].as_str().unwrap()));
        assert!(text.contains(finding["hint"].as_str().unwrap()));
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], finding["file"]);
        assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert_eq!(location["region"]["startLine"], finding["location"]["line"]);
        assert_eq!(
            location["region"]["startColumn"],
            finding["location"]["column"]
        );
    }
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == "PB301" && r["level"] == "error")
    );
}

#[test]
fn every_lint_fixture_and_envelope_gives_valid_sarif() {
    for dir in ["tests/fixtures/lints", "tests/fixtures/envelopes"] {
        let mut files: Vec<String> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| format!("{dir}/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        files.sort();
        let refs: Vec<&str> = files.iter().map(String::as_str).collect();
        let (log, code) = sarif(&root(), &refs, &[]);
        let (_, json_code) = json_contract(&root(), &refs);
        assert_eq!(code, json_code);
        assert!(!results(&log).is_empty(), "{dir} has findings");
    }
}

#[test]
fn unreadable_and_unparsable_files_are_results_not_crashes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("binary.yaml"), [0xff, 0xfe, 0x00, 0x01]).unwrap();
    std::fs::write(dir.path().join("broken.yaml"), "id: [unclosed\n  - x: {").unwrap();
    std::fs::write(dir.path().join("empty.json"), "").unwrap();
    std::fs::create_dir(dir.path().join("folder.yaml")).unwrap();
    let files = [
        "missing.yaml",
        "binary.yaml",
        "broken.yaml",
        "empty.json",
        "folder.yaml",
    ];
    let (log, code) = sarif(dir.path(), &files, &[]);
    assert_eq!(code, Some(1));
    let results = results(&log);
    let uris: Vec<&str> = results
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    for file in files {
        assert!(uris.contains(&file), "{file} has a result: {uris:?}");
    }
    let read_errors = results
        .iter()
        .filter(|r| r["ruleId"] == "READ_ERROR")
        .count();
    assert_eq!(read_errors, 3, "missing, binary and directory");
    assert!(results.iter().all(|r| r["level"] == "error"));
    // Files it could not read are work the validator did not do.
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notified: Vec<&str> = invocation["toolExecutionNotifications"]
        .as_array()
        .expect("a notification per unreadable file")
        .iter()
        .map(|n| {
            n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(notified, ["missing.yaml", "binary.yaml", "folder.yaml"]);
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let read = rules
        .iter()
        .find(|r| r["id"] == "READ_ERROR")
        .expect("READ_ERROR rule");
    assert_eq!(
        read["properties"]["documentation"],
        "docs/error-codes.md#validator"
    );
}

#[test]
fn hostile_file_names_are_encoded_uri_references() {
    let dir = tempfile::tempdir().unwrap();
    let name = "we ird,50%#1?:rôle.yaml";
    std::fs::copy(
        root().join("tests/fixtures/lints/pb301-unknown-handoff.yaml"),
        dir.path().join(name),
    )
    .unwrap();
    let absolute = dir.path().join(name).to_string_lossy().into_owned();
    let (log, _) = sarif(dir.path(), &[name, &absolute], &[]);
    let uris: Vec<&str> = results(&log)
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(
        uris.contains(&"we%20ird%2C50%25%231%3F%3Ar%C3%B4le.yaml"),
        "{uris:?}"
    );
    assert!(
        uris.iter()
            .any(|u| u.starts_with("file:///") && u.ends_with("%3Ar%C3%B4le.yaml"))
    );
}

#[test]
fn standard_input_is_a_result_too() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_playbook"))
        .args(["validate", "--format", "sarif", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"id: x\nname: y\nworkflow: 3\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let log: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(SARIF_SCHEMA.is_valid(&log));
    assert_eq!(
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "-"
    );
}

/// Undoes the toolkit's escaping of a property or of the message.
fn unescape(text: &str) -> String {
    text.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

/// Splits `::level props::data` as the Actions runner does: properties up
/// to the first `::`, each split at `,` and then at the first `=`.
fn parse_command(line: &str) -> (String, Vec<(String, String)>, String) {
    let rest = line.strip_prefix("::").expect("a workflow command");
    let (head, data) = rest.split_once("::").expect("a `::` before the data");
    let (name, props) = head.split_once(' ').unwrap_or((head, ""));
    let props = props
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').expect("key=value");
            (k.to_string(), unescape(v))
        })
        .collect();
    (name.to_string(), props, unescape(data))
}

#[test]
fn github_annotations_survive_hostile_names_and_messages() {
    let dir = tempfile::tempdir().unwrap();
    let hostile_role = "r%0A,a:b\r\n::error file=x::owned";
    let playbook_text = serde_json::json!({
        "schema_version": "1.0.0",
        "id": "p",
        "name": "n",
        "workflow": {"build": {"enabled": true, "roles": [
            {"name": hostile_role, "handoff_to": ["100%,\n::warning::x:y"]}
        ]}}
    });
    let name = "a,b:c%d.json";
    std::fs::write(dir.path().join(name), playbook_text.to_string()).unwrap();
    let output = playbook_in(
        dir.path(),
        &["validate", "--format", "github", name, "gone.yaml"],
        &[],
    );
    let (contract, json_code) = json_contract(dir.path(), &[name, "gone.yaml"]);
    assert_eq!(output.status.code(), json_code);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    let findings = contract["details"]["findings"].as_array().unwrap();
    assert_eq!(
        lines.len(),
        findings.len() + 1,
        "one line per finding and read error:\n{stdout}"
    );
    for (line, finding) in lines.iter().zip(findings) {
        let (level, props, data) = parse_command(line);
        let expected = match finding["severity"].as_str().unwrap() {
            "info" => "notice",
            other => other,
        };
        assert_eq!(level, expected);
        let prop = |k: &str| {
            props
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(prop("file"), Some(name), "{line}");
        assert_eq!(prop("title"), finding["code"].as_str());
        if let Some(at) = finding.get("location") {
            assert_eq!(prop("line"), Some(at["line"].to_string().as_str()));
            assert_eq!(prop("col"), Some(at["column"].to_string().as_str()));
        }
        assert_eq!(
            data,
            format!(
                "{}\nhint: {}",
                finding["message"].as_str().unwrap(),
                finding["hint"].as_str().unwrap()
            )
        );
        assert_eq!(
            props.len(),
            prop("line").map_or(2, |_| 4),
            "no injected property: {line}"
        );
    }
    // A finding shows the name's line breaks as `\r\n` (it never breaks a
    // line itself); the annotation then encodes `%`.
    assert!(
        stdout.contains(
            &hostile_role
                .replace('\r', "\\r")
                .replace('\n', "\\n")
                .replace('%', "%25")
        ),
        "the hostile role name is in a message, escaped:\n{stdout}"
    );
    let (level, props, _) = parse_command(lines[lines.len() - 1]);
    assert_eq!(level, "error");
    assert_eq!(props[0], ("file".into(), "gone.yaml".into()));
    assert_eq!(props[1], ("title".into(), "READ_ERROR".into()));
}

#[test]
fn a_clean_file_gives_no_annotation_and_exit_zero() {
    let output = playbook(&["validate", "--format", "github", "playbooks/tdd.yaml"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
}

#[test]
fn the_schema_check_would_catch_a_broken_log() {
    let (log, _) = sarif(
        &root(),
        &["tests/fixtures/lints/pb301-unknown-handoff.yaml"],
        &[],
    );
    let mut relative_help = log.clone();
    relative_help["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] = "docs/lints.md".into();
    assert!(
        !SARIF_SCHEMA.is_valid(&relative_help),
        "helpUri must be absolute"
    );
    let mut line_zero = log.clone();
    line_zero["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        0.into();
    assert!(!SARIF_SCHEMA.is_valid(&line_zero), "lines start at 1");
    let mut bad_level = log;
    bad_level["runs"][0]["results"][0]["level"] = "info".into();
    assert!(
        !SARIF_SCHEMA.is_valid(&bad_level),
        "SARIF says note, not info"
    );
}

#[test]
fn annotations_name_files_relative_to_the_github_workspace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("playbooks")).unwrap();
    std::fs::copy(
        root().join("tests/fixtures/lints/pb301-unknown-handoff.yaml"),
        dir.path().join("playbooks/p.yaml"),
    )
    .unwrap();
    let absolute = dir.path().join("playbooks/p.yaml");
    let absolute = absolute.to_string_lossy();
    let workspace = dir.path().to_string_lossy().into_owned();
    let inside = playbook_in(
        &root(),
        &["validate", "--format", "github", &absolute],
        &[("GITHUB_WORKSPACE", &workspace)],
    );
    let stdout = String::from_utf8_lossy(&inside.stdout);
    assert!(
        stdout.contains("::error file=playbooks/p.yaml,"),
        "{stdout}"
    );
    let outside = playbook_in(
        &root(),
        &["validate", "--format", "github", &absolute],
        &[("GITHUB_WORKSPACE", "/nowhere")],
    );
    let stdout = String::from_utf8_lossy(&outside.stdout);
    assert!(stdout.contains("::error file=/"), "{stdout}");
}

#[test]
fn hostile_documents_give_valid_sarif_and_one_annotation_per_finding() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n".to_string()
        + &(b'b'..=b'k')
            .map(|c| {
                let prev = (c - 1) as char;
                let c = c as char;
                format!("{c}: &{c} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n")
            })
            .collect::<String>();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("deep.json", "[".repeat(100_000).into_bytes()),
        ("bomb.yaml", bomb.into_bytes()),
        ("nul.yaml", b"id: a\0b\nname: x\n".to_vec()),
        (
            "bom-crlf.yaml",
            b"\xef\xbb\xbfid: x\r\nname: y\r\nworkflow: {}\r\n".to_vec(),
        ),
        ("two-docs.yaml", b"id: x\n---\nid: y\n".to_vec()),
        ("tabs.yaml", b"id:\tx\n\tname: y\n".to_vec()),
        ("scalar.json", b"42".to_vec()),
        (
            "wide.yaml",
            format!("id: {}\n", "\u{202e}\u{200b}é".repeat(20_000)).into_bytes(),
        ),
    ];
    let mut names = Vec::new();
    for (name, bytes) in &cases {
        std::fs::write(dir.path().join(name), bytes).unwrap();
        names.push(*name);
    }
    let (log, code) = sarif(dir.path(), &names, &[]);
    let (contract, json_code) = json_contract(dir.path(), &names);
    assert_eq!(code, json_code);
    assert_eq!(code, Some(1));
    let findings = contract["details"]["findings"].as_array().unwrap().len();
    let read_errors = contract["details"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f.get("read_error").is_some())
        .count();
    assert_eq!(results(&log).len(), findings + read_errors);
    let mut args = vec!["validate", "--format", "github"];
    args.extend_from_slice(&names);
    let github = playbook_in(dir.path(), &args, &[]);
    assert_eq!(github.status.code(), Some(1));
    let stdout = String::from_utf8(github.stdout).unwrap();
    assert_eq!(stdout.lines().count(), findings + read_errors, "{stdout}");
    assert!(stdout.lines().all(|l| l.starts_with("::error ")
        || l.starts_with("::warning ")
        || l.starts_with("::notice ")));
}
