//! `playbook import --from claude-code` and `playbook export --to
//! claude-code`: the file side of crates/playbook-core/src/interop (which
//! does the mapping and no IO).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use playbook_core::interop::claude_code::{self as cc, AgentFile, PlaybookPath};
use playbook_core::{Format, Severity};
use playbook_redact::redact_str;
use serde_json::Map;

use crate::input;

mod crewai;

/// Formats `import` reads.
#[derive(Clone, Copy, ValueEnum)]
pub enum ImportFormat {
    /// Claude Code subagents: `.claude/agents/*.md`.
    ClaudeCode,
    /// CrewAI crews: `config/agents.yaml` and `config/tasks.yaml`.
    Crewai,
}

/// Formats `export` writes.
#[derive(Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    /// Claude Code subagents plus a `PreToolUse` hook running `playbook gate`.
    ClaudeCode,
}

#[derive(Args)]
pub struct ImportArgs {
    /// The format of the files to read.
    #[arg(long, value_enum)]
    from: ImportFormat,
    /// Claude Code: a project directory (its `.claude/agents` is read) or the agents
    /// directory itself. CrewAI: the crew's project directory (its
    /// `src/<package>/config/` or `config/`) or the config directory itself.
    dir: String,
    /// Write the playbook here (`.json` for JSON, else YAML) instead of standard output.
    /// An existing file is refused unless --force.
    #[arg(long)]
    out: Option<String>,
    /// Replace the --out file if it exists.
    #[arg(long, requires = "out")]
    force: bool,
}

#[derive(Args)]
pub struct ExportArgs {
    /// The format to write.
    #[arg(long, value_enum)]
    to: ExportFormat,
    /// The playbook file.
    playbook: String,
    /// The project directory; files go to its `.claude/agents/` and `.claude/settings.json`.
    dir: String,
    /// How the hook starts the gate: the `playbook` program (a path if it is not on PATH).
    #[arg(long, default_value = "playbook")]
    gate_program: String,
    /// Paths the subagents may write (relative to the project); passed to the gate.
    #[arg(long)]
    lock_scope: Vec<String>,
    /// Paths the subagents must not write; passed to the gate.
    #[arg(long)]
    forbidden_scope: Vec<String>,
    /// Replace existing files the export did not write (a hand-written
    /// subagent with a role's file name). Without it the export refuses,
    /// naming them, and writes nothing; its own earlier files are always
    /// replaced and settings.json is always merged.
    #[arg(long)]
    force: bool,
}

pub fn import(args: ImportArgs) -> Result<ExitCode> {
    import_files(args).map_err(redacted)
}

pub fn export(args: ExportArgs) -> Result<ExitCode> {
    export_files(args).map_err(redacted)
}

/// An error as it is printed, redacted: refusals quote what the files say
/// (a task's agent, a tool, a settings value), which may be a credential.
/// The files themselves are the user's and are kept as written.
fn redacted(error: anyhow::Error) -> anyhow::Error {
    anyhow::Error::msg(redact_str(&format!("{error:#}")).into_owned())
}

/// A note or warning on stderr, redacted for the same reason.
fn say(line: &str) {
    eprintln!("{}", redact_str(line));
}

