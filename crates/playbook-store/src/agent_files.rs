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

/// The files of a Claude Code export (`(path relative to project, text)`,
/// as `cc::export_project` gives them) that already exist in `project` and
/// were not written by an export, each as `"<path>: <why>"`. An export
/// refuses to replace them (`cc::replaceable` decides; docs/interop.md), so
/// the CLI and the app check the same way before writing anything.
pub fn export_conflicts(project: &Path, files: &[(String, String)]) -> Vec<String> {
    let mut conflicts = Vec::new();
    for (relative, _) in files {
        let path = project.join(relative);
        let shown = path.display();
        // Not `exists()`: a dangling symbolic link is still something the
        // write would replace.
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                conflicts.push(format!("{shown}: cannot be read ({e})"));
                continue;
            }
            Ok(_) => {}
        }
        // Bounded like every file a user names: the largest file an export
        // writes is the app's playbook copy, a playbook.
        let why = match read_bounded(&path, playbook_core::MAX_DOCUMENT_BYTES) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => match cc::replaceable(relative, &text) {
                    Ok(()) => continue,
                    Err(why) => why,
                },
                Err(_) => "not UTF-8 text: `playbook export` did not write it".to_string(),
            },
            Err(e) => format!("cannot be read ({e})"),
        };
        conflicts.push(format!("{shown}: {why}"));
    }
    conflicts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_may_replace_only_its_own_files() {
        let dir = tempfile::tempdir().unwrap();
        let agents = dir.path().join(".claude/agents");
        std::fs::create_dir_all(&agents).unwrap();
        std::fs::write(
            agents.join("mine.md"),
            "---\nname: mine\ndescription: hand-written\n---\nPrompt.\n",
        )
        .unwrap();
        std::fs::write(
            agents.join("ours.md"),
            "---\nname: ours\nx_playbook: {role: {name: ours}}\n---\nPrompt.\n",
        )
        .unwrap();
        std::fs::create_dir_all(agents.join("dir.md")).unwrap();
        std::fs::write(dir.path().join(".claude/settings.json"), "{}").unwrap();
        let files: Vec<(String, String)> = [
            ".claude/agents/mine.md",
            ".claude/agents/ours.md",
            ".claude/agents/dir.md",
            ".claude/agents/new.md",
            ".claude/settings.json",
        ]
        .iter()
        .map(|p| (p.to_string(), String::new()))
        .collect();
        let conflicts = export_conflicts(dir.path(), &files);
        assert_eq!(conflicts.len(), 2, "{conflicts:?}");
        assert!(conflicts[0].contains("mine.md") && conflicts[0].contains("x_playbook"));
        assert!(conflicts[1].contains("dir.md") && conflicts[1].contains("directory"));
    }
}
