//! The Source tab is a code editor: findings marked at their line while
//! typing, completion and field documentation from the language server's
//! logic, folding, search, and its own undo while typing.

use std::time::Duration;

use playbook_e2e::{App, Key, Profile, Result};

use crate::{launch, open_tdd, select_role};

const SOURCE: &str = "[data-testid=source-text]";

fn key(k: Key) -> String {
    char::from(k).to_string()
}

/// The editor's lines that hold a mark of `severity`, as shown.
async fn marked_lines(app: &App, severity: &str) -> Result<Vec<String>> {
    let lines = app
        .execute(&format!(
            "return [...document.querySelectorAll('.cm-lintRange-{severity}')].map(e => e.closest('.cm-line')?.textContent ?? '')"
        ))
        .await?;
    Ok(lines
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|l| l.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default())
}

/// Replaces the whole text with `lines`, typed. Escape first closes a
/// completion that may be open (Enter would accept it). After each Enter the
/// editor indents by itself; Shift+Home selects that indentation so the
/// typed line keeps exactly its own.
async fn type_text(app: &App, lines: &[&str]) -> Result<()> {
    app.find(SOURCE).await?.click().await?;
    app.keys(&(Key::Control + "a")).await?;
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            app.keys(&key(Key::Escape)).await?;
            app.keys(&format!(
                "{}{}{}{}",
                key(Key::Enter),
                key(Key::Shift),
                key(Key::Home),
                key(Key::Null)
            ))
            .await?;
        }
        app.keys(line).await?;
    }
    Ok(())
}

