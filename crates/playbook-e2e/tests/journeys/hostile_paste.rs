//! Hostile text pasted into the Source tab, as a person's clipboard would
//! bring it: several MiB, nested past the parser's limit, with NUL bytes
//! and stray control characters. The window stays responsive, the text
//! is marked where it is wrong, and the form keeps the last valid playbook.

use std::time::{Duration, Instant};

use playbook_e2e::{App, Key, Profile, Result};

use crate::{launch, open_tdd};

const SOURCE: &str = "[data-testid=source-text]";

/// Pastes `text` (built by the page's script `build`, so megabytes need not
/// cross WebDriver) into the Source tab as a clipboard paste does.
async fn paste(app: &App, build: &str) -> Result<()> {
    app.find(SOURCE).await?.click().await?;
    app.keys(&(Key::Control + "a")).await?;
    let pasted = app
        .execute(&format!(
            "const text = (() => {{ {build} }})();
             const data = new DataTransfer();
             data.setData('text/plain', text);
             const target = document.querySelector('[data-testid=source-text] .cm-content')
               ?? document.querySelector('[data-testid=source-text]');
             target.dispatchEvent(new ClipboardEvent('paste', {{ clipboardData: data, bubbles: true, cancelable: true }}));
             return text.length;"
        ))
        .await?;
    assert!(pasted.as_u64().unwrap_or(0) > 0, "pasted: {pasted}");
    Ok(())
}

/// The window answers: a click on the Form tab and back takes effect.
async fn responsive(app: &App, within: Duration) -> Result<()> {
    let started = Instant::now();
    app.click("[data-tab=form]").await?;
    app.find("input[data-pointer='/name']").await?;
    app.click("[data-tab=source]").await?;
    app.find(SOURCE).await?;
    assert!(
        started.elapsed() < within,
        "the window took {:?} to switch tabs",
        started.elapsed()
    );
    Ok(())
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn hostile_pastes_into_the_source_tab_are_marked_and_the_window_stays_usable() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("hostile-paste", &profile).await?;
    open_tdd(&mut app).await?;
    app.click("[data-tab=source]").await?;
    app.find(SOURCE).await?;

    // Nested far past the 128 levels the reader takes: refused, located.
    // (Each bracket of a long line costs the editor about 30 µs in a debug
    // build, colouring stops at column 4096: 40 000 of them are a pause.)
    paste(
        &app,
        "return 'id: tdd\\nworkflow: ' + '['.repeat(20000) + ']'.repeat(20000);",
    )
    .await?;
    app.find("[data-testid=source-invalid]").await?;
    app.screenshot("nested").await?;
    app.until_text(".diagnostics", "PB005").await?;
    responsive(&app, Duration::from_secs(20)).await?;

    // NUL bytes and control characters: PB001 with its line.
    paste(
        &app,
        "return 'id: tdd\\nname: a\\u0000b\\u0007\\u001b[31m\\nworkflow: {}\\n';",
    )
    .await?;
    app.find("[data-testid=source-invalid]").await?;
    app.until_text(".diagnostics", "line 2").await?;
    app.screenshot("nul").await?;

    // About 6 MiB of one value: under the 8 MiB limit, read and checked;
    // it has a playbook's shape, so the form takes it.
    paste(
        &app,
        "return 'schema_version: \"1.0.0\"\\nid: tdd\\nname: Big\\ndescription: \"' + 'x'.repeat(6 * 1024 * 1024) + '\"\\nworkflow: {}\\n';",
    )
    .await?;
    app.until_gone("[data-testid=source-invalid]").await?;
    app.screenshot("six-mib").await?;
    responsive(&app, Duration::from_secs(60)).await?;

    // Over the limit: refused by length, the text before it kept.
    paste(&app, "return 'x'.repeat(9 * 1024 * 1024);").await?;
    app.until_text(".source", "a playbook may be at most")
        .await?;
    app.screenshot("too-long").await?;
    responsive(&app, Duration::from_secs(60)).await?;

    // The form has the last text that was a playbook: the 6 MiB one.
    app.click("[data-tab=form]").await?;
    let name = app.find("input[data-pointer='/name']").await?;
    assert_eq!(name.prop("value").await?.unwrap_or_default(), "Big");
    app.quit().await
}
