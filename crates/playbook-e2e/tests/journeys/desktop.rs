//! Desktop conventions: the native menu bar's accelerators, a second launch
//! handing its file to the running window, the window's size kept across
//! restarts, and the page loaded again when its process dies.

use std::process::Command;
use std::time::{Duration, Instant};

use playbook_e2e::{App, Profile, Result, app_binary, display_colours, procs};

use crate::launch;

/// Real key presses go through the X server to the window, where the menu
/// bar's accelerators take them: Ctrl+S saves a version, F1 opens the
/// documentation, Ctrl+O the open dialog, whose file then opens.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn the_menu_bar_accelerators_save_open_and_help() -> Result<()> {
    let profile = Profile::new();
    let tdd = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../playbooks/tdd.yaml"),
    )?;
    let file = profile.path("menu-team.yaml");
    std::fs::write(&file, tdd.replacen("id: tdd", "id: menu-team", 1))?;
    let mut app = launch("menu-bar", &profile).await?;
    app.click("[data-screen=library]").await?;
    app.find("[data-testid=library-table]").await?;

    app.system_keys("ctrl+o").await?;
    app.answer_file_dialog("Open a playbook", &file).await?;
    app.until_text("[data-testid=notice]", "Opened").await?;
    app.find("[data-outline-role=reviewer]").await?;

    let description = app.find("textarea[data-pointer='/description']").await?;
    description.send_keys(" Edited.").await?;
    app.system_keys("ctrl+s").await?;
    app.until_text("[data-testid=notice]", "version 2").await?;

    app.system_keys("F1").await?;
    app.find("[data-testid=help-documentation]").await?;
    app.screenshot("help").await?;
    app.click("[data-testid=help-close]").await?;
    app.until_gone("[data-testid=help-documentation]").await?;
    app.quit().await
}

/// Launching the app again with a file, on the same library, opens the file
/// in the running window; the second process hands it over and exits.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_second_launch_with_a_file_opens_it_in_the_running_window() -> Result<()> {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        // scripts/e2e.sh runs the journeys in a D-Bus session.
        return Err("no D-Bus session bus: run the journeys through scripts/e2e.sh".into());
    }
    let profile = Profile::new();
    let tdd = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../playbooks/tdd.yaml"),
    )?;
    let file = profile.path("handed-over.yaml");
    std::fs::write(&file, tdd.replacen("id: tdd", "id: handed-over", 1))?;
    let app = launch("single-instance", &profile).await?;
    app.click("[data-screen=library]").await?;
    app.find("[data-testid=library-table]").await?;

    let mut second = Command::new(app_binary());
    profile.apply_env(&mut second);
    let status = tokio::time::timeout(
        Duration::from_secs(30),
        tokio::task::spawn_blocking(move || second.arg(&file).status()),
    )
    .await
    .map_err(|_| "the second launch did not exit within 30 s")???;
    assert!(
        status.success(),
        "the second launch exits cleanly: {status}"
    );
    app.until_text("[data-testid=notice]", "Opened").await?;
    app.find("[data-outline-role=reviewer]").await?;
    app.quit().await
}

/// The window opens at the size it had when it was closed.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn the_window_keeps_its_size_across_restarts() -> Result<()> {
    let profile = Profile::new();
    let app = App::launch("window-state", &profile).await?;
    app.client.set_window_size(1000, 700).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, _, width, height) = app.client.get_window_rect().await?;
    app.quit().await?;
    let app = App::launch("window-state-again", &profile).await?;
    let (_, _, width_again, height_again) = app.client.get_window_rect().await?;
    assert_eq!(
        (width_again, height_again),
        (width, height),
        "the size is restored"
    );
    app.quit().await
}

/// The WebKit web process below the app's process (its page), if any.
fn web_process_of(app: u32) -> Option<u32> {
    procs::children(app)
        .find(|p| p.comm.starts_with("WebKitWebProces"))
        .map(|p| p.pid)
}

/// The page's scripts run in JavaScriptCore's interpreter: the web process
/// is started with `JSC_useJIT=0` (docs/architecture-app.md, "Scripts"),
/// or with the value the person set, which the app keeps.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn the_page_runs_its_scripts_interpreted_unless_the_person_says_otherwise() -> Result<()> {
    let profile = Profile::new();
    let app = App::launch("interpreted", &profile).await?;
    app.find("[data-screen=library]").await?;
    let pid = app.pid().ok_or("the app's process id is not known")?;
    let web = web_process_of(pid).ok_or("the app has no web process")?;
    let environ = std::fs::read(format!("/proc/{web}/environ"))?;
    let jit: Vec<&[u8]> = environ
        .split(|b| *b == 0)
        .filter(|entry| entry.starts_with(b"JSC_useJIT="))
        .collect();
    let wanted = format!(
        "JSC_useJIT={}",
        std::env::var("JSC_useJIT").unwrap_or_else(|_| "0".into())
    );
    assert_eq!(
        jit,
        [wanted.as_bytes()],
        "the web process's JIT setting: {:?}",
        jit.iter()
            .map(|e| String::from_utf8_lossy(e))
            .collect::<Vec<_>>()
    );
    app.quit().await
}

/// When WebKit's page process dies (a crash, or killed by the system for
/// memory), the window loads its page again instead of staying blank.
/// WebKitWebDriver ends its session when the page crashes, so the page is
/// seen on the display: a new web process, and the window showing a page
/// again (many colours) rather than a flat blank.
#[tokio::test(flavor = "current_thread")]
#[ignore = "needs a display and the built app: scripts/e2e.sh"]
async fn a_page_whose_process_died_is_loaded_again() -> Result<()> {
    let profile = Profile::new();
    let mut app = App::launch("web-process", &profile).await?;
    app.find("[data-screen=library]").await?;
    app.screenshot("before").await?;
    let shown = display_colours()?;
    let pid = app.pid().ok_or("the app's process id is not known")?;
    let web = web_process_of(pid).ok_or("the app has no web process")?;
    let killed = Command::new("kill")
        .args(["-KILL", &web.to_string()])
        .status()?;
    assert!(
        killed.success(),
        "the web process {web} could not be killed"
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut colours = 0;
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let again = web_process_of(pid).filter(|p| *p != web);
        if again.is_some() {
            colours = display_colours()?;
            // The same view as before the crash, give or take the caret.
            if colours * 2 > shown {
                break;
            }
        }
        if Instant::now() > deadline {
            return Err(format!(
                "the page did not come back within 30 s of its process being killed: \
                 web process {again:?}, {colours} colours on the display against {shown} before"
            )
            .into());
        }
    }
    // The driver's session ended with the page; stopping the app ends the
    // journey (the harness stops the instance it started when `app` drops).
    drop(app);
    Ok(())
}
