//! Request and response types of the commands, converted from the
//! libraries' types at the boundary. TypeScript declarations are generated
//! from these (ts-rs) into `ui/src/generated/`.

use playbook_core::flow::{EdgeKind, Flow, OnPass};
use playbook_core::{Finding, Format, Playbook, RoleMode};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A playbook exported for Claude Code into a project folder.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ExportedClaudeCode {
    /// The project folder chosen.
    pub dir: String,
    /// The files written, relative to it.
    pub files: Vec<String>,
    /// What a person should know (tools with no Claude Code counterpart...).
    pub notes: Vec<String>,
}

/// A legacy (agenterm) document upgraded to 1.0.0, for the person to
/// confirm before it replaces the open one.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Migrated {
    /// The 1.0.0 document.
    pub document: Playbook,
    /// What changes, one sentence per change of the semantic diff.
    pub changes: Vec<String>,
    /// The choices made, each to confirm (`path` points into `document`).
    pub choices: Vec<Finding>,
    /// Errors of the upgraded document: real mistakes the legacy reading
    /// only warned about.
    pub errors: Vec<Finding>,
}

/// A document after validation: its canonical text, every finding and,
/// when it is structurally valid, the typed playbook and its flow graph.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Checked {
    /// The document as text in `format` (what the Source tab shows); empty
    /// when the caller did not ask for it.
    pub source: String,
    pub format: Format,
    /// Every finding, errors first; `path` is a JSON pointer into the document.
    pub findings: Vec<Finding>,
    /// False when any finding is an error: Run and "export as valid" are blocked.
    pub allow: bool,
    /// Whether the document parses and has the right shape (types, required fields).
    pub structurally_valid: bool,
    /// The typed playbook, for text from the Source tab or a file; absent
    /// when the text does not parse or has the wrong shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub playbook: Option<Playbook>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub flow: Option<FlowView>,
    /// Whether `source` kept the author's comments and layout; absent when
    /// there was no author's text to keep.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub comments_kept: Option<bool>,
}

/// The form's document as a check sends it: whole, or as one change to the
/// revision the previous check sent, so a keystroke in a large playbook
/// moves a few bytes instead of the whole document.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum DocumentChange {
    Whole {
        #[ts(type = "number")]
        revision: u64,
        #[ts(as = "Playbook")]
        document: serde_json::Value,
    },
    /// Revision `revision` is revision `base` with the value at JSON pointer
    /// `pointer` (never the root) replaced by `value`, or removed when
    /// `value` is absent.
    Patch {
        #[ts(type = "number")]
        base: u64,
        #[ts(type = "number")]
        revision: u64,
        pointer: String,
        #[serde(default)]
        #[ts(optional, type = "unknown")]
        value: Option<serde_json::Value>,
    },
}

/// What a check of the form's document sends back besides the findings:
/// only what the view in front of the user shows, since it runs on every
/// keystroke.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Include {
    /// The Source tab's text, with line and column on each finding.
    pub source: bool,
    /// The flow graph.
    pub flow: bool,
}

/// The flow graph as the UI draws it: stages as lanes, roles as nodes.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct FlowView {
    pub lanes: Vec<Lane>,
    pub nodes: Vec<FlowNode>,
    pub edges: Vec<FlowEdge>,
    pub loops: Vec<FlowLoop>,
}

#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Lane {
    pub stage: String,
    pub enabled: bool,
    /// JSON pointer of the stage, e.g. `/workflow/build`.
    pub pointer: String,
}

#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct FlowNode {
    pub role: String,
    pub stage: String,
    pub stage_index: u32,
    pub index: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mode: Option<RoleMode>,
    /// JSON pointer of the role, e.g. `/workflow/build/roles/1`.
    pub pointer: String,
    pub reachable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_iterations: Option<u32>,
    /// Where the task goes when the role's gate passes, in words (from the
    /// core's `Flow::routes`, the one definition of routing).
    pub on_pass: String,
    /// Where the task goes when the role's gate fails, in words.
    pub on_fail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum FlowEdgeKind {
    /// Named in `handoff_to`.
    Handoff,
    /// Implied: the next role of the stage.
    Sequence,
    /// The task leaves the stage after this role and enters the next
    /// enabled stage at its entry role.
    Stage,
}

#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct FlowEdge {
    /// Index into `nodes`.
    pub from: u32,
    pub to: u32,
    pub kind: FlowEdgeKind,
    /// Index into `loops` when the edge closes or belongs to a loop.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub in_loop: Option<u32>,
}

/// A set of roles a task can cycle through.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct FlowLoop {
    /// Indices into `nodes`.
    pub roles: Vec<u32>,
    /// The smallest `retry_policy.max_iterations` among the roles; absent means unbounded (PB302).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub bound: Option<u32>,
}

/// An example playbook shipped with the app.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Example {
    pub id: String,
    pub name: String,
    pub description: String,
    pub source: String,
}

