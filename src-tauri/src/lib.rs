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
pub mod gateway;
pub mod grants;
pub mod library;
pub mod preview;
pub mod realrun;
mod recording;
pub mod scenarios;
pub mod whatif;
pub mod workbench;

/// Starts the app: the dialog plugin, the commands, the window.
pub fn run() {
    prefer_software_drawing();
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(library::Library::open_default())
        .manage(approvals::Pending::default())
        .manage(realrun::Runs::default())
        .manage(workbench::LastChecked::default())
        .manage(grants::Grants::default())
        .on_window_event(grants::on_window_event)
        .manage(whatif::WhatIf::default())
        .invoke_handler(tauri::generate_handler![
            commands::check_document,
            commands::migrate_document,
            commands::library_export_claude_code,
            commands::check_source,
            commands::render_document,
            commands::role_template,
            commands::examples,
            commands::choose_playbook_file,
            commands::choose_export_path,
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
            commands::library_undelete,
            commands::library_open_example,
            commands::library_version,
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
            scenarios::scenario_check,
            scenarios::scenario_render,
            scenarios::scenario_list,
            scenarios::scenario_save,
            scenarios::scenario_delete,
            commands::run_choose_repository,
            commands::run_choose_agents_file,
            commands::run_start,
            commands::run_stop,
            commands::run_diff,
            whatif::whatif_run,
            whatif::whatif_cancel,
            whatif::whatif_compare_versions,
        ])
        .run(tauri::generate_context!())
        .expect("Playbook Studio could not start its window");
}

/// Without a GPU, WebKitGTK's accelerated compositing renders GPU-sized tiles
/// in software: every repaint takes about twice as long and the web process
/// holds about 100 MB more (docs/benchmarks.md, "Desktop app"). On a machine
/// without a GPU render node the window draws without it, unless the user
/// set `WEBKIT_DISABLE_COMPOSITING_MODE` either way.
fn prefer_software_drawing() {
    #[cfg(target_os = "linux")]
    {
        let has_render_node = std::fs::read_dir("/dev/dri")
            .map(|dir| {
                dir.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
            })
            .unwrap_or(false);
        if !has_render_node && std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_none() {
            // SAFETY: called first thing on the main thread, before the app
            // starts any thread that could read the environment.
            unsafe { std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1") };
        }
    }
}
