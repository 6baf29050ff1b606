//! Scenarios in the app: live checking of scenario text against the open
//! playbook, the form's scenario rendered as YAML, and each library
//! playbook's own scenarios (kept by `playbook-store`).

use playbook_orchestrator::Scenario;
use playbook_orchestrator::scenario::check::{ScenarioCheck, check_text};
use playbook_store::{PlaybookId, StoredScenario};
use serde_json::Value;

use crate::error::{AppError, ErrorCode, Result};
use crate::library::Library;

/// Checks scenario text; with a structurally valid playbook document, its
/// `roles` keys too (a document that is not yet a playbook skips them).
pub fn check(document: &Value, text: &str) -> ScenarioCheck {
    let playbook = playbook_core::document::from_value(document.clone()).ok();
    check_text(text, playbook.as_ref())
}

/// The form's scenario as YAML text for the Source tab. The value must be a
/// scenario (the form only builds those); anything else is refused with the
/// reason rather than written out.
pub fn render(scenario: Value) -> Result<String> {
    let parsed: Scenario = serde_json::from_value(scenario).map_err(|e| {
        AppError::new(
            ErrorCode::InvalidInput,
            format!("the form's scenario is not a scenario: {e}"),
        )
    })?;
    yaml_serde::to_string(&parsed).map_err(|e| {
        AppError::new(
            ErrorCode::Internal,
            format!("the scenario cannot be written as YAML: {e}"),
        )
    })
}

fn id(text: &str) -> Result<PlaybookId> {
    Ok(PlaybookId::new(text)?)
}

impl Library {
    /// The playbook's own scenarios, by name.
    pub fn scenarios(&self, playbook: &str) -> Result<Vec<StoredScenario>> {
        let pid = id(playbook)?;
        self.with(|s| Ok(s.scenarios(&pid)?))
    }

    /// Keeps a scenario with the playbook. Text that is not a scenario is
    /// refused with its first problem; keys the playbook lacks are allowed
    /// (the preview maps them), so a scenario can be saved mid-adaptation.
    pub fn save_scenario(&self, playbook: &str, name: &str, text: &str) -> Result<StoredScenario> {
        let pid = id(playbook)?;
        let checked = check_text(text, None);
        if let Some(first) = checked.problems.first() {
            let at = first
                .location
                .map(|l| format!(" (line {}, column {})", l.line, l.column))
                .unwrap_or_default();
            return Err(AppError::new(
                ErrorCode::InvalidInput,
                format!(
                    "the scenario is not saved: {}{at}; fix the problems shown in the editor",
                    first.message
                ),
            ));
        }
        self.with(|s| Ok(s.save_scenario(&pid, name, text)?))
    }

    /// Removes one of the playbook's scenarios; false when there was none.
    pub fn delete_scenario(&self, playbook: &str, name: &str) -> Result<bool> {
        let pid = id(playbook)?;
        self.with(|s| Ok(s.delete_scenario(&pid, name)?))
    }
}

/// The scenario a preview runs: its own text when the request carries one
/// (a library scenario, or one open in the editor), else the shipped one it
/// names; then re-keyed by the request's mapping (the mapping step) onto
/// the roles of `playbook`.
pub fn for_preview(
    request: &crate::api::PreviewRequest,
    playbook: &playbook_core::Playbook,
) -> Result<Scenario> {
    let mut scenario = match &request.scenario_source {
        Some(text) => Scenario::parse(text).map_err(|e| {
            AppError::new(
                ErrorCode::InvalidInput,
                format!("the scenario {} is invalid: {e}", request.scenario),
            )
        })?,
        None => crate::preview::shipped(&request.scenario)?,
    };
    if let Some(mapping) = request.mapping.as_deref().filter(|m| !m.is_empty()) {
        scenario.map_roles(mapping, playbook).map_err(|e| {
            AppError::new(
                ErrorCode::InvalidInput,
                format!("the role mapping does not fit the scenario: {}", e.message),
            )
        })?;
    }
    Ok(scenario)
}

#[tauri::command(async)]
pub fn scenario_check(document: Value, text: String) -> ScenarioCheck {
    check(&document, &text)
}

#[tauri::command(async)]
pub fn scenario_render(scenario: Value) -> Result<String> {
    render(scenario)
}

#[tauri::command(async)]
pub fn scenario_list(
    library: tauri::State<'_, Library>,
    id: String,
) -> Result<Vec<StoredScenario>> {
    library.scenarios(&id)
}

#[tauri::command(async)]
pub fn scenario_save(
    library: tauri::State<'_, Library>,
    id: String,
    name: String,
    text: String,
) -> Result<StoredScenario> {
    library.save_scenario(&id, &name, &text)
}

#[tauri::command(async)]
pub fn scenario_delete(
    library: tauri::State<'_, Library>,
    id: String,
    name: String,
) -> Result<bool> {
    library.delete_scenario(&id, &name)
}
