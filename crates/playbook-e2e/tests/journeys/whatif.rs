//! The What-if panel: it simulates the open playbook in the real window;
//! and its slider-to-result time, for docs/benchmarks.md ("What-if"), which
//! prints numbers and asserts nothing about time (`scripts/e2e.sh measure`).

use playbook_e2e::{App, Key, Profile, Result};

use crate::open_tdd;

/// The panel beside Preview simulates the open playbook and shows its
/// report; a slider move simulates again.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn the_what_if_panel_simulates_the_open_playbook() -> Result<()> {
    let profile = Profile::new();
    let mut app = panel_with_report("whatif", &profile).await?;
    let results = app.text(".whatif-results").await?;
    assert!(
        results.contains("simulated runs") && results.contains("tasks passing"),
        "{results}"
    );
    // How tasks that did not pass ended is shown beside the escalations,
    // whatever the sliders say (a line per way, or that every task passed).
    assert!(
        results.contains("Tasks not passing, by how they ended"),
        "{results}"
    );
    let alerts = app.find_all(".whatif [role=alert]").await?;
    assert!(alerts.is_empty(), "no error beside the sliders");
    app.screenshot("report").await?;
    app.quit().await
}

/// Moves a slider one step at a time and waits, after each move, until the
/// full report for the new position is on screen; the panel records the
/// time from the input event to the painted estimate and to the painted
/// full report (`ui/src/whatif/metrics.ts`).
#[tokio::test(flavor = "current_thread")]
#[ignore = "measurement: scripts/e2e.sh measure"]
async fn measure_whatif_slider() -> Result<()> {
    let profile = Profile::new();
    let mut app = panel_with_report("measure-whatif", &profile).await?;
    app.execute(
        "window.__playbookStudioWhatif = { latencies: [], finalLatencies: [], pending: null, pendingFinal: null }; return 0",
    )
        .await?;
    let slider = app.find("input[aria-label='Reviewer passes']").await?;
    let moves = 20;
    for k in 0..moves {
        // Ten steps down, then ten up: every move is a new model.
        let key = if k < moves / 2 { Key::Left } else { Key::Right };
        slider.send_keys(&key.to_string()).await?;
        app.until("the report for the new position is painted", || async {
            Ok(app
                .execute("return window.__playbookStudioWhatif.finalLatencies.length")
                .await?
                .as_u64()
                == Some(k + 1))
        })
        .await?;
    }
    for (what, list) in [
        ("estimate (250 runs)", "latencies"),
        ("full report (2 000 runs)", "finalLatencies"),
    ] {
        let ms = app
            .recorded_ms(&format!("window.__playbookStudioWhatif.{list}"))
            .await?;
        println!(
            "what-if slider move to painted {what} of tdd.yaml: {} samples, \
             median {:.0} ms, p95 {:.0} ms, max {:.0} ms",
            ms.len(),
            ms.at(0.5),
            ms.at(0.95),
            ms.at(1.0)
        );
    }
    app.screenshot("whatif-slider").await?;
    app.quit().await
}

/// Launches the app, opens tdd.yaml and its What-if panel, and waits for the
/// panel's first report. Opening shows the editor when it is done, so the
/// panel is asked for after that, or the editor would take the screen back.
/// A debug build simulates its runs in seconds: the report is waited for up
/// to a minute, and when none comes the error says what the panel shows.
async fn panel_with_report(journey: &str, profile: &Profile) -> Result<App> {
    let mut app = App::launch(journey, profile).await?;
    open_tdd(&mut app).await?;
    app.click("[data-screen=whatif]").await?;
    for _ in 0..6 {
        if app.find(".whatif-results").await.is_ok() {
            return Ok(app);
        }
    }
    let panel = app.text(".whatif").await.unwrap_or_default();
    Err(format!("no What-if report within a minute; the panel shows: {panel}").into())
}
