//! A version carries the note given when saving, the status says what the
//! open playbook's latest state is, and the Preview names what it runs,
//! remembers its settings, and runs any version from History.

use playbook_e2e::{Key, Profile, Result};

use crate::{launch, open_tdd};

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_version_saved_with_a_note_shows_it_in_history_and_the_status_follows() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("version-note", &profile).await?;
    open_tdd(&mut app).await?;
    app.until_text("[data-testid=autosave]", "Saved as version 1")
        .await?;
    let name = app.find("input[data-pointer='/name']").await?;
    app.clear_field(&name).await?;
    name.send_keys("Our TDD").await?;
    app.find("[data-testid=autosave][data-state=saved]").await?;
    app.until_text("[data-testid=autosave]", "draft autosaved")
        .await?;

    // Escape in the save dialog saves nothing.
    app.click("[data-testid=save]").await?;
    app.find("[data-testid=save-note]").await?;
    app.keys(&char::from(Key::Escape).to_string()).await?;
    app.until_gone("[data-testid=save-dialog]").await?;

    app.click("[data-testid=save]").await?;
    let note = app.find("[data-testid=save-note]").await?;
    note.send_keys("named after the team").await?;
    app.screenshot("save-dialog").await?;
    note.send_keys(&char::from(Key::Enter).to_string()).await?;
    app.until_text("[data-testid=notice]", "Saved version 2")
        .await?;
    app.find("[data-testid=autosave][data-state=version]")
        .await?;
    // After a save the status stays "saved", never "draft autosaved".
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    let status = app.text("[data-testid=autosave]").await?;
    assert_eq!(status, "Saved as version 2");

    app.click("[data-screen=history]").await?;
    app.until_text(
        "[data-testid=history-table] tr[data-version='2'] [data-testid=version-note]",
        "named after the team",
    )
    .await?;
    app.screenshot("history-note").await?;
    app.quit().await
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn the_preview_remembers_its_settings_and_previews_a_version_from_history() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("preview-memory", &profile).await?;
    open_tdd(&mut app).await?;
    app.until_text("[data-testid=validity]", "valid").await?;
    app.click("[data-screen=preview]").await?;
    app.until_text(".preview h1", "Test-driven").await?;
    app.until_text("[data-testid=preview-target]", "version 1")
        .await?;
    app.find("[data-testid=scenario] option[value=happy-path]")
        .await?;
    app.find("[data-testid=scenario]")
        .await?
        .select_by_value("happy-path")
        .await?;
    app.find("[data-testid=approvals]")
        .await?
        .select_by_value("approve")
        .await?;
    app.click("[data-testid=run]").await?;
    app.find("[data-testid=outcome]").await?;
    app.screenshot("ran").await?;

    // Away and back: the same scenario, approval mode and run are shown.
    app.click("[data-screen=editor]").await?;
    app.find("[data-outline-role=reviewer]").await?;
    app.click("[data-screen=preview]").await?;
    app.find("[data-testid=shown-run]").await?;
    app.find("[data-testid=outcome]").await?;
    let scenario = app
        .find("[data-testid=scenario]")
        .await?
        .prop("value")
        .await?;
    assert_eq!(scenario.as_deref(), Some("happy-path"));
    let approvals = app
        .find("[data-testid=approvals]")
        .await?
        .prop("value")
        .await?;
    assert_eq!(approvals.as_deref(), Some("approve"));
    app.screenshot("remembered").await?;

    // An edit saved as version 2; History previews version 1 as it was saved.
    app.click("[data-screen=editor]").await?;
    let name = app.find("input[data-pointer='/name']").await?;
    app.clear_field(&name).await?;
    name.send_keys("Our TDD").await?;
    app.shortcut(&[Key::Control], 's').await?;
    app.until_text("[data-testid=notice]", "Saved version 2")
        .await?;
    app.click("[data-screen=history]").await?;
    app.click("[data-preview-version='1']").await?;
    app.until_text("[data-testid=preview-target]", "version 1, as saved")
        .await?;
    app.until_text(".preview h1", "Test-driven").await?;
    app.find("[data-testid=preview-version-banner]").await?;
    app.click("[data-testid=run]").await?;
    app.find("[data-testid=outcome]").await?;
    app.screenshot("version-1-previewed").await?;
    // The open edits are one click away.
    app.click("[data-testid=preview-open-edits]").await?;
    app.until_text("[data-testid=preview-target]", "version 2")
        .await?;
    app.until_text(".preview h1", "Our TDD").await?;
    app.quit().await
}
