use playbook_e2e::{Key, Profile, Result};

use crate::{launch, open_tdd, select_role};

const MAX_ITERATIONS: &str =
    "input[data-pointer='/workflow/build/roles/2/retry_policy/max_iterations']";
const MAX_ITERATIONS_HINT: &str =
    "[data-field='/workflow/build/roles/2/retry_policy/max_iterations'] .hint[data-code=PB302]";

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn first_run_explains_a_role_contract_and_opens_the_tdd_example() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("first-run", &profile).await?;
    let welcome = app.text(".first-run").await?;
    for part in ["Intent", "Inputs", "Execution", "Output", "Control"] {
        assert!(
            welcome.contains(part),
            "the first-run view explains the {part} part of a contract"
        );
    }
    app.screenshot("welcome").await?;
    open_tdd(&mut app).await?;
    app.until_text("[data-testid=validity]", "valid").await?;
    select_role(&app, "reviewer").await?;
    app.screenshot("tdd-reviewer").await?;

    // The dark theme, on the flow graph.
    app.click("[data-testid=theme]").await?;
    app.find(".app[data-theme=dark]").await?;
    app.click("[data-tab=flow]").await?;
    app.find("[data-role-node=reviewer]").await?;
    app.screenshot("dark-flow").await?;

    // Zoomed in, the graph is larger than its view: dragging the
    // background pans it, as in any graph view.
    // At most 200 %, whatever the zoom it opened at.
    for _ in 0..8 {
        app.click("[aria-label='Zoom in']").await?;
    }
    app.until_text("[data-testid=flow-zoom]", "200 %").await?;
    let scrolled = "const c = document.querySelector('[data-testid=flow-canvas]'); return [c.scrollLeft, c.scrollTop]";
    assert_eq!(app.execute(scrolled).await?, serde_json::json!([0, 0]));
    app.drag("[data-testid=flow-canvas]", -150.0, -100.0)
        .await?;
    let after = app.execute(scrolled).await?;
    assert!(
        after[0].as_f64().is_some_and(|x| x > 100.0) && after[1].as_f64().is_some_and(|y| y > 50.0),
        "dragging the background left and up scrolls the graph right and down: {after}"
    );
    app.quit().await
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn removing_the_review_loop_bound_shows_the_hint_and_the_unbounded_loop() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("unbounded-loop", &profile).await?;
    open_tdd(&mut app).await?;
    select_role(&app, "reviewer").await?;

    let field = app.find(MAX_ITERATIONS).await?;
    app.clear_field(&field).await?;
    // The hint appears next to the field while typing, not on save.
    app.find(MAX_ITERATIONS_HINT).await?;
    app.until_text("[data-testid=validity]", "run blocked")
        .await?;
    app.find(".problem[data-code=PB302]").await?;
    app.screenshot("hint-on-field").await?;

    app.click("[data-tab=flow]").await?;
    app.find("[data-role-node=reviewer][data-unbounded=true]")
        .await?;
    app.until_text("[data-testid=flow-summary]", "unbounded loop")
        .await?;
    app.screenshot("loop-highlighted").await?;

    // Clicking the node edits the role; the Problems panel focuses the field.
    app.click("[data-role-node=reviewer]").await?;
    app.find(".role-editor[data-role=reviewer]").await?;
    app.click(".problem[data-code=PB302]").await?;
    let focused = app.client.active_element().await?;
    assert_eq!(
        focused.attr("data-pointer").await?.as_deref(),
        Some("/workflow/build/roles/2/retry_policy/max_iterations"),
        "clicking a problem focuses the field it is about"
    );
    focused.send_keys("4").await?;
    app.until_gone(MAX_ITERATIONS_HINT).await?;
    app.until_text("[data-testid=validity]", "valid").await?;
    app.click("[data-tab=flow]").await?;
    app.until_text("[data-testid=flow-summary]", "1 loops")
        .await?;
    assert!(
        app.find_all("[data-unbounded=true]").await?.is_empty(),
        "with max_iterations back, no loop is unbounded"
    );
    app.find("[data-role-node=reviewer]").await?;
    app.screenshot("fixed").await?;

    // Ctrl+S saves a version; history shows it with what changed.
    app.shortcut(&[Key::Control], 's').await?;
    app.until_text("[data-testid=notice]", "Saved version 2")
        .await?;
    app.click("[data-screen=history]").await?;
    app.find("[data-testid=history-table] tr[data-version='2']")
        .await?;
    app.until_text("[data-testid=semantic-diff]", "reviewer")
        .await?;
    app.screenshot("history").await?;

    // Restoring version 1 adds version 3 with its content.
    app.click("[data-testid=history-table] tr[data-version='1'] button")
        .await?;
    app.until_text("[data-testid=notice]", "version 3").await?;
    app.click("[data-screen=editor]").await?;
    select_role(&app, "reviewer").await?;
    let restored = app.find(MAX_ITERATIONS).await?;
    assert_eq!(
        restored.prop("value").await?.as_deref(),
        Some("3"),
        "the restored version has the original retry limit"
    );
    app.screenshot("restored").await?;
    app.quit().await
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn undo_and_redo_cross_a_template_insertion() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("undo-template", &profile).await?;
    open_tdd(&mut app).await?;
    let before = app.find_all(".outline-item.role").await?.len();

    app.click("[data-outline-stage=test]").await?;
    app.click("[data-template=reviewer]").await?;
    app.find("[data-outline-role=reviewer-2]").await?;
    assert_eq!(app.find_all(".outline-item.role").await?.len(), before + 1);
    app.screenshot("template-inserted").await?;

    // An edit after the insertion, so undo walks back through both.
    app.click("[data-section=intent] input[type=text]").await?;
    app.keys("-x").await?;
    app.find("[data-outline-role=reviewer-2-x]").await?;

    app.shortcut(&[Key::Control], 'z').await?;
    app.find("[data-outline-role=reviewer-2]").await?;
    app.shortcut(&[Key::Control], 'z').await?;
    app.until_gone("[data-outline-role=reviewer-2]").await?;
    assert_eq!(
        app.find_all(".outline-item.role").await?.len(),
        before,
        "undo removes the inserted role"
    );
    app.screenshot("undone").await?;

    app.shortcut(&[Key::Control, Key::Shift], 'z').await?;
    app.find("[data-outline-role=reviewer-2]").await?;
    app.shortcut(&[Key::Control, Key::Shift], 'z').await?;
    app.find("[data-outline-role=reviewer-2-x]").await?;
    app.screenshot("redone").await?;
    app.quit().await
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn bad_input_keeps_the_last_valid_state_with_a_clear_message() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("bad-input", &profile).await?;
    open_tdd(&mut app).await?;
    select_role(&app, "reviewer").await?;

    // A word in a number field: a message, and the document keeps 3.
    let field = app.find(MAX_ITERATIONS).await?;
    app.clear_field(&field).await?;
    field.send_keys("three").await?;
    app.until_text(
        "[data-field='/workflow/build/roles/2/retry_policy/max_iterations'] .field-error",
        "whole number",
    )
    .await?;
    app.screenshot("wrong-type").await?;

    // A duplicate chip is refused with a message.
    let chips = app
        .find("[data-field='/workflow/build/roles/2/inputs_required'] .chip-input")
        .await?;
    chips.send_keys("spec_path\u{E007}").await?;
    app.until_text(
        "[data-field='/workflow/build/roles/2/inputs_required'] .field-error",
        "Already in the list",
    )
    .await?;

    // Invalid YAML in the Source tab: diagnostics, and the form keeps the playbook.
    app.click("[data-tab=source]").await?;
    let source = app.find("[data-testid=source-text]").await?;
    source.click().await?;
    // At the end of the text (the editor's Ctrl+End).
    app.keys(&(Key::Control + char::from(Key::End).to_string().as_str()))
        .await?;
    app.keys(&format!("{}: [unclosed", char::from(Key::Enter)))
        .await?;
    app.find("[data-testid=source-invalid]").await?;
    app.find(".diagnostics .problem[data-code=PB001]").await?;
    app.screenshot("invalid-yaml").await?;
    app.click("[data-tab=form]").await?;
    select_role(&app, "reviewer").await?;
    app.screenshot("form-kept").await?;
    app.quit().await
}

