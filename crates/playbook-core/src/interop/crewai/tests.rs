//! Crews written in the shape CrewAI's documentation gives, and hostile ones.

use super::*;
use crate::model::RoleMode;
use crate::{Format, Options, Severity, validate_source};

const AGENTS: &str = "\
researcher:
  role: >
    {topic} Senior Data Researcher
  goal: >
    Uncover cutting-edge developments in {topic}
  backstory: >
    You're a seasoned researcher with a knack for uncovering the latest
    developments in {topic}.
  tools:
    - SerperDevTool
    - file_read_tool
  max_iter: 15
  allow_delegation: false

reporting_analyst:
  role: >
    {topic} Reporting Analyst
  goal: >
    Create detailed reports based on {topic} data analysis
  backstory: >
    You're a meticulous analyst.
  llm: openai/gpt-4o
";

const TASKS: &str = "\
research_task:
  description: >
    Conduct a thorough research about {topic}.
    Make sure you find any interesting and relevant information given
    the current year is {current_year}.
  expected_output: >
    A list with 10 bullet points of the most relevant information about {topic}
  agent: researcher

reporting_task:
  description: >
    Review the context you got and expand each topic into a full section for a report.
  expected_output: >
    A fully fledged report with the main topics, each with a full section of information.
  agent: reporting_analyst
  context:
    - research_task
  human_input: true
  output_file: report.md
  markdown: true
";

fn crew(agents: &str, tasks: &str) -> Result<Import, ImportError> {
    import(
        CrewFile {
            file: "config/agents.yaml",
            text: agents,
        },
        CrewFile {
            file: "config/tasks.yaml",
            text: tasks,
        },
        "/home/me/latest_ai_development",
    )
}

/// Errors of the imported playbook, validated as its YAML text.
fn errors(imp: &Import) -> Vec<String> {
    let text = crate::document::to_string(&imp.playbook, Format::Yaml).unwrap();
    let report = validate_source(&text, Format::Yaml, &Options::default());
    report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| format!("{} {}: {}", f.code.as_str(), f.path, f.message))
        .collect()
}

#[test]
fn a_research_crew_becomes_a_valid_flow() {
    let imp = crew(AGENTS, TASKS).unwrap();
    assert_eq!(errors(&imp), Vec::<String>::new());
    let p = &imp.playbook;
    assert_eq!(p.id, "latest-ai-development");
    assert_eq!(p.run_inputs(), ["topic", "current_year"]);
    let roles = p.workflow["crew"].roles();
    assert_eq!(roles.len(), 2);
    let (research, report) = (&roles[0], &roles[1]);
    assert_eq!(research.name, "research_task");
    assert_eq!(research.mode, Some(RoleMode::Planner));
    assert_eq!(research.handoff_to(), ["reporting_task"]);
    assert_eq!(research.actions_allowed(), ["read_file"]);
    assert_eq!(
        research.extra[EXTENSION_KEY]["tools_unmapped"],
        serde_json::json!(["SerperDevTool"])
    );
    let retry = research.retry_policy.as_ref().unwrap();
    assert_eq!(retry.max_iterations, Some(15));
    assert_eq!(
        retry.escalate_on.as_deref(),
        Some(&["retry_limit".to_string()][..])
    );
    assert_eq!(
        research
            .outputs_contract
            .as_ref()
            .unwrap()
            .required
            .as_deref(),
        Some(&["research_task_output".to_string()][..])
    );
    assert!(research.completion_criteria.as_ref().unwrap()[0].starts_with("A list with 10"));
    assert!(
        research
            .responsibilities
            .as_ref()
            .unwrap()
            .contains("Senior Data Researcher")
    );

    assert_eq!(report.extra[EXTENSION_KEY]["agent"], "reporting_analyst");
    assert_eq!(
        report.extra[EXTENSION_KEY]["task"]["output_file"],
        "report.md"
    );
    assert_eq!(
        report.gates.as_ref().unwrap().requires_user_approval,
        Some(true)
    );
    assert_eq!(report.inputs_required(), ["research_task_output"]);
    assert_eq!(report.handoff_to, None);
    // Tools unknown from YAML: read-only, said aloud.
    assert_eq!(report.actions_allowed(), ["read_file", "search_code"]);
    assert!(imp.notes.iter().any(|n| n.message.contains("crew.py")));
    assert!(imp.notes.iter().any(|n| n.message.contains("hierarchical")));
    assert!(p.extra[EXTENSION_KEY]["agents"]["reporting_analyst"]["llm"] == "openai/gpt-4o");
}

