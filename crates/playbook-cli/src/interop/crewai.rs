//! `playbook import --from crewai DIR`: finds the crew's `agents.yaml` and
//! `tasks.yaml`, reads them (bounded) and hands the text to
//! `playbook_core::interop::crewai`, which does the mapping.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use playbook_core::interop::crewai::{self, CrewFile, Import};

use crate::input;

/// Largest config file read: a crew's YAML is a few kilobytes.
const MAX_CREW_FILE_BYTES: usize = 2 * 1024 * 1024;

/// Reads the crew under `dir` and builds the playbook.
pub fn import(dir: &Path, shown_dir: &str, crew_name: &str) -> Result<(Import, PathBuf)> {
    let config = find_config(dir, shown_dir)?;
    let agents_path = pick(&config, "agents")?;
    let tasks_path = pick(&config, "tasks")?;
    let agents_shown = agents_path.display().to_string();
    let tasks_shown = tasks_path.display().to_string();
    let agents_text = read_text(&agents_shown)?;
    let tasks_text = read_text(&tasks_shown)?;
    let imported = crewai::import(
        CrewFile {
            file: &agents_shown,
            text: &agents_text,
        },
        CrewFile {
            file: &tasks_shown,
            text: &tasks_text,
        },
        &crew_name_of(&config, crew_name),
    )
    .map_err(anyhow::Error::msg)?;
    Ok((imported, config))
}

/// The crew's name: the package holding `config/` (`src/<package>/config`),
/// else the directory named on the command line.
fn crew_name_of(config: &Path, given: &str) -> String {
    let config = std::fs::canonicalize(config).unwrap_or_else(|_| config.to_path_buf());
    match (
        config.file_name(),
        config.parent().and_then(Path::file_name),
    ) {
        (Some(last), Some(parent)) if last == "config" => parent.to_string_lossy().into_owned(),
        _ => given.to_string(),
    }
}

/// The directory holding the crew's YAML: DIR itself, `DIR/config`, or the
/// `config` of the one package under `DIR/src/` (the layout `crewai
/// create crew` writes).
fn find_config(dir: &Path, shown_dir: &str) -> Result<PathBuf> {
    if !dir.is_dir() {
        bail!(
            "{shown_dir}: not a directory; give the crew's project directory (with src/<package>/config/) or its config directory"
        );
    }
    let has_config = |d: &Path| ["agents", "tasks"].iter().any(|n| yaml_in(d, n).is_some());
    if has_config(dir) {
        return Ok(dir.to_path_buf());
    }
    let direct = dir.join("config");
    if has_config(&direct) {
        return Ok(direct);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir.join("src"))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("config"))
        .filter(|d| has_config(d))
        .collect();
    found.sort();
    match found.len() {
        0 => bail!(
            "{shown_dir}: no CrewAI config found (looked for agents.yaml and tasks.yaml in it, in config/ and in src/*/config/); point at the crew's project or config directory"
        ),
        1 => Ok(found.remove(0)),
        _ => bail!(
            "{shown_dir}: several crews ({}); import one at a time by pointing at its config directory",
            found
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `<name>.yaml` (or `.yml`) in `dir`, if it is there.
fn yaml_in(dir: &Path, name: &str) -> Option<PathBuf> {
    ["yaml", "yml"]
        .iter()
        .map(|ext| dir.join(format!("{name}.{ext}")))
        .find(|p| p.is_file())
}

fn pick(config: &Path, name: &str) -> Result<PathBuf> {
    yaml_in(config, name).ok_or_else(|| {
        anyhow::anyhow!(
            "{}: {name}.yaml is missing; a crew needs both agents.yaml and tasks.yaml (CrewAI's `config/` layout)",
            config.display()
        )
    })
}

fn read_text(shown: &str) -> Result<String> {
    let bytes = input::read_file(shown, MAX_CREW_FILE_BYTES, "CrewAI config files")?;
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{shown} is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}
