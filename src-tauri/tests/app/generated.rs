//! The UI's TypeScript types are generated from the Rust types; this test
//! fails when the committed files in `ui/src/generated` are out of date.

use std::path::{Path, PathBuf};

use playbook_studio::api::{
    AgentsFileChoice, AppInfo, BranchDiff, Checked, Comparison, Example, Opened, PreviewResult,
    RealRunRequest, RealRunResult, RepoChoice, ScenarioInfo,
};
use playbook_studio::error::AppError;
use ts_rs::TS;

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn committed_typescript_types_match_the_rust_types() {
    let fresh = tempfile::tempdir().unwrap();
    let cfg = ts_rs::Config::from_env().with_out_dir(fresh.path());
    Checked::export_all(&cfg).unwrap();
    Example::export_all(&cfg).unwrap();
    AppInfo::export_all(&cfg).unwrap();
    AppError::export_all(&cfg).unwrap();
    playbook_core::Role::export_all(&cfg).unwrap();
    Opened::export_all(&cfg).unwrap();
    ScenarioInfo::export_all(&cfg).unwrap();
    PreviewResult::export_all(&cfg).unwrap();
    RepoChoice::export_all(&cfg).unwrap();
    AgentsFileChoice::export_all(&cfg).unwrap();
    RealRunRequest::export_all(&cfg).unwrap();
    RealRunResult::export_all(&cfg).unwrap();
    BranchDiff::export_all(&cfg).unwrap();
    playbook_orchestrator::EventRecord::export_all(&cfg).unwrap();
    Comparison::export_all(&cfg).unwrap();
    playbook_store::Saved::export_all(&cfg).unwrap();
    playbook_store::Draft::export_all(&cfg).unwrap();
    playbook_store::Imported::export_all(&cfg).unwrap();
    playbook_store::TemplateSummary::export_all(&cfg).unwrap();
    playbook_store::TemplateSaved::export_all(&cfg).unwrap();
    playbook_studio::menu::MenuCommand::export_all(&cfg).unwrap();
    playbook_whatif::Report::export_all(&cfg).unwrap();
    playbook_whatif::diff::BehaviourDiff::export_all(&cfg).unwrap();

    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/generated");
    let mut stale = Vec::new();
    for file in files(fresh.path()) {
        let want = std::fs::read_to_string(fresh.path().join(&file)).unwrap();
        let have = std::fs::read_to_string(committed.join(&file)).unwrap_or_default();
        if want != have {
            stale.push(file.display().to_string());
            // Regenerate, so that committing the result is all that is left to do.
            let target = committed.join(&file);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, want).unwrap();
        }
    }
    assert!(
        stale.is_empty(),
        "ui/src/generated was out of date and has been regenerated; commit it: {stale:?}"
    );
}
