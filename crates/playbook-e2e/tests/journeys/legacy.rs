use playbook_e2e::{Key, Profile, Result};

use crate::launch;

/// An agenterm playbook opens clean, says how it is read, and upgrades to
/// 1.0.0 only after the person has seen what changes; the upgrade undoes.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn an_agenterm_playbook_opens_clean_and_upgrades_after_showing_what_changes() -> Result<()> {
    let profile = Profile::new();
    let legacy = profile.path("agenterm-docs.yaml");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/lints/pb009-legacy-agenterm.yaml"),
        &legacy,
    )?;

    let mut app = launch("legacy-upgrade", &profile).await?;
    app.click("[data-screen=library]").await?;
    app.click("[data-testid=open-file]").await?;
    app.answer_file_dialog("Open a playbook", &legacy).await?;
    app.find("[data-outline-role=editor]").await?;
    app.until_text("[data-testid=legacy-notice]", "agenterm")
        .await?;
    app.until_text("[data-testid=validity]", "valid").await?;
    app.screenshot("legacy-opened").await?;

    // The proposal names each change and each choice; Escape leaves the
    // playbook as it was.
    app.click("[data-testid=upgrade]").await?;
    app.until_text("[data-testid=upgrade-changes]", "schema_version")
        .await?;
    let choices = app.text("[data-testid=upgrade-choices]").await?;
    assert!(
        choices.contains("outline_signed_off") && choices.contains("x_escalate_on"),
        "each choice is listed: {choices}"
    );
    let errors = app.text("[data-testid=upgrade-errors]").await?;
    assert!(
        errors.contains("PB207"),
        "the real mistake is named: {errors}"
    );
    app.screenshot("upgrade-proposed").await?;
    app.keys("\u{e00c}").await?;
    app.until_gone("[data-testid=upgrade-dialog]").await?;
    app.find("[data-testid=legacy-notice]").await?;

    // Applied, the playbook is 1.0.0 (the notice goes) and its real mistake
    // is now an error; Ctrl+Z brings the legacy playbook back.
    app.click("[data-testid=upgrade]").await?;
    app.click("[data-testid=upgrade-apply]").await?;
    app.until_gone("[data-testid=legacy-notice]").await?;
    app.until_text("[data-testid=validity]", "error").await?;
    app.screenshot("upgraded").await?;
    app.shortcut(&[Key::Control], 'z').await?;
    app.find("[data-testid=legacy-notice]").await?;
    app.quit().await
}
