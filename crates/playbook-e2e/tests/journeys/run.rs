//! A real run in the window: a playbook opened from a file, a repository
//! chosen in the native folder dialog, the scripted MCP test agent as the
//! agent (from an agents file chosen in the native file dialog), the
//! worker's mutating tool approved in the dialog, the passed task and its
//! branch shown; git confirms the branch has the agent's commit and the
//! person's checkout did not change.

use std::path::Path;
use std::process::Command;

use playbook_e2e::{App, Profile, Result, testagent_binary};
use serde_json::json;

fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output()?;
    if !out.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

const PLAYBOOK: &str = r#"schema_version: 1.0.0
id: real-run-journey
name: Real run journey
workflow:
  build:
    roles:
      - name: worker
        mode: worker
        responsibilities: Make the change and commit it.
        outputs_contract:
          required: [summary]
        actions_allowed: [read_file, edit_file, git_commit, git_status]
        gates:
          requires_user_approval: true
"#;

/// The person's repository: one commit on main, a clean checkout.
fn person_repository(profile: &Profile) -> Result<std::path::PathBuf> {
    let repo = profile.path("project");
    std::fs::create_dir_all(repo.join("src"))?;
    git(&repo, &["init", "-q", "-b", "main"])?;
    git(&repo, &["config", "user.name", "Person"])?;
    git(&repo, &["config", "user.email", "person@example.invalid"])?;
    std::fs::write(repo.join("src/lib.txt"), "fine\n")?;
    git(&repo, &["add", "-A"])?;
    git(&repo, &["commit", "-q", "-m", "start"])?;
    Ok(repo)
}

