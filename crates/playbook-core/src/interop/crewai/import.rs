//! A crew's two files → a playbook: one role per task, in file order.
//!
//! A role per *task* (not per agent) because the task is what runs, hands
//! its output on and may wait for a person; an agent that does several
//! tasks plays several roles, each naming it in `x_crewai.agent`.

use serde_json::{Map, Value, json};

use super::config::Config;
use super::context;
use super::tools::import_tool;
use super::{CrewFile, Import, ImportError, Note};
use crate::model::{
    Gates, OutputsContract, Playbook, RetryPolicy, Role, RoleMode, SCHEMA_VERSION, Stage,
};
use crate::templates::role_template;
use crate::validate::limits::MAX_ITERATIONS;

/// The extension (on roles and on the playbook) holding what CrewAI has
/// and playbooks do not.
pub const EXTENSION_KEY: &str = "x_crewai";

/// The one stage the tasks go into, in file order.
const STAGE: &str = "crew";

/// What a role may do when its YAML names no tools: CrewAI attaches tools
/// in `crew.py` as often as in YAML, so the import cannot know them; reading
/// is the least that lets the role see the project.
const TOOLS_WHEN_UNKNOWN: &[&str] = &["read_file", "search_code"];

/// Task keys read into the role itself; all others are kept verbatim.
const READ_TASK_KEYS: &[&str] = &["description", "expected_output", "agent", "human_input"];

/// Keys whose value names Python code (a function or a class): the YAML
/// says that something runs, never what it does.
const CODE_KEYS: &[&str] = &[
    "callback",
    "callbacks",
    "step_callback",
    "guardrail",
    "guardrails",
    "output_json",
    "output_pydantic",
    "converter_cls",
];

/// Builds a playbook from a crew's `agents.yaml` and `tasks.yaml`.
/// `crew_name` (the project directory's name) names the playbook.
pub fn import(
    agents: CrewFile<'_>,
    tasks: CrewFile<'_>,
    crew_name: &str,
) -> Result<Import, ImportError> {
    let agents = Config::parse(agents, "agent")?;
    let tasks = Config::parse(tasks, "task")?;
    if tasks.entries.is_empty() {
        return Err(ImportError::new(
            tasks.file,
            None,
            "no tasks",
            "add at least one `<task_id>:` with `description`, `expected_output` and `agent`",
        ));
    }
    let reads = context::resolve(&tasks)?;
    let order: Vec<&str> = tasks.entries.keys().map(String::as_str).collect();
    let mut notes = vec![Note {
        file: tasks.file.to_string(),
        message: "the crew's process (sequential or hierarchical) is set in crew.py, not in YAML: the tasks run here in file order, as `Process.sequential` runs them; if the crew is hierarchical, a manager picks who works on what — check the order and the handoffs".into(),
    }];
    let mut run_inputs: Vec<String> = Vec::new();
    let mut roles: Vec<Role> = Vec::new();
    let mut no_tools: Vec<&str> = Vec::new();
    for (position, id) in order.iter().enumerate() {
        let (role, placeholder_names) = read_task(
            &agents,
            &tasks,
            id,
            &reads[*id],
            &order[..position],
            &mut notes,
            &mut no_tools,
        )?;
        for input in placeholder_names {
            push_unique(&mut run_inputs, input);
        }
        roles.push(role);
    }
    if !no_tools.is_empty() {
        notes.push(Note {
            file: agents.file.to_string(),
            message: format!(
                "no tools in YAML for {}: CrewAI tools are often attached in crew.py; these roles may only read ({}) — add what crew.py gives them to `actions_allowed`",
                no_tools.join(", "),
                TOOLS_WHEN_UNKNOWN.join(", ")
            ),
        });
    }
    link(&mut roles, &order, &reads);
    let used: Vec<&str> = roles
        .iter()
        .filter_map(|r| r.extra.get(EXTENSION_KEY)?.get("agent")?.as_str())
        .collect();
    for agent in agents.entries.keys() {
        if !used.contains(&agent.as_str()) {
            notes.push(Note {
                file: agents.file.to_string(),
                message: format!(
                    "agent `{agent}` has no task in YAML, so no role: crew.py may assign it tasks, or it may be a hierarchical crew's manager (`manager_agent`); it is kept under `{EXTENSION_KEY}.agents`"
                ),
            });
        }
    }
    let mut extra = crate::model::Extra::default();
    extra.insert(
        EXTENSION_KEY.into(),
        json!({ "agents": Value::Object(agents.entries.iter().map(|(k, v)| (k.clone(), Value::Object(v.clone()))).collect()) }),
    );
    let playbook = Playbook {
        schema: None,
        schema_version: Some(SCHEMA_VERSION.into()),
        name: format!("CrewAI crew {}", display_name(crew_name)),
        id: id_from(crew_name),
        description: Some(
            "Imported from a CrewAI crew (agents.yaml and tasks.yaml): one role per task, in file order.".into(),
        ),
        phases: None,
        policies: None,
        run_inputs: (!run_inputs.is_empty()).then_some(run_inputs),
        mutating_actions: None,
        workflow: [(
            STAGE.to_string(),
            Stage {
                roles: Some(roles),
                ..Default::default()
            },
        )]
        .into_iter()
        .collect(),
        extra,
    };
    Ok(Import { playbook, notes })
}