fn import_files(args: ImportArgs) -> Result<ExitCode> {
    // Checked before anything is read, so the refusal comes first; the
    // written file is a fresh render, nothing of the old one is kept.
    if let Some(out) = &args.out {
        input::refuse_existing(Path::new(out), args.force)?;
    }
    let dir = Path::new(&args.dir);
    let dir_name = std::fs::canonicalize(dir)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| args.dir.clone());
    let (playbook, notes, source) = match args.from {
        ImportFormat::ClaudeCode => {
            let (imported, source) = import_claude_code(&args, dir, &dir_name)?;
            let notes: Vec<(String, String)> = imported
                .notes
                .into_iter()
                .map(|n| (n.file, n.message))
                .collect();
            (imported.playbook, notes, source)
        }
        ImportFormat::Crewai => {
            let (imported, source) = crewai::import(dir, &args.dir, &dir_name)?;
            let notes: Vec<(String, String)> = imported
                .notes
                .into_iter()
                .map(|n| (n.file, n.message))
                .collect();
            (imported.playbook, notes, source)
        }
    };
    for (file, message) in &notes {
        say(&format!("note: {file}: {message}"));
    }
    let format = args
        .out
        .as_deref()
        .map(Format::from_path)
        .unwrap_or(Format::Yaml);
    let text = playbook_core::document::to_string(&playbook, format)
        .map_err(|e| anyhow::anyhow!("cannot write the playbook: {e:?}"))?;
    let roles = playbook.roles().count();
    match &args.out {
        Some(out) => {
            input::write_atomically(out, &text)?;
            say(&format!(
                "imported {roles} role(s) from {} into {out}; `playbook validate {out}` lists what to complete",
                source.display()
            ));
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

fn import_claude_code(
    args: &ImportArgs,
    dir: &Path,
    dir_name: &str,
) -> Result<(cc::Import, PathBuf)> {
    let agents_dir = playbook_store::agent_files::agents_dir(dir);
    if !agents_dir.is_dir() {
        bail!(
            "{}: not a directory; give a project directory with `.claude/agents/*.md`, or that agents directory",
            args.dir
        );
    }
    let files = read_agent_files(&agents_dir)?;
    let imported = cc::import(&files, dir_name).map_err(anyhow::Error::msg)?;
    Ok((imported, agents_dir))
}

/// The `*.md` files of a directory, by name, each parsed.
fn read_agent_files(dir: &Path) -> Result<Vec<AgentFile>> {
    let read = playbook_store::agent_files::read_agent_files(dir).map_err(anyhow::Error::msg)?;
    for e in &read.skipped {
        say(&format!("warning: skipped {e}"));
    }
    Ok(read.files)
}

fn export_files(args: ExportArgs) -> Result<ExitCode> {
    let ExportFormat::ClaudeCode = args.to;
    if args.playbook == "-" {
        bail!(
            "export needs the playbook as a file: the hook it writes reads that file on every tool call"
        );
    }
    let source = input::read(&args.playbook)?;
    let report = playbook_core::validate_source(&source.text, source.format, &source.options());
    let Some(playbook) = report.playbook.as_ref() else {
        bail!(
            "{}: not a structurally valid playbook; `playbook validate {}` says why",
            args.playbook,
            args.playbook
        );
    };
    let errors = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    if errors > 0 {
        // Exporting is not running: the subagents and the gate still hold
        // each role to its tools and scopes. The errors are for the author.
        say(&format!(
            "warning: {}: {errors} error(s); `playbook validate {}` lists what to fix before a run",
            args.playbook, args.playbook
        ));
    }
    let project = Path::new(&args.dir);
    let settings_path = project.join(".claude").join("settings.json");
    let shown = settings_path.display().to_string();
    let existing = if settings_path.exists() {
        let bytes = input::read_file(&shown, 4 * 1024 * 1024, "settings files")?;
        Some(String::from_utf8(bytes).with_context(|| format!("{shown} is not UTF-8 text"))?)
    } else {
        None
    };
    let command = hook_command(&args)?;
    // Each subagent's body is what `playbook prompt` prints for its role.
    let body = |role: &playbook_core::model::RoleRef<'_>| {
        playbook_orchestrator::prompt::render(playbook, role, &Map::new())
    };
    let export =
        cc::export_project(playbook, body, existing.as_deref(), &command).map_err(|why| {
            anyhow::anyhow!(
                "{shown}: {why}; fix it or move it away, then export again (nothing was written)"
            )
        })?;
    // Checked before anything is written: a refusal leaves the project as
    // it was, and a person's own subagent is never silently replaced.
    let conflicts = playbook_store::agent_files::export_conflicts(project, &export.files);
    if !conflicts.is_empty() && !args.force {
        bail!(
            "the export would replace {} file(s) it did not write; nothing was written:\n  {}\nmove them away, export into another directory, or pass --force to replace them",
            conflicts.len(),
            conflicts.join("\n  ")
        );
    }
    for conflict in &conflicts {
        say(&format!("warning: replacing (--force) {conflict}"));
    }
    for note in &export.notes {
        say(&format!("note: {note}"));
    }
    std::fs::create_dir_all(project.join(".claude").join("agents"))
        .with_context(|| format!("cannot create {}/.claude/agents", project.display()))?;
    for (relative, text) in &export.files {
        input::write_atomically(&project.join(relative).to_string_lossy(), text)?;
    }
    say(&format!(
        "wrote {} subagent(s) to {} and the gate hook to {shown}",
        export.files.len() - 1,
        project.join(".claude").join("agents").display()
    ));
    Ok(ExitCode::SUCCESS)
}

/// The hook command: the playbook relative to the project when it lies
/// inside it (the project can move), else absolute.
fn hook_command(args: &ExportArgs) -> Result<String> {
    let playbook = std::fs::canonicalize(&args.playbook)
        .with_context(|| format!("cannot resolve {}", args.playbook))?;
    let project =
        std::fs::canonicalize(&args.dir).with_context(|| format!("cannot resolve {}", args.dir))?;
    let absolute = playbook.to_string_lossy().into_owned();
    let relative = playbook
        .strip_prefix(&project)
        .ok()
        .map(|r| r.to_string_lossy().replace('\\', "/"));
    let at = match &relative {
        Some(rel) => PlaybookPath::InProject(rel),
        None => PlaybookPath::Absolute(&absolute),
    };
    let mut extra = Vec::new();
    for s in &args.lock_scope {
        extra.push(("--lock-scope", s.as_str()));
    }
    for s in &args.forbidden_scope {
        extra.push(("--forbidden-scope", s.as_str()));
    }
    Ok(cc::gate_command(&args.gate_program, at, &extra))
}
