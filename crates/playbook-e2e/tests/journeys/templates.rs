use playbook_e2e::{Key, Profile, Result};

use crate::{launch, open_tdd};

const MAX_ITERATIONS: &str =
    "input[data-pointer='/workflow/template/roles/0/retry_policy/max_iterations']";
const ZERO_HINT: &str =
    "[data-field='/workflow/template/roles/0/retry_policy/max_iterations'] .hint[data-code=PB402]";

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_team_template_is_edited_with_hints_undo_versions_and_history() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("templates", &profile).await?;
    open_tdd(&mut app).await?;
    app.click("[data-screen=templates]").await?;

    // Copy the built-in reviewer as the team's own.
    app.click("[data-template-item=reviewer]").await?;
    app.find("[data-template-card=reviewer]").await?;
    app.click("[data-testid=copy-template]").await?;
    app.until_text(
        "[data-testid=notice]",
        "Saved template team-reviewer, version 1",
    )
    .await?;
    app.find("[data-template-editor=team-reviewer] .role-editor")
        .await?;
    app.until_text("[data-testid=template-validity]", "valid")
        .await?;

    // A bad value shows its hint on the field, and blocks the save.
    let field = app.find(MAX_ITERATIONS).await?;
    app.clear_field(&field).await?;
    field.send_keys("0").await?;
    app.find(ZERO_HINT).await?;
    app.until_text("[data-testid=template-validity]", "save blocked")
        .await?;
    app.find(".problem[data-code=PB402]").await?;
    app.screenshot("hint-on-field").await?;
    app.shortcut(&[Key::Control], 's').await?;
    app.until_text("[data-testid=notice]", "Not saved: fix the 1 error")
        .await?;

    // Undo goes back to the template's own previous value.
    app.click("[data-testid=template-undo]").await?;
    app.until_gone(ZERO_HINT).await?;
    assert_eq!(
        app.find(MAX_ITERATIONS)
            .await?
            .prop("value")
            .await?
            .as_deref(),
        Some("3"),
        "undo restores the copied retry limit"
    );

    // A good value saves version 2 with Ctrl+S.
    let field = app.find(MAX_ITERATIONS).await?;
    app.clear_field(&field).await?;
    field.send_keys("5").await?;
    app.until_text("[data-testid=template-validity]", "valid")
        .await?;
    app.shortcut(&[Key::Control], 's').await?;
    app.until_text(
        "[data-testid=notice]",
        "Saved template team-reviewer, version 2",
    )
    .await?;

    // History compares the two versions in contract terms.
    app.find("[data-template-editor=team-reviewer] tr[data-version='2']")
        .await?;
    app.until_text("[data-testid=semantic-diff]", "retry limit of reviewer")
        .await?;
    let diff = app.text("[data-testid=semantic-diff]").await?;
    assert!(
        diff.contains('3') && diff.contains('5'),
        "before and after: {diff}"
    );
    app.execute(
        "document.querySelector('[data-testid=semantic-diff]').scrollIntoView({block: 'center'})",
    )
    .await?;
    app.screenshot("versions").await?;

    // The editor's "Add role" offers the team's template.
    app.click("[data-screen=editor]").await?;
    app.click("[data-outline-stage=build]").await?;
    app.find("[data-team-template=team-reviewer]").await?;
    app.quit().await
}
