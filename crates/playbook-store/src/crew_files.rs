//! Reading a CrewAI crew from disk (`agents.yaml` and `tasks.yaml`), for
//! the CLI's `import --from crewai` and the app's Open alike: finds the
//! crew's config, reads it bounded and hands the text to
//! `playbook_core::interop::crewai`, which does the mapping.

use std::path::{Path, PathBuf};

use playbook_core::interop::crewai::{self, CrewFile, Import};

use crate::userfile::{ReadError, read_bounded};

type Result<T> = std::result::Result<T, String>;

macro_rules! bail {
    ($($arg:tt)*) => {
        return Err(format!($($arg)*))
    };
}

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
    .map_err(|e| e.to_string())?;
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
        format!(
            "{}: {name}.yaml is missing; a crew needs both agents.yaml and tasks.yaml (CrewAI's `config/` layout)",
            config.display()
        )
    })
}

fn read_text(shown: &str) -> Result<String> {
    let bytes = read_bounded(Path::new(shown), MAX_CREW_FILE_BYTES).map_err(|e| match e {
        ReadError::TooLarge { limit } => format!(
            "{shown} is larger than {limit} bytes; CrewAI config files are limited to {limit} bytes"
        ),
        other => format!("cannot read {shown}: {other}"),
    })?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{shown} is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Whether `file` is one of a crew's two config files (`agents.yaml` or
/// `tasks.yaml`, `.yml` too) with the other one beside it.
pub fn is_crew_file(file: &Path) -> bool {
    let (Some(stem), Some(dir)) = (file.file_stem().and_then(|s| s.to_str()), file.parent()) else {
        return false;
    };
    let ext_ok = file
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
    let other = match stem {
        "agents" => "tasks",
        "tasks" => "agents",
        _ => return false,
    };
    ext_ok && yaml_in(dir, other).is_some()
}
