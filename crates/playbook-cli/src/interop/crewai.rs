//! `playbook import --from crewai DIR`: the crew is found and read by
//! `playbook_store::crew_files` (shared with the app's Open).

use std::path::{Path, PathBuf};

use anyhow::Result;
use playbook_core::interop::crewai::Import;

/// Reads the crew under `dir` and builds the playbook.
pub fn import(dir: &Path, shown_dir: &str, crew_name: &str) -> Result<(Import, PathBuf)> {
    playbook_store::crew_files::import(dir, shown_dir, crew_name).map_err(anyhow::Error::msg)
}
