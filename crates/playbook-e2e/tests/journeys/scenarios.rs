//! Previews of a playbook whose roles are not named like the examples: the
//! shipped scenarios address roles by mode, a scenario naming a missing role
//! gets a mapping step, and a scenario is written, saved and used in the app.

use playbook_e2e::{App, Key, Profile, Result};

use crate::{launch, open_tdd, select_role};

/// Chooses an option of a `<select>` as a person does, by its value, and
/// waits until the page holds the choice. The select is controlled: React
/// puts the old value back until it renders the new one, and a render
/// racing the change (of the iteration just added) can drop it, so the
/// option is chosen again until a later look finds it still chosen.
async fn choose(app: &App, select: &str, value: &str) -> Result<()> {
    let script = format!(
        "const el = document.querySelector({select:?});
         if (!el) return false;
         if (el.value === {value:?}) return true;
         const set = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set;
         set.call(el, {value:?});
         el.dispatchEvent(new Event('change', {{ bubbles: true }}));
         return false;"
    );
    app.until(&format!("{select} has the option {value}"), || async {
        Ok(app.execute(&script).await?.as_bool() == Some(true))
    })
    .await
}

/// Types into a field found by `css`, after emptying it.
async fn type_into(app: &App, css: &str, text: &str) -> Result<()> {
    let field = app.find(css).await?;
    app.clear_field(&field).await?;
    field.send_keys(text).await?;
    Ok(())
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_renamed_worker_previews_with_shipped_and_own_scenarios() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("scenarios", &profile).await?;
    open_tdd(&mut app).await?;
    app.until_text("[data-testid=validity]", "valid").await?;

    // Rename worker to coder, as a team whose roles have their own names.
    select_role(&app, "worker").await?;
    type_into(
        &app,
        "input[data-pointer='/workflow/build/roles/1/name']",
        "coder",
    )
    .await?;
    app.keys(&char::from(Key::Tab).to_string()).await?;
    app.find("[data-outline-role=coder]").await?;
    app.until_text("[data-testid=validity]", "valid").await?;

    // A shipped scenario runs as it is: it addresses roles by mode.
    app.click("[data-screen=preview]").await?;
    app.find("[data-testid=scenario] option[value=review-fails-twice]")
        .await?;
    choose(&app, "[data-testid=scenario]", "review-fails-twice").await?;
    choose(&app, "[data-testid=approvals]", "scenario").await?;
    app.click("[data-testid=run]").await?;
    app.find("[data-testid=outcome][data-outcome=passed]")
        .await?;
    let timeline = app.text("[data-testid=timeline]").await?;
    assert!(
        timeline.contains("coder"),
        "the coder plays the worker's part:\n{timeline}"
    );
    assert!(!timeline.contains("SCENARIO_INVALID"), "{timeline}");
    assert!(app.find_all("[data-testid=mapping-step]").await?.is_empty());
    app.screenshot("shipped-scenario-passed").await?;

    // Write a scenario of this playbook in the editor.
    app.click("[data-testid=scenario-new]").await?;
    app.find("[data-testid=scenario-editor]").await?;
    type_into(&app, "[data-testid=scenario-name]", "coder fails once").await?;
    type_into(&app, "[data-testid=scenario-goal]", "Reject empty names").await?;
    app.click("[data-testid=scenario-add-task]").await?;
    type_into(
        &app,
        "[data-testid=scenario-task-title]",
        "Refuse an empty name",
    )
    .await?;
    // A script keyed by a name the playbook lacks: the problem shows at the key.
    app.click("[data-testid=scenario-add-script]").await?;
    type_into(&app, "[data-testid=script-selector]", "worker").await?;
    app.until_text(
        "[data-testid=scenario-script][data-selector=worker] [data-testid=scenario-problem]",
        "did you mean `coder`",
    )
    .await?;
    // Every reviewer fails its first round.
    app.click("[data-testid=scenario-add-script]").await?;
    type_into(
        &app,
        "[data-testid=scenario-script][data-selector='mode:worker'] [data-testid=script-selector]",
        "mode:reviewer",
    )
    .await?;
    app.find("[data-testid=scenario-script][data-selector='mode:reviewer']")
        .await?;
    app.click("[data-testid=scenario-script][data-selector='mode:reviewer'] [data-testid=script-add-iteration]")
        .await?;
    choose(
        &app,
        "[data-selector='mode:reviewer'] [data-testid=turn-iteration-1] [data-testid=turn-verdict]",
        "fail",
    )
    .await?;
    type_into(
        &app,
        "[data-selector='mode:reviewer'] [data-testid=turn-iteration-1] [data-testid=turn-issues]",
        "The message does not name the field",
    )
    .await?;
    app.until_text("[data-testid=scenario-status]", "1 problem")
        .await?;
    app.click("[data-scenario-tab=source]").await?;
    app.until("the source shows the form's scenario", || async {
        // The code editor's lines, as shown.
        let text = app.text("[data-testid=scenario-source]").await?;
        Ok(text.contains("mode:reviewer") && text.contains("does not name the field"))
    })
    .await?;
    app.screenshot("scenario-editor").await?;

    // Saved with the playbook, it is chosen in the picker.
    app.click("[data-testid=scenario-save]").await?;
    app.find("[data-testid=scenario] option[value='own:coder fails once']")
        .await?;
    app.click("[data-testid=scenario-close]").await?;

    // Run it: the mapping step asks who plays `worker`, pre-filled with coder.
    choose(&app, "[data-testid=scenario]", "own:coder fails once").await?;
    app.click("[data-testid=run]").await?;
    app.find("[data-testid=mapping-step]").await?;
    let prefilled = app
        .find("[data-testid=mapping-choice][data-selector=worker]")
        .await?
        .prop("value")
        .await?;
    assert_eq!(prefilled.as_deref(), Some("coder"));
    app.screenshot("mapping-step").await?;
    app.click("[data-testid=mapping-run]").await?;
    app.until_gone("[data-testid=mapping-step]").await?;
    app.find("[data-testid=outcome][data-outcome=passed]")
        .await?;
    app.until_text("[data-testid=loop-state]", "iteration 2 of 3")
        .await?;
    app.click("[data-testid=recorded-runs] summary").await?;
    app.until_text("[data-testid=recorded-runs] tbody", "coder fails once")
        .await?;
    app.screenshot("own-scenario-passed").await?;
    app.quit().await
}
