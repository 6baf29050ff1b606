//! Preview runs through `playbook-orchestrator`: the scenarios shipped in
//! `playbooks/scenarios/`, and a run whose events are handed to a callback
//! as they happen (the command streams them to the UI as Tauri events) and
//! recorded in the library's runs, with approvals asked of the user.

use playbook_core::Playbook;
use playbook_core::flow::Flow;
use playbook_orchestrator::{Approval, EventRecord, Scenario, run_scenario};
use serde_json::{Map, Value};

use crate::api::{
    ApprovalMode, ApprovalPrompt, PreviewRequest, PreviewResult, RolePrompt, ScenarioInfo,
    TaskWorklog,
};
use crate::approvals::AskTheUser;
use crate::error::{AppError, ErrorCode, Result};
use crate::library::Library;
use crate::recording::{Live, Recorder};
use crate::workbench;

include!(concat!(env!("OUT_DIR"), "/scenarios.rs"));

/// The scenarios embedded at build time, in file-name order.
pub fn scenarios() -> Vec<ScenarioInfo> {
    SCENARIOS
        .iter()
        .map(|(id, text)| {
            let parsed = Scenario::parse(text).ok();
            ScenarioInfo {
                id: id.to_string(),
                description: parsed
                    .as_ref()
                    .and_then(|s| s.description.clone())
                    .unwrap_or_default(),
                source: text.to_string(),
            }
        })
        .collect()
}

/// Finds a shipped scenario by id.
pub(crate) fn shipped(id: &str) -> Result<Scenario> {
    let (_, text) = SCENARIOS
        .iter()
        .find(|(name, _)| *name == id)
        .ok_or_else(|| {
            AppError::new(
                ErrorCode::InvalidInput,
                format!("there is no scenario {id:?}; choose one of the list"),
            )
        })?;
    Scenario::parse(text).map_err(|e| {
        AppError::new(
            ErrorCode::InvalidInput,
            format!("the scenario {id} is invalid: {e}"),
        )
    })
}

/// Runs `document` with a shipped scenario. A playbook with errors is not
/// run: the error lists them (`blocked`), as the Run button says. With a
/// `library` and the request's `playbook`, the run is recorded there.
/// Approval requests go to `ask` when the request says so.
pub fn run(
    document: Value,
    request: &PreviewRequest,
    library: Option<&Library>,
    ask: Option<AskTheUser<impl FnMut(&ApprovalPrompt)>>,
    on_event: impl FnMut(&EventRecord),
) -> Result<PreviewResult> {
    let playbook = workbench::runnable(&document, "running a preview")?;
    let scenario = crate::scenarios::for_preview(request, &playbook)?;
    let mut record_error = None;
    let recorder = match (library, &request.playbook) {
        (Some(library), Some(id)) => {
            match library.start_run(id, request.base, &playbook, &request.scenario, request.seed) {
                Ok(run) => Some(Recorder::new(library, run)),
                Err(e) => {
                    record_error = Some(e);
                    None
                }
            }
        }
        _ => None,
    };
    let run_id = recorder.as_ref().map(|r| r.run);
    let mut sink = Live::new(on_event, recorder);
    let seed = request.seed;
    let scripted = match request.approvals {
        ApprovalMode::Ask => None,
        ApprovalMode::Scenario => Some(Approval::Scenario),
        ApprovalMode::Approve => Some(Approval::Auto),
        ApprovalMode::Deny => Some(Approval::Deny),
    };
    let report = match (scripted, ask) {
        (None, Some(ask)) => run_scenario(&playbook, &scenario, seed, ask, &mut sink),
        // Asking with nobody to ask (no window) follows the scenario.
        (scripted, _) => {
            let approver = scripted.unwrap_or(Approval::Scenario).approver(&scenario);
            run_scenario(&playbook, &scenario, seed, approver, &mut sink)
        }
    };
    if let Some(recorder) = sink.recorder {
        let summary = serde_json::json!({
            "outcome": report.outcome,
            "events": report.events,
            "approvals": request.approvals,
        });
        record_error = recorder.finish(report.outcome, &summary);
    }
    Ok(PreviewResult {
        outcome: report.outcome,
        events: report.events,
        bounds: report.bounds,
        worklogs: report
            .worklogs
            .tasks()
            .map(|(task, entries)| TaskWorklog {
                task_id: task.to_string(),
                entries: entries.to_vec(),
            })
            .collect(),
        audit: report.audit,
        prompts: prompts(&playbook),
        run: run_id.filter(|_| record_error.is_none()).map(|r| r.0),
        record_error: record_error.map(|e| e.message),
    })
}

/// The contract block each role's system prompt gets, as a real run renders it.
pub fn prompts(playbook: &Playbook) -> Vec<RolePrompt> {
    let flow = Flow::new(playbook);
    flow.roles
        .iter()
        .map(|r| RolePrompt {
            stage: r.stage.to_string(),
            role: r.role.name.clone(),
            prompt: playbook_orchestrator::prompt::render(playbook, r, &Map::new()),
        })
        .collect()
}
