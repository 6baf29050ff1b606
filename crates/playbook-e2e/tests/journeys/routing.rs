//! A newcomer reads the routing and the loop; an author renames and deletes
//! roles without breaking the handoffs that name them.

use playbook_e2e::{Key, Profile, Result};

use crate::{launch, open_tdd, select_role};

const WORKER_NAME: &str = "input[data-pointer='/workflow/build/roles/1/name']";

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn renaming_a_role_is_one_atomic_edit_and_one_undo_step() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("rename-atomic", &profile).await?;
    open_tdd(&mut app).await?;
    app.until_text("[data-testid=validity]", "valid").await?;
    select_role(&app, "worker").await?;
    let field = app.find(WORKER_NAME).await?;
    app.clear_field(&field).await?;
    for key in ["c", "o", "d"] {
        field.send_keys(key).await?;
        // Mid-rename the handoffs already follow: no dangling handoff.
        assert!(
            app.find_all(".problem[data-code=PB301]").await?.is_empty(),
            "no PB301 while typing the new name"
        );
    }
    field.send_keys("er").await?;
    app.find("[data-outline-role=coder]").await?;
    app.until_text("[data-testid=validity]", "valid").await?;
    assert!(app.find_all(".problem[data-code=PB301]").await?.is_empty());
    app.screenshot("renamed").await?;

    // The test author's handoff names the new name.
    select_role(&app, "test_author").await?;
    app.until_text("[data-field='/workflow/build/roles/0/handoff_to']", "coder")
        .await?;

    // One undo step restores the old name everywhere.
    app.shortcut(&[Key::Control], 'z').await?;
    app.find("[data-outline-role=worker]").await?;
    app.until_gone("[data-outline-role=coder]").await?;
    app.until_text(
        "[data-field='/workflow/build/roles/0/handoff_to']",
        "worker",
    )
    .await?;
    assert!(app.find_all(".problem[data-code=PB301]").await?.is_empty());
    app.screenshot("undone").await?;
    app.quit().await
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn deleting_a_role_others_hand_off_to_asks_first_and_undoes_in_one_step() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("delete-referenced", &profile).await?;
    open_tdd(&mut app).await?;
    select_role(&app, "reviewer").await?;
    app.click_button("Delete role").await?;
    let ask = app.text("[data-testid=confirm-delete-role]").await?;
    assert!(
        ask.contains("worker") && ask.contains("reviewer"),
        "the question names the role that hands off to it:\n{ask}"
    );
    app.screenshot("asks").await?;
    // Escape cancels; the role stays.
    app.keys(&char::from(Key::Escape).to_string()).await?;
    app.until_gone("[data-testid=confirm-delete-role]").await?;
    app.find("[data-outline-role=reviewer]").await?;

    app.click_button("Delete role").await?;
    app.click_button("Delete role and its handoffs").await?;
    app.until_gone("[data-outline-role=reviewer]").await?;
    // The handoffs to it went with it.
    app.until("the problems settle", || async {
        Ok(app.find_all(".problem[data-code=PB301]").await?.is_empty())
    })
    .await?;
    app.screenshot("deleted").await?;
    app.shortcut(&[Key::Control], 'z').await?;
    app.find("[data-outline-role=reviewer]").await?;
    select_role(&app, "worker").await?;
    app.until_text(
        "[data-field='/workflow/build/roles/1/handoff_to']",
        "reviewer",
    )
    .await?;
    app.quit().await
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn the_editor_explains_routing_and_the_graph_joins_the_stages() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("routing", &profile).await?;
    open_tdd(&mut app).await?;
    select_role(&app, "reviewer").await?;
    app.until_text(
        "[data-testid=role-routing] [data-route=pass]",
        "leaves stage build",
    )
    .await?;
    let pass = app
        .text("[data-testid=role-routing] [data-route=pass]")
        .await?;
    assert!(pass.contains("test") && pass.contains("tester"), "{pass}");
    let fail = app
        .text("[data-testid=role-routing] [data-route=fail]")
        .await?;
    assert!(
        fail.contains("back to worker") && fail.contains("3 rounds"),
        "{fail}"
    );
    // The built-in policy key is explained next to the gate.
    let meaning = app.text("[data-testid=policy-meaning]").await?;
    assert!(meaning.contains("verdict"), "{meaning}");
    app.screenshot("routing").await?;

    app.click("[data-tab=flow]").await?;
    app.find("[data-role-node=tester]").await?;
    // An edge from the reviewer into the next stage, named for screen readers.
    app.find(
        "[aria-label='reviewer passes, the task leaves the stage and enters stage test at tester']",
    )
    .await?;
    app.find("[aria-label='reviewer sends back to worker on fail, at most 3 rounds']")
        .await?;
    app.until_text(".flow", "on fail, ≤ 3 rounds").await?;
    assert!(
        app.find_all("[aria-label^='Edge from']").await?.is_empty(),
        "no edge is announced by node ids"
    );
    app.screenshot("stage-edges").await?;
    app.quit().await
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn the_timeline_says_what_the_reviewer_said_and_where_the_task_goes() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("readable-gate", &profile).await?;
    open_tdd(&mut app).await?;
    app.until_text("[data-testid=validity]", "valid").await?;
    app.click("[data-screen=preview]").await?;
    app.find("[data-testid=scenario] option[value=review-fails-twice]")
        .await?;
    let scenario = app.find("[data-testid=scenario]").await?;
    scenario
        .select_by_value("review-fails-twice")
        .await
        .map_err(|e| format!("cannot choose the scenario: {e}"))?;
    app.click("[data-testid=run]").await?;
    app.until("the run finishes", || async {
        if let Some(approve) = app
            .find_all("[data-testid=approve-rest]")
            .await?
            .into_iter()
            .next()
        {
            let _ = approve.click().await;
        }
        Ok(app
            .text("[data-testid=timeline]")
            .await?
            .contains("Run finished"))
    })
    .await?;
    let timeline = app.text("[data-testid=timeline]").await?;
    assert!(
        timeline.contains("reviewer: fail — '")
            && timeline.contains("back to worker, round 2 of 3"),
        "the failed review says what the reviewer said and what happens next:\n{timeline}"
    );
    assert!(
        timeline.contains("reviewer: pass; leaves stage build, next stage test"),
        "{timeline}"
    );
    app.screenshot("readable-gates").await?;
    app.quit().await
}