/// A finding whose fix is mechanical offers it in the Problems panel and next
/// to its field: one click clears the finding, and undo brings it back.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_quick_fix_clears_its_finding_and_undo_brings_it_back() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("quick-fix", &profile).await?;
    open_tdd(&mut app).await?;
    select_role(&app, "reviewer").await?;
    let field = app.find(MAX_ITERATIONS).await?;
    app.clear_field(&field).await?;
    app.find(".problem[data-code=PB302]").await?;

    // Offered in the Problems panel and next to the field; taken at the field.
    app.find(".problems [data-fix-for=PB302]").await?;
    app.click(".hints [data-fix-for=PB302]").await?;
    let fix = app.find(".hints [data-fix]").await?;
    let title = fix.text().await?;
    assert!(
        title.contains("retry limit"),
        "the fix says what it does: {title}"
    );
    app.screenshot("quick-fix-offered").await?;
    fix.click().await?;
    app.until_text("[data-testid=notice]", "Applied").await?;
    app.until_gone(".problem[data-code=PB302]").await?;
    app.until_text("[data-testid=validity]", "valid").await?;

    app.shortcut(&[Key::Control], 'z').await?;
    app.find(".problem[data-code=PB302]").await?;
    app.screenshot("quick-fix-undone").await?;
    app.quit().await
}