const OUTPUT_SUFFIX: &str = "_output";

/// The output field a task promises, and the tasks reading it require.
fn output_field(task: &str) -> String {
    format!("{task}{OUTPUT_SUFFIX}")
}

fn read_task<'t>(
    agents: &Config,
    tasks: &Config,
    id: &'t str,
    reads: &[String],
    earlier: &[&str],
    notes: &mut Vec<Note>,
    no_tools: &mut Vec<&'t str>,
) -> Result<(Role, Vec<String>), ImportError> {
    let note = |notes: &mut Vec<Note>, message: String| {
        notes.push(Note {
            file: tasks.file.to_string(),
            message,
        })
    };
    // CrewAI's `Task` refuses a missing or null `description` or
    // `expected_output`, but takes an empty text (a `str` with no minimum
    // length) and runs the crew: so does the import, with a note. `None` is
    // the empty text.
    let required = |notes: &mut Vec<Note>, key: &str, what: &str| match tasks.text(id, key)? {
        Some(text) => Ok(Some(text)),
        None if tasks.is_set(id, key) => {
            note(
                notes,
                format!(
                    "task `{id}` has an empty `{key}`: CrewAI runs it, but nothing says {what}; write it in the role"
                ),
            );
            Ok(None)
        }
        None => Err(tasks.err(
            id,
            Some(key),
            format!("task `{id}` has no `{key}`"),
            format!("add `{key}:` ({what}); CrewAI requires it too"),
        )),
    };
    let description = required(notes, "description", "what the task is")?;
    let expected = required(notes, "expected_output", "what its result looks like")?;
    let agent = tasks.text(id, "agent")?;
    if let Some(agent) = &agent
        && !agents.entries.contains_key(agent)
    {
        let known: Vec<&str> = agents.entries.keys().take(20).map(String::as_str).collect();
        return Err(tasks.err(
            id,
            Some("agent"),
            format!(
                "task `{id}` names agent `{agent}`, which {} does not define",
                agents.file
            ),
            if known.is_empty() {
                format!("define `{agent}:` in {}", agents.file)
            } else {
                format!("use one of: {}", known.join(", "))
            },
        ));
    }
    let a = agent.as_deref();
    let agent_text = |key: &str| -> Result<Option<String>, ImportError> {
        match a {
            Some(a) => agents.text(a, key),
            None => Ok(None),
        }
    };
    let persona = agent_text("role")?;
    let goal = agent_text("goal")?;
    let backstory = agent_text("backstory")?;
    if a.is_none() {
        note(
            notes,
            format!(
                "task `{id}` names no agent in YAML: crew.py gives it one (`Task(agent=...)`), or in a hierarchical crew the manager assigns it — check which, and add its role and goal to the role"
            ),
        );
    }
    let mode = guess_mode(id, persona.as_deref());
    note(
        notes,
        format!(
            "`{id}` is read as a {mode} (from its name and its agent's role); change `mode` if it is not — a reviewer must then promise a `verdict`"
        ),
    );

    // Tools: the task's own list replaces the agent's, as in CrewAI.
    let tools = match tasks.names(id, "tools")? {
        Some(t) => Some(t),
        None => match a {
            Some(a) => agents.names(a, "tools")?,
            None => None,
        },
    };
    let mut allowed: Vec<String> = Vec::new();
    let mut unmapped: Vec<String> = Vec::new();
    match tools {
        Some(tools) => {
            for tool in tools {
                match import_tool(&tool) {
                    Some(ours) => push_unique(&mut allowed, ours.to_string()),
                    None => push_unique(&mut unmapped, tool),
                }
            }
            if !unmapped.is_empty() {
                note(
                    notes,
                    format!(
                        "task `{id}`: no playbook tool for {} (implemented in Python): kept in `{EXTENSION_KEY}.tools_unmapped`; check in crew.py what they do",
                        unmapped.join(", ")
                    ),
                );
            }
        }
        None => {
            allowed = TOOLS_WHEN_UNKNOWN.iter().map(|s| s.to_string()).collect();
            no_tools.push(id);
        }
    }

    let retry_policy = match a {
        Some(a) => match agents.integer(a, "max_iter")? {
            Some(n) if n.value >= 1 => {
                // CrewAI takes any number of steps; a role's retry limit is
                // at most MAX_ITERATIONS, so more is read as the limit, said.
                let limit = i128::from(MAX_ITERATIONS);
                let read = u32::try_from(n.value.min(limit)).unwrap_or(MAX_ITERATIONS);
                let written = &n.written;
                let message = if n.value > limit {
                    format!(
                        "task `{id}`: agent `{a}`'s `max_iter: {written}` caps its reasoning steps in CrewAI; read as the role's retry limit, which is at most {MAX_ITERATIONS}: {MAX_ITERATIONS} (the original value is kept under `{EXTENSION_KEY}.agents`)"
                    )
                } else {
                    format!(
                        "task `{id}`: agent `{a}`'s `max_iter: {written}` caps its reasoning steps in CrewAI; read as the role's retry limit"
                    )
                };
                note(notes, message);
                Some(RetryPolicy {
                    max_iterations: Some(read),
                    escalate_on: Some(vec!["retry_limit".into()]),
                    ..Default::default()
                })
            }
            Some(n) => {
                note(
                    notes,
                    format!(
                        "agent `{a}` has `max_iter: {}`; a limit below 1 is left out (kept under `{EXTENSION_KEY}.agents`)",
                        n.written
                    ),
                );
                None
            }
            None => None,
        },
        None => None,
    };
    if let Some(a) = a
        && agents.flag(a, "allow_delegation")? == Some(true)
    {
        note(
            notes,
            format!(
                "task `{id}`: agent `{a}` may delegate to other agents in CrewAI; a role cannot — check which tasks it hands on"
            ),
        );
    }
    let human_input = tasks.flag(id, "human_input")?.unwrap_or(false);
    if tasks.flag(id, "async_execution")? == Some(true) {
        note(
            notes,
            format!(
                "task `{id}` runs asynchronously in CrewAI (alongside the next tasks); here it runs in order"
            ),
        );
    }
    let fields = &tasks.entries[id];
    for key in CODE_KEYS {
        if fields.contains_key(*key) {
            note(
                notes,
                format!(
                    "task `{id}`: `{key}` names Python code that the playbook cannot check; it is kept under `{EXTENSION_KEY}.task`"
                ),
            );
        }
    }

    // Placeholders are filled from the crew's `kickoff(inputs=...)`: they
    // become run inputs of the playbook, not inputs a role requires, so a
    // preview without values still runs the flow (the prompt shows them).
    let mut placeholder_names: Vec<String> = Vec::new();
    for text in [
        description.as_ref(),
        expected.as_ref(),
        persona.as_ref(),
        goal.as_ref(),
        backstory.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        for name in placeholders(text) {
            push_unique(&mut placeholder_names, name);
        }
    }
    let mut inputs: Vec<String> = Vec::new();
    for upstream in reads {
        if earlier.contains(&upstream.as_str()) {
            push_unique(&mut inputs, output_field(upstream));
        } else {
            note(
                notes,
                format!(
                    "task `{id}` reads the output of `{upstream}`, which comes after it in the file: in a sequential crew that output does not exist yet; move `{upstream}` up, or check the crew's process"
                ),
            );
        }
    }

    let purpose = match (&persona, &goal) {
        (Some(p), Some(g)) => Some(format!("As {p}: {g}")),
        (Some(p), None) => Some(format!("As {p}.")),
        (None, Some(g)) => Some(format!("Goal: {g}")),
        (None, None) => None,
    };
    let responsibilities = match (&description, purpose) {
        (Some(d), Some(p)) => Some(format!("{d}\n\n{p}")),
        (Some(d), None) => Some(d.clone()),
        (None, p) => p,
    };
    let mut prompt = String::new();
    if let Some(p) = &persona {
        prompt.push_str(&format!("You are {p}.\n"));
    }
    if let Some(b) = &backstory {
        prompt.push_str(&format!("{b}\n"));
    }
    if let Some(g) = &goal {
        prompt.push_str(&format!("Your personal goal: {g}\n"));
    }
    if !prompt.is_empty() {
        prompt.push('\n');
    }
    let task: Vec<String> = [
        description.as_ref().map(|d| format!("Task: {d}")),
        expected.as_ref().map(|e| format!("Expected output: {e}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    prompt.push_str(&task.join("\n\n"));

    let mut extension = Map::new();
    if let Some(a) = a {
        extension.insert("agent".into(), json!(a));
    }
    if !unmapped.is_empty() {
        extension.insert("tools_unmapped".into(), json!(unmapped));
    }
    let kept: Map<String, Value> = fields
        .iter()
        .filter(|(k, _)| !READ_TASK_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !kept.is_empty() {
        extension.insert("task".into(), Value::Object(kept));
    }
    let mut role = Role {
        name: id.to_string(),
        responsibilities,
        allowed_agents: role_template(mode).allowed_agents,
        suggested_prompt: Some(prompt.trim_end().to_string()).filter(|p| !p.is_empty()),
        mode: Some(mode),
        inputs_required: (!inputs.is_empty()).then_some(inputs),
        outputs_contract: Some(OutputsContract {
            kind: Some("crewai_task_output".into()),
            required: Some(vec![output_field(id)]),
            ..Default::default()
        }),
        actions_allowed: Some(allowed),
        gates: human_input.then(|| Gates {
            requires_user_approval: Some(true),
            ..Default::default()
        }),
        handoff_to: None,
        retry_policy,
        completion_criteria: expected.map(|e| vec![e]),
        extra: Default::default(),
    };
    role.extra
        .insert(EXTENSION_KEY.into(), Value::Object(extension));
    Ok((role, placeholder_names))
}

/// Handoffs: each task hands on to the next one in the file (the order a
/// sequential crew runs) and to every later task that reads its output.
fn link(roles: &mut [Role], order: &[&str], reads: &indexmap::IndexMap<String, Vec<String>>) {
    for (i, role) in roles.iter_mut().enumerate() {
        let mut targets: Vec<String> = Vec::new();
        for (j, later) in order.iter().enumerate().skip(i + 1) {
            if j == i + 1 || reads[*later].iter().any(|r| r == order[i]) {
                targets.push(later.to_string());
            }
        }
        if !targets.is_empty() {
            role.handoff_to = Some(targets);
        }
    }
}

/// The `{name}` placeholders of a text, as CrewAI interpolates them
/// (a letter or `_`, then letters, digits, `_` or `-`).
fn placeholders(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find(['}', '{']) else {
            break;
        };
        let name = &rest[..close];
        let mut chars = name.chars();
        let valid = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if valid && rest[close..].starts_with('}') {
            push_unique(&mut found, name.to_string());
        }
        rest = &rest[close..];
    }
    found
}

/// Planner for tasks that research or plan, else worker. Never reviewer
/// or tester: those modes demand output fields (`verdict`,
/// `failed_cases`) that a CrewAI task does not promise.
fn guess_mode(task: &str, persona: Option<&str>) -> RoleMode {
    let text = format!("{task} {}", persona.unwrap_or("")).to_lowercase();
    let planner = [
        "research",
        "plan",
        "design",
        "architect",
        "outline",
        "strateg",
    ];
    if planner.iter().any(|w| text.contains(w)) {
        RoleMode::Planner
    } else {
        RoleMode::Worker
    }
}

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// A playbook id from a crew name: lowercase letters, digits, `-`.
fn id_from(name: &str) -> String {
    super::super::names::id_from(display_name(name), "crewai-crew")
}

fn display_name(name: &str) -> &str {
    super::super::names::display_name(name, "crew")
}
