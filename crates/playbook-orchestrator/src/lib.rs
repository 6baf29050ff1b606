//! The preview orchestrator of Playbook Studio: runs a playbook stage by
//! stage with simulated agents and enforces every role contract exactly as a
//! real run would.
//!
//! The design in one paragraph: [`engine::run`] takes a validated
//! [`playbook_core::Playbook`], a [`scenario::Scenario`] (the run input and
//! what each scripted agent does) and a set of [`engine::Ports`] — agent,
//! approver, role assigner, tools, clock and event sink. It does no IO of its
//! own. Time is virtual and every choice is seeded, so the same playbook,
//! scenario and seed give a byte-identical JSONL event log. Routing, gates and
//! validation come from `playbook-core`; this crate adds scheduling,
//! enforcement, envelopes, worklogs, the ledger and the audit log.
//!
//! ```
//! use playbook_orchestrator::{Approval, preview};
//!
//! let playbook = "schema_version: \"1.0.0\"\nid: demo\nname: Demo\nworkflow:\n  build:\n    roles:\n      - name: coder\n";
//! let run = preview(playbook, "", 7, Approval::Auto).unwrap();
//! assert_eq!(run.report.outcome, Some(playbook_orchestrator::event::Outcome::Passed));
//! assert!(run.jsonl.starts_with("{\"seq\":0,\"t_ms\":0,\"type\":\"run_started\""));
//! ```

pub mod agent;
pub mod audit;
pub mod bound;
pub mod clock;
pub mod code;
mod codec;
pub mod engine;
pub mod envelope;
pub mod event;
pub mod ledger;
pub mod prompt;
pub mod redact;
pub mod reference;
pub mod replay;
pub mod scenario;
pub mod size;
pub mod spill;
pub mod stop;
pub mod toolset;
pub mod worklog;

pub use code::ErrorCode;
pub use engine::{Ports, Prepared, RunOptions, RunReport, run, run_prepared};
pub use event::{Event, EventRecord, EventSink, Outcome};
pub use scenario::{Scenario, ScriptedAgent};

use agent::{ApprovalDecision, ApprovalRequest, Approver, AutoApprove, AutoDeny, SimulatedTools};
use clock::FixedClock;
use event::JsonlSink;
use scenario::{ScriptedApprover, ScriptedAssigner};

/// How approvals are answered in a preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// Approve everything.
    Auto,
    /// Deny everything.
    Deny,
    /// As the scenario's `approvals` section says (approve by default).
    Scenario,
}

/// A finished preview: the report and the JSONL event log.
#[derive(Debug, Clone)]
pub struct Preview {
    pub report: RunReport,
    pub jsonl: String,
}

/// Why a preview could not start at all.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PreviewError {
    /// The playbook text does not parse or is not structurally valid.
    #[error("the playbook is invalid: {}", .0.iter().map(|f| format!("{} {}: {}", f.code, f.path, f.message)).collect::<Vec<_>>().join("; "))]
    Playbook(Vec<playbook_core::Finding>),
    #[error(transparent)]
    Scenario(#[from] scenario::ScenarioError),
}

/// An approver chosen at run time.
pub enum AnyApprover<'s, X: Approver = AutoApprove> {
    Auto(AutoApprove),
    Deny(AutoDeny),
    Scenario(ScriptedApprover<'s>),
    /// Any other approver, e.g. a person at a terminal.
    Other(X),
}

impl<X: Approver> Approver for AnyApprover<'_, X> {
    async fn decide(&mut self, request: &ApprovalRequest<'_>) -> ApprovalDecision {
        match self {
            AnyApprover::Auto(a) => a.decide(request).await,
            AnyApprover::Deny(a) => a.decide(request).await,
            AnyApprover::Scenario(a) => a.decide(request).await,
            AnyApprover::Other(a) => a.decide(request).await,
        }
    }
}

