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

    // The TDD roles of mode worker (the test author, then the worker) need
    // approval for their mutating tools: the run waits on a dialog.
    app.until_text("[data-testid=approval-dialog]", "write_file")
        .await?;
    let first = app.text("[data-testid=approval-dialog]").await?;
    assert!(
        (first.contains("test_author") || first.contains("worker"))
            && first.contains("requires_user_approval"),
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
        "Approval granted for tool: write_file by user",
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

/// The run as a picture: a review loop shows one bar per round of the worker
/// and the reviewer, marks where the reviewer sends the task back, a bar
/// shows its events and output, and the picture exports as SVG.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn the_timeline_picture_of_a_review_loop_shows_its_rounds_and_exports_as_svg() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("timeline-picture", &profile).await?;
    open_tdd(&mut app).await?;
    app.until_text("[data-testid=validity]", "valid").await?;
    app.click("[data-screen=preview]").await?;
    app.find("[data-testid=scenario] option[value=review-fails-twice]")
        .await?;
    app.find("[data-testid=scenario]")
        .await?
        .select_by_value("review-fails-twice")
        .await?;
    app.find("[data-testid=approvals]")
        .await?
        .select_by_value("approve")
        .await?;
    app.click("[data-testid=run]").await?;
    app.find("[data-testid=outcome]").await?;
    app.find("[data-testid=timeline-picture]").await?;
    app.screenshot("picture").await?;

    let reviews = app.find_all("[data-bar*='/reviewer/']").await?.len();
    assert!(reviews >= 3, "three review rounds, each a bar: {reviews}");
    let rounds = app.find_all("[data-mark=round]").await?.len();
    assert!(rounds >= 2, "each send-back is marked: {rounds}");

    // A failed review's bar shows its events and the reviewer's output.
    app.execute(
        "document.querySelector(\"[data-bar*='/reviewer/'][data-outcome=failed]\")\
         .dispatchEvent(new MouseEvent('click', { bubbles: true }));",
    )
    .await?;
    app.until_text("[data-testid=bar-detail]", "sends the task back")
        .await?;
    let output = app.text("[data-testid=bar-output]").await?;
    assert!(
        output.contains("verdict"),
        "the reviewer's output: {output}"
    );
    app.screenshot("picture-bar").await?;

    let target = profile.path("loop.svg");
    app.click("[data-testid=timeline-export]").await?;
    app.answer_file_dialog("Export the timeline picture", &target)
        .await?;
    app.until_text("[data-testid=timeline-export-said]", "Exported")
        .await?;
    let svg = std::fs::read_to_string(&target)?;
    assert!(
        svg.contains("<svg") && svg.contains("reviewer"),
        "an SVG of the run"
    );
    app.quit().await
}
