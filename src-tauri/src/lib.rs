//! Playbook Studio, the desktop app: a thin Tauri 2 shell over
//! `playbook-core`.
//!
//! The shell owns no domain logic. [`workbench`] holds what the editor asks
//! of the libraries as plain functions (testable without a window);
//! [`commands`] exposes each as one Tauri command; [`api`] holds the types
//! that cross the IPC boundary, from which the UI's TypeScript types are
//! generated; [`error`] is the one error every command returns.
//!
//! See `docs/architecture-app.md`.

pub mod api;
pub mod commands;
pub mod error;
pub mod workbench;

/// Starts the app: the dialog plugin, the commands, the window.
pub fn run() {
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .invoke_handler(tauri::generate_handler![
            commands::check_document,
            commands::check_source,
            commands::render_document,
            commands::role_template,
            commands::examples,
            commands::read_playbook_file,
            commands::write_text_file,
            commands::app_info,
        ])
        .run(tauri::generate_context!())
        .expect("Playbook Studio could not start its window");
}