#[test]
fn an_agent_with_several_tasks_plays_several_roles() {
    let agents = "writer:\n  role: Writer\n  goal: Write\n  backstory: Writes.\n  tools: [FileWriterTool, DirectoryReadTool]\neditor:\n  role: Editor\n  goal: Edit\n  backstory: Edits.\nunused:\n  role: Manager\n  goal: Manage\n  backstory: Manages.\n";
    let tasks = "outline:\n  description: Outline {subject}\n  expected_output: An outline\n  agent: writer\ndraft:\n  description: Draft it\n  expected_output: A draft\n  agent: writer\n  context: [outline]\nedit:\n  description: Edit the draft\n  expected_output: An edited draft\n  agent: editor\n  context: [draft, outline]\n  async_execution: true\nfinal:\n  description: Polish\n  expected_output: Final text\n  agent: writer\n  context: [edit]\n  tools: [code_interpreter_tool]\n";
    let imp = crew(agents, tasks).unwrap();
    assert_eq!(errors(&imp), Vec::<String>::new());
    let roles = imp.playbook.workflow["crew"].roles();
    let names: Vec<&str> = roles.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["outline", "draft", "edit", "final"]);
    let writers = roles
        .iter()
        .filter(|r| r.extra[EXTENSION_KEY]["agent"] == "writer")
        .count();
    assert_eq!(writers, 3);
    // outline hands on to the next task and to every later reader.
    assert_eq!(roles[0].handoff_to(), ["draft", "edit"]);
    assert_eq!(
        roles[2].inputs_required(),
        ["draft_output", "outline_output"]
    );
    assert_eq!(roles[0].actions_allowed(), ["write_file", "list_files"]);
    // A task's own tools replace its agent's.
    assert_eq!(roles[3].actions_allowed(), ["run_command"]);
    assert!(
        imp.notes
            .iter()
            .any(|n| n.message.contains("`unused` has no task"))
    );
    assert!(
        imp.notes
            .iter()
            .any(|n| n.message.contains("asynchronously"))
    );
}

#[test]
fn a_task_without_agent_and_a_forward_context_are_notes_not_errors() {
    let tasks = "a:\n  description: A\n  expected_output: a\n  context: [b]\nb:\n  description: B\n  expected_output: b\n";
    let imp = crew("x:\n  role: X\n", tasks).unwrap();
    assert_eq!(errors(&imp), Vec::<String>::new());
    assert!(
        imp.notes
            .iter()
            .any(|n| n.message.contains("names no agent"))
    );
    assert!(
        imp.notes
            .iter()
            .any(|n| n.message.contains("comes after it"))
    );
    assert!(
        imp.playbook.workflow["crew"].roles()[0]
            .inputs_required
            .is_none()
    );
}

#[test]
fn bad_crews_are_refused_naming_file_and_line() {
    let e = crew(
        AGENTS,
        &TASKS.replace("agent: reporting_analyst", "agent: reporter"),
    )
    .unwrap_err();
    assert_eq!(e.file, "config/tasks.yaml");
    assert_eq!(e.line, Some(15), "{e}");
    assert!(
        e.message.contains("`reporter`") && e.hint.contains("researcher"),
        "{e}"
    );

    let e = crew(
        AGENTS,
        &TASKS.replace("    - research_task", "    - research"),
    )
    .unwrap_err();
    assert_eq!(e.line, Some(17), "{e}");

    let cyclic = "a:\n  description: A\n  expected_output: a\n  context: [b]\nb:\n  description: B\n  expected_output: b\n  context: [a]\n";
    let e = crew(AGENTS, cyclic).unwrap_err();
    assert!(e.message.contains("a → b → a"), "{e}");

    let e = crew("researcher:\n  role: [unclosed\n", TASKS).unwrap_err();
    assert_eq!(e.file, "config/agents.yaml");
    assert!(e.line.is_some(), "{e}");

    let e = crew(AGENTS, "t:\n  expected_output: x\n").unwrap_err();
    assert!(e.message.contains("no `description`"), "{e}");
    let e = crew(
        AGENTS,
        "t:\n  description: x\n  expected_output: y\n  human_input: maybe\n",
    )
    .unwrap_err();
    assert_eq!(e.line, Some(4), "{e}");
    let e = crew(
        "r:\n  max_iter: many\n",
        "t:\n  description: x\n  expected_output: y\n  agent: r\n",
    )
    .unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line),
        ("config/agents.yaml", Some(2)),
        "{e}"
    );
    let e = crew(AGENTS, "# nothing yet\n").unwrap_err();
    assert_eq!(e.file, "config/tasks.yaml");
    assert!(e.message.contains("no tasks"), "{e}");
    let e = crew(AGENTS, "{}\n").unwrap_err();
    assert!(e.message.contains("no tasks"), "{e}");
    let e = crew(AGENTS, "t:\n  description: {a: 1}\n  expected_output: y\n").unwrap_err();
    assert!(e.message.contains("not text"), "{e}");
}

