//! `playbook db ...` and `playbook diff`: the playbook library from the
//! terminal. Each subcommand opens the library, calls one `playbook_store`
//! method and prints the result as text or, with `--format json`, as JSON.
//!
//! Store errors print their stable code, what went wrong and how to fix it,
//! and exit with 1 (2 is left for failures outside the library, as in the
//! rest of the CLI).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use playbook_core::diff::Diff;
use playbook_redact::redact_value;
use playbook_store::{Base, Error as StoreError, PlaybookId, Source, Store, resolve_db_path};
use serde::Serialize;

mod args;
mod print;
mod templates;

use args::*;
pub use args::{DbArgs, DiffArgs};
use print::*;
use templates::*;

/// `playbook diff A B`: two files, no library.
pub fn diff_files(args: DiffArgs) -> Result<ExitCode> {
    if args.behaviour.enabled {
        let json = args.format == Output::Json;
        return crate::whatif::behaviour_files(&args.a, &args.b, &args.behaviour, json);
    }
    let read = crate::whatif::load_playbook;
    let diff = playbook_core::diff::diff(&read(&args.a)?, &read(&args.b)?);
    print_diff(&diff, args.format);
    Ok(ExitCode::SUCCESS)
}

/// Widening changes come first in a diff; the text marks each so a
/// reviewer skimming the list cannot miss one.
///
/// Redacted, as every line the CLI prints: a change quotes the playbook's
/// values (a prompt, a description, a removed role whole), and a token
/// pasted into one must not reach a terminal or a CI log. Each sentence and
/// each JSON value is redacted whole; the sentences quote long values cut
/// only between words (`playbook_core::diff`), so no cut hides a secret.
fn print_diff(diff: &Diff, format: Output) {
    match format {
        Output::Json => print_json(diff),
        Output::Text if diff.is_empty() => println!("no changes"),
        Output::Text => {
            for change in &diff.changes {
                let marker = if change.widening { "WIDENS: " } else { "" };
                println!("{marker}{}", shown(&change.sentence));
            }
        }
    }
}

/// A result as JSON, redacted as every line the CLI prints is (names, notes,
/// messages and file names can hold a pasted token).
fn print_json<T: Serialize>(value: &T) {
    match serde_json::to_value(value) {
        Ok(mut value) => {
            redact_value(&mut value);
            print_json_as_written(&value);
        }
        Err(e) => eprintln!("error: cannot write JSON: {e}"),
    }
}

/// A document as JSON, as its author wrote it: what `show` prints is the
/// playbook itself, as `export` writes it to a file.
fn print_json_as_written<T: Serialize>(value: &T) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => println!("{text}"),
        Err(e) => eprintln!("error: cannot write JSON: {e}"),
    }
}

/// `playbook db ...`.
pub fn db(args: DbArgs) -> Result<ExitCode> {
    let path = resolve_db_path(args.db.clone());
    let format = args.format;
    match run(&path, format, args.command) {
        Ok(code) => Ok(code),
        Err(Failure::Store(error)) => {
            match format {
                Output::Json => print_json(&error.to_json()),
                Output::Text => {
                    eprintln!(
                        "error[{}]: {}",
                        error.code(),
                        shown_lines(&error.to_string())
                    );
                    eprintln!("  library: {}", shown(&path.display().to_string()));
                    eprintln!("  hint: {}", shown(&error.hint()));
                }
            }
            Ok(ExitCode::from(1))
        }
        Err(Failure::Other(error)) => Err(error),
    }
}