impl FlowView {
    pub fn new(playbook: &Playbook) -> FlowView {
        let flow = Flow::new(playbook);
        let reachable = flow.reached_by_handoff();
        let routes = flow.routes();
        let stage_names: Vec<&str> = playbook.stages().map(|(name, _)| name).collect();
        let lanes = playbook
            .stages()
            .map(|(name, stage)| Lane {
                stage: name.to_string(),
                enabled: stage.is_enabled(),
                pointer: format!("/workflow/{}", playbook_core::finding::escape_pointer(name)),
            })
            .collect();
        let nodes: Vec<FlowNode> = flow
            .roles
            .iter()
            .zip(&reachable)
            .enumerate()
            .map(|(i, (r, &reachable))| {
                let (on_pass, on_fail) = flow.route_words(&routes, &stage_names, i);
                FlowNode {
                    role: r.role.name.clone(),
                    stage: r.stage.to_string(),
                    stage_index: r.stage_index as u32,
                    index: r.index as u32,
                    mode: r.role.mode,
                    pointer: r.pointer(),
                    reachable,
                    max_iterations: r.role.max_iterations(),
                    on_pass,
                    on_fail,
                }
            })
            .collect();
        let loops: Vec<FlowLoop> = flow
            .loops()
            .into_iter()
            .map(|roles| FlowLoop {
                bound: roles.iter().filter_map(|&i| nodes[i].max_iterations).min(),
                roles: roles.into_iter().map(|i| i as u32).collect(),
            })
            .collect();
        let loop_of = |i: usize, j: usize| {
            loops
                .iter()
                .position(|l| l.roles.contains(&(i as u32)) && l.roles.contains(&(j as u32)))
                .map(|k| k as u32)
        };
        let mut edges = Vec::new();
        for i in 0..nodes.len() {
            for (j, kind) in flow.successors(i) {
                edges.push(FlowEdge {
                    from: i as u32,
                    to: j as u32,
                    kind: match kind {
                        EdgeKind::Handoff => FlowEdgeKind::Handoff,
                        EdgeKind::Sequence => FlowEdgeKind::Sequence,
                    },
                    in_loop: loop_of(i, j),
                });
            }
        }
        // Between stages: each role a passing task leaves the stage from, to
        // the entry role of the next enabled stage.
        for (i, route) in routes.iter().enumerate() {
            if let OnPass::LeaveStage {
                next_stage: Some(s),
            } = route.on_pass
                && flow.is_stage_enabled(flow.roles[i].stage_index)
                && let Some(entry) = flow.entry_of_stage(s)
                && !edges
                    .iter()
                    .any(|e| e.from == i as u32 && e.to == entry as u32)
            {
                edges.push(FlowEdge {
                    from: i as u32,
                    to: entry as u32,
                    kind: FlowEdgeKind::Stage,
                    in_loop: None,
                });
            }
        }
        edges.sort_by_key(|e| (e.from, e.to));
        FlowView {
            lanes,
            nodes,
            edges,
            loops,
        }
    }
}

/// What the About line and the e2e tests read: version and data location.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct AppInfo {
    pub version: String,
    /// The library database file, when the store is in use.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub database: Option<String>,
    /// Milliseconds since the app's process started (Linux), for the
    /// start-up measurement of docs/benchmarks.md.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub uptime_ms: Option<f64>,
}

impl AppInfo {
    pub fn current(database: &std::path::Path) -> AppInfo {
        AppInfo {
            version: env!("CARGO_PKG_VERSION").to_string(),
            database: Some(database.display().to_string()),
            uptime_ms: process_uptime_ms(),
        }
    }
}

/// Milliseconds since this process started, from the kernel's start time of
/// the process (so the dynamic loader and GTK's start are counted), with
/// the 10 ms resolution of `/proc`.
fn process_uptime_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which may hold spaces: state is field 3,
    // start time (clock ticks since boot, USER_HZ = 100) is field 22.
    let after_name = stat.get(stat.rfind(')')? + 2..)?;
    let started: f64 = after_name.split_whitespace().nth(19)?.parse().ok()?;
    let uptime: f64 = std::fs::read_to_string("/proc/uptime")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some((uptime - started / 100.0) * 1000.0)
}

/// The open document written as text (see `authored.rs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Rendered {
    pub text: String,
    pub format: Format,
    /// False when the author's comments and layout could not be kept and
    /// the text was rendered afresh (the page says so).
    pub comments_kept: bool,
}

/// What Save version did, and the text the version now reads as: the
/// author's text for the next edits.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct SavedDocument {
    pub saved: playbook_store::Saved,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub source: Option<playbook_store::Authored>,
    pub comments_kept: bool,
    /// The content equals the latest version but the text does not (only
    /// comments or layout changed): no version was added, and the text is
    /// kept as the draft.
    pub draft_kept: bool,
}

/// An autosaved draft, and whether it kept the author's comments.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct DraftSaved {
    pub draft: playbook_store::Draft,
    pub comments_kept: bool,
}

