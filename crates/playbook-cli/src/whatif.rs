//! `playbook whatif` and `playbook diff --behaviour`: thousands of simulated
//! runs of a playbook (or of two versions of it) under a probability model.
//! The library does the work; this file reads files, shows progress on
//! standard error, stops cleanly on Ctrl+C and prints.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};

use playbook_core::{Options, Playbook, validate_source};
use playbook_orchestrator::Scenario;
use playbook_orchestrator::scenario::{MAX_SCENARIO_BYTES, RunInput};
use playbook_whatif::diff::{BehaviourDiff, scenario_change};
use playbook_whatif::model::MAX_MODEL_BYTES;
use playbook_whatif::sim::{DEFAULT_RUNS, MAX_RUNS};
use playbook_whatif::{Report, SimError, SimModel};

use crate::input;

/// Exit code of a simulation stopped by Ctrl+C (128 + SIGINT).
const INTERRUPTED: u8 = 130;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WhatifFormat {
    Text,
    Json,
}

/// What every simulation takes besides the playbook.
#[derive(Args, Clone)]
pub struct SimArgs {
    /// Simulation model (YAML or JSON, schemas/whatif-model.schema.json);
    /// without one the built-in defaults of docs/whatif.md apply.
    #[arg(long, value_name = "FILE")]
    pub model: Option<String>,
    /// Number of simulated runs (1 to 1 000 000).
    #[arg(long, default_value_t = DEFAULT_RUNS, value_parser = clap::value_parser!(u64).range(1..=MAX_RUNS))]
    pub runs: u64,
    /// Seed of the simulation; each run's seed is derived from it and the run's index.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Run input file (YAML or JSON: goal, tasks, values), as a scenario's `input`.
    #[arg(long, value_name = "FILE", conflicts_with = "goal")]
    pub input: Option<String>,
    /// The run's goal, when no input file is given.
    #[arg(long)]
    pub goal: Option<String>,
    /// Worker threads; one per core when absent. Results do not depend on it.
    #[arg(long, hide = true)]
    pub threads: Option<usize>,
}

#[derive(Args)]
pub struct WhatifArgs {
    /// Playbook file (YAML or JSON), or `-` for standard input.
    pub file: String,
    #[command(flatten)]
    pub sim: SimArgs,
    #[arg(long, value_enum, default_value_t = WhatifFormat::Text)]
    pub format: WhatifFormat,
}

/// The `--behaviour` flags of `playbook diff` and `playbook db diff`. The
/// simulation's flags mean nothing to a text diff: given without
/// `--behaviour`, clap refuses them rather than ignore them.
#[derive(Args, Clone)]
#[command(group = clap::ArgGroup::new("simulation")
    .args(["model", "runs", "seed", "input", "goal", "threads", "scenarios"])
    .multiple(true)
    .requires("behaviour"))]
pub struct BehaviourArgs {
    /// Compare simulated behaviour (same model and seeds on both versions)
    /// instead of the playbook text.
    #[arg(id = "behaviour", long = "behaviour", visible_alias = "behavior")]
    pub enabled: bool,
    #[command(flatten)]
    pub sim: SimArgs,
    /// Directory of scenarios previewed on both versions [default:
    /// playbooks/scenarios, when there is one].
    #[arg(long, value_name = "DIR")]
    pub scenarios: Option<String>,
}

/// Where scenarios are looked for when `--scenarios` is not given: the
/// repository's, relative to the working directory.
const DEFAULT_SCENARIOS: &str = "playbooks/scenarios";

/// Most scenario files a behavioural diff previews.
const MAX_SCENARIOS: usize = 200;

static CANCEL: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_: libc::c_int) {
    CANCEL.store(true, Ordering::SeqCst);
    // A second Ctrl+C ends the process at once.
    // SAFETY: `signal` is async-signal-safe; this restores the default.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// Lets Ctrl+C stop the simulation between runs instead of killing it.
fn catch_interrupt() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic and calls `signal`,
    // both async-signal-safe.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
}

/// Shows how far a long simulation is: a line that rewrites itself on a
/// terminal, a line every few seconds otherwise; nothing for short runs.
struct Progress {
    start: Instant,
    last: std::sync::Mutex<Instant>,
    total: u64,
    tty: bool,
}

impl Progress {
    fn new(total: u64) -> Progress {
        let now = Instant::now();
        Progress {
            start: now,
            last: std::sync::Mutex::new(now),
            total,
            tty: std::io::stderr().is_terminal(),
        }
    }

