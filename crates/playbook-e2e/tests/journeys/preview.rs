use playbook_e2e::{Profile, Result};

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
    app.click("[data-testid=run]").await?;
    app.find("[data-testid=outcome][data-outcome=passed]")
        .await?;

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

    app.click("[data-run-view=prompts]").await?;
    app.find(".run-pane details").await?;
    app.screenshot("prompts").await?;
    app.quit().await
}