/// Opens a playbook file through "Open file…" and waits until it is valid.
async fn open_playbook(app: &mut App, playbook: &Path) -> Result<()> {
    app.click("[data-screen=library]").await?;
    app.click("[data-testid=open-file]").await?;
    app.answer_file_dialog("Open a playbook", playbook).await?;
    app.find("[data-outline-role=worker]").await?;
    app.until_text("[data-testid=validity]", "valid").await?;
    Ok(())
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_dirty_repository_and_a_missing_agent_program_are_said_in_words_and_the_playbook_is_kept()
-> Result<()> {
    let profile = Profile::new();
    let repo = person_repository(&profile)?;
    std::fs::write(repo.join("src/lib.txt"), "half-done edit\n")?;
    let playbook = profile.path("real-run.yaml");
    std::fs::write(&playbook, PLAYBOOK)?;
    let mut app = App::launch("real-run-refused", &profile).await?;
    open_playbook(&mut app, &playbook).await?;

    app.click("[data-screen=run]").await?;
    app.click("[data-testid=choose-repo]").await?;
    app.answer_folder_dialog("Choose a repository", &repo)
        .await?;
    app.until_text("[data-testid=repo-dirty]", "uncommitted changes")
        .await?;
    app.find("[data-testid=goal]")
        .await?
        .send_keys("Improve the library")
        .await?;
    app.find("[data-testid=agent]")
        .await?
        .send_keys("command")
        .await?;
    app.click("[data-testid=run-start]").await?;
    app.until_text("[data-testid=run-error]", "The repository cannot be used")
        .await?;
    app.screenshot("dirty-refused").await?;
    assert_eq!(
        std::fs::read_to_string(repo.join("src/lib.txt"))?,
        "half-done edit\n",
        "the person's edit is untouched"
    );

    // Clean now, but the agent's program is not installed.
    git(&repo, &["commit", "-q", "-am", "finish the edit"])?;
    let agent = app.find("[data-testid=agent]").await?;
    app.clear_field(&agent).await?;
    agent.send_keys("gemini").await?;
    app.click("[data-testid=run-start]").await?;
    app.until_text("[data-testid=run-error]", "No agent could start")
        .await?;
    let said = app.text("[data-testid=run-error]").await?;
    assert!(
        said.contains("gemini"),
        "the message names the agent: {said}"
    );
    app.screenshot("agent-missing").await?;
    assert_eq!(
        git(
            &repo,
            &["for-each-ref", "--format=%(refname:short)", "refs/heads/"]
        )?,
        "main",
        "a refused run makes no branch"
    );

    // The playbook is still open, as it was.
    app.click("[data-screen=editor]").await?;
    app.find("[data-outline-role=worker]").await?;
    app.until_text("[data-testid=validity]", "valid").await?;
    app.quit().await
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn pick_a_repository_run_approve_and_see_the_branch() -> Result<()> {
    let agent = testagent_binary();
    if !agent.exists() {
        return Err(format!(
            "{} is missing: scripts/e2e.sh builds it (cargo build -p playbook-testagent)",
            agent.display()
        )
        .into());
    }
    let profile = Profile::new();
    let repo = person_repository(&profile)?;
    let head_before = git(&repo, &["rev-parse", "HEAD"])?;
    let playbook = profile.path("real-run.yaml");
    std::fs::write(&playbook, PLAYBOOK)?;
    let agents = profile.path("agents.yaml");
    std::fs::write(
        &agents,
        format!(
            "agents:\n  scripted:\n    command: [{}]\n    output: protocol\n",
            json!(agent)
        ),
    )?;
    let script = profile.path("script.json");
    let done = json!({
        "schema_version": "1.0.0", "run_id": "{run_id}", "task_id": "{task_id}", "status": "done",
        "changes": [], "worklog_path": "worklogs/{task_id}.jsonl", "notes_for_orchestrator": [],
        "acceptance_check": [{"criterion": "the change is made", "status": "pass", "evidence": "edited and committed"}]
    });
    std::fs::write(
        &script,
        json!({"worker": [{
            "calls": [
                {"tool": "edit_file", "args": {"path": "src/lib.txt", "old": "fine", "new": "fine and better"}},
                {"tool": "git_commit", "args": {"message": "Improve lib"}}
            ],
            "answer": {"output": {"summary": "improved"}, "result": done}
        }]})
        .to_string(),
    )?;
    let log = profile.path("agent-log.jsonl");

    let mut app = App::launch_with_env(
        "real-run",
        &profile,
        &[
            ("TESTAGENT_SCRIPT", script.as_os_str()),
            ("TESTAGENT_LOG", log.as_os_str()),
        ],
    )
    .await?;
    app.click("[data-screen=library]").await?;
    app.click("[data-testid=open-file]").await?;
    app.answer_file_dialog("Open a playbook", &playbook).await?;
    app.find("[data-outline-role=worker]").await?;
    app.until_text("[data-testid=validity]", "valid").await?;

    app.click("[data-screen=run]").await?;
    app.click("[data-testid=choose-repo]").await?;
    app.answer_folder_dialog("Choose a repository", &repo)
        .await?;
    app.until_text("[data-testid=repo-path]", "project").await?;
    app.click("[data-testid=choose-agents]").await?;
    app.answer_file_dialog("Choose an agents file", &agents)
        .await?;
    app.until_text("[data-testid=agents-path]", "scripted")
        .await?;
    // Choosing the file fills the agent field with its first agent.
    let field = app.find("[data-testid=agent]").await?;
    assert_eq!(field.prop("value").await?.as_deref(), Some("scripted"));
    app.find("[data-testid=goal]")
        .await?
        .send_keys("Improve the library")
        .await?;
    app.screenshot("ready").await?;

    app.click("[data-testid=run-start]").await?;
    // The worker's edit waits for the person, in the preview's dialog.
    app.until_text("[data-testid=approval-dialog]", "edit_file")
        .await?;
    let asked = app.text("[data-testid=approval-dialog]").await?;
    assert!(
        asked.contains("worker"),
        "the dialog names the role: {asked}"
    );
    assert_eq!(
        git(&repo, &["show", "HEAD:src/lib.txt"])?,
        "fine",
        "nothing is written before the approval"
    );
    app.screenshot("approval").await?;
    app.click("[data-testid=approve-rest]").await?;

    app.find("[data-testid=run-outcome][data-outcome=passed]")
        .await?;
    app.until_text("[data-testid=timeline]", "Run finished: passed")
        .await?;
    let row = app
        .text("[data-testid=run-tasks] tr[data-state=done]")
        .await?;
    let branch = app
        .text("[data-testid=run-tasks] tr[data-state=done] [data-testid=task-branch]")
        .await?;
    assert!(
        branch.starts_with("playbook/"),
        "the task's branch is shown: {row}"
    );
    app.screenshot("passed").await?;

    // The branch has the agent's commit; the person's checkout is as it was.
    let commits = git(
        &repo,
        &["log", "--format=%s", &format!("{head_before}..{branch}")],
    )?;
    assert_eq!(
        commits, "Improve lib",
        "the branch holds the worker's commit"
    );
    assert_eq!(
        git(&repo, &["show", &format!("{branch}:src/lib.txt")])?,
        "fine and better"
    );
    assert_eq!(git(&repo, &["rev-parse", "HEAD"])?, head_before);
    assert_eq!(git(&repo, &["symbolic-ref", "--short", "HEAD"])?, "main");
    assert_eq!(
        git(&repo, &["status", "--porcelain"])?,
        "",
        "the checkout is clean"
    );
    assert_eq!(std::fs::read_to_string(repo.join("src/lib.txt"))?, "fine\n");

    // Show diff: the branch's change against the run's base commit.
    let task = app
        .find("[data-testid=run-tasks] tr[data-state=done]")
        .await?
        .attr("data-task")
        .await?
        .ok_or("the task row names its task")?;
    app.click(&format!("[data-show-diff=\"{task}\"]")).await?;
    app.until_text("[data-testid=diff]", "+fine and better")
        .await?;
    app.until_text("[data-testid=diff-commits]", "Improve lib")
        .await?;
    app.screenshot("diff").await?;
    app.quit().await
}
