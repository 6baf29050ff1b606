//! A hand-commented playbook keeps its comments through the app: opened
//! from a file, a field edited in the form, saved as a version, exported,
//! and after a restart; the Source tab shows the comments throughout.

use std::path::Path;

use playbook_e2e::{App, Profile, Result};

use crate::launch;

const FIXTURE: &str = "../../tests/fixtures/commented/review-loop.yaml";

/// The Source tab's text, from the plain text area or a code editor.
async fn source_text(app: &App) -> Result<String> {
    let value = app
        .execute(
            "const el = document.querySelector('[data-testid=source-text]');
             if (!el) return '';
             if (typeof el.value === 'string') return el.value;
             const lines = [...el.querySelectorAll('.cm-line')].map((l) => l.textContent);
             return lines.length ? lines.join('\\n') : el.textContent;",
        )
        .await?;
    Ok(value.as_str().unwrap_or_default().to_string())
}

async fn until_source_has(app: &App, needle: &str) -> Result<String> {
    let mut last = String::new();
    for _ in 0..50 {
        last = source_text(app).await?;
        if last.contains(needle) {
            return Ok(last);
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    Err(format!("the Source tab never showed {needle:?}; it shows:\n{last}").into())
}

/// The lines that differ between two texts of equally many lines.
fn changed_lines(before: &str, after: &str) -> Vec<(String, String)> {
    assert_eq!(
        before.lines().count(),
        after.lines().count(),
        "no line added or lost:\n{before}\n---\n{after}"
    );
    before
        .lines()
        .zip(after.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_commented_playbook_edited_in_the_form_saved_and_exported_keeps_every_comment()
-> Result<()> {
    let profile = Profile::new();
    let original = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE))?;
    let file = profile.path("commented.yaml");
    std::fs::write(&file, &original)?;

    let mut app = launch("comments-kept", &profile).await?;
    app.click("[data-screen=library]").await?;
    app.click("[data-testid=open-file]").await?;
    app.answer_file_dialog("Open a playbook", &file).await?;
    app.find("[data-outline-role=reviewer]").await?;
    app.until_text("[data-testid=notice]", "Opened").await?;

    // The Source tab shows the file as written.
    app.click("[data-tab=source]").await?;
    let shown = until_source_has(&app, "# Every comment and blank line").await?;
    assert!(shown.contains("# back for another round"), "{shown}");
    app.screenshot("source-as-opened").await?;

    // One field edited in the form.
    app.click("[data-tab=form]").await?;
    let name = app.find("input[data-pointer='/name']").await?;
    app.clear_field(&name).await?;
    name.send_keys("Kept comments").await?;
    app.click("[data-tab=source]").await?;
    let shown = until_source_has(&app, "name: Kept comments").await?;
    assert!(
        shown.contains("name: Kept comments   # shown in the library"),
        "{shown}"
    );
    assert!(shown.contains("# End of the playbook."), "{shown}");
    app.screenshot("source-after-form-edit").await?;

    // Saved as a version, then exported to a file.
    app.click("[data-testid=save]").await?;
    app.click("[data-testid=save-confirm]").await?;
    app.until_text("[data-testid=notice]", "Saved version 2")
        .await?;
    let target = profile.path("exported.yaml");
    app.click("[data-testid=save-as]").await?;
    app.answer_file_dialog("Export the open playbook to a file", &target)
        .await?;
    app.until_text("[data-testid=notice]", "Exported to")
        .await?;
    let exported = std::fs::read_to_string(&target)?;
    assert_eq!(
        changed_lines(&original, &exported),
        [(
            "name: Commented review   # shown in the library".to_string(),
            "name: Kept comments   # shown in the library".to_string()
        )],
        "only the edited value changed:\n{exported}"
    );
    app.quit().await?;

    // After a restart the playbook reopens with its comments.
    let mut app = launch("comments-kept-again", &profile).await?;
    app.until_text(".outline", "Kept comments").await?;
    app.click("[data-tab=source]").await?;
    let shown = until_source_has(&app, "# Every comment and blank line").await?;
    assert_eq!(changed_lines(&exported, &shown), []);
    app.screenshot("source-after-restart").await?;
    app.quit().await
}
