//! Preview runs through `playbook-orchestrator`: the scenarios shipped in
//! `playbooks/scenarios/`, and a run whose events are handed to a callback
//! as they happen (the command streams them to the UI as Tauri events).

use playbook_core::flow::Flow;
use playbook_core::{Format, Playbook};
use playbook_orchestrator::{Approval, EventRecord, EventSink, Scenario, run_scenario};
use serde_json::{Map, Value};

use crate::api::{PreviewResult, RolePrompt, ScenarioInfo, TaskWorklog};
use crate::error::{AppError, ErrorCode, Result};
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

struct Forward<F: FnMut(&EventRecord)>(F);

impl<F: FnMut(&EventRecord)> EventSink for Forward<F> {
    fn emit(&mut self, record: &EventRecord) {
        (self.0)(record)
    }
}

/// Runs `document` with `scenario` (YAML text). A playbook with errors is
/// not run: the error lists them (`blocked`), as the Run button says.
pub fn run(
    document: Value,
    scenario: &str,
    seed: u64,
    on_event: impl FnMut(&EventRecord),
) -> Result<PreviewResult> {
    let text = workbench::render_value(&document, Format::Yaml)?;
    let checked = workbench::check_source(&text, Format::Yaml);
    let Some(playbook) = checked.playbook.filter(|_| checked.allow) else {
        let errors: Vec<_> = checked.findings.iter().filter(|f| f.is_error()).collect();
        return Err(AppError::new(
            ErrorCode::Blocked,
            format!(
                "the playbook has {} error(s); fix them before running a preview",
                errors.len()
            ),
        )
        .with_details(serde_json::json!({ "findings": errors })));
    };
    let scenario = Scenario::parse(scenario).map_err(|e| {
        AppError::new(
            ErrorCode::InvalidInput,
            format!("the scenario is invalid: {e}"),
        )
    })?;
    let mut sink = Forward(on_event);
    let report = run_scenario(&playbook, &scenario, seed, Approval::Scenario, &mut sink);
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
