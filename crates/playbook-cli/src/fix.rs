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
    let mut options = Options {
        strict: args.strict,
        ..Options::default()
    };
    if let Some(list) = args.mutating_actions.clone() {
        options.mutating_actions = list;
    }
    let mut changed = false;
    for file in &args.files {
        if file == "-" {
            bail!("`fix` changes files in place; give a path, not `-`");
        }
        let source = input::read(file)?;
        let fixed = match fix::fix_all(&source.text, source.format, &options, &codes) {
            Ok(fixed) => fixed,
            Err(error) => bail!("{file} cannot be fixed: {error}"),
        };
        if fixed.text == source.text {
            println!("{file}: nothing to fix");
            continue;
        }
        changed = true;
        // A file that will not be written must not be reported as fixed.
        if !args.dry_run {
            input::check_writable(file)?;
        }
        report(file, &fixed, args.dry_run);
        if args.dry_run {
            print_diff(file, &source.text, &fixed.text);
            continue;
        }
        if !fixed.preserved && !args.allow_reformat {
            bail!(
                "{file}: the fixes could not keep the file's layout, so writing it would lose its comments; nothing was written. Run with --dry-run to see the change, or --allow-reformat to write it anyway"
            );
        }
        input::write_atomically(file, &fixed.text)?;
    }
    Ok(if args.dry_run && changed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn report(file: &str, fixed: &Fixed, dry_run: bool) {
    let verb = if dry_run { "would fix" } else { "fixed" };
    for f in &fixed.applied {
        let path = if f.path.is_empty() { "/" } else { &f.path };
        println!("{file}: {verb} {} at {path}: {}", f.code, f.title);
    }
    if !fixed.preserved {
        println!("{file}: warning: the layout could not be kept; the document is written afresh");
    }
}

fn print_diff(file: &str, old: &str, new: &str) {
    let diff = TextDiff::from_lines(old, new);
    print!(
        "{}",
        diff.unified_diff()
            .header(&format!("a/{file}"), &format!("b/{file}"))
    );
}
