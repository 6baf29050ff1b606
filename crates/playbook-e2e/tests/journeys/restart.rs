use playbook_e2e::{Profile, Result};

use crate::{launch, open_tdd};

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn quitting_and_restarting_keeps_the_edits() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("restart", &profile).await?;
    open_tdd(&mut app).await?;
    let name = app.find("input[data-pointer='/name']").await?;
    app.clear_field(&name).await?;
    name.send_keys("My team's TDD").await?;
    app.until_text(".outline-item", "My team's TDD").await?;
    app.screenshot("edited").await?;
    app.quit().await?;

    let mut app = launch("restart-again", &profile).await?;
    app.until_text(".outline", "My team's TDD").await?;
    app.screenshot("after-restart").await?;
    app.quit().await
}
