use playbook_e2e::{Key, Profile, Result};

use crate::{launch, open_tdd};

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn the_review_fails_twice_preview_shows_three_iterations_and_the_pass() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("preview", &profile).await?;
    open_tdd(&mut app).await?;
    app.until_text("[data-testid=validity]", "valid").await?;
    app.click("[data-screen=preview]").await?;
    app.find("[data-testid=scenario] option[value=review-fails-twice]")
        .await?;
    app.until_text("[data-testid=recorded-runs] summary", "Recorded runs (0)")
        .await?;
    app.click("[data-testid=run]").await?;

    // The TDD worker needs approval for its mutating tools: the run waits on a dialog.
    app.until_text("[data-testid=approval-dialog]", "edit_file")
        .await?;
    let first = app.text("[data-testid=approval-dialog]").await?;
    assert!(
        first.contains("worker") && first.contains("requires_user_approval"),
        "the dialog names the role and why it asks:\n{first}"
    );
    app.screenshot("approval-dialog").await?;
    let timeline = app.text("[data-testid=timeline]").await?;
    assert!(
        !timeline.contains("Run finished"),
        "the run waits for the answer:\n{timeline}"
    );
    // Escape answers nothing: the dialog stays and says how to answer.
    app.keys(&char::from(Key::Escape).to_string()).await?;
    app.until_text("[data-testid=approval-escape]", "does not answer")
        .await?;
    // Focus went to Deny; Shift+Tab goes back to Approve.
    app.shortcut(&[Key::Shift], char::from(Key::Tab)).await?;
    // Enter on the focused Approve button answers the first request.
    let id = app
        .find("[data-testid=approval-dialog]")
        .await?
        .attr("data-approval-id")
        .await?;
    app.keys(&char::from(Key::Enter).to_string()).await?;
    app.until("the next request or the end of the run", || async {
        let dialogs = app.find_all("[data-testid=approval-dialog]").await?;
        Ok(match dialogs.first() {
            Some(d) => d.attr("data-approval-id").await? != id,
            None => true,
        })
    })
    .await?;
    app.until_text(
        "[data-testid=timeline]",
        "Approval granted for tool: edit_file by user",
    )
    .await?;
    // The rest of the run's requests are approved at once.
    app.click("[data-testid=approve-rest]").await?;
    app.find("[data-testid=outcome][data-outcome=passed]")
        .await?;
    app.until_gone("[data-testid=approval-dialog]").await?;

    let timeline = app.text("[data-testid=timeline]").await?;
    for k in 1..=3 {
        assert!(
            timeline.contains(&format!("reviewer, iteration {k} of 3")),
            "the timeline shows the reviewer's round {k} of 3:\n{timeline}"
        );
    }
    assert!(
        !timeline.contains("reviewer, iteration 4"),
        "the third review passes, so there is no fourth round"
    );
    app.until_text("[data-testid=loop-state]", "iteration 3 of 3")
        .await?;
    assert!(
        app.text("[data-testid=worst-case]").await?.parse::<u64>()? > 0,
        "the worst-case call bound is shown"
    );
    app.screenshot("passed").await?;

    // The run is recorded in the library, tied to the version it ran.
    app.until_text("[data-testid=recorded-runs] summary", "Recorded runs (1)")
        .await?;
    app.click("[data-testid=recorded-runs] summary").await?;
    let row = app.text("[data-testid=recorded-runs] tbody tr").await?;
    assert!(
        row.contains("review-fails-twice") && row.contains("v1") && row.contains("passed"),
        "the recorded run names its scenario, version and outcome: {row}"
    );

    app.click("[data-run-view=prompts]").await?;
    app.find(".run-pane details").await?;
    app.screenshot("prompts").await?;
    app.quit().await
}