/// A library playbook opened in the editor.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Opened {
    pub summary: playbook_store::PlaybookSummary,
    /// The version the editor starts from; saving names it (optimistic concurrency).
    pub base: u32,
    /// The latest version as a document.
    #[ts(as = "Playbook")]
    pub document: serde_json::Value,
    /// Unsaved edits autosaved earlier, when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, as = "Option<Playbook>")]
    pub draft: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub draft_updated_at: Option<String>,
    /// The text the shown document (the draft, else the version) was
    /// written as, comments included; the editor rewrites it on every save.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub source: Option<playbook_store::Authored>,
    /// The newest draft when its text does not read as a playbook (typed in
    /// the Source tab and autosaved as it was, or a save refused elsewhere):
    /// the editor opens the Source tab on it, over `document`, so it can be
    /// fixed. The editor holds it: the next autosave replaces it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub broken_draft: Option<playbook_store::Authored>,
}

/// What "open this example" did: opened the library's unchanged copy of
/// it, or made a new copy (the first, or one asked for explicitly).
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ExampleOpened {
    pub playbook: playbook_store::PlaybookId,
    pub created: bool,
}

/// One stored version of a library playbook, as a document (History's
/// "Preview this version").
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct VersionDocument {
    pub info: playbook_store::VersionInfo,
    #[ts(as = "Playbook")]
    pub document: serde_json::Value,
}

/// Two versions compared: what changed in domain terms, and both texts.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Comparison {
    pub diff: playbook_core::diff::Diff,
    pub from_text: String,
    pub to_text: String,
}

/// A preview scenario shipped with the app.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ScenarioInfo {
    pub id: String,
    pub description: String,
    pub source: String,
}

/// The worklog of one task of a preview run.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct TaskWorklog {
    pub task_id: String,
    pub entries: Vec<playbook_orchestrator::envelope::WorklogEntry>,
}

/// The rendered contract prompt of one role.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct RolePrompt {
    pub stage: String,
    pub role: String,
    pub prompt: String,
}

/// The end of a preview run; its events were streamed as `preview-event`.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct PreviewResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub outcome: Option<playbook_orchestrator::Outcome>,
    #[ts(type = "number")]
    pub events: u64,
    /// Worst-case agent calls per stage.
    pub bounds: Vec<playbook_orchestrator::bound::StageBound>,
    pub worklogs: Vec<TaskWorklog>,
    pub audit: playbook_orchestrator::audit::AuditLog,
    pub prompts: Vec<RolePrompt>,
    /// The library's record of this run, when it was recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub run: Option<i64>,
    /// Why the run could not be recorded (the run itself went on).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub record_error: Option<String>,
}

/// What to preview: a shipped scenario, a seed, how approvals are answered
/// and, to record the run, the library playbook and the version the edits
/// started from.
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(export)]
pub struct PreviewRequest {
    /// The id of a shipped scenario (`preview_scenarios`), or the name of
    /// the scenario in `scenario_source`.
    pub scenario: String,
    #[ts(type = "number")]
    pub seed: u64,
    pub approvals: ApprovalMode,
    #[serde(default)]
    #[ts(optional)]
    pub playbook: Option<String>,
    #[serde(default)]
    #[ts(optional)]
    pub base: Option<u32>,
    /// The scenario's text, for one that is not shipped (the playbook's own,
    /// or one open in the editor); `scenario` is then its name.
    #[serde(default)]
    #[ts(optional)]
    pub scenario_source: Option<String>,
    /// The mapping step's answers: the scenario's role `from` plays `to`.
    #[serde(default)]
    #[ts(optional)]
    pub mapping: Option<Vec<playbook_orchestrator::scenario::RoleMapping>>,
}

/// How a preview run answers approval requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ApprovalMode {
    /// Each request opens a dialog and the run waits for the answer.
    Ask,
    /// As the scenario's `approvals` section says.
    Scenario,
    /// Approve every request.
    Approve,
    /// Deny every request.
    Deny,
}

/// An approval request shown to the person running a preview (the
/// `approval-request` event); answered with `preview_answer`.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ApprovalPrompt {
    #[ts(type = "number")]
    pub id: u64,
    pub task_id: String,
    pub stage: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub role: Option<String>,
    pub subject: playbook_orchestrator::agent::ApprovalSubject,
}

/// A role template opened in the template editor; a team template names
/// the version it is, which a save must start from.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct TemplateOpened {
    pub name: String,
    pub source: playbook_store::TemplateSource,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub version: Option<playbook_store::VersionInfo>,
    pub role: playbook_core::Role,
}

/// A role template after checking: the role's findings, with JSON pointers
/// into the role (`""` is the role itself).
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct TemplateChecked {
    pub findings: Vec<Finding>,
    /// False when any finding is an error: the template cannot be saved as valid.
    pub allow: bool,
}

mod policies;
mod run;
mod source;
pub use policies::{BuiltinPolicyInfo, builtin_policies};
pub use run::{
    AgentsFileChoice, BranchDiff, RealRunRequest, RealRunResult, RepoChoice, TaskBranchView,
};
pub use source::{SourceCompletion, SourceCompletionKind, SourceHover, SourcePosition};
