//! CrewAI import through the real binary: crews laid out as `crewai create
//! crew` writes them (src/<package>/config/agents.yaml and tasks.yaml), then
//! validated and previewed.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_playbook"))
        .env_remove("PLAYBOOK_DB")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

#[track_caller]
fn ok(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[track_caller]
fn refused(output: &Output, says: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!output.status.success(), "must be refused: {stderr}");
    for s in says {
        assert!(stderr.contains(s), "the message says `{s}`: {stderr}");
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const AGENTS: &str = "researcher:
  role: >
    {topic} Senior Data Researcher
  goal: >
    Uncover cutting-edge developments in {topic}
  backstory: >
    You're a seasoned researcher who finds the latest developments in {topic}.
  tools: [SerperDevTool, FileReadTool]
  max_iter: 10
reporting_analyst:
  role: >
    {topic} Reporting Analyst
  goal: >
    Create detailed reports based on {topic} research
  backstory: >
    You're a meticulous analyst.
  tools: [FileWriterTool]
";

const TASKS: &str = "research_task:
  description: >
    Conduct a thorough research about {topic}
  expected_output: >
    A list with 10 bullet points about {topic}
  agent: researcher
reporting_task:
  description: >
    Expand each point into a full section of a report.
  expected_output: >
    A fully fledged report formatted as markdown
  agent: reporting_analyst
  context: [research_task]
  human_input: true
  output_file: report.md
";

/// A crew project as `crewai create crew` lays it out.
fn crew(root: &Path, agents: &str, tasks: &str) {
    let config = root.join("src/market_study/config");
    write(&config.join("agents.yaml"), agents);
    write(&config.join("tasks.yaml"), tasks);
    write(
        &root.join("src/market_study/crew.py"),
        "# the crew's code\n",
    );
}

fn import(dir: &Path, out: &Path) -> Output {
    run(&[
        "import",
        "--from",
        "crewai",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
}

#[test]
fn a_crew_imports_validates_and_previews() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("market_study");
    crew(&root, AGENTS, TASKS);
    let out = tmp.path().join("crew.yaml");
    let imported = import(&root, &out);
    ok(&imported);
    let notes = String::from_utf8_lossy(&imported.stderr);
    assert!(notes.contains("crew.py"), "{notes}");
    assert!(notes.contains("SerperDevTool"), "{notes}");

    let playbook: Value = yaml_serde::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(playbook["id"], "market-study");
    assert_eq!(playbook["run_inputs"], serde_json::json!(["topic"]));
    let roles = &playbook["workflow"]["crew"]["roles"];
    assert_eq!(roles[0]["name"], "research_task");
    assert_eq!(
        roles[0]["handoff_to"],
        serde_json::json!(["reporting_task"])
    );
    assert_eq!(roles[0]["retry_policy"]["max_iterations"], 10);
    assert_eq!(roles[1]["gates"]["requires_user_approval"], true);
    assert_eq!(
        roles[1]["inputs_required"],
        serde_json::json!(["research_task_output"])
    );
    assert_eq!(
        roles[1]["actions_allowed"],
        serde_json::json!(["write_file"])
    );

    let report: Value = serde_json::from_str(&ok(&run(&[
        "validate",
        "--format",
        "json",
        out.to_str().unwrap(),
    ])))
    .unwrap();
    assert_eq!(report["allow"], true, "{report}");

    let preview = ok(&run(&["preview", out.to_str().unwrap()]));
    assert!(preview.contains("outcome: passed"), "{preview}");
    assert!(preview.contains("reporting_task"), "{preview}");
}

#[test]
fn the_config_directory_and_yml_files_are_found_and_stdout_is_the_default() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("flat/config");
    write(&config.join("agents.yml"), AGENTS);
    write(&config.join("tasks.yml"), TASKS);
    for dir in [tmp.path().join("flat"), config.clone()] {
        let text = ok(&run(&["import", "--from", "crewai", dir.to_str().unwrap()]));
        let playbook: Value = yaml_serde::from_str(&text).unwrap();
        assert_eq!(playbook["id"], "flat");
    }
}

#[test]
fn bad_crews_are_refused_with_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out.yaml");

    let only_agents = tmp.path().join("a");
    write(&only_agents.join("config/agents.yaml"), AGENTS);
    refused(&import(&only_agents, &out), &["tasks.yaml is missing"]);

    let only_tasks = tmp.path().join("t");
    write(&only_tasks.join("config/tasks.yaml"), TASKS);
    refused(&import(&only_tasks, &out), &["agents.yaml is missing"]);

    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    refused(&import(&empty, &out), &["no CrewAI config found"]);
    refused(
        &import(&tmp.path().join("absent"), &out),
        &["not a directory"],
    );

    let unknown = tmp.path().join("unknown");
    crew(
        &unknown,
        AGENTS,
        &TASKS.replace("agent: reporting_analyst", "agent: writer"),
    );
    refused(
        &import(&unknown, &out),
        &[
            "tasks.yaml:12:",
            "`writer`",
            "researcher, reporting_analyst",
        ],
    );

    let missing_context = tmp.path().join("ctx");
    crew(
        &missing_context,
        AGENTS,
        &TASKS.replace("[research_task]", "[research]"),
    );
    refused(
        &import(&missing_context, &out),
        &["tasks.yaml:13:", "`research`"],
    );

    let cycle = tmp.path().join("cycle");
    crew(
        &cycle,
        AGENTS,
        &TASKS.replace(
            "  agent: researcher\n",
            "  agent: researcher\n  context: [reporting_task]\n",
        ),
    );
    refused(
        &import(&cycle, &out),
        &[
            "in a circle",
            "research_task → reporting_task → research_task",
        ],
    );

    let malformed = tmp.path().join("malformed");
    crew(&malformed, "researcher:\n  role: \"unclosed\n", TASKS);
    refused(&import(&malformed, &out), &["agents.yaml:"]);

    let huge = tmp.path().join("huge");
    crew(
        &huge,
        AGENTS,
        &format!("{TASKS}# {}\n", "x".repeat(3 * 1024 * 1024)),
    );
    refused(&import(&huge, &out), &["tasks.yaml", "larger than"]);

    let binary = tmp.path().join("binary");
    crew(&binary, AGENTS, TASKS);
    std::fs::write(
        binary.join("src/market_study/config/tasks.yaml"),
        [0xff, 0xfe, 0x00],
    )
    .unwrap();
    refused(&import(&binary, &out), &["not UTF-8"]);

    let two = tmp.path().join("two");
    write(&two.join("src/one/config/agents.yaml"), AGENTS);
    write(&two.join("src/other/config/tasks.yaml"), TASKS);
    refused(&import(&two, &out), &["several crews"]);
    assert!(!out.exists(), "nothing is written on a refusal");
}

/// `--out` never replaces a file silently (as `db export -o`): refused,
/// the file kept, until `--force`.
#[test]
fn an_existing_out_file_is_kept_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("market_study");
    crew(&root, AGENTS, TASKS);
    let out = tmp.path().join("mine.yaml");
    let notes = "# my notes\nprecious: true\n";
    std::fs::write(&out, notes).unwrap();
    refused(
        &import(&root, &out),
        &["mine.yaml exists; pass --force to replace it"],
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), notes);
    ok(&run(&[
        "import",
        "--from",
        "crewai",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--force",
    ]));
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("schema_version")
    );
}

