//! The What-if panel's backend: a simulation of the open document on its
//! own thread, with progress events (`whatif-progress`) and cancel. A new
//! simulation cancels the one before it, so a slider dragged quickly never
//! queues work: only the last position is computed to the end.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tauri::{AppHandle, Emitter, State};

use crate::error::{AppError, ErrorCode, Result};
use crate::workbench;

/// Most runs the panel may ask for; the CLI goes up to a million.
pub const MAX_PANEL_RUNS: u64 = 100_000;

/// The cancel flag of the simulation in progress.
#[derive(Default)]
pub struct WhatIf {
    current: Mutex<Arc<AtomicBool>>,
}

impl WhatIf {
    /// Cancels the simulation in progress and returns the flag of the next.
    fn start(&self) -> Arc<AtomicBool> {
        let fresh = Arc::new(AtomicBool::new(false));
        if let Ok(mut current) = self.current.lock() {
            current.store(true, Ordering::SeqCst);
            *current = fresh.clone();
        }
        fresh
    }

    fn cancel(&self) {
        if let Ok(current) = self.current.lock() {
            current.store(true, Ordering::SeqCst);
        }
    }
}

/// Simulates `document` under the model text (YAML or JSON; empty for the
/// built-in defaults): the report as JSON (`partial` when cancelled).
#[tauri::command]
pub async fn whatif_run(
    app: AppHandle,
    state: State<'_, WhatIf>,
    document: Value,
    model: String,
    runs: u64,
    seed: u64,
) -> Result<Value> {
    check_runs(runs)?;
    let playbook = workbench::runnable(&document, "simulating")?;
    let model = read_model(&model, &[&playbook])?;
    let cancel = state.start();
    let worker = std::thread::spawn(move || {
        let options = playbook_whatif::Options {
            runs,
            seed,
            // One worker per core: a slider move's runs are split across
            // both cores of the reference machine.
            threads: 0,
            ..Default::default()
        };
        playbook_whatif::whatif(&playbook, &model, &options, &cancel, &|done| {
            let _ = app.emit("whatif-progress", json!({ "done": done, "total": runs }));
        })
    });
    finished(worker).await
}

/// Cancels the simulation in progress; its report comes back partial.
#[tauri::command]
pub fn whatif_cancel(state: State<'_, WhatIf>) {
    state.cancel();
}

/// The behavioural diff of two stored versions of a library playbook: the
/// same model and seeds on both, and each shipped scenario before and after.
#[tauri::command]
#[allow(clippy::too_many_arguments)]
pub async fn whatif_compare_versions(
    app: AppHandle,
    library: State<'_, crate::library::Library>,
    state: State<'_, WhatIf>,
    id: String,
    from: u32,
    to: u32,
    model: String,
    runs: u64,
    seed: u64,
) -> Result<Value> {
    check_runs(runs)?;
    let comparison = library.compare(&id, from, to)?;
    let load = |text: &str, n: u32| {
        playbook_orchestrator::load_playbook(text).map_err(|e| {
            AppError::new(
                ErrorCode::Blocked,
                format!("version {n} cannot be simulated: {e}"),
            )
        })
    };
    let before = load(&comparison.from_text, from)?;
    let after = load(&comparison.to_text, to)?;
    let model = read_model(&model, &[&before, &after])?;
    let scenarios: Vec<(String, playbook_orchestrator::Scenario)> = crate::preview::scenarios()
        .into_iter()
        .filter_map(|s| {
            playbook_orchestrator::Scenario::parse(&s.source)
                .ok()
                .map(|parsed| (s.id, parsed))
        })
        .collect();
    let cancel = state.start();
    let worker = std::thread::spawn(move || {
        let options = playbook_whatif::Options {
            runs,
            seed,
            ..Default::default()
        };
        let total = runs * 2;
        let mut diff =
            playbook_whatif::behaviour(&before, &after, &model, &options, &cancel, &|done| {
                let _ = app.emit("whatif-progress", json!({ "done": done, "total": total }));
            })?;
        for (name, scenario) in &scenarios {
            diff.scenarios.push(playbook_whatif::diff::scenario_change(
                name, &before, &after, scenario, seed,
            ));
        }
        Ok::<_, playbook_whatif::SimError>(diff)
    });
    finished(worker).await
}

/// The model text read against the playbooks it simulates, as `playbook
/// whatif` reads it: a role key no playbook has, or outcomes that sum above
/// 1 for a role, are refused with the pointer, line and column of the
/// model entry, not found later by the simulation without a place.
fn read_model(
    text: &str,
    playbooks: &[&playbook_core::Playbook],
) -> Result<playbook_whatif::SimModel> {
    playbook_whatif::SimModel::parse_for(text, playbooks)
        .map_err(|e| AppError::new(ErrorCode::InvalidInput, format!("the what-if model: {e}")))
}

/// The panel's bound on the number of simulated runs.
fn check_runs(runs: u64) -> Result<()> {
    if (1..=MAX_PANEL_RUNS).contains(&runs) {
        return Ok(());
    }
    Err(AppError::new(
        ErrorCode::InvalidInput,
        format!("runs is {runs}; the panel simulates 1 to {MAX_PANEL_RUNS} runs"),
    ))
}

/// Waits for a simulation thread off the async runtime; its result as JSON,
/// or why there is none (the thread panicked, or the simulation refused).
async fn finished<T: serde::Serialize + Send + 'static>(
    worker: std::thread::JoinHandle<std::result::Result<T, playbook_whatif::SimError>>,
) -> Result<Value> {
    let done = tauri::async_runtime::spawn_blocking(move || worker.join())
        .await
        .map_err(|e| AppError::new(ErrorCode::Internal, e.to_string()))?
        .map_err(|_| AppError::new(ErrorCode::Engine, "the simulation stopped unexpectedly"))?
        .map_err(|e| AppError::new(ErrorCode::InvalidInput, e.to_string()))?;
    serde_json::to_value(&done).map_err(|e| AppError::new(ErrorCode::Internal, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_is_read_against_the_playbook_with_the_place_of_its_error() {
        let playbook =
            playbook_orchestrator::load_playbook(playbook_orchestrator::reference::PLAYBOOK)
                .expect("the reference playbook is valid");
        let unknown = read_model("roles:\n  nobody:\n    pass: 0.5\n", &[&playbook])
            .expect_err("no role is called nobody");
        assert!(unknown.message.contains("line 2"), "{}", unknown.message);
        let over = read_model(
            "roles:\n  worker:\n    pass: 0.9\n    error: 0.5\n",
            &[&playbook],
        )
        .expect_err("0.9 + 0.5 is above 1");
        assert!(over.message.contains("/roles/worker"), "{}", over.message);
        assert!(read_model("roles:\n  worker:\n    pass: 0.9\n", &[&playbook]).is_ok());
    }

    #[test]
    fn a_new_simulation_cancels_the_running_one_and_only_it() {
        let state = WhatIf::default();
        let first = state.start();
        assert!(!first.load(Ordering::SeqCst));
        // A slider move while the first runs: the first stops, the new runs.
        let second = state.start();
        assert!(first.load(Ordering::SeqCst));
        assert!(!second.load(Ordering::SeqCst));
        state.cancel();
        assert!(second.load(Ordering::SeqCst));
    }
}
