//! The WebKitGTK floor of docs/benchmarks.md ("Desktop app"): an empty
//! Tauri 2 window showing a blank page, with the same Tauri version, window
//! size and drawing rule (`WEBKIT_DISABLE_COMPOSITING_MODE` without a GPU)
//! as the app, and nothing else: no plugins, no commands, no state.
//! `scripts/e2e.sh measure` launches it beside the app and reports its
//! memory the same way, so the app's figures can be read against what any
//! Tauri 2 window costs on the same machine.
//!
//! `cargo build -p playbook-studio --example empty_window` (add `--release
//! --features custom-protocol` for the figures of the release column).

fn main() {
    playbook_studio::prefer_software_drawing();
    tauri::Builder::default()
        .run(tauri::generate_context!(
            "examples/empty_window/tauri.conf.json"
        ))
        .expect("the empty window could not start");
}