/// Opens the search panel with Ctrl+F, finds `text` and returns to the
/// editor with the match selected.
async fn find(app: &App, text: &str, through_menu: bool) -> Result<()> {
    let field = if through_menu {
        // The real keyboard: the native menu's Edit ▸ Find accelerator. A
        // key the X server delivers before the window has taken the focus
        // is lost, as on a desktop; it is pressed again, as a person would.
        let mut opened = None;
        for _ in 0..3 {
            app.system_keys("ctrl+f").await?;
            if let Ok(field) = app
                .find_within(".cm-search input[name=search]", Duration::from_secs(4))
                .await
            {
                opened = Some(field);
                break;
            }
        }
        opened.ok_or("Ctrl+F did not open the search panel in three presses")?
    } else {
        app.shortcut(&[Key::Control], 'f').await?;
        app.find(".cm-search input[name=search]").await?
    };
    app.clear_field(&field).await?;
    field
        .send_keys(&format!("{text}{}", key(Key::Enter)))
        .await?;
    app.find(".cm-searchMatch-selected").await?;
    Ok(())
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn the_source_tab_is_a_code_editor() -> Result<()> {
    let profile = Profile::new();
    let mut app = launch("code-editor", &profile).await?;
    open_tdd(&mut app).await?;
    app.click("[data-tab=source]").await?;
    app.find(&format!("{SOURCE}[aria-label='Playbook source (YAML)']"))
        .await?;
    app.find(".cm-lineNumbers").await?;

    // A typo is marked at its line while typing, with a gutter marker.
    app.find(SOURCE).await?.click().await?;
    app.keys(&(Key::Control + key(Key::Home).as_str())).await?;
    app.keys(&format!("nmae: typo{}", key(Key::Enter))).await?;
    app.until("the typo is marked on its line", || async {
        Ok(marked_lines(&app, "warning")
            .await?
            .iter()
            .any(|l| l.starts_with("nmae")))
    })
    .await?;
    app.find(".cm-gutter-lint .cm-lint-marker-warning").await?;
    app.find(".diagnostics .problem[data-code=PB004]").await?;
    app.screenshot("typo-marked").await?;

    // Ctrl+Z while typing undoes the typing (the editor's own history).
    app.until("the typing is undone", || async {
        if !app.text(SOURCE).await?.contains("nmae") {
            return Ok(true);
        }
        app.shortcut(&[Key::Control], 'z').await?;
        Ok(false)
    })
    .await?;
    app.until_gone(".cm-lint-marker-warning").await?;

    // Hovering a field name shows its documentation from the schema.
    let marked = app
        .execute(
            "const key = [...document.querySelectorAll('[data-testid=source-text] .cm-line span')].find(s => s.textContent === 'mode');
             if (!key) return false;
             key.scrollIntoView({ block: 'center' });
             key.setAttribute('data-e2e', 'hover-mode');
             return true;",
        )
        .await?;
    assert_eq!(marked, serde_json::json!(true), "a `mode` key is on screen");
    app.hover("[data-e2e=hover-mode]").await?;
    app.until_text("[data-testid=source-hover]", "One of")
        .await?;
    let doc = app.text("[data-testid=source-hover]").await?;
    assert!(
        doc.contains("mode") && doc.contains("reviewer"),
        "the hover documents the field and its values: {doc}"
    );
    app.screenshot("hover-doc").await?;

    // Ctrl+F finds text: the editor's search panel, through the menu's accelerator.
    find(&app, "name: worker", true).await?;
    app.screenshot("found").await?;
    app.keys(&key(Key::Escape)).await?;
    app.until_gone(".cm-search").await?;

    // Folding a role hides its fields behind a placeholder.
    let marked = app
        .execute(
            "const line = [...document.querySelectorAll('.cm-line')].find(l => l.textContent.trim() === '- name: worker');
             if (!line) return false;
             const top = line.getBoundingClientRect().top;
             const marker = [...document.querySelectorAll('.cm-foldGutter .cm-gutterElement')]
               .find(g => Math.abs(g.getBoundingClientRect().top - top) < 4 && g.textContent.trim() !== '');
             if (!marker) return false;
             marker.setAttribute('data-e2e', 'fold-worker');
             return true;",
        )
        .await?;
    assert_eq!(
        marked,
        serde_json::json!(true),
        "the worker role has a fold marker"
    );
    app.click("[data-e2e=fold-worker]").await?;
    app.find(".cm-foldPlaceholder").await?;
    let shown = app.text(SOURCE).await?;
    assert!(
        !shown.contains("Make the failing tests pass with the smallest change"),
        "the folded role's fields are hidden"
    );
    app.screenshot("role-folded").await?;

    // Completion in `handoff_to` offers the playbook's role names; accepting
    // one inserts it, and the form follows the text.
    type_text(
        &app,
        &[
            // Quoted: an enum value at the end of a line would open its completion.
            "schema_version: \"1.0.0\"",
            "id: pair",
            "name: Pair",
            "workflow:",
            "  build:",
            "    roles:",
            "      - name: reviewer",
            "        mode: \"reviewer\"",
            "      - name: coder",
            "        mode: \"worker\"",
            "        handoff_to: [rev",
        ],
    )
    .await?;
    app.until_text(".cm-tooltip-autocomplete", "reviewer")
        .await?;
    app.screenshot("completion").await?;
    app.keys(&key(Key::Enter)).await?;
    app.keys("]").await?;
    app.until("the role name is inserted", || async {
        Ok(app.text(SOURCE).await?.contains("handoff_to: [reviewer]"))
    })
    .await?;
    app.click("[data-tab=form]").await?;
    select_role(&app, "coder").await?;
    app.until_text(
        "[data-field='/workflow/build/roles/1/handoff_to']",
        "reviewer",
    )
    .await?;

    // The editor follows the app's theme.
    app.click("[data-tab=source]").await?;
    app.find(".cm-editor").await?;
    let background =
        "return getComputedStyle(document.querySelector('.cm-editor')).backgroundColor";
    let light = app.execute(background).await?;
    app.click("[data-testid=theme]").await?;
    app.until("the editor turns dark", || async {
        Ok(app.execute(background).await? != light)
    })
    .await?;
    app.screenshot("dark").await?;
    app.quit().await
}