    fn tell(&self, done: u64) {
        let every = if self.tty {
            Duration::from_millis(200)
        } else {
            Duration::from_secs(5)
        };
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if self.start.elapsed() < Duration::from_secs(1) || last.elapsed() < every {
            return;
        }
        *last = Instant::now();
        let line = format!(
            "simulated {done} of {} runs ({:.0} %), {:.1} s; Ctrl+C stops with a partial result",
            self.total,
            done as f64 * 100.0 / self.total.max(1) as f64,
            self.start.elapsed().as_secs_f64()
        );
        let mut err = std::io::stderr().lock();
        let _ = if self.tty {
            write!(err, "\r{line}")
        } else {
            writeln!(err, "{line}")
        };
    }

    fn finish(&self) {
        if self.tty && self.start.elapsed() >= Duration::from_secs(1) {
            eprint!("\r\x1b[2K");
        }
    }
}

/// The playbook at `path`, or why it is not one (its first error and how to
/// see them all).
pub(crate) fn load_playbook(path: &str) -> Result<Playbook> {
    let source = input::read(path)?;
    let report = validate_source(&source.text, source.format, &source.options());
    match report.playbook {
        Some(playbook) => Ok(playbook),
        None => {
            bail!(
                "{path} is not a valid playbook: {}; run `playbook validate {path}` for every problem",
                input::first_error(&report.findings)
            )
        }
    }
}

fn read_text(path: &str, limit: usize, what: &str) -> Result<String> {
    let bytes = input::read_file(path, limit, what)?;
    String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("cannot read {path}: it is not UTF-8 text"))
}

/// The model at `path`, checked against the playbooks it will simulate
/// while its text is at hand: every error names the model file, a pointer
/// that exists in it and its line (never the playbook, whose roles the
/// message names).
fn load_model(path: Option<&str>, playbooks: &[&Playbook]) -> Result<SimModel> {
    match path {
        None => Ok(SimModel::default()),
        Some(path) => {
            let text = read_text(path, MAX_MODEL_BYTES, "models")?;
            SimModel::parse_for(&text, playbooks).map_err(|e| anyhow::anyhow!("{path}: {e}"))
        }
    }
}

/// A simulation's error, named after the file it is about: the model's
/// when the model is at fault, else the playbook's.
fn sim_error(error: SimError, playbook: &str, model: Option<&str>) -> anyhow::Error {
    match (&error, model) {
        (SimError::Model(e), Some(model)) => anyhow::anyhow!("{model}: {e}"),
        _ => anyhow::anyhow!("{playbook}: {error}"),
    }
}

fn load_input(args: &SimArgs) -> Result<RunInput> {
    if let Some(path) = &args.input {
        let text = read_text(path, MAX_SCENARIO_BYTES, "run inputs")?;
        let input = RunInput::parse(&text).map_err(|e| anyhow::anyhow!("{path}: {}", e.message))?;
        return Ok(input);
    }
    Ok(RunInput {
        goal: args.goal.clone().unwrap_or_default(),
        ..RunInput::default()
    })
}

fn options(args: &SimArgs) -> Result<playbook_whatif::Options> {
    Ok(playbook_whatif::Options {
        runs: args.runs,
        seed: args.seed,
        threads: args.threads.unwrap_or(0),
        input: load_input(args)?,
        roles_checked: false,
        // A plan of many tasks parks their state in a temporary file.
        spill: Some(playbook_runner::spill::port()),
    })
}

fn print_json<T: serde::Serialize>(value: &T) -> Result<()> {
    println!(
        "{}",
        serde_json::to_string_pretty(value).context("cannot write JSON")?
    );
    Ok(())
}

/// `playbook whatif PLAYBOOK`.
pub fn whatif(args: WhatifArgs) -> Result<ExitCode> {
    let playbook = load_playbook(&args.file)?;
    let model = load_model(args.sim.model.as_deref(), &[&playbook])?;
    let options = options(&args.sim)?;
    catch_interrupt();
    let progress = Progress::new(options.runs);
    let result = playbook_whatif::whatif(&playbook, &model, &options, &CANCEL, &|done| {
        progress.tell(done)
    });
    progress.finish();
    let report: Report = result.map_err(|e| sim_error(e, &args.file, args.sim.model.as_deref()))?;
    match args.format {
        WhatifFormat::Json => print_json(&report)?,
        WhatifFormat::Text => print!("{}", report.to_text()),
    }
    Ok(exit(report.partial))
}