/// Parses and validates a playbook text for running.
pub fn load_playbook(text: &str) -> Result<playbook_core::Playbook, PreviewError> {
    let format = playbook_core::Format::sniff(text);
    let report = playbook_core::validate_source(text, format, &playbook_core::Options::default());
    report
        .playbook
        .ok_or(PreviewError::Playbook(report.findings))
}

/// Runs a preview of playbook text with scenario text (YAML or JSON; empty
/// for the happy path), collecting the JSONL event log. A playbook with
/// validation errors is not run: the log then holds `run_refused`.
pub fn preview(
    playbook: &str,
    scenario: &str,
    seed: u64,
    approval: Approval,
) -> Result<Preview, PreviewError> {
    let playbook = load_playbook(playbook)?;
    let scenario = Scenario::parse(scenario)?;
    let mut sink = JsonlSink::new(Vec::new());
    let report = run_scenario(
        &playbook,
        &scenario,
        seed,
        approval.approver(&scenario),
        &mut sink,
    );
    let jsonl = String::from_utf8(sink.into_inner()).unwrap_or_default();
    Ok(Preview { report, jsonl })
}

impl Approval {
    /// The approver this choice stands for in a run of `scenario`.
    pub fn approver(self, scenario: &Scenario) -> AnyApprover<'_> {
        match self {
            Approval::Auto => AnyApprover::Auto(AutoApprove),
            Approval::Deny => AnyApprover::Deny(AutoDeny),
            Approval::Scenario => AnyApprover::Scenario(ScriptedApprover {
                script: scenario.approvals.as_ref(),
            }),
        }
    }
}

/// Runs a parsed playbook over a parsed scenario with the scripted agents,
/// answering approvals with `approver` (e.g. [`Approval::approver`], or a
/// person asked through the app) and sending events to `sink`: what every
/// preview (CLI text or JSONL, the app's live timeline) runs.
pub fn run_scenario<P: Approver, S: EventSink>(
    playbook: &playbook_core::Playbook,
    scenario: &Scenario,
    seed: u64,
    approver: P,
    sink: &mut S,
) -> RunReport {
    run_blocking(
        playbook,
        scenario,
        &RunOptions {
            seed,
            ..Default::default()
        },
        approver,
        sink,
    )
}

/// Runs a preview with the scripted agent, assigner and simulated tools on a
/// single-threaded tokio runtime, sending events to `sink`.
pub fn run_blocking<P: Approver, S: EventSink>(
    playbook: &playbook_core::Playbook,
    scenario: &Scenario,
    options: &RunOptions,
    approver: P,
    sink: &mut S,
) -> RunReport {
    let prepared = Prepared::new(playbook, scenario, &options.validation);
    run_prepared_blocking(&prepared, options, approver, sink)
}

/// [`run_blocking`] of a [`Prepared`] playbook and scenario: many previews
/// of one playbook pay for its validation and set-up once.
pub fn run_prepared_blocking<P: Approver, S: EventSink>(
    prepared: &Prepared<'_>,
    options: &RunOptions,
    mut approver: P,
    sink: &mut S,
) -> RunReport {
    let scenario = prepared.scenario();
    let mut agent = ScriptedAgent::new(scenario, prepared.playbook(), options.seed);
    let mut assigner = ScriptedAssigner {
        script: scenario.role_assignment.as_ref(),
    };
    let mut tools = SimulatedTools;
    let clock = FixedClock::default();
    let ports = Ports {
        agent: &mut agent,
        approver: &mut approver,
        assigner: &mut assigner,
        tools: &mut tools,
        clock: &clock,
        sink,
    };
    // A current-thread runtime without IO or time drivers: the engine waits
    // only on its ports. Building one fails only when the process cannot
    // create it at all; then nothing runs and the report says so (no outcome).
    match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime.block_on(run_prepared(prepared, options, ports)),
        Err(_) => RunReport::default(),
    }
}