#[test]
fn a_crew_written_for_pyyaml_and_pydantic_imports_and_validates() {
    // A merge key, YAML 1.1 booleans and a `max_iter` above a role's limit
    // are all legal in CrewAI.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("market_study");
    crew(
        &root,
        "_shared: &shared\n  backstory: Shared backstory\n  goal: Shared goal\nanalyst:\n  <<: *shared\n  role: Analyst\n  max_iter: 200\n  allow_delegation: no\n",
        "analyse:\n  description: Analyse the data\n  expected_output: A report\n  agent: analyst\n  human_input: yes\n",
    );
    let out = tmp.path().join("crew.yaml");
    let imported = import(&root, &out);
    ok(&imported);
    let notes = String::from_utf8_lossy(&imported.stderr);
    assert!(
        notes.contains("`max_iter: 200`") && notes.contains("at most 100"),
        "{notes}"
    );
    let playbook: Value = yaml_serde::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let role = &playbook["workflow"]["crew"]["roles"][0];
    assert_eq!(role["gates"]["requires_user_approval"], true);
    assert_eq!(role["retry_policy"]["max_iterations"], 100);
    let prompt = role["suggested_prompt"].as_str().unwrap();
    assert!(
        prompt.contains("Shared backstory") && prompt.contains("Shared goal"),
        "{prompt}"
    );
    let report: Value = serde_json::from_str(&ok(&run(&[
        "validate",
        "--format",
        "json",
        out.to_str().unwrap(),
    ])))
    .unwrap();
    assert_eq!(report["allow"], true, "{report}");
}
