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
pub mod approvals;
pub mod commands;
pub mod error;
pub mod library;
pub mod preview;
pub mod workbench;

/// Starts the app: the dialog plugin, the commands, the window.
pub fn run() {
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(library::Library::open_default())
        .manage(approvals::Pending::default())
        .invoke_handler(tauri::generate_handler![
            commands::check_document,
            commands::check_source,
            commands::render_document,
            commands::role_template,
            commands::examples,
            commands::read_playbook_file,
            commands::write_text_file,
            commands::app_info,
            commands::library_list,
            commands::library_open,
            commands::library_create,
            commands::library_save,
            commands::library_save_draft,
            commands::library_discard_draft,
            commands::library_duplicate,
            commands::library_delete,
            commands::library_import_file,
            commands::library_import_text,
            commands::library_export,
            commands::history,
            commands::compare_versions,
            commands::restore_version,
            commands::templates,
            commands::template_role,
            commands::save_template,
            commands::template_open,
            commands::check_template,
            commands::template_history,
            commands::compare_template_versions,
            commands::delete_template,
            commands::preview_scenarios,
            commands::preview_run,
            commands::preview_answer,
            commands::preview_deny_waiting,
            commands::preview_runs,
            commands::preview_run_events,
        ])
        .run(tauri::generate_context!())
        .expect("Playbook Studio could not start its window");
}
