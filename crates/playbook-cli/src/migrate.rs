//! `playbook migrate`: a legacy (agenterm) playbook upgraded to 1.0.0, with
//! the semantic diff and every choice a person should confirm.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;
use playbook_core::legacy::{MigrateError, migrate as migrate_text};
use playbook_core::{Options, document, validate_source, validate_value};

use crate::input;

#[derive(Args)]
pub struct MigrateArgs {
    /// The legacy playbook (YAML or JSON; `-` reads standard input).
    file: String,
    /// Write the 1.0.0 playbook here instead of standard output (an
    /// existing file is refused unless --force).
    #[arg(long, short, conflicts_with = "in_place")]
    out: Option<String>,
    /// Replace the --out file if it exists.
    #[arg(long, requires = "out")]
    force: bool,
    /// Replace FILE with the 1.0.0 playbook (comments are not kept).
    #[arg(long)]
    in_place: bool,
}

pub fn migrate(args: MigrateArgs) -> Result<ExitCode> {
    // Refusals first, before the report of a migration that is not written.
    if let Some(out) = &args.out {
        input::refuse_existing(std::path::Path::new(out), args.force)?;
    }
    if args.in_place && args.file != "-" {
        input::check_writable(&args.file)?;
    }
    let source = input::read(&args.file)?;
    let migration = match migrate_text(&source.text, source.format, source.name.as_deref()) {
        Ok(m) => m,
        Err(MigrateError::NotLegacy(version)) => {
            say(&format!(
                "{}: already schema_version {version}; nothing to migrate",
                args.file
            ));
            return Ok(ExitCode::SUCCESS);
        }
        Err(MigrateError::Invalid(findings)) => {
            for f in &findings {
                let at = f
                    .location
                    .map(|l| format!("{}:{}: ", l.line, l.column))
                    .unwrap_or_default();
                say(&format!(
                    "{}:{at}error[{}]: {}\n    at {}\n    hint: {}",
                    args.file,
                    f.code,
                    f.message,
                    display_path(&f.path),
                    f.hint
                ));
            }
            bail!("{} is not migrated: fix its errors first", args.file);
        }
    };
    let before = validate_source(&source.text, source.format, &source.options()).playbook;
    let report = validate_value(migration.document.clone(), &Options::default());
    let Some(after) = report.playbook.as_ref() else {
        bail!("the migrated playbook does not read back; please report this with the file");
    };
    let text = document::to_string(after, source.format)?;

    say(&format!("{}: migrated to schema_version 1.0.0", args.file));
    if let Some(before) = &before {
        let diff = playbook_core::diff::diff(before, after);
        if !diff.is_empty() {
            say("what changed:");
            diff.sentences().for_each(|s| say(&format!("  {s}")));
        }
    }
    if !migration.choices.is_empty() {
        say("confirm:");
        for c in &migration.choices {
            say(&format!("  {} — {}", c.path, c.message));
        }
    }
    let problems: Vec<_> = report.findings.iter().filter(|f| f.is_error()).collect();
    if !problems.is_empty() {
        say("still to fix under 1.0.0 (real mistakes the legacy reading only warned about):");
        for f in &problems {
            say(&format!(
                "  error[{}] {}: {}\n    hint: {}",
                f.code, f.path, f.message, f.hint
            ));
        }
    }
    match (&args.out, args.in_place) {
        (Some(out), _) => input::write_atomically(out, &text)?,
        (None, true) => {
            if args.file == "-" {
                bail!("--in-place needs a file, not standard input");
            }
            input::write_edit(&args.file, &source.text, &text)?;
        }
        (None, false) => print!("{text}"),
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A line of the report on standard error, redacted: findings and choices
/// quote the file's values. The migrated playbook itself (standard output
/// or the file written) is the author's text and is not.
fn say(line: &str) {
    eprintln!("{}", playbook_redact::redact_str(line));
}

fn display_path(path: &str) -> &str {
    if path.is_empty() { "/" } else { path }
}
