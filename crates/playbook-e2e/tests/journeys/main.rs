//! User journeys in the real app window. They need a display and the built
//! app and UI: run `scripts/e2e.sh` (Xvfb + WebKitWebDriver). Marked
//! `#[ignore]` so a plain `cargo test` without a display skips them loudly.

mod comments;
mod deleting;
mod desktop;
mod editing;
mod hostile_paste;
mod legacy;
mod library;
mod measure;
mod package;
mod preview;
mod restart;
mod routing;
mod run;
mod scenarios;
mod source_editor;
mod templates;
mod versions;
mod whatif;

use playbook_e2e::{App, Profile, Result};

/// Opens the TDD example from the first-run view, as a new user would.
async fn open_tdd(app: &mut App) -> Result<()> {
    app.find("[data-testid=open-tdd]").await?;
    app.click("[data-testid=open-tdd]").await?;
    app.find("[data-outline-role=reviewer]").await?;
    Ok(())
}

/// Selects a role in the outline and waits for its editor.
async fn select_role(app: &App, name: &str) -> Result<()> {
    app.click(&format!("[data-outline-role={name}]")).await?;
    app.find(&format!(".role-editor[data-role={name}]")).await?;
    Ok(())
}

async fn launch(journey: &str, profile: &Profile) -> Result<App> {
    App::launch(journey, profile).await
}