#[test]
fn hostile_sizes_and_shapes_do_not_panic() {
    let many: String = (0..MAX_ENTRIES + 1)
        .map(|i| format!("t{i}:\n  description: d\n  expected_output: e\n"))
        .collect();
    assert!(crew(AGENTS, &many).unwrap_err().message.contains("at most"));
    let deep = format!(
        "t:\n  description: {}{}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert!(crew(AGENTS, &deep).is_err());
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";
    assert!(crew(bomb, TASKS).is_err());
    assert!(crew(AGENTS, "t:\n  description: \"\\0\"\n").is_err());
    for hostile in [
        "? [a, b]\n: x\n",
        "t:\n  description: !!binary aGVsbG8=\n  expected_output: e\n",
        "t:\n  description: d\n  expected_output: e\n---\nu: 1\n",
        "\"\u{202e}t\":\n  description: d\n  expected_output: e\n",
        "t:\n  description: d\n  expected_output: e\n  agent: researcher\n  context: {a: 1}\n",
    ] {
        let e = crew(AGENTS, hostile).unwrap_err();
        assert_eq!(e.file, "config/tasks.yaml", "{hostile}: {e}");
        assert!(e.line.is_some(), "{hostile}: {e}");
    }
    // Placeholders: only CrewAI's identifiers; JSON examples are not inputs.
    let odd = "t:\n  description: 'Return {\"a\": 1} for {topic} and {bad name} {x{y}} {'\n  expected_output: '{}'\n";
    let imp = crew(AGENTS, odd).unwrap();
    assert_eq!(imp.playbook.run_inputs(), ["topic", "y"]);
}

#[test]
fn a_merge_key_shares_an_agents_goal_and_backstory_as_pyyaml_merges_them() {
    let agents = "_base: &base\n  backstory: Shared backstory\n  goal: Shared goal\nwriter:\n  <<: *base\n  role: Writer\n  goal: Own goal\n";
    let tasks = "write:\n  description: Write it\n  expected_output: Text\n  agent: writer\n";
    let imp = crew(agents, tasks).unwrap();
    let prompt = imp.playbook.workflow["crew"].roles()[0]
        .suggested_prompt
        .clone()
        .unwrap();
    assert!(prompt.contains("Shared backstory"), "{prompt}");
    // The agent's own key wins over the merged one.
    assert!(
        prompt.contains("Own goal") && !prompt.contains("Shared goal"),
        "{prompt}"
    );
}

#[test]
fn pyyaml_booleans_are_booleans_in_crewai_files() {
    let agents =
        "writer:\n  role: Writer\n  goal: Write\n  backstory: Writes.\n  allow_delegation: no\n";
    for word in ["yes", "Yes", "ON", "'true'"] {
        let tasks = format!(
            "write:\n  description: Write it\n  expected_output: Text\n  agent: writer\n  human_input: {word}\n"
        );
        let imp = crew(agents, &tasks).unwrap_or_else(|e| panic!("{word}: {e}"));
        let role = &imp.playbook.workflow["crew"].roles()[0];
        assert_eq!(
            role.gates.as_ref().and_then(|g| g.requires_user_approval),
            Some(true),
            "{word}"
        );
        assert!(!imp.notes.iter().any(|n| n.message.contains("delegate")));
    }
}

#[test]
fn max_iter_is_read_as_pydantic_reads_it_and_kept_within_a_roles_limit() {
    let tasks = "analyse:\n  description: Analyse the data\n  expected_output: A report\n  agent: analyst\n";
    for (written, read, clamped) in [
        ("200", 100, true),
        ("99999999999999999999", 100, true),
        ("\"25\"", 25, false),
        ("25.0", 25, false),
        ("100", 100, false),
    ] {
        let agents = format!(
            "analyst:\n  role: Analyst\n  goal: Analyse\n  backstory: Careful.\n  max_iter: {written}\n"
        );
        let imp = crew(&agents, tasks).unwrap_or_else(|e| panic!("{written}: {e}"));
        let role = &imp.playbook.workflow["crew"].roles()[0];
        assert_eq!(role.max_iterations(), Some(read), "{written}");
        // The import validates: CrewAI accepts the number, so must we.
        assert_eq!(errors(&imp), Vec::<String>::new(), "{written}");
        let note = imp
            .notes
            .iter()
            .find(|n| n.message.contains("max_iter"))
            .expect("max_iter is said");
        assert_eq!(
            note.message.contains("at most 100"),
            clamped,
            "{}",
            note.message
        );
    }
    let agents =
        "analyst:\n  role: Analyst\n  goal: Analyse\n  backstory: Careful.\n  max_iter: 200\n";
    let imp = crew(agents, tasks).unwrap();
    let note = imp
        .notes
        .iter()
        .find(|n| n.message.contains("max_iter"))
        .unwrap();
    assert!(note.message.contains("`max_iter: 200`"), "{}", note.message);
    let kept = &imp.playbook.extra[EXTENSION_KEY]["agents"]["analyst"]["max_iter"];
    assert_eq!(kept, 200, "the original value is kept");
}

/// A task whose `expected_output` (or `description`) is written but empty,
/// as crewAI-examples' landing_page_generator writes `expected_output: >`
/// with nothing under it: CrewAI's `Task` takes the empty text (a `str`
/// with no minimum length) and runs the crew, so the import does too,
/// with a note saying what to write. Only a missing or null value, which
/// CrewAI refuses, is refused.
#[test]
fn an_empty_expected_output_is_imported_with_a_note() {
    let tasks = "expand_idea_task:\n  description: >\n    Expand {idea}\n  expected_output: >\n\nrefine_idea_task:\n  description: ''\n  expected_output: A refined report\n  agent: researcher\n";
    let imp = crew(AGENTS, tasks).expect("CrewAI runs this crew");
    let roles: Vec<_> = imp.playbook.roles().map(|r| r.role.clone()).collect();
    assert_eq!(roles.len(), 2);
    assert_eq!(roles[0].completion_criteria, None, "no empty criterion");
    assert!(
        !roles[0]
            .suggested_prompt
            .as_deref()
            .unwrap()
            .contains("Expected output:"),
        "{:?}",
        roles[0].suggested_prompt
    );
    assert!(
        roles[1]
            .responsibilities
            .as_deref()
            .unwrap()
            .contains("Researcher"),
        "the agent's role and goal say what the task is for: {:?}",
        roles[1].responsibilities
    );
    let notes: Vec<&str> = imp.notes.iter().map(|n| n.message.as_str()).collect();
    for (task, key) in [
        ("expand_idea_task", "expected_output"),
        ("refine_idea_task", "description"),
    ] {
        assert!(
            notes
                .iter()
                .any(|n| n.contains(task) && n.contains(&format!("empty `{key}`"))),
            "{task}: {notes:#?}"
        );
    }
    assert!(errors(&imp).is_empty(), "{:?}", errors(&imp));

    // Absent or null is what CrewAI refuses too.
    for tasks in [
        "t:\n  description: d\n",
        "t:\n  description: d\n  expected_output:\n",
        "t:\n  description: d\n  expected_output: ~\n",
    ] {
        let e = crew(AGENTS, tasks).unwrap_err();
        assert!(e.message.contains("no `expected_output`"), "{e}");
    }
}