enum Failure {
    Store(StoreError),
    Other(anyhow::Error),
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Store(e)
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

fn id(text: &str) -> Result<PlaybookId, StoreError> {
    PlaybookId::new(text)
}

fn run(path: &Path, format: Output, command: DbCommand) -> Result<ExitCode, Failure> {
    let mut store = Store::open(path)?;
    let text = format == Output::Text;
    match command {
        DbCommand::List { all } => {
            let list = store.list(all)?;
            if !text {
                print_json(&list);
            } else if list.is_empty() {
                println!("the library is empty; add playbooks with `playbook db import FILE`");
            } else {
                println!(
                    "{:<28} {:>7}  {:<22} {:<24} NAME",
                    "ID", "VERSION", "VALIDITY", "UPDATED"
                );
                for p in &list {
                    let mut flags = String::new();
                    match p.drafts {
                        0 => {}
                        1 => flags.push_str(" [draft]"),
                        n => flags.push_str(&format!(" [{n} drafts]")),
                    }
                    if p.deleted_at.is_some() {
                        flags.push_str(" [deleted]");
                    }
                    println!(
                        "{:<28} {:>7}  {:<22} {:<24} {}{flags}",
                        p.id.as_str(),
                        format!("v{}", p.latest.number),
                        validity(&p.latest.validity),
                        p.updated_at,
                        shown(&p.name)
                    );
                }
            }
        }
        DbCommand::Show {
            id: pid,
            version,
            as_format,
        } => {
            let pid = id(&pid)?;
            if text {
                print!("{}", store.export(&pid, version, as_format.into())?);
            } else {
                print_json_as_written(&store.version(&pid, version)?);
            }
        }
        DbCommand::History { id: pid } => {
            let history = store.history(&id(&pid)?)?;
            if text {
                for v in &history {
                    let parent = v
                        .parent
                        .map(|p| format!(" (from v{p})"))
                        .unwrap_or_default();
                    println!(
                        "v{:<5} {}  {}  {}{parent}  {}",
                        v.number,
                        v.created_at,
                        short_hash(&v.content_hash),
                        validity(&v.validity),
                        shown(&v.note)
                    );
                }
            } else {
                print_json(&history);
            }
        }
        DbCommand::Create {
            id: pid,
            name,
            from_templates,
            from,
        } => {
            let pid = id(&pid)?;
            let saved = match from {
                Some(file) => {
                    let source = Source::read(&file)?;
                    let content_id =
                        playbook_core::document::parse_value(&source.text, source.format)
                            .ok()
                            .and_then(|v| v.get("id").and_then(|i| i.as_str()).map(str::to_string));
                    if content_id.as_deref() != Some(pid.as_str()) {
                        return Err(anyhow::anyhow!(
                            "{} has id {:?}, not {:?}; change its id field or create it under that id",
                            file.display(),
                            content_id.unwrap_or_default(),
                            pid.as_str()
                        )
                        .into());
                    }
                    store.create_from_text(
                        &source.text,
                        source.format,
                        &format!("created from {}", file.display()),
                    )?
                }
                None => {
                    let name = name.clone().unwrap_or_else(|| pid.to_string());
                    let playbook = if from_templates {
                        playbook_store::from_role_templates(&pid, &name)
                    } else {
                        playbook_store::blank(&pid, &name)
                    };
                    let note = if from_templates {
                        "created from the role templates"
                    } else {
                        "created blank"
                    };
                    store.create(playbook, note)?
                }
            };
            report_saved(&saved, format);
        }
        DbCommand::Save {
            id: pid,
            file,
            base,
            force: _,
            note,
        } => {
            let pid = id(&pid)?;
            let source = Source::read(&file)?;
            let base = base.map(Base::Version).unwrap_or(Base::Latest);
            let saved = store.save_version(&pid, base, &source.text, source.format, &note)?;
            report_saved(&saved, format);
        }
        DbCommand::Import { files } => {
            // Each file is read as the store asks for it, so no file's text
            // is held twice (here and in what the store keeps).
            let paths = expand(&files).map_err(Failure::Other)?;
            let imported = store.import_each(paths.iter().map(|path| Source::read(path)))?;
            if text {
                for i in &imported {
                    let what = match i.outcome {
                        playbook_store::ImportOutcome::Created => "created",
                        playbook_store::ImportOutcome::NewVersion => "new version",
                        playbook_store::ImportOutcome::Unchanged => "unchanged",
                    };
                    println!(
                        "{}: {} v{} ({what}, {})",
                        shown(&i.source),
                        i.saved.playbook,
                        i.saved.version.number,
                        validity(&i.saved.version.validity)
                    );
                }
            } else {
                print_json(&imported);
            }
        }
        DbCommand::Export {
            id: pid,
            version,
            all,
            out,
            as_format,
            force,
        } => {
            if all {
                let dir = out
                    .context("--all needs --out DIR")
                    .map_err(Failure::Other)?;
                let written = store.export_library(&dir, as_format.into(), force)?;
                if text {
                    println!(
                        "exported {} playbook(s) to {}",
                        written.len(),
                        shown(&dir.display().to_string())
                    );
                } else {
                    print_json(&written);
                }
            } else {
                let pid = id(pid.as_deref().unwrap_or_default())?;
                let content = store.export(&pid, version, as_format.into())?;
                match out {
                    None => print!("{content}"),
                    Some(file) => {
                        crate::input::refuse_existing(&file, force).map_err(Failure::Other)?;
                        crate::input::write_atomically(&file.to_string_lossy(), &content)
                            .map_err(Failure::Other)?;
                        if text {
                            println!("exported {pid} to {}", shown(&file.display().to_string()));
                        }
                    }
                }
            }
        }
        DbCommand::Diff {
            id: pid,
            from,
            to,
            behaviour,
        } => {
            let pid = id(&pid)?;
            let to = match to {
                Some(to) => to,
                None => store.summary(&pid)?.latest.number,
            };
            if behaviour.enabled {
                let version = |n: u32| -> Result<playbook_core::Playbook, Failure> {
                    let v = store.version(&pid, Some(n))?;
                    crate::whatif::playbook_of(&v.content, &format!("version {n} of {pid}"))
                        .map_err(Failure::Other)
                };
                let (before, after) = (version(from)?, version(to)?);
                return crate::whatif::behaviour(
                    &before,
                    &after,
                    &behaviour,
                    format == Output::Json,
                )
                .map_err(Failure::Other);
            }
            print_diff(&store.diff(&pid, from, to)?, format);
        }
        DbCommand::Restore {
            id: pid,
            version,
            note,
        } => {
            let saved = store.restore(&id(&pid)?, version, note.as_deref())?;
            report_saved(&saved, format);
        }
        DbCommand::Rename { id: pid, name } => {
            let saved = store.rename(&id(&pid)?, &name)?;
            report_saved(&saved, format);
        }
        DbCommand::Duplicate {
            id: pid,
            new_id,
            name,
        } => {
            let saved = store.duplicate(&id(&pid)?, &id(&new_id)?, name.as_deref())?;
            report_saved(&saved, format);
        }
        DbCommand::Rm { id: pid } => {
            let pid = id(&pid)?;
            store.delete(&pid)?;
            done(
                format,
                &format!("deleted {pid}; `playbook db undelete {pid}` brings it back until purged"),
            );
        }
        DbCommand::Undelete { id: pid } => {
            let pid = id(&pid)?;
            store.undelete(&pid)?;
            done(format, &format!("restored {pid}"));
        }
        DbCommand::Purge { id: pid, all } => {
            let purged = if all {
                store.purge_deleted()?
            } else {
                let pid = id(pid.as_deref().unwrap_or_default())?;
                store.purge(&pid)?;
                vec![pid]
            };
            if text {
                println!("purged {} playbook(s)", purged.len());
            } else {
                print_json(&purged);
            }
        }
        DbCommand::Draft {
            id: pid,
            number,
            discard,
            list,
        } => draft(&mut store, format, &id(&pid)?, number, discard, list)?,
        DbCommand::Runs { id: pid } => {
            let pid = pid.as_deref().map(id).transpose()?;
            let runs = store.list_runs(pid.as_ref())?;
            if text {
                for r in &runs {
                    println!(
                        "run {:<6} {:<20} {:<12} scenario {} seed {} ({} events) {}",
                        r.id.0,
                        r.playbook.as_str(),
                        shown(&r.status),
                        shown(&r.scenario),
                        r.seed,
                        r.events,
                        r.started_at
                    );
                }
            } else {
                print_json(&runs);
            }
        }
        DbCommand::Check => {
            let report = store.integrity_check()?;
            let ok = report == ["ok"];
            if text {
                report.iter().for_each(|line| println!("{}", shown(line)));
            } else {
                print_json(&serde_json::json!({ "ok": ok, "report": report }));
            }
            if !ok {
                return Ok(ExitCode::from(1));
            }
        }
        DbCommand::Template(command) => template(&mut store, format, command)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `db draft`: a playbook may hold several drafts (every refused save keeps
/// its own), so each is named by its number; without one, the newest.
fn draft(
    store: &mut Store,
    format: Output,
    pid: &PlaybookId,
    number: Option<i64>,
    discard: bool,
    list: bool,
) -> Result<(), Failure> {
    let text = format == Output::Text;
    let drafts = store.drafts(pid)?;
    if list {
        if !text {
            print_json(&drafts);
        } else if drafts.is_empty() {
            println!("{pid} has no draft");
        } else {
            for d in &drafts {
                let base = d.base.map(|b| format!("from v{b}")).unwrap_or_default();
                println!(
                    "draft {:<6} {}  {:<9} {} bytes",
                    d.number.0,
                    d.updated_at,
                    base,
                    d.content.len()
                );
            }
        }
        return Ok(());
    }
    let chosen =
        match number {
            Some(n) => Some(drafts.iter().find(|d| d.number.0 == n).ok_or_else(|| {
                StoreError::NotFound {
                    what: format!("draft {n} of playbook `{pid}`"),
                }
            })?),
            None => drafts.first(),
        };
    let others = drafts.len().saturating_sub(1);
    if discard {
        let removed = match chosen {
            Some(d) => store.discard_draft(pid, d.number)?,
            None => false,
        };
        let message = match chosen {
            Some(d) if removed => format!("draft {} discarded", d.number),
            _ => "there was no draft".to_string(),
        };
        done(format, &message);
    } else {
        match (chosen, text) {
            (Some(d), true) => print!("{}", d.content),
            (None, true) => println!("{pid} has no draft"),
            (d, false) => print_json_as_written(&d),
        }
        // The text goes to standard output (it is a file's content); which
        // draft it was, and that others wait, goes to the terminal.
        if text
            && others > 0
            && let Some(d) = chosen
        {
            eprintln!(
                "note: that is draft {} of {} drafts of {pid}; `playbook db draft {pid} --list` lists them",
                d.number,
                drafts.len()
            );
        }
    }
    Ok(())
}

/// Files as given, with directories replaced by their playbook files.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("cannot read directory {}", path.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_file()
                        && p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                            matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json")
                        })
                })
                .collect();
            if found.is_empty() {
                anyhow::bail!(
                    "{} holds no playbook files (.yaml, .yml or .json); nothing was imported",
                    path.display()
                );
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}