/// A keystroke's check is asked synchronously through the app's `check`
/// scheme, so the edit and its hints are painted in one frame. The page's
/// own request is answered in the real window (WebKit's synchronous
/// request to a custom scheme, the page's CSP and origin); a request that
/// replaced the held document makes the next keystroke's patch stale, and
/// the editor recovers by sending the whole document.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_keystroke_check_is_answered_synchronously_and_recovers_from_a_stale_revision()
-> Result<()> {
    let profile = Profile::new();
    let mut app = launch("check-now", &profile).await?;
    open_tdd(&mut app).await?;
    select_role(&app, "reviewer").await?;
    let ask = |method: &str, body: &str| {
        format!(
            "const r = new XMLHttpRequest(); r.open('{method}', 'check://localhost/', false); \
             r.setRequestHeader('Content-Type', 'text/plain'); r.send({body}); \
             return {{ status: r.status, answer: JSON.parse(r.responseText) }};"
        )
    };
    let whole = "JSON.stringify({ change: { kind: 'whole', revision: 1000000, document: { schema_version: '1.0.0', id: 'x' } }, \
                 format: 'yaml', include: { source: false, flow: false }, source: null })";
    let answered = app.execute(&ask("POST", whole)).await?;
    assert_eq!(answered["status"], 200, "{answered}");
    assert_eq!(
        answered["answer"]["structurally_valid"], false,
        "{answered}"
    );
    assert!(
        answered["answer"]["findings"]
            .as_array()
            .is_some_and(|f| !f.is_empty()),
        "the answer carries the findings: {answered}"
    );
    let refused = app.execute(&ask("GET", "null")).await?;
    assert_eq!(refused["status"], 405, "{refused}");
    assert_eq!(refused["answer"]["code"], "invalid_input", "{refused}");

    // The backend now holds another document: the editor's next patch is
    // stale, and the hint still comes.
    let field = app.find(MAX_ITERATIONS).await?;
    app.clear_field(&field).await?;
    app.find(MAX_ITERATIONS_HINT).await?;
    app.until_text("[data-testid=validity]", "run blocked")
        .await?;
    field.send_keys("3").await?;
    app.until_gone(MAX_ITERATIONS_HINT).await?;
    app.until_text("[data-testid=validity]", "valid").await?;
    app.quit().await
}
