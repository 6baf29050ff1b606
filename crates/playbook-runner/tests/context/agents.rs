//! Agent definitions: the file, the built-ins, placeholders, resolution.

use std::path::PathBuf;

use playbook_runner::agents::{
    AgentsError, AgentsFile, BUILTIN_NAMES, OutputForm, Placeholders, builtin, launch, render,
    resolve,
};

fn values() -> Placeholders {
    Placeholders {
        prompt: "do it; rm -rf / \"now\" $(x)".into(),
        prompt_file: PathBuf::from("/tmp/inv/prompt.md"),
        packet_file: PathBuf::from("/tmp/inv/assignment.json"),
        mcp_config: PathBuf::from("/tmp/inv dir/mcp.json"),
        result_file: PathBuf::from("/tmp/inv/answer.json"),
        worktree: PathBuf::from("/work/tree"),
        role: "Executor".into(),
        task_id: "T-1".into(),
        mcp_command: Some((
            "playbook".into(),
            vec!["gateway".into(), "--token".into(), "a\"b".into()],
        )),
    }
}

#[test]
fn a_yaml_agents_file_is_read_and_rendered_one_element_per_argument() {
    let file = AgentsFile::parse(
        "agents.yaml",
        "x_comment: ignored\nagents:\n  mine:\n    command: [my-agent, --prompt, \"{prompt}\", \"--cfg={mcp_config}\", \"{{literal}}\"]\n    env: {ROLE: \"{role}\"}\n    timeout_seconds: 60\n    output: text\n    x_note: ok\n",
    )
    .unwrap();
    let def = &file.agents["mine"];
    assert_eq!(def.name, "mine");
    assert_eq!(
        render(def, &values()),
        [
            "my-agent",
            "--prompt",
            "do it; rm -rf / \"now\" $(x)",
            "--cfg=/tmp/inv dir/mcp.json",
            "{literal}"
        ],
        "the prompt stays one argument, never split or interpreted"
    );
    let l = launch(def, &values());
    assert_eq!(
        l.cwd,
        PathBuf::from("/work/tree"),
        "the worktree by default"
    );
    assert_eq!(l.env, [("ROLE".to_string(), "Executor".to_string())]);
    assert_eq!(l.output, OutputForm::Text);
    assert_eq!(l.timeout, Some(std::time::Duration::from_secs(60)));
    assert_eq!(l.stdin, None);
}

#[track_caller]
fn refused(text: &str, needle: &str) {
    let err = AgentsFile::parse("agents.yaml", text)
        .unwrap_err()
        .to_string();
    assert!(err.contains(needle), "{text:?}: {err}");
    assert!(err.contains("agents.yaml"), "names the file: {err}");
}

#[test]
fn bad_definitions_are_refused_at_load_naming_what_is_wrong() {
    refused("agents:\n  a:\n    command: [x, \"{promt}\"]\n", "{promt}");
    refused("agents:\n  a:\n    command: [x, \"{prompt\"]\n", "closing");
    refused("agents:\n  a:\n    command: []\n", "empty");
    refused(
        "agents:\n  a:\n    command: [x]\n    cwd: \"{nope}\"\n",
        "{nope}",
    );
    refused(
        "agents:\n  a:\n    command: [x]\n    env: {A: \"{bad}\"}\n",
        "{bad}",
    );
    refused(
        "agents:\n  a:\n    command: [x]\n    env: {\"A=B\": v}\n",
        "A=B",
    );
    refused(
        "agents:\n  a:\n    command: [x]\n    timeout_seconds: 0\n",
        "timeout_seconds",
    );
    refused(
        "agents:\n  a:\n    command: [x]\n    output: html\n",
        "html",
    );
    refused(
        "agents:\n  a:\n    command: [x]\n    comand: [y]\n",
        "comand",
    );
    refused(
        "agents:\n  a:\n    command: [x]\n  a:\n    command: [y]\n",
        "a",
    );
    refused("agent: {}\n", "agent");
    refused("agents:\n  a:\n    command: x\n", "agents.yaml");
    refused(
        "{\"agents\": {\"a\": {\"command\": [\"x\\u0000\"]}}}",
        "NUL",
    );
}

