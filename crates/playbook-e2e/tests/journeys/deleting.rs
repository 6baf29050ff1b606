//! Deleting from the library cannot hurt: the keyboard cannot delete by
//! accident, Undo brings a playbook back, and deleting the open playbook
//! closes it so that neither Save nor the Welcome example fails afterwards.

use playbook_e2e::{App, Key, Profile, Result};

use crate::launch;

async fn focused_testid(app: &App) -> Result<String> {
    Ok(app
        .execute("return document.activeElement?.dataset?.testid ?? ''")
        .await?
        .as_str()
        .unwrap_or_default()
        .to_string())
}

fn key(k: Key) -> String {
    char::from(k).to_string()
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn deleting_with_the_keyboard_asks_first_escape_cancels_and_undo_restores() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("delete-keyboard", &profile).await?;
    app.click("[data-screen=library]").await?;
    app.find("tr[data-playbook=pairing]").await?;

    // Enter on Delete… asks; focus is on Cancel, so a second Enter deletes nothing.
    app.find("[data-delete=pairing]")
        .await?
        .send_keys(&key(Key::Enter))
        .await?;
    app.until_text("[data-testid=confirm-delete]", "Pair programming")
        .await?;
    let question = app.text("[data-testid=confirm-delete]").await?;
    assert!(
        question.contains("1 version"),
        "the question says what goes: the playbook and its versions:\n{question}"
    );
    assert_eq!(focused_testid(&app).await?, "confirm-cancel");
    app.screenshot("asked").await?;
    app.keys(&key(Key::Enter)).await?;
    app.until_gone("[data-testid=confirm-delete]").await?;
    app.find("tr[data-playbook=pairing]").await?;

    // Escape cancels too.
    app.find("[data-delete=pairing]")
        .await?
        .send_keys(&key(Key::Enter))
        .await?;
    app.find("[data-testid=confirm-delete]").await?;
    app.keys(&key(Key::Escape)).await?;
    app.until_gone("[data-testid=confirm-delete]").await?;
    app.find("tr[data-playbook=pairing]").await?;

    // Confirming deletes; the notice offers Undo, which brings it back.
    app.click("[data-delete=pairing]").await?;
    app.click("[data-testid=confirm-ok]").await?;
    app.until_gone("tr[data-playbook=pairing]").await?;
    app.until_text(
        "[data-testid=notice]",
        "Deleted Pair programming and its 1 version",
    )
    .await?;
    app.screenshot("deleted").await?;
    app.click("[data-testid=notice-action]").await?;
    app.find("tr[data-playbook=pairing]").await?;
    app.until_text("[data-testid=notice]", "Restored Pair programming")
        .await?;
    app.screenshot("restored").await?;

    // Later, once the notice is gone, "Deleted playbooks" restores it too.
    app.click("[data-delete=pairing]").await?;
    app.click("[data-testid=confirm-ok]").await?;
    app.until_gone("tr[data-playbook=pairing]").await?;
    app.click("[data-testid=notice] button[aria-label=Dismiss]")
        .await?;
    app.click("[data-testid=deleted-playbooks] summary").await?;
    app.click("[data-restore=pairing]").await?;
    app.find("tr[data-playbook=pairing]").await?;
    app.until_gone("[data-deleted-playbook=pairing]").await?;
    app.quit().await
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn deleting_the_open_playbook_closes_it_and_the_welcome_example_opens_one_copy() -> Result<()>
{
    let profile = Profile::new();
    let mut app = launch("delete-open", &profile).await?;

    // The Welcome example opens the library's copy, twice the same one.
    for _ in 0..2 {
        app.click("[data-screen=welcome]").await?;
        app.click("[data-testid=open-tdd]").await?;
        app.find("[data-outline-role=reviewer]").await?;
        app.until_text("[data-testid=notice]", "Opened").await?;
    }
    app.click("[data-screen=library]").await?;
    app.find("tr[data-playbook=tdd]").await?;
    assert!(
        app.find_all("tr[data-playbook^=tdd-]").await?.is_empty(),
        "opening the example twice makes no copy"
    );

    // Deleting the open playbook closes it.
    app.click("[data-delete=tdd]").await?;
    app.click("[data-testid=confirm-ok]").await?;
    app.until_text("[data-testid=notice]", "it was open and is closed")
        .await?;
    app.find("[data-screen=editor][disabled]").await?;
    app.screenshot("open-playbook-deleted").await?;

    // The Welcome example now makes a fresh copy, not an `already exists` error,
    // and a second open finds that copy again.
    for _ in 0..2 {
        app.click("[data-screen=welcome]").await?;
        app.click("[data-testid=open-tdd]").await?;
        app.find("[data-outline-role=reviewer]").await?;
        app.until_text("[data-testid=notice]", "Opened").await?;
    }
    app.click("[data-screen=library]").await?;
    app.find("tr[data-playbook=tdd-2]").await?;
    assert_eq!(app.find_all("tr[data-playbook^=tdd]").await?.len(), 1);

    // Save works on the copy.
    app.click("[data-open=tdd-2]").await?;
    let name = app.find("input[data-pointer='/name']").await?;
    app.clear_field(&name).await?;
    name.send_keys("Our TDD").await?;
    app.shortcut(&[Key::Control], 's').await?;
    app.until_text("[data-testid=notice]", "Saved version 2")
        .await?;
    app.screenshot("saved-after-delete").await?;
    app.quit().await
}