fn exit(partial: bool) -> ExitCode {
    if partial {
        eprintln!("stopped: the figures above cover only the runs made before Ctrl+C");
        ExitCode::from(INTERRUPTED)
    } else {
        ExitCode::SUCCESS
    }
}

/// Scenarios by name, and notes on what was not compared.
type Scenarios = (Vec<(String, Scenario)>, Vec<String>);

/// The scenarios to compare, sorted by file name, and notes on what was
/// not compared. A directory given with `--scenarios` must exist; the
/// default one is missing whenever the command runs outside the
/// repository's root, which a note says rather than an error. At most
/// [`MAX_SCENARIOS`] files are read, and a note says so when there are more.
fn scenarios(given: Option<&str>) -> Result<Scenarios> {
    let dir = given.unwrap_or(DEFAULT_SCENARIOS);
    let path = Path::new(dir);
    if !path.is_dir() {
        if given.is_some() {
            let why = if path.exists() {
                "is not a directory"
            } else {
                "does not exist"
            };
            bail!("--scenarios {dir} {why}: give a directory of scenario files");
        }
        return Ok((
            Vec::new(),
            vec![format!(
                "no scenario was compared: the default directory {DEFAULT_SCENARIOS} is not in the working directory; run from the repository root or pass --scenarios DIR"
            )],
        ));
    }
    let mut files: Vec<_> = std::fs::read_dir(path)
        .with_context(|| format!("cannot list {dir}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "yaml" || x == "yml" || x == "json")
        })
        .collect();
    files.sort();
    let mut notes = Vec::new();
    if files.len() > MAX_SCENARIOS {
        notes.push(format!(
            "only the first {MAX_SCENARIOS} of the {} scenario files of {dir} (by name) were compared",
            files.len()
        ));
    }
    let mut out = Vec::new();
    for file in files.into_iter().take(MAX_SCENARIOS) {
        let name = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let shown = file.to_string_lossy().into_owned();
        let text = read_text(&shown, MAX_SCENARIO_BYTES, "scenarios")?;
        let scenario = Scenario::parse(&text).map_err(|e| anyhow::anyhow!("{shown}: {e}"))?;
        out.push((name, scenario));
    }
    Ok((out, notes))
}

/// Simulates two versions and prints what the change did.
pub fn behaviour(
    before: &Playbook,
    after: &Playbook,
    args: &BehaviourArgs,
    json: bool,
) -> Result<ExitCode> {
    let model = load_model(args.sim.model.as_deref(), &[before, after])?;
    let options = options(&args.sim)?;
    let (scenarios, notes) = scenarios(args.scenarios.as_deref())?;
    catch_interrupt();
    let progress = Progress::new(options.runs * 2);
    let result = playbook_whatif::behaviour(before, after, &model, &options, &CANCEL, &|done| {
        progress.tell(done)
    });
    progress.finish();
    let mut diff: BehaviourDiff = result.map_err(|e| match (&e, args.sim.model.as_deref()) {
        (SimError::Model(m), Some(model)) => anyhow::anyhow!("{model}: {m}"),
        _ => anyhow::Error::new(e),
    })?;
    for (name, scenario) in &scenarios {
        diff.scenarios.push(scenario_change(
            name,
            before,
            after,
            scenario,
            args.sim.seed,
        ));
    }
    diff.notes.extend(notes);
    // The notes quote a path: the diff is redacted again as a whole.
    diff.redact();
    if json {
        print_json(&diff)?;
    } else {
        print!("{}", diff.to_text());
    }
    Ok(exit(diff.partial))
}

/// `playbook diff --behaviour A B`.
pub fn behaviour_files(a: &str, b: &str, args: &BehaviourArgs, json: bool) -> Result<ExitCode> {
    let before = load_playbook(a)?;
    let after = load_playbook(b)?;
    behaviour(&before, &after, args, json)
}

/// A stored version's text as a playbook (`playbook db diff --behaviour`).
pub fn playbook_of(text: &str, what: &str) -> Result<Playbook> {
    let format = playbook_core::Format::sniff(text);
    let report = validate_source(text, format, &Options::default());
    report
        .playbook
        .ok_or_else(|| anyhow::anyhow!("{what} is not a valid playbook; it cannot be simulated"))
}
