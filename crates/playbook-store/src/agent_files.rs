//! Reading a folder of Claude Code subagent files (`.claude/agents/*.md`)
//! from disk, for the CLI's `import` and the app's Open alike. The mapping
//! itself is pure and lives in `playbook_core::interop::claude_code`.

use std::path::{Path, PathBuf};

use playbook_core::interop::claude_code::{
    self as cc, AgentFile, MAX_AGENT_FILE_BYTES, MAX_AGENT_FILES,
};

use crate::userfile::{ReadError, read_bounded};

/// The subagent files of a folder, and the `.md` files skipped because
/// they are not subagents (no front matter: a README).
#[derive(Debug)]
pub struct AgentFiles {
    pub files: Vec<AgentFile>,
    pub skipped: Vec<String>,
}

/// `dir/.claude/agents` when a project is given, else `dir` itself.
pub fn agents_dir(dir: &Path) -> PathBuf {
    let nested = dir.join(".claude").join("agents");
    if nested.is_dir() {
        nested
    } else {
        dir.to_path_buf()
    }
}

/// Reads every `*.md` file of `dir` (bounded in number and size), in name
/// order. Errors name the file and say how to fix it.
pub fn read_agent_files(dir: &Path) -> Result<AgentFiles, String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("md")) && p.is_file())
        .collect();
    paths.sort();
    if paths.len() > MAX_AGENT_FILES {
        return Err(format!(
            "{}: {} subagent files; one import reads at most {MAX_AGENT_FILES}",
            dir.display(),
            paths.len()
        ));
    }
    let mut files = Vec::with_capacity(paths.len());
    let mut skipped = Vec::new();
    for path in paths {
        let shown = path.display().to_string();
        let bytes = read_bounded(&path, MAX_AGENT_FILE_BYTES).map_err(|e| match e {
            ReadError::TooLarge { limit } => format!(
                "{shown} is larger than {limit} bytes; subagent files are limited to {limit} bytes"
            ),
            other => format!("cannot read {shown}: {other}"),
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            format!(
                "{shown} is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            )
        })?;
        match cc::parse_agent(&shown, &text) {
            Ok(file) => files.push(file),
            Err(e) if e.not_a_subagent => skipped.push(e.to_string()),
            Err(e) => return Err(e.to_string()),
        }
    }
    if files.is_empty()
        && let Some(first) = skipped.first()
    {
        return Err(first.clone());
    }
    Ok(AgentFiles { files, skipped })
}
