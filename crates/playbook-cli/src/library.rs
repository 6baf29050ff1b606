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
use clap::{Args, Subcommand, ValueEnum};
use playbook_core::Format;
use playbook_core::diff::Diff;
use playbook_store::{Base, Error as StoreError, PlaybookId, Source, Store, resolve_db_path};
use serde::Serialize;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    Text,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FileFormat {
    Yaml,
    Json,
}

impl From<FileFormat> for Format {
    fn from(f: FileFormat) -> Format {
        match f {
            FileFormat::Yaml => Format::Yaml,
            FileFormat::Json => Format::Json,
        }
    }
}

#[derive(Args)]
pub struct DbArgs {
    /// Library file [default: $PLAYBOOK_DB, else library.db in the platform data directory].
    #[arg(long, global = true, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Output as text or JSON.
    #[arg(long, global = true, value_enum, default_value = "text")]
    format: Output,
    #[command(subcommand)]
    command: DbCommand,
}

#[derive(Subcommand)]
enum DbCommand {
    /// List playbooks with the validity of their latest version.
    List {
        /// Include deleted playbooks.
        #[arg(long)]
        all: bool,
    },
    /// Print a version of a playbook (the latest by default).
    Show {
        id: String,
        #[arg(long, value_name = "N")]
        version: Option<u32>,
        /// Text format of the content.
        #[arg(long = "as", value_enum, default_value = "yaml")]
        as_format: FileFormat,
    },
    /// List the versions of a playbook, newest first.
    History { id: String },
    /// Create a playbook: blank, from the built-in role templates, or from a file.
    Create {
        id: String,
        #[arg(long)]
        name: Option<String>,
        /// Start with plan/build/test stages made of the built-in role templates.
        #[arg(long, conflicts_with = "from")]
        from_templates: bool,
        /// Start from a playbook file; its id must be ID.
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
    },
    /// Save a file as the next version of a playbook.
    Save {
        id: String,
        file: PathBuf,
        /// The version you edited; the save fails if another was saved since.
        #[arg(long, value_name = "N", required_unless_present = "force")]
        base: Option<u32>,
        /// Save on top of whatever is latest, without the concurrency check.
        #[arg(long, conflicts_with = "base")]
        force: bool,
        #[arg(long, default_value = "")]
        note: String,
    },
    /// Import playbook files (or every .yaml/.yml/.json file of a directory): all or nothing.
    Import {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Export a playbook, or with --all the whole library into a directory.
    Export {
        /// Playbook to export.
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        id: Option<String>,
        #[arg(long, value_name = "N")]
        version: Option<u32>,
        /// Export the latest version of every playbook as DIR/<id>.yaml.
        #[arg(long, requires = "out")]
        all: bool,
        /// Output file (or directory with --all); standard output when absent.
        #[arg(short, long, value_name = "PATH")]
        out: Option<PathBuf>,
        #[arg(long = "as", value_enum, default_value = "yaml")]
        as_format: FileFormat,
        /// Replace existing files.
        #[arg(long)]
        force: bool,
    },
    /// Show what changed between two versions (TO defaults to the latest).
    Diff {
        id: String,
        from: u32,
        to: Option<u32>,
        #[command(flatten)]
        behaviour: crate::whatif::BehaviourArgs,
    },
    /// Make an old version the latest again, as a new version.
    Restore {
        id: String,
        version: u32,
        #[arg(long)]
        note: Option<String>,
    },
    /// Change a playbook's display name (saved as a new version).
    Rename { id: String, name: String },
    /// Copy a playbook under a new id.
    Duplicate {
        id: String,
        new_id: String,
        #[arg(long)]
        name: Option<String>,
    },
    /// Delete a playbook; recoverable with `undelete` until purged.
    Rm { id: String },
    /// Bring back a deleted playbook.
    Undelete { id: String },
    /// Remove deleted playbooks for good.
    Purge {
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        id: Option<String>,
        /// Purge every deleted playbook.
        #[arg(long)]
        all: bool,
    },
    /// Show (or discard) a draft of a playbook: unsaved text, autosaved or
    /// kept from a refused save (the newest by default).
    Draft {
        id: String,
        /// Which draft (`--list` shows their numbers).
        #[arg(long, value_name = "N")]
        number: Option<i64>,
        /// Throw the draft away.
        #[arg(long, conflicts_with = "list")]
        discard: bool,
        /// List the playbook's drafts, newest first.
        #[arg(long)]
        list: bool,
    },
    /// Run SQLite's integrity check on the library file.
    Check,
    /// List preview runs, of one playbook or all.
    Runs { id: Option<String> },
    /// Role templates: the built-in ones and the team's.
    #[command(subcommand)]
    Template(TemplateCommand),
}

#[derive(Subcommand)]
enum TemplateCommand {
    /// List built-in and team templates.
    List,
    /// Print a template (a team template's latest version by default).
    Show {
        name: String,
        #[arg(long, value_name = "N")]
        version: Option<u32>,
        #[arg(long = "as", value_enum, default_value = "yaml")]
        as_format: FileFormat,
    },
    /// Save a role as a team template: from a role file, or from a playbook's role.
    Save {
        name: String,
        /// A YAML or JSON file holding one role.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["playbook", "role"])]
        file: Option<PathBuf>,
        /// Take the role from the latest version of this playbook.
        #[arg(long, requires = "role", value_name = "ID")]
        playbook: Option<String>,
        #[arg(long, requires = "playbook")]
        role: Option<String>,
        /// The version you edited (omit for a new template or to overwrite).
        #[arg(long, value_name = "N")]
        base: Option<u32>,
        #[arg(long, default_value = "")]
        note: String,
    },
    /// List the versions of a team template.
    History { name: String },
    /// Remove a team template from the list.
    Rm { name: String },
}

#[derive(Args)]
pub struct DiffArgs {
    /// The older playbook file.
    a: String,
    /// The newer playbook file.
    b: String,
    #[arg(long, value_enum, default_value = "text")]
    format: Output,
    #[command(flatten)]
    behaviour: crate::whatif::BehaviourArgs,
}

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

fn print_json<T: Serialize>(value: &T) {
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
                print_json(&store.version(&pid, version)?);
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
            (d, false) => print_json(&d),
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

fn template(store: &mut Store, format: Output, command: TemplateCommand) -> Result<(), Failure> {
    let text = format == Output::Text;
    match command {
        TemplateCommand::List => {
            let list = store.templates()?;
            if text {
                for t in &list {
                    let source = match t.source {
                        playbook_store::TemplateSource::Builtin => "built-in".to_string(),
                        playbook_store::TemplateSource::Team => format!("team v{}", t.latest),
                    };
                    let mode = t.mode.map(|m| m.as_str()).unwrap_or("-");
                    println!("{:<28} {:<10} {source}", shown(&t.name), mode);
                }
            } else {
                print_json(&list);
            }
        }
        TemplateCommand::Show {
            name,
            version,
            as_format,
        } => {
            let template = store.template(&name, version)?;
            if text {
                match as_format {
                    FileFormat::Json => print!("{}", template.content),
                    FileFormat::Yaml => {
                        let role = store.template_role(&name, version)?;
                        let yaml = yaml_serde::to_string(&role)
                            .context("cannot write YAML")
                            .map_err(Failure::Other)?;
                        print!("{yaml}");
                    }
                }
            } else {
                print_json(&template);
            }
        }
        TemplateCommand::Save {
            name,
            file,
            playbook,
            role,
            base,
            note,
        } => {
            let base = base.map(Base::Version).unwrap_or(Base::Latest);
            let saved = match (file, playbook, role) {
                (Some(file), _, _) => {
                    let source = Source::read(&file)?;
                    store.save_template_text(&name, &source.text, source.format, base, &note)?
                }
                (None, Some(pid), Some(role)) => {
                    let pid = id(&pid)?;
                    let playbook = store.playbook(&pid, None)?;
                    let Some(found) = playbook.role(&role) else {
                        return Err(StoreError::NotFound {
                            what: format!("role {role:?} in playbook {pid:?}"),
                        }
                        .into());
                    };
                    let note = if note.is_empty() {
                        format!("from playbook {pid}")
                    } else {
                        note
                    };
                    store.save_template(&name, found.role, base, &note)?
                }
                _ => {
                    return Err(anyhow::anyhow!(
                        "name the role: --file FILE, or --playbook ID --role ROLE"
                    )
                    .into());
                }
            };
            if text {
                let state = if saved.unchanged {
                    "unchanged"
                } else {
                    "saved"
                };
                println!("template {} v{} {state}", saved.name, saved.version.number);
            } else {
                print_json(&saved);
            }
        }
        TemplateCommand::History { name } => {
            let history = store.template_history(&name)?;
            if text {
                for v in &history {
                    println!(
                        "v{:<5} {}  {}  {}",
                        v.number,
                        v.created_at,
                        short_hash(&v.content_hash),
                        shown(&v.note)
                    );
                }
            } else {
                print_json(&history);
            }
        }
        TemplateCommand::Rm { name } => {
            store.delete_template(&name)?;
            done(format, &format!("template {name} removed"));
        }
    }
    Ok(())
}

/// Library text (names, notes, file names, scenario names) as a table or
/// message shows it: the core's one rule (`printable`), so no stored text
/// acts on the terminal or forges a row. JSON output keeps values as they
/// are; documents (`show`, `draft`) are printed as their text.
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    playbook_core::printable::printable(text)
}

/// [`shown`] for a message of several lines (a refusal lists its findings
/// one per line): each line escaped, the line breaks kept.
fn shown_lines(text: &str) -> String {
    text.split('\n').map(shown).collect::<Vec<_>>().join("\n")
}

/// The first 12 characters of a hash, as `git log --oneline` shows commits.
fn short_hash(hash: &str) -> String {
    hash.chars().take(12).collect()
}

fn validity(v: &playbook_store::Validity) -> String {
    if v.errors > 0 {
        format!("{} error(s)", v.errors)
    } else if v.warnings > 0 {
        format!("valid, {} warning(s)", v.warnings)
    } else {
        "valid".to_string()
    }
}

fn report_saved(saved: &playbook_store::Saved, format: Output) {
    match format {
        Output::Json => print_json(saved),
        Output::Text if saved.unchanged => println!(
            "{} unchanged: the content equals version {}",
            saved.playbook, saved.version.number
        ),
        Output::Text => println!(
            "{} saved as version {} ({})",
            saved.playbook,
            saved.version.number,
            validity(&saved.version.validity)
        ),
    }
}

fn done(format: Output, message: &str) {
    match format {
        Output::Json => print_json(&serde_json::json!({ "ok": true, "message": message })),
        Output::Text => println!("{message}"),
    }
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
