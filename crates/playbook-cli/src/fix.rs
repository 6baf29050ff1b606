//! `playbook fix`: applies the quick fixes of `playbook_core::fix` to files,
//! keeping their comments and layout; `--dry-run` shows the change as a
//! unified diff and fails when there is one (for CI).

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;
use playbook_core::fix::{self, Fixed};
use playbook_core::{Code, Options};
use similar::TextDiff;

use crate::input;

#[derive(Args)]
pub struct FixArgs {
    /// Playbook files (.yaml, .yml or .json), fixed in place.
    #[arg(required = true)]
    files: Vec<String>,
    /// Write nothing: print a unified diff of what would change, and exit 1
    /// when anything would.
    #[arg(long)]
    dry_run: bool,
    /// Apply only the fixes for this finding code (repeatable), e.g. `--code PB302`.
    #[arg(long = "code", value_name = "PBxxx")]
    codes: Vec<String>,
    /// Unknown fields without the `x_` prefix are errors, not warnings (as in `validate`).
    #[arg(long)]
    strict: bool,
    /// Tools that need approval (comma-separated), replacing the built-in list.
    #[arg(long, value_delimiter = ',')]
    mutating_actions: Option<Vec<String>>,
    /// Write a fixed file even when its layout could not be kept (the
    /// document is then written afresh and its comments are lost).
    #[arg(long)]
    allow_reformat: bool,
}

fn parse_code(text: &str) -> Result<Code> {
    match Code::ALL
        .iter()
        .find(|c| c.as_str().eq_ignore_ascii_case(text))
    {
        Some(&code) if fix::has_fixes(code) => Ok(code),
        Some(code) => bail!(
            "{code} has no mechanical fix; codes with fixes: {}",
            fixable().join(", ")
        ),
        None => bail!(
            "unknown finding code `{text}`; codes with fixes: {}",
            fixable().join(", ")
        ),
    }
}

fn fixable() -> Vec<&'static str> {
    Code::ALL
        .iter()
        .filter(|c| fix::has_fixes(**c))
        .map(|c| c.as_str())
        .collect()
}

pub fn fix(args: FixArgs) -> Result<ExitCode> {
    let codes = args
        .codes
        .iter()
        .map(|c| parse_code(c))
        .collect::<Result<Vec<_>>>()?;
    if args.files.iter().any(|f| f == "-") {
        bail!("`fix` changes files in place; give a path, not `-`");
    }
    let mut options = Options {
        strict: args.strict,
        ..Options::default()
    };
    if let Some(list) = args.mutating_actions.clone() {
        options.mutating_actions = list;
    }
    // Each file on its own: one that cannot be fixed or written is said
    // and the others are still fixed; the exit status tells of any.
    let mut changed = false;
    let mut failed = false;
    for file in &args.files {
        match fix_file(file, &args, &options, &codes) {
            Ok(outcome) => changed |= outcome,
            Err(error) => {
                eprintln!("error: {}", crate::redacted_error(&error));
                failed = true;
            }
        }
    }
    Ok(if failed {
        ExitCode::from(2)
    } else if args.dry_run && changed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Fixes one file (or, with `--dry-run`, says how it would); true when it
/// changes (or would). Refuses, as the real run does, a file whose fixes
/// cannot keep its comments and layout, unless `--allow-reformat`.
fn fix_file(file: &str, args: &FixArgs, options: &Options, codes: &[Code]) -> Result<bool> {
    let source = input::read(file)?;
    let fixed = fix::fix_all(&source.text, source.format, &source.named(options), codes)
        .map_err(|error| anyhow::anyhow!("{file} cannot be fixed: {error}"))?;
    if fixed.text == source.text {
        println!("{file}: nothing to fix");
        return Ok(false);
    }
    if !fixed.preserved && !args.allow_reformat {
        let which: Vec<String> = fixed
            .reformatting
            .iter()
            .map(|f| format!("{} at {} ({})", f.code, display_path(&f.path), f.title))
            .collect();
        let verb = if args.dry_run {
            "would not be"
        } else {
            "was not"
        };
        bail!(
            "{file} {verb} written: {} cannot keep the file's comments and layout (the document would be written afresh). Fix that by hand, or run with --allow-reformat to write it afresh, losing its comments",
            which.join(", ")
        );
    }
    if args.dry_run {
        report(file, &fixed, true);
        print_diff(file, &source.text, &fixed.text);
        return Ok(true);
    }
    input::write_edit(file, &source.text, &fixed.text)?;
    // Said only once written: a file that was not must not read as fixed.
    report(file, &fixed, false);
    Ok(true)
}

fn display_path(path: &str) -> &str {
    if path.is_empty() { "/" } else { path }
}

fn report(file: &str, fixed: &Fixed, dry_run: bool) {
    let verb = if dry_run { "would fix" } else { "fixed" };
    // The report is redacted (a title quotes a key or a value of the
    // file); the diff below it is the author's own text, as the file is.
    for f in &fixed.applied {
        let line = format!(
            "{file}: {verb} {} at {}: {}",
            f.code,
            display_path(&f.path),
            f.title
        );
        println!("{}", playbook_redact::redact_str(&line));
    }
    if !fixed.preserved {
        let written = if dry_run {
            "would be written"
        } else {
            "was written"
        };
        println!(
            "{file}: warning: the layout could not be kept; the document {written} afresh (--allow-reformat)"
        );
    }
}

fn print_diff(file: &str, old: &str, new: &str) {
    let diff = TextDiff::from_lines(old, new);
    // `a/` and `b/` prefix a relative path, as git writes it; an absolute
    // path is named as it is (`a//tmp/x` names nothing).
    let (old_name, new_name) = if std::path::Path::new(file).is_absolute() {
        (file.to_string(), file.to_string())
    } else {
        (format!("a/{file}"), format!("b/{file}"))
    };
    print!("{}", diff.unified_diff().header(&old_name, &new_name));
}
