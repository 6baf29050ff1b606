//! Open file accepts more than playbooks: a Claude Code subagent file opens
//! its folder of subagents as one playbook, and says which importer read it.

use playbook_studio::library::Library;

const REVIEWER: &str = "---\nname: code-reviewer\ndescription: Reviews the change for bugs.\ntools: Read, Grep\n---\nYou review code.\n";
const WRITER: &str = "---\nname: writer\ndescription: Writes the change.\n---\nYou write code.\n";

#[test]
fn a_subagent_file_imports_its_folder_as_one_playbook_named_by_its_importer() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("shop").join(".claude").join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("code-reviewer.md"), REVIEWER).unwrap();
    std::fs::write(agents.join("writer.md"), WRITER).unwrap();
    std::fs::write(agents.join("README.md"), "Our agents.\n").unwrap();
    let library = Library::open(dir.path().join("library.db"));

    let imported = library
        .import_file(&agents.join("writer.md"))
        .expect("a subagent file imports");
    assert_eq!(imported.len(), 1);
    assert!(
        imported[0]
            .source
            .contains("Claude Code subagents, 2 file(s)"),
        "{}",
        imported[0].source
    );
    let opened = library
        .open_playbook(imported[0].saved.playbook.as_str())
        .unwrap();
    let text = serde_json::to_string(&opened).unwrap();
    assert!(
        text.contains("code-reviewer") && text.contains("writer"),
        "{text}"
    );

    // A malformed subagent is refused, naming the file, and nothing is imported.
    std::fs::write(agents.join("broken.md"), "---\nname: [unclosed\n---\nx\n").unwrap();
    let error = library.import_file(&agents.join("writer.md")).unwrap_err();
    assert!(error.message.contains("broken.md"), "{}", error.message);
}

const AGENTS: &str = "researcher:\n  role: Senior researcher\n  goal: Find what is new about {topic}\n  backstory: Curious.\nanalyst:\n  role: Reporting analyst\n  goal: Write the report\n  backstory: Careful.\n";
const TASKS: &str = "research_task:\n  description: Research {topic}.\n  expected_output: Ten bullet points.\n  agent: researcher\nreporting_task:\n  description: Write a report from the research.\n  expected_output: A markdown report.\n  agent: analyst\n  context: [research_task]\n  human_input: true\n";

#[test]
fn a_crew_config_file_imports_its_crew_as_one_playbook_named_by_its_importer() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir
        .path()
        .join("news")
        .join("src")
        .join("news")
        .join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("agents.yaml"), AGENTS).unwrap();
    std::fs::write(config.join("tasks.yaml"), TASKS).unwrap();
    let library = Library::open(dir.path().join("library.db"));

    let imported = library
        .import_file(&config.join("tasks.yaml"))
        .expect("a crew's tasks.yaml imports its crew");
    assert!(
        imported[0].source.contains("(CrewAI crew)"),
        "{}",
        imported[0].source
    );
    let opened = library
        .open_playbook(imported[0].saved.playbook.as_str())
        .unwrap();
    let text = serde_json::to_string(&opened).unwrap();
    assert!(
        text.contains("research_task") && text.contains("reporting_task"),
        "{text}"
    );

    // A lone tasks.yaml (no agents.yaml beside it) is read as a playbook file.
    let lone = dir.path().join("lone");
    std::fs::create_dir_all(&lone).unwrap();
    std::fs::write(lone.join("tasks.yaml"), TASKS).unwrap();
    assert!(library.import_file(&lone.join("tasks.yaml")).is_err());
}

#[test]
fn a_library_playbook_exports_for_claude_code_with_its_file_and_the_gate_hook() {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::open(dir.path().join("library.db"));
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"model": "mine", "hooks": {}}"#,
    )
    .unwrap();

    let (files, _notes) = library
        .export_claude_code("tdd", &project)
        .expect("the example exports");
    assert_eq!(files[0], ".claude/playbooks/tdd.yaml");
    assert!(project.join(".claude/playbooks/tdd.yaml").is_file());
    let agents = std::fs::read_dir(project.join(".claude/agents"))
        .unwrap()
        .count();
    assert_eq!(agents, files.len() - 2, "one subagent per role: {files:?}");
    let settings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(project.join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(settings["model"], "mine", "the user's settings are kept");
    let hook = settings["hooks"]["PreToolUse"].to_string();
    assert!(
        hook.contains("playbook gate") && hook.contains(".claude/playbooks/tdd.yaml"),
        "{hook}"
    );

    // Its own files (the subagents, the marked playbook copy) are replaced
    // by the next export; a file it did not write stops it, untouched.
    library
        .export_claude_code("tdd", &project)
        .expect("an export replaces its own files");
    let mine = "---\nname: my-helper\ndescription: my own hand-written subagent\n---\nPrecious prompt I wrote.\n";
    std::fs::write(project.join(".claude/agents/worker.md"), mine).unwrap();
    std::fs::write(project.join(".claude/playbooks/tdd.yaml"), "# mine\n").unwrap();
    let refused = library
        .export_claude_code("tdd", &project)
        .expect_err("a hand-written subagent is not replaced");
    let message = refused.to_string();
    assert!(
        message.contains("worker.md") && message.contains("playbooks/tdd.yaml"),
        "{message}"
    );
    assert_eq!(
        std::fs::read_to_string(project.join(".claude/agents/worker.md")).unwrap(),
        mine
    );
    assert_eq!(
        std::fs::read_to_string(project.join(".claude/playbooks/tdd.yaml")).unwrap(),
        "# mine\n"
    );

    // Settings that cannot be merged stop the export before anything is written.
    let other = dir.path().join("other");
    std::fs::create_dir_all(other.join(".claude")).unwrap();
    std::fs::write(other.join(".claude/settings.json"), "not json").unwrap();
    assert!(library.export_claude_code("tdd", &other).is_err());
    assert!(
        !other.join(".claude/agents").exists()
            || std::fs::read_dir(other.join(".claude/agents"))
                .unwrap()
                .count()
                == 0
    );
}