#[test]
fn every_builtin_is_a_valid_definition_using_only_known_placeholders() {
    for name in BUILTIN_NAMES {
        let def = builtin(name).unwrap();
        if *name == "command" {
            assert!(def.command.is_empty(), "the user gives the command");
            continue;
        }
        def.check("built-in").unwrap();
        assert_eq!(
            def.stdin.as_deref(),
            Some("{prompt}"),
            "{name}: prompt on stdin, not argv"
        );
    }
    let claude = builtin("claude-code").unwrap();
    assert_eq!(claude.output, OutputForm::ClaudeJson);
    let argv = render(&claude, &values());
    assert!(
        argv.windows(2)
            .any(|w| w == ["--mcp-config", "/tmp/inv dir/mcp.json"])
    );
    assert!(argv.contains(&"--strict-mcp-config".to_string()));
    let codex = render(&builtin("codex").unwrap(), &values());
    assert!(
        codex.contains(&r#"mcp_servers.playbook.args=["gateway","--token","a\"b"]"#.to_string()),
        "{codex:?}"
    );
    assert!(
        codex
            .windows(2)
            .any(|w| w == ["--output-last-message", "/tmp/inv/answer.json"])
    );
    let gemini = launch(&builtin("gemini").unwrap(), &values());
    assert_eq!(gemini.env[0].1, "/tmp/inv dir/mcp.json");
    assert!(builtin("nope").is_none());
}

#[test]
fn resolve_prefers_the_file_then_builtins_and_checks_the_program() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("agents.json");
    std::fs::write(
        &file,
        r#"{"agents": {"fake": {"command": ["sh", "-c", "true"]}, "codex": {"command": ["sh"]}, "missing": {"command": ["definitely-not-installed-xyz"]}, "templated": {"command": ["{worktree}/agent"]}}}"#,
    )
    .unwrap();
    assert_eq!(resolve("fake", Some(&file)).unwrap().command[0], "sh");
    assert_eq!(
        resolve("codex", Some(&file)).unwrap().command,
        ["sh"],
        "a file may redefine a built-in"
    );
    assert!(
        resolve("templated", Some(&file)).is_ok(),
        "checked when it starts"
    );
    let err = resolve("missing", Some(&file)).unwrap_err();
    assert!(matches!(err, AgentsError::ProgramNotFound { .. }));
    let text = err.to_string();
    assert!(
        text.contains("program `definitely-not-installed-xyz` not found on PATH")
            && text.contains("agents.json"),
        "{text}"
    );
    let err = resolve("nobody", Some(&file)).unwrap_err().to_string();
    assert!(
        err.contains("unknown agent `nobody`")
            && err.contains("fake")
            && err.contains("claude-code"),
        "{err}"
    );
    let err = resolve("command", None).unwrap_err().to_string();
    assert!(err.contains("--agents FILE"), "{err}");
    assert!(matches!(
        resolve("x", Some(&dir.path().join("absent.yaml"))),
        Err(AgentsError::Read { .. })
    ));
}

#[test]
fn a_missing_builtin_program_says_how_to_fix_it() {
    // `gemini` is not installed on the test machine; if it ever is, the
    // definition simply resolves.
    if let Err(e) = resolve("gemini", None) {
        let text = e.to_string();
        assert!(text.contains("agent `gemini`: program `gemini` not found on PATH; install it or define the agent in"), "{text}");
    }
}

#[test]
fn a_command_line_agent_is_checked_like_a_file_definition() {
    use playbook_runner::agents::command_agent;
    let def = command_agent(vec!["sh".into(), "{prompt_file}".into()]).unwrap();
    assert_eq!(def.name, "command");
    assert_eq!(def.output, OutputForm::Protocol);
    assert_eq!(render(&def, &values())[1], "/tmp/inv/prompt.md");
    assert!(command_agent(vec![]).is_err());
    assert!(
        command_agent(vec!["sh".into(), "{bogus}".into()])
            .unwrap_err()
            .to_string()
            .contains("{bogus}")
    );
    assert!(matches!(
        command_agent(vec!["no-such-agent-xyz".into()]),
        Err(AgentsError::ProgramNotFound { .. })
    ));
}

#[test]
fn a_relative_program_path_is_left_to_the_working_directory_it_starts_in() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("agents.yaml");
    std::fs::write(&file, "agents:\n  local:\n    command: [./bin/agent]\n  abs:\n    command: [/nonexistent/agent]\n").unwrap();
    assert!(resolve("local", Some(&file)).is_ok());
    assert!(matches!(
        resolve("abs", Some(&file)),
        Err(AgentsError::ProgramNotFound { .. })
    ));
}

#[test]
fn placeholders_of_a_prepared_invocation_read_the_gateway_command_from_its_mcp_config() {
    let dir = tempfile::tempdir().unwrap();
    let mcp = dir.path().join("mcp.json");
    std::fs::write(
        &mcp,
        r#"{"mcpServers": {"playbook": {"type": "stdio", "command": "/bin/playbook", "args": ["gateway", "--socket", "/s"]}}}"#,
    )
    .unwrap();
    let prepared = playbook_runner::process::Prepared {
        prompt: "p".into(),
        prompt_file: dir.path().join("prompt.md"),
        packet_file: dir.path().join("assignment.json"),
        mcp_config: mcp,
        result_file: dir.path().join("answer.json"),
        worktree: dir.path().to_path_buf(),
        role: "R".into(),
        task_id: "T".into(),
        iteration: 1,
    };
    let values = Placeholders::from_prepared(&prepared);
    assert_eq!(values.value("mcp_command_toml"), "\"/bin/playbook\"");
    assert_eq!(
        values.value("mcp_args_toml"),
        r#"["gateway","--socket","/s"]"#
    );
    // A config that is missing or malformed leaves them empty, never panics.
    let mut broken = prepared.clone();
    broken.mcp_config = dir.path().join("absent.json");
    assert_eq!(
        Placeholders::from_prepared(&broken).value("mcp_args_toml"),
        "[]"
    );
}
