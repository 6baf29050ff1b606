//! Build script: embeds the example playbooks, makes sure the window always
//! has a page to show, and declares the app's own commands so that the
//! capability file can allow exactly them.

use std::path::Path;

/// Every command the UI may invoke. Each gets an `allow-<name>` permission;
/// `capabilities/default.json` grants them to the main window and nothing else.
const COMMANDS: &[&str] = &[
    "check_document",
    "quick_fixes",
    "apply_fix",
    "fixable_codes",
    "check_source",
    "source_completions",
    "source_hover",
    "render_document",
    "render_authored",
    "migrate_document",
    "library_export_claude_code",
    "role_template",
    "examples",
    "choose_playbook_file",
    "choose_export_path",
    "launch_files",
    "write_text_file",
    "app_info",
    "library_list",
    "library_open",
    "library_create",
    "library_save",
    "library_save_draft",
    "library_save_draft_text",
    "library_discard_draft",
    "library_duplicate",
    "library_delete",
    "library_undelete",
    "library_open_example",
    "library_version",
    "library_import_file",
    "library_import_text",
    "library_export",
    "history",
    "compare_versions",
    "restore_version",
    "templates",
    "template_role",
    "save_template",
    "template_open",
    "check_template",
    "template_history",
    "compare_template_versions",
    "delete_template",
    "preview_scenarios",
    "preview_run",
    "preview_answer",
    "preview_deny_waiting",
    "preview_runs",
    "preview_run_events",
    "scenario_check",
    "scenario_render",
    "scenario_list",
    "scenario_save",
    "scenario_delete",
    "run_choose_repository",
    "run_choose_agents_file",
    "run_start",
    "run_stop",
    "run_diff",
    "whatif_run",
    "whatif_cancel",
    "whatif_compare_versions",
];

/// Example playbooks shipped with the app, embedded for the first-run view.
const EXAMPLES: &[&str] = &["tdd", "pairing", "compound-engineering", "legacy"];

fn main() {
    // Read when the script runs, not when it is compiled (`env!`): cargo
    // reuses a compiled build script for a checkout at another path, and the
    // path it was compiled in may be gone.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("..");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let examples = Path::new(&out).join("examples");
    std::fs::create_dir_all(&examples).expect("create OUT_DIR/examples");
    println!("cargo:rerun-if-changed=../playbooks");
    for name in EXAMPLES {
        // Shipping without an example is a broken build: say which is missing.
        let file = root.join("playbooks").join(format!("{name}.yaml"));
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("cannot read the example {}: {e}", file.display()));
        std::fs::write(examples.join(format!("{name}.yaml")), text).expect("write example");
    }

    // Preview scenarios, embedded in file-name order.
    println!("cargo:rerun-if-changed=../playbooks/scenarios");
    let scenario_dir = root.join("playbooks/scenarios");
    let mut scenarios: Vec<_> = std::fs::read_dir(&scenario_dir)
        .unwrap_or_else(|e| {
            panic!(
                "cannot read the scenarios in {}: {e}",
                scenario_dir.display()
            )
        })
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    assert!(
        !scenarios.is_empty(),
        "no preview scenario (*.yaml) in {}",
        scenario_dir.display()
    );
    scenarios.sort();
    let mut code = String::from(
        "/// (id, YAML text) of each scenario.\npub const SCENARIOS: &[(&str, &str)] = &[\n",
    );
    for path in &scenarios {
        let id = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let absolute = path.canonicalize().expect("scenario path");
        code.push_str(&format!(
            "    ({id:?}, include_str!({:?})),\n",
            absolute.display().to_string()
        ));
    }
    code.push_str("];\n");
    std::fs::write(Path::new(&out).join("scenarios.rs"), code).expect("write scenarios.rs");

    // The UI is built by `npm run build` in ui/. Without it, tauri's context
    // generation would fail the whole workspace build; a placeholder page that
    // says how to build the UI keeps `cargo build` working and the window
    // never blank.
    let dist = root.join("ui").join("dist");
    if !dist.join("index.html").exists() {
        std::fs::create_dir_all(&dist).expect("create ui/dist");
        std::fs::write(
            dist.join("index.html"),
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>Playbook Studio</title></head>\
             <body style=\"font-family:sans-serif;padding:2rem\"><h1>Playbook Studio</h1>\
             <p>The user interface has not been built. Run <code>npm ci &amp;&amp; npm run build</code> \
             in <code>ui/</code>, then build the app again.</p></body></html>\n",
        )
        .expect("write placeholder ui/dist/index.html");
    }
    println!("cargo:rerun-if-changed=../ui/dist");

    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri build script");
}
