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
pub mod authored;
pub mod commands;
pub mod error;
pub mod gateway;
pub mod grants;
pub mod inline_check;
pub mod library;
pub mod menu;
pub mod opening;
pub mod preview;
pub mod realrun;
pub mod recent;
mod recording;
pub mod scenarios;
pub mod webprocess;
pub mod whatif;
pub mod workbench;

use tauri::Manager;

/// Starts the app: one instance per library, the window where it was
/// left, the menu bar, the dialog plugin, the commands, the window.
pub fn run() {
    prefer_software_drawing();
    interpret_page_scripts();
    let library = library::Library::open_default();
    let recent = recent::Recent::beside(library.path());
    let instance = instance_id(library.path());
    tauri::Builder::default()
        // First, so that a second launch hands over its files and exits
        // before anything else starts.
        .plugin(
            tauri_plugin_single_instance::Builder::new()
                .dbus_id(instance)
                .callback(opening::second_launch)
                .build(),
        )
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .plugin(tauri_plugin_dialog::init())
        .manage(library)
        .manage(recent)
        .manage(opening::AtLaunch::default())
        .manage(approvals::Pending::default())
        .manage(realrun::Runs::default())
        .manage(workbench::LastChecked::default())
        .manage(workbench::SourceSession::default())
        .manage(grants::Grants::default())
        .manage(whatif::WhatIf::default())
        .on_window_event(opening::on_window_event)
        .menu(|app| menu::build(app, &app.state::<recent::Recent>().list()))
        .on_menu_event(menu::on_menu_event)
        .setup(|app| {
            opening::AtLaunch::from_args(app.handle(), std::env::args().skip(1));
            if let Some(window) = app.get_webview_window("main") {
                webprocess::watch(&window);
            }
            Ok(())
        })
        // A keystroke's check, asked synchronously by the page (see `inline_check`).
        .register_uri_scheme_protocol(inline_check::SCHEME, |ctx, request| {
            inline_check::respond(
                &ctx.app_handle().state::<workbench::LastChecked>(),
                &request,
            )
        })
        .invoke_handler(tauri::generate_handler![
            commands::check_document,
            commands::quick_fixes,
            commands::apply_fix,
            commands::fixable_codes,
            commands::migrate_document,
            commands::library_export_claude_code,
            commands::check_source,
            commands::source_completions,
            commands::source_hover,
            commands::render_document,
            commands::render_authored,
            commands::role_template,
            commands::examples,
            commands::choose_playbook_file,
            commands::choose_export_path,
            commands::launch_files,
            commands::write_text_file,
            commands::app_info,
            commands::library_list,
            commands::library_open,
            commands::library_create,
            commands::library_save,
            commands::library_save_draft,
            commands::library_save_draft_text,
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
/// set `WEBKIT_DISABLE_COMPOSITING_MODE` either way. Public so that the
/// empty-window measurement (`examples/empty_window`) draws by the same rule.
pub fn prefer_software_drawing() {
    #[cfg(target_os = "linux")]
    {
        let has_render_node = std::fs::read_dir("/dev/dri")
            .map(|dir| {
                dir.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
            })
            .unwrap_or(false);
        if !has_render_node {
            default_env("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
        }
    }
}

/// The page's scripts run in JavaScriptCore's interpreter, without its JIT
/// compilers, unless the user set `JSC_useJIT` either way (the web process
/// inherits this environment). The page is the app's own interface code — a
/// form, a flow graph, a code editor — not a compute load: without the JIT
/// the window holds about 12 MiB less (compiled code, the profiling data
/// and stubs the tiers keep), and a form's keystroke, start-up and the
/// what-if panel keep their figures; typing in the Source tab of a very
/// large playbook is slower (docs/benchmarks.md, "Desktop app"). A page
/// that cannot make executable memory is also a smaller target for a
/// script that gets into it.
pub fn interpret_page_scripts() {
    default_env("JSC_useJIT", "0");
}

/// Sets `key` to `value` for this process and the WebKit processes it
/// starts, unless the user set `key` either way. Only for the start-up
/// functions above, which run first thing on the main thread.
fn default_env(key: &str, value: &str) {
    if std::env::var_os(key).is_none() {
        // SAFETY: called first thing on the main thread, before the app
        // starts any thread that could read the environment.
        unsafe { std::env::set_var(key, value) };
    }
}

/// The file `database` names, however it is spelt: links, `..` and a
/// relative path resolved (a relative `PLAYBOOK_DB` names a different file
/// from each folder). A library not created yet is its folder, resolved,
/// and its name.
fn library_file(database: &std::path::Path) -> std::path::PathBuf {
    if let Ok(file) = std::fs::canonicalize(database) {
        return file;
    }
    let absolute = std::path::absolute(database).unwrap_or_else(|_| database.to_path_buf());
    match (
        absolute
            .parent()
            .and_then(|d| std::fs::canonicalize(d).ok()),
        absolute.file_name(),
    ) {
        (Some(folder), Some(name)) => folder.join(name),
        _ => absolute,
    }
}

/// The single-instance name of the library at `database`: one running app
/// per library, so a second launch on the same library hands its files to
/// the first, while apps on other libraries (another profile, the test
/// journeys) run side by side. FNV-1a: stable across builds, unlike std's
/// hasher, so an older and a newer build agree.
fn instance_id(database: &std::path::Path) -> String {
    let file = library_file(database);
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in file.as_os_str().as_encoded_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("dev.playbookstudio.app.library_{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::instance_id;

    /// Two spellings of one library are one instance (else two windows
    /// autosave over each other's draft), and one spelling that names two
    /// libraries (a relative `PLAYBOOK_DB` from two folders) is two (else
    /// the second launch hands its files to a window on the other library).
    #[test]
    fn the_instance_is_the_library_file_however_it_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("library.db");
        std::fs::write(&db, b"").unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let dotted = sub.join("..").join("library.db");
        let doubled = std::path::PathBuf::from(format!("{}//library.db", dir.path().display()));
        assert_eq!(instance_id(&db), instance_id(&dotted));
        assert_eq!(instance_id(&db), instance_id(&doubled));
        #[cfg(unix)]
        {
            let link = dir.path().join("link.db");
            std::os::unix::fs::symlink(&db, &link).unwrap();
            assert_eq!(instance_id(&db), instance_id(&link));
        }
        // Not created yet: its folder decides.
        let fresh = dir.path().join("fresh.db");
        assert_eq!(
            instance_id(&fresh),
            instance_id(&sub.join("..").join("fresh.db"))
        );
        // The same relative name under two folders: two libraries.
        let here = std::env::current_dir().unwrap();
        let relative = std::path::Path::new("playbook-instance-test.db");
        let one = instance_id(relative);
        assert_eq!(one, instance_id(&here.join(relative)));
        assert_ne!(one, instance_id(&dir.path().join(relative)));
    }
}
