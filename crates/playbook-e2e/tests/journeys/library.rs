use playbook_e2e::{Profile, Result};

use crate::{launch, open_tdd};

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn importing_a_malformed_file_shows_a_clear_error_and_leaves_the_library_unchanged()
-> Result<()> {
    let profile = Profile::new();
    let malformed = profile.path("broken.yaml");
    std::fs::write(
        &malformed,
        "id: broken\nname: Broken\nworkflow:\n  build:\n    roles: [\n",
    )?;

    let mut app = launch("import-malformed", &profile).await?;
    app.click("[data-screen=library]").await?;
    app.find("[data-testid=library-table] tbody tr[data-playbook]")
        .await?;
    let before = app
        .find_all("[data-testid=library-table] tbody tr[data-playbook]")
        .await?
        .len();
    app.screenshot("library").await?;

    app.click("[data-testid=open-file]").await?;
    app.answer_file_dialog("Open a playbook", &malformed)
        .await?;
    app.until_text("[data-testid=import-error]", "library is unchanged")
        .await?;
    let message = app.text("[data-testid=import-error]").await?;
    assert!(
        message.contains("broken.yaml"),
        "the error names the file: {message}"
    );
    assert!(
        message.contains("line"),
        "the error says where the file is malformed: {message}"
    );
    app.screenshot("import-refused").await?;

    let after = app
        .find_all("[data-testid=library-table] tbody tr[data-playbook]")
        .await?
        .len();
    assert_eq!(
        after, before,
        "a refused import adds nothing to the library"
    );
    assert!(app.find_all("tr[data-playbook=broken]").await?.is_empty());
    app.quit().await
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_new_playbook_from_an_example_appears_in_the_library_with_its_validity() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("library-new", &profile).await?;
    open_tdd(&mut app).await?;
    app.click("[data-screen=library]").await?;
    // The library starts with the examples: opening one opens that copy.
    app.find("tr[data-playbook=tdd]").await?;
    app.find("tr[data-playbook=tdd] .badge-ok").await?;
    app.find("[data-testid=library-search]")
        .await?
        .send_keys("pair")
        .await?;
    app.until_gone("tr[data-playbook=tdd]").await?;
    app.screenshot("search").await?;

    // A new playbook from the four role templates opens in the editor.
    app.click("[data-testid=new-from-templates]").await?;
    for role in ["planner", "worker", "reviewer", "tester"] {
        app.find(&format!("[data-outline-role={role}]")).await?;
    }
    app.find("[data-testid=validity]").await?;
    app.screenshot("from-templates").await?;
    app.quit().await
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_library_file_that_is_not_a_database_gives_a_clear_message_not_a_blank_window()
-> Result<()> {
    let profile = Profile::new();
    std::fs::write(
        profile.database(),
        "this is not an SQLite file, and it must stay untouched\n",
    )?;
    let mut app = launch("not-a-database", &profile).await?;
    app.find(".first-run").await?;
    app.click("[data-screen=library]").await?;
    app.until_text(".library [role=alert]", "could not be opened")
        .await?;
    app.screenshot("library-error").await?;
    assert_eq!(
        std::fs::read_to_string(profile.database())?,
        "this is not an SQLite file, and it must stay untouched\n",
        "the app never writes to a file that is not its library"
    );
    app.quit().await
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn open_import_export_and_save_as_go_through_the_native_file_dialogs() -> Result<()> {
    let profile = Profile::new();
    let source = profile.path("from-a-colleague.yaml");
    let pairing = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../playbooks/pairing.yaml"),
    )?;
    std::fs::write(
        &source,
        pairing
            .replacen("id: pairing", "id: colleague-pairing", 1)
            .replacen("name: ", "name: Colleague's ", 1),
    )?;

    let mut app = launch("file-dialogs", &profile).await?;
    app.click("[data-screen=library]").await?;
    app.click("[data-testid=open-file]").await?;
    app.answer_file_dialog("Open a playbook", &source).await?;
    app.until_text("[data-testid=notice]", "imported from")
        .await?;
    app.click("[data-screen=library]").await?;
    app.find("tr[data-playbook=colleague-pairing]").await?;
    app.screenshot("imported-through-dialog").await?;

    let target = profile.path("exported.yaml");
    app.click("[data-export=colleague-pairing]").await?;
    app.answer_file_dialog("Export the playbook", &target)
        .await?;
    app.until_text("[data-testid=notice]", "Exported").await?;
    let written = std::fs::read_to_string(&target)?;
    assert!(
        written.contains("colleague-pairing"),
        "the exported file is the playbook:\n{written}"
    );
    app.screenshot("exported-through-dialog").await?;

    // Open file… adds a file to the library and opens it in the editor;
    // Export to file… writes the open playbook, unsaved edits included, to a file.
    let tdd = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../playbooks/tdd.yaml"),
    )?;
    let opened = profile.path("team-tdd.yaml");
    std::fs::write(&opened, tdd.replacen("id: tdd", "id: team-tdd", 1))?;
    app.click("[data-testid=open-file]").await?;
    app.answer_file_dialog("Open a playbook", &opened).await?;
    app.find("[data-outline-role=reviewer]").await?;
    app.until_text("[data-testid=notice]", "Opened").await?;
    let copy = profile.path("copy.json");
    app.click("[data-testid=save-as]").await?;
    app.answer_file_dialog("Export the open playbook to a file", &copy)
        .await?;
    app.until_text("[data-testid=notice]", "Exported to")
        .await?;
    let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&copy)?)?;
    assert_eq!(
        written["id"], "team-tdd",
        "a .json name saves the open playbook as JSON"
    );
    app.quit().await
}

