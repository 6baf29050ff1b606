//! Files opened from outside the page: dropped on the window, chosen under
//! Open Recent, given to a second launch of the app (which only hands them
//! to the running one and exits), or given on the command line.
//!
//! Each is granted for reading first (`grants.rs`), remembered under Open
//! Recent, and only then announced to the page (`open-files`, the paths),
//! which imports and opens them as Open file… does. Files given on the
//! command line arrive before the page listens, so they wait in
//! [`AtLaunch`] until the page asks (`launch_files`).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tauri::{AppHandle, DragDropEvent, Emitter, Manager, Runtime, WindowEvent};

use crate::grants::{Access, Grants};
use crate::recent::Recent;

/// Grants `paths` for reading, remembers them and tells the page.
pub fn open_paths<R: Runtime>(app: &AppHandle<R>, paths: &[PathBuf]) {
    grant_and_remember(app, paths);
    let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let _ = app.emit("open-files", paths);
}

/// Records a file chosen in the open dialog under Open Recent.
pub fn remember<R: Runtime>(app: &AppHandle<R>, path: &Path) {
    if app.state::<Recent>().add(path) {
        refresh_menu(app);
    }
}

fn grant_and_remember<R: Runtime>(app: &AppHandle<R>, paths: &[PathBuf]) {
    let grants = app.state::<Grants>();
    let recent = app.state::<Recent>();
    let mut changed = false;
    for path in paths {
        grants.allow(Access::Read, path);
        if path.is_file() {
            changed |= recent.add(path);
        }
    }
    if changed {
        refresh_menu(app);
    }
}

/// Rebuilds the menu bar after Open Recent changed.
pub fn refresh_menu<R: Runtime>(app: &AppHandle<R>) {
    match crate::menu::build(app, &app.state::<Recent>().list()) {
        Ok(menu) => {
            let _ = app.set_menu(menu);
        }
        Err(e) => eprintln!("playbook-studio: the menu could not be rebuilt: {e}"),
    }
}

/// A file dropped on the window opens; the window's size and place are
/// written when it is resized, moved or closed, not only when the app exits
/// normally (a session ended from outside, a crash later, still finds them).
pub fn on_window_event<R: Runtime>(window: &tauri::Window<R>, event: &WindowEvent) {
    use tauri_plugin_window_state::{AppHandleExt, StateFlags};
    match event {
        WindowEvent::DragDrop(DragDropEvent::Drop { paths, .. }) => {
            open_paths(window.app_handle(), paths);
        }
        WindowEvent::Resized(_) | WindowEvent::Moved(_) | WindowEvent::CloseRequested { .. } => {
            let _ = window.app_handle().save_window_state(StateFlags::all());
        }
        _ => {}
    }
}

/// A second launch of the app: its window comes forward and the files it
/// was given open here.
pub fn second_launch<R: Runtime>(app: &AppHandle<R>, argv: Vec<String>, cwd: String) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
    let files = files_in(argv.into_iter().skip(1), Path::new(&cwd));
    if !files.is_empty() {
        open_paths(app, &files);
    }
}

/// The files given on the command line of this launch, waiting for the
/// page (Tauri managed state).
#[derive(Debug, Default)]
pub struct AtLaunch(Mutex<Vec<String>>);

impl AtLaunch {
    /// Grants and remembers the files among `args`, to be taken by the page.
    pub fn from_args<R: Runtime>(app: &AppHandle<R>, args: impl Iterator<Item = String>) {
        let cwd = std::env::current_dir().unwrap_or_default();
        let files = files_in(args, &cwd);
        grant_and_remember(app, &files);
        let waiting = app.state::<AtLaunch>();
        let mut list = waiting.0.lock().unwrap_or_else(|e| e.into_inner());
        list.extend(files.iter().map(|p| p.display().to_string()));
    }

    /// The waiting files, once.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// The arguments that name existing files, made absolute against `cwd`;
/// options and anything else are left alone.
pub fn files_in(args: impl Iterator<Item = String>, cwd: &Path) -> Vec<PathBuf> {
    args.filter(|a| !a.starts_with('-'))
        .map(|a| {
            let path = PathBuf::from(a);
            if path.is_absolute() {
                path
            } else {
                cwd.join(path)
            }
        })
        .filter(|p| p.is_file())
        .collect()
}
