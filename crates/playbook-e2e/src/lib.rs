//! Harness for the end-to-end journeys of Playbook Studio.
//!
//! [`App::launch`] starts `WebKitWebDriver` on a free port (with
//! `TAURI_WEBVIEW_AUTOMATION=true`), asks it for a session whose browser is
//! the built app binary, and gives each test its own library database
//! (`PLAYBOOK_DB`) and its own data directory, so journeys never share state.
//! Dropping the [`Driver`] stops the driver with SIGTERM, which also closes
//! the app; SIGKILL would orphan the WebKit processes and hang the test run.
//!
//! Screenshots land in `target/e2e-screenshots/<journey>-<step>.png`.
//!
//! The journeys need a display: run them under Xvfb with `scripts/e2e.sh`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::elements::Element;
use fantoccini::error::{CmdError, ErrorStatus};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

pub mod procs;

pub use fantoccini::key::Key;

pub type Result<T, E = Box<dyn std::error::Error>> = std::result::Result<T, E>;

/// The repository's target directory (shared by the workspace).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

/// The scripted MCP test agent (`cargo build -p playbook-testagent`), next
/// to the app binary under test.
pub fn testagent_binary() -> PathBuf {
    app_binary().with_file_name("playbook-testagent")
}

/// The app binary under test: `PLAYBOOK_STUDIO_BIN`, or the debug build.
pub fn app_binary() -> PathBuf {
    std::env::var_os("PLAYBOOK_STUDIO_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("debug/playbook-studio"))
}

/// The empty Tauri 2 window of the measurements (the WebKitGTK floor):
/// `PLAYBOOK_EMPTY_WINDOW_BIN`, or the `empty_window` example built beside
/// the app binary (`cargo build -p playbook-studio --example empty_window`).
pub fn empty_window_binary() -> PathBuf {
    std::env::var_os("PLAYBOOK_EMPTY_WINDOW_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| app_binary().with_file_name("examples").join("empty_window"))
}

pub fn screenshot_dir() -> PathBuf {
    let dir = target_dir().join("e2e-screenshots");
    std::fs::create_dir_all(&dir).expect("create target/e2e-screenshots");
    dir
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free local port")
}

/// A running WebKitWebDriver; stopped with SIGTERM on drop, and the app it
/// started with it.
pub struct Driver {
    child: Child,
    pub port: u16,
    /// The app process the driver started for the session.
    app: Option<u32>,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let mut stopped = false;
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                stopped = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        if !stopped {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        // The app normally closes with its session. One that outlives it
        // (its page closed but its window left open, seen under load) keeps
        // the single-instance name, so the next journey's launch would be
        // handed to it and never start a session: it is stopped here.
        if let Some(pid) = self.app {
            stop_process(pid);
        }
    }
}

/// Waits for `pid` to exit by itself, then asks it to (SIGTERM), then makes
/// it (SIGKILL).
fn stop_process(pid: u32) {
    for signal in [None, Some("-TERM"), Some("-KILL")] {
        if let Some(signal) = signal {
            let _ = Command::new("kill")
                .args([signal, &pid.to_string()])
                .status();
        }
        for _ in 0..30 {
            if !procs::alive(pid) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The child of `parent` running `binary`.
fn child_running(parent: u32, binary: &Path) -> Option<u32> {
    let binary = binary.canonicalize().ok()?;
    procs::children(parent)
        .map(|p| p.pid)
        .find(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == binary))
}

/// Per-test state that survives an app restart: the database and data dir.
pub struct Profile {
    pub dir: tempfile::TempDir,
}

impl Profile {
    pub fn new() -> Profile {
        Profile {
            dir: tempfile::tempdir().expect("temporary profile directory"),
        }
    }

    pub fn database(&self) -> PathBuf {
        self.dir.path().join("library.db")
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Gives `command` (the app, or the driver that starts it) this
    /// profile's library and data: the database, and XDG folders under which
    /// the webview keeps local storage and the app its window state, so
    /// journeys never see each other's.
    pub fn apply_env(&self, command: &mut Command) {
        command
            .env("PLAYBOOK_DB", self.database())
            .env("XDG_DATA_HOME", self.path("data"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("XDG_CACHE_HOME", self.path("cache"));
    }
}

impl Default for Profile {
    fn default() -> Self {
        Self::new()
    }
}

/// The app in a real window, driven over WebDriver.
pub struct App {
    pub client: Client,
    journey: String,
    step: usize,
    // Declared last: the session closes before the driver stops.
    _driver: Driver,
}

impl App {
    /// Starts the app for `journey` with the database and data of `profile`.
    pub async fn launch(journey: &str, profile: &Profile) -> Result<App> {
        App::launch_with_env(journey, profile, &[]).await
    }

    /// [`App::launch`] with extra environment variables for the app and the
    /// processes it starts (a real run's agents inherit them).
    pub async fn launch_with_env(
        journey: &str,
        profile: &Profile,
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Result<App> {
        App::start(journey, profile, &app_binary(), &[], env, ".topbar").await
    }

    /// Starts `binary` with `args`, as a desktop entry or a file manager
    /// would (the installed package's binary and the files it was given).
    pub async fn launch_binary(
        journey: &str,
        profile: &Profile,
        binary: &Path,
        args: &[String],
    ) -> Result<App> {
        App::start(journey, profile, binary, args, &[], ".topbar").await
    }

    /// Starts `binary` (the empty window of the measurements) under the
    /// driver and waits for an element matching `ready`.
    pub async fn launch_bare(
        journey: &str,
        profile: &Profile,
        binary: &Path,
        ready: &str,
    ) -> Result<App> {
        App::start(journey, profile, binary, &[], &[], ready).await
    }

    async fn start(
        journey: &str,
        profile: &Profile,
        binary: &Path,
        args: &[String],
        env: &[(&str, &std::ffi::OsStr)],
        ready: &str,
    ) -> Result<App> {
        if !binary.exists() {
            return Err(format!(
                "{} does not exist: run scripts/e2e.sh, which builds it",
                binary.display()
            )
            .into());
        }
        let port = free_port();
        let log = std::fs::File::create(screenshot_dir().join(format!("{journey}-driver.log")))?;
        let mut driver = Command::new("WebKitWebDriver");
        profile.apply_env(&mut driver);
        let child = driver
            .arg(format!("--port={port}"))
            .env("TAURI_WEBVIEW_AUTOMATION", "true")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .map_err(|e| {
                format!("could not start WebKitWebDriver (apt package webkit2gtk-driver): {e}")
            })?;
        let mut driver = Driver {
            child,
            port,
            app: None,
        };
        wait_for_port(port).await?;

        let mut caps = serde_json::Map::new();
        caps.insert(
            "webkitgtk:browserOptions".into(),
            json!({ "binary": binary, "args": args }),
        );
        let mut builder =
            ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
        builder.capabilities(caps);
        let url = format!("http://127.0.0.1:{port}");
        let session = builder.connect(&url);
        // A launch handed to an instance already running (single instance)
        // never answers: bound the wait so that says so instead of hanging.
        let client = tokio::time::timeout(Duration::from_secs(90), session)
            .await
            .map_err(|_| {
                format!(
                    "{} started no WebDriver session within 90 s; is an earlier instance still running? (the app is single-instance)",
                    binary.display()
                )
            })??;
        driver.app = child_running(driver.child.id(), binary);
        if driver.app.is_none() {
            eprintln!(
                "note: no process of {} under the driver; it will not be stopped after `{journey}`",
                binary.display()
            );
        }
        let app = App {
            client,
            journey: journey.to_string(),
            step: 0,
            _driver: driver,
        };
        app.find(ready).await?;
        Ok(app)
    }

    /// Waits (up to 10 s) for an element matching the CSS selector.
    ///
    /// React may replace the node between WebKitWebDriver matching it and
    /// making its handle ("Stale element found when trying to create the
    /// node handle"); that is the page still rendering, so it is retried
    /// like a node not there yet.
    pub async fn find(&self, css: &str) -> Result<Element> {
        self.find_within(css, Duration::from_secs(10)).await
    }

    /// Waits up to `time` for an element matching the CSS selector.
    pub async fn find_within(&self, css: &str, time: Duration) -> Result<Element> {
        self.wait_for(Locator::Css(css), time)
            .await
            .map_err(|e| format!("no element matches `{css}` within {time:?}: {e}").into())
    }

    async fn wait_for(&self, locator: Locator<'_>, time: Duration) -> Result<Element, CmdError> {
        let deadline = tokio::time::Instant::now() + time;
        loop {
            match self.client.find(locator).await {
                Err(e) if is_transient(&e) && tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                found => return found,
            }
        }
    }

    pub async fn find_all(&self, css: &str) -> Result<Vec<Element>> {
        Ok(self.client.find_all(Locator::Css(css)).await?)
    }

    /// Clicks the element, retrying while it is covered or still moving
    /// into place (the flow graph fits its view after rendering).
    pub async fn click(&self, css: &str) -> Result<()> {
        let mut last = None;
        for _ in 0..30 {
            let element = self.find(css).await?;
            match element.click().await {
                Ok(_) => return Ok(()),
                Err(e) => {
                    let _ = self
                        .client
                        .execute(
                            "arguments[0].scrollIntoView({block: 'center'})",
                            vec![serde_json::to_value(&element)?],
                        )
                        .await;
                    last = Some(e);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
        Err(format!("could not click `{css}`: {last:?}").into())
    }

    /// Clicks the first button whose text contains `text`.
    pub async fn click_button(&self, text: &str) -> Result<()> {
        let xpath = format!(
            "//button[contains(normalize-space(.), {})]",
            xpath_literal(text)
        );
        let button = self
            .wait_for(Locator::XPath(&xpath), Duration::from_secs(10))
            .await
            .map_err(|e| format!("no button with text `{text}`: {e}"))?;
        button.click().await?;
        Ok(())
    }

    /// The text of the element matching `css`, found afresh if a re-render
    /// replaced it between finding and reading.
    pub async fn text(&self, css: &str) -> Result<String> {
        let mut attempts = 0;
        loop {
            match self.find(css).await?.text().await {
                Ok(text) => return Ok(text),
                Err(e) if is_transient(&e) && attempts < 50 => attempts += 1,
                Err(e) => return Err(format!("could not read `{css}`: {e}").into()),
            }
        }
    }

    /// Waits (up to 10 s) until `check` holds on the page's state.
    pub async fn until<F, Fut>(&self, what: &str, mut check: F) -> Result<()>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<bool>>,
    {
        for _ in 0..100 {
            if check().await.unwrap_or(false) {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err(format!("timed out waiting until {what}").into())
    }

    /// Waits until an element matching `css` contains `text`.
    pub async fn until_text(&self, css: &str, text: &str) -> Result<()> {
        self.until(&format!("`{css}` shows `{text}`"), || async {
            Ok(self
                .client
                .find(Locator::Css(css))
                .await?
                .text()
                .await?
                .contains(text))
        })
        .await
    }

    /// Waits until no element matches `css`.
    pub async fn until_gone(&self, css: &str) -> Result<()> {
        self.until(&format!("`{css}` is gone"), || async {
            Ok(self.client.find_all(Locator::Css(css)).await?.is_empty())
        })
        .await
    }

    /// Empties a text field the way a user does (select all, delete), so
    /// the UI sees the input events.
    pub async fn clear_field(&self, field: &Element) -> Result<()> {
        field.click().await?;
        field.send_keys(&(Key::Control + "a")).await?;
        field
            .send_keys(&char::from(Key::Backspace).to_string())
            .await?;
        Ok(())
    }

    /// Sends keys to the focused element (chords like `Key::Control + "z"`).
    pub async fn keys(&self, keys: &str) -> Result<()> {
        self.client.active_element().await?.send_keys(keys).await?;
        Ok(())
    }

    /// The app's process, as the driver started it.
    pub fn pid(&self) -> Option<u32> {
        self._driver.app
    }

    /// Saves `target/e2e-screenshots/<journey>-<nn>-<step>.png`.
    pub async fn screenshot(&mut self, step: &str) -> Result<PathBuf> {
        self.step += 1;
        // Let the web view paint what the last action changed before capturing.
        self.client
            .execute_async(
                "const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
                vec![],
            )
            .await?;
        tokio::time::sleep(Duration::from_millis(150)).await;
        let path = screenshot_dir().join(format!("{}-{:02}-{step}.png", self.journey, self.step));
        std::fs::write(&path, capture_display()?)?;
        Ok(path)
    }

    /// Answers the native file dialog titled `title` (GTK, opened by the
    /// app through tauri-plugin-dialog) with `path`, as a user typing it
    /// would: Ctrl+L opens the location field of an Open dialog, a Save
    /// dialog's name field takes a whole path, and Enter accepts. Keys go
    /// through the X server (xdotool), as from a keyboard. A screenshot of
    /// the filled-in dialog is saved before it is accepted.
    pub async fn answer_file_dialog(&mut self, title: &str, path: &Path) -> Result<()> {
        let path = path.to_str().ok_or("the path is not UTF-8")?;
        let name = format!("^{title}$");
        let search = ["search", "--sync", "--onlyvisible", "--name", &name];
        let window = tokio::time::timeout(Duration::from_secs(10), xdotool(&search))
            .await
            .map_err(|_| format!("no file dialog titled `{title}` opened within 10 s"))??;
        let window = window
            .lines()
            .next()
            .ok_or_else(|| format!("no file dialog titled `{title}`"))?
            .to_string();
        xdotool(&["windowfocus", "--sync", &window]).await?;
        // GTK needs a moment after mapping before it takes keys.
        tokio::time::sleep(Duration::from_millis(300)).await;
        xdotool(&["key", "--clearmodifiers", "ctrl+l"]).await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        xdotool(&["key", "--clearmodifiers", "ctrl+a"]).await?;
        xdotool(&["type", "--clearmodifiers", "--delay", "5", path]).await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        self.step += 1;
        let shot = format!("{}-{:02}-file-dialog.png", self.journey, self.step);
        std::fs::write(screenshot_dir().join(shot), capture_display()?)?;
        xdotool(&["key", "--clearmodifiers", "Return"]).await?;
        Ok(())
    }

    /// Answers the native folder dialog titled `title` with `dir`: its path,
    /// ending in `/` so the location field does not complete it into
    /// something else, and Enter chooses it. The dialog must open in a
    /// folder view (the app starts it at a folder): in GTK's "Recent" list
    /// a folder path cannot be chosen.
    pub async fn answer_folder_dialog(&mut self, title: &str, dir: &Path) -> Result<()> {
        let mut path = dir.to_str().ok_or("the path is not UTF-8")?.to_string();
        if !path.ends_with('/') {
            path.push('/');
        }
        self.answer_file_dialog(title, Path::new(&path)).await
    }

    /// Presses `keys` (xdotool syntax: `ctrl+s`, `F1`) on the app's window
    /// through the X server, as a keyboard does: unlike WebDriver's keys,
    /// these reach the window's native menu accelerators first.
    pub async fn system_keys(&self, keys: &str) -> Result<()> {
        let search = [
            "search",
            "--sync",
            "--onlyvisible",
            "--name",
            "^Playbook Studio$",
        ];
        let window = tokio::time::timeout(Duration::from_secs(10), xdotool(&search))
            .await
            .map_err(|_| "the app's window is not visible")??;
        let window = window
            .lines()
            .next()
            .ok_or("the app's window is not visible")?
            .to_string();
        // Keys go to the window with the X input focus; under load the focus
        // can land after `--sync` returns, so it is checked before pressing.
        for _ in 0..20 {
            xdotool(&["windowfocus", "--sync", &window]).await?;
            tokio::time::sleep(Duration::from_millis(100)).await;
            if xdotool(&["getwindowfocus"]).await?.trim() == window {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        xdotool(&["key", "--clearmodifiers", keys]).await?;
        Ok(())
    }

    pub async fn execute(&self, script: &str) -> Result<serde_json::Value> {
        Ok(self.client.execute(script, vec![]).await?)
    }

    /// The milliseconds the page recorded under `expression` (an array of
    /// numbers, e.g. `window.__playbookStudioMetrics.latencies`), sorted.
    pub async fn recorded_ms(&self, expression: &str) -> Result<Timings> {
        let recorded = self.execute(&format!("return {expression}")).await?;
        let mut ms: Vec<f64> = recorded
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_f64()).collect())
            .unwrap_or_default();
        ms.sort_by(f64::total_cmp);
        Ok(Timings(ms))
    }

    /// Ends the session, which closes the app window and its process.
    pub async fn quit(self) -> Result<()> {
        self.client.clone().close().await?;
        Ok(())
    }
}

/// The display as the user sees it, as PNG. Captured from the X server, not
/// through WebDriver: WebKitWebDriver's snapshot of the web view can stall
/// for good when WebKitGTK draws without accelerated compositing (the mode
/// the app picks on machines without a GPU).
fn capture_display() -> Result<Vec<u8>> {
    let (width, height, rgb) = display_rgb()?;
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, u32::from(width), u32::from(height));
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&rgb)?;
    Ok(png)
}

/// How many different colours the display shows, read from the X server
/// (so it works while the page has no WebDriver session): a window whose
/// page is gone is flat, a page shows text and controls in many shades.
pub fn display_colours() -> Result<usize> {
    let (_, _, rgb) = display_rgb()?;
    let colours: std::collections::HashSet<&[u8]> = rgb.chunks_exact(3).collect();
    Ok(colours.len())
}

/// The display's width, height and pixels (red, green, blue).
fn display_rgb() -> Result<(u16, u16, Vec<u8>)> {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{ConnectionExt, ImageFormat, ImageOrder};

    let (conn, screen) =
        x11rb::connect(None).map_err(|e| format!("no X display to capture: {e}"))?;
    let setup = conn.setup();
    let root = &setup.roots[screen];
    let (width, height) = (root.width_in_pixels, root.height_in_pixels);
    let bits = setup
        .pixmap_formats
        .iter()
        .find(|f| f.depth == root.root_depth)
        .map(|f| f.bits_per_pixel);
    if root.root_depth != 24 || bits != Some(32) || setup.image_byte_order != ImageOrder::LSB_FIRST
    {
        return Err("screenshots expect a 24-bit little-endian display, as `xvfb-run -s \"-screen 0 1280x800x24\"` gives".into());
    }
    let image = conn
        .get_image(
            ImageFormat::Z_PIXMAP,
            root.root,
            0,
            0,
            width,
            height,
            u32::MAX,
        )?
        .reply()?;
    // Each pixel is blue, green, red and an unused byte.
    let rgb: Vec<u8> = image
        .data
        .chunks_exact(4)
        .flat_map(|p| [p[2], p[1], p[0]])
        .collect();
    Ok((width, height, rgb))
}

/// Runs xdotool on the test's display; its standard output.
async fn xdotool(args: &[&str]) -> Result<String> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new("xdotool").args(&args).output()
    })
    .await?
    .map_err(|e| format!("xdotool could not run (installed by scripts/setup.sh): {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "xdotool failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Whether a WebDriver error means "not there (yet)" rather than a failure:
/// no such element, or a node a re-render replaced under the driver.
fn is_transient(error: &CmdError) -> bool {
    match error {
        CmdError::Standard(e) => {
            matches!(
                e.error,
                ErrorStatus::NoSuchElement | ErrorStatus::StaleElementReference
            ) || e.message.to_lowercase().contains("stale element")
        }
        _ => false,
    }
}

async fn wait_for_port(port: u16) -> Result<()> {
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!("WebKitWebDriver did not listen on port {port}").into())
}

fn xpath_literal(text: &str) -> String {
    if !text.contains('\'') {
        format!("'{text}'")
    } else {
        format!("concat('{}')", text.replace('\'', "', \"'\", '"))
    }
}

impl App {
    /// Rests the mouse pointer on an element, as a user does to read a
    /// tooltip (the pointer really moves: the page sees `mousemove`).
    pub async fn hover(&self, css: &str) -> Result<()> {
        use fantoccini::actions::{InputSource, MouseActions, PointerAction};
        let element = self.find(css).await?;
        let actions = MouseActions::new("mouse".to_string()).then(PointerAction::MoveToElement {
            element,
            duration: Some(Duration::from_millis(100)),
            x: 0.0,
            y: 0.0,
        });
        self.client.perform_actions(actions).await?;
        Ok(())
    }

    /// Drags with the mouse's left button from the middle of an element by
    /// `dx`, `dy` pixels, as a user pans a view.
    pub async fn drag(&self, css: &str, dx: f64, dy: f64) -> Result<()> {
        use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
        let element = self.find(css).await?;
        let actions = MouseActions::new("mouse".to_string())
            .then(PointerAction::MoveToElement {
                element,
                duration: Some(Duration::from_millis(50)),
                x: 0.0,
                y: 0.0,
            })
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::MoveBy {
                duration: Some(Duration::from_millis(200)),
                x: dx,
                y: dy,
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        self.client.perform_actions(actions).await?;
        Ok(())
    }

    /// Presses a shortcut such as Ctrl+Z or Ctrl+Shift+Z through the
    /// WebDriver actions API, as a user's keyboard would.
    pub async fn shortcut(&self, modifiers: &[Key], key: char) -> Result<()> {
        use fantoccini::actions::{InputSource, KeyAction, KeyActions};
        let mut actions = KeyActions::new("keyboard".to_string());
        for m in modifiers {
            actions = actions.then(KeyAction::Down {
                value: char::from(*m),
            });
        }
        actions = actions
            .then(KeyAction::Down { value: key })
            .then(KeyAction::Up { value: key });
        for m in modifiers.iter().rev() {
            actions = actions.then(KeyAction::Up {
                value: char::from(*m),
            });
        }
        self.client.perform_actions(actions).await?;
        Ok(())
    }
}

/// Sorted milliseconds recorded by the page, for the measurements' figures
/// (printed, never asserted).
pub struct Timings(pub Vec<f64>);

impl Timings {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value at quantile `q` (0.5 the median, 1.0 the maximum); NaN
    /// when nothing was recorded.
    pub fn at(&self, q: f64) -> f64 {
        let last = self.0.len().saturating_sub(1) as f64;
        self.0
            .get((last * q).round() as usize)
            .copied()
            .unwrap_or(f64::NAN)
    }
}