/// Open file… on a Claude Code subagent file opens its folder of subagents
/// as one playbook, and the notice names the importer.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_claude_code_subagent_file_opens_as_a_playbook_of_its_folder() -> Result<()> {
    let profile = Profile::new();
    let agents = profile.path("shop/.claude/agents");
    std::fs::create_dir_all(&agents)?;
    std::fs::write(
        agents.join("code-reviewer.md"),
        "---\nname: code-reviewer\ndescription: Reviews the change for bugs.\ntools: Read, Grep\n---\nYou review code.\n",
    )?;
    std::fs::write(
        agents.join("writer.md"),
        "---\nname: writer\ndescription: Writes the change.\n---\nYou write code.\n",
    )?;

    let mut app = launch("claude-code-open", &profile).await?;
    app.click("[data-screen=library]").await?;
    app.click("[data-testid=open-file]").await?;
    app.answer_file_dialog("Open a playbook", &agents.join("writer.md"))
        .await?;
    app.find("[data-outline-role=code-reviewer]").await?;
    app.find("[data-outline-role=writer]").await?;
    app.until_text("[data-testid=notice]", "Claude Code subagents")
        .await?;
    app.screenshot("opened").await?;
    app.quit().await
}

/// Export for Claude Code writes the playbook, one subagent per role and
/// the gate hook into the project folder chosen in the native dialog.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_playbook_exports_for_claude_code_into_a_chosen_project() -> Result<()> {
    let profile = Profile::new();
    let project = profile.path("shop");
    std::fs::create_dir_all(&project)?;

    let mut app = launch("claude-code-export", &profile).await?;
    app.click("[data-screen=library]").await?;
    app.click("[data-export-claude=tdd]").await?;
    app.answer_folder_dialog(
        "Export for Claude Code: choose the project folder",
        &project,
    )
    .await?;
    app.until_text("[data-testid=notice]", "for Claude Code")
        .await?;
    app.screenshot("exported").await?;
    assert!(project.join(".claude/playbooks/tdd.yaml").is_file());
    assert!(project.join(".claude/agents/reviewer.md").is_file());
    let settings = std::fs::read_to_string(project.join(".claude/settings.json"))?;
    assert!(settings.contains("playbook gate"), "{settings}");
    app.quit().await
}

/// The page cannot name files on its own: a path no dialog or drop gave in
/// this session is refused by the backend for reading and for writing, and
/// the page has no dialog of its own to open. A script in the page is one.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_made_up_path_is_refused_by_the_backend() -> Result<()> {
    let profile = Profile::new();
    let secret = profile.path("secret.yaml");
    let tdd = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../playbooks/tdd.yaml"),
    )?;
    std::fs::write(&secret, tdd.replacen("id: tdd", "id: secret", 1))?;
    let target = profile.path("overwritten.txt");
    std::fs::write(&target, "the person's file\n")?;
    let mut app = launch("made-up-path", &profile).await?;
    app.click("[data-screen=library]").await?;
    app.find("[data-testid=library-table]").await?;

    // The Tauri IPC as any script in the page would call it.
    let invoke = |command: &str, args: serde_json::Value| {
        format!(
            "return window.__TAURI_INTERNALS__.invoke({command:?}, {args})\
             .then(() => 'accepted', (e) => (e && e.code) || String(e));"
        )
    };
    let read = app
        .execute(&invoke(
            "library_import_file",
            serde_json::json!({ "path": secret }),
        ))
        .await?;
    assert_eq!(read, "forbidden", "a made-up path is not read");
    let write = app
        .execute(&invoke(
            "write_text_file",
            serde_json::json!({ "path": target, "text": "owned" }),
        ))
        .await?;
    assert_eq!(write, "forbidden", "a made-up path is not written");
    assert_eq!(
        std::fs::read_to_string(&target)?,
        "the person's file\n",
        "the file is untouched"
    );
    let export = app
        .execute(&invoke(
            "library_export",
            serde_json::json!({ "id": "tdd", "path": target }),
        ))
        .await?;
    assert_eq!(export, "forbidden", "an export needs a chosen target");
    let dialog = app
        .execute(&invoke(
            "plugin:dialog|open",
            serde_json::json!({ "options": {} }),
        ))
        .await?;
    assert_ne!(dialog, "accepted", "the page opens no dialog of its own");

    // Chosen in the dialog, the same file is imported and opened.
    app.click("[data-testid=open-file]").await?;
    app.answer_file_dialog("Open a playbook", &secret).await?;
    app.until_text("[data-testid=notice]", "Opened").await?;
    app.find("[data-outline-role=reviewer]").await?;
    app.quit().await
}
