//! The commands the UI invokes: each is one call into a library, with its
//! error converted to [`AppError`] at the boundary.
//!
//! Every command is `async` for Tauri: it runs on the async runtime's
//! threads, never on the main thread, so a database write (fsync) or the
//! validation of a large playbook never stalls the window's event loop.

use playbook_core::{Format, Role, RoleMode};
use serde_json::Value;

use playbook_orchestrator::EventRecord;
use playbook_store::{
    Authored, Imported, PlaybookSummary, Run, RunId, Saved, TemplateSaved, TemplateSummary,
    VersionInfo,
};
use tauri::{AppHandle, Emitter, Manager, State};
use tauri_plugin_dialog::{DialogExt, FilePath};

use crate::api::{
    AgentsFileChoice, ApprovalPrompt, BranchDiff, Checked, Comparison, DocumentChange, DraftSaved,
    Example, Include, Opened, PreviewRequest, PreviewResult, RealRunRequest, RealRunResult,
    Rendered, RepoChoice, SavedDocument, ScenarioInfo, SourceCompletion, SourceHover,
    SourcePosition, TemplateChecked, TemplateOpened,
};
use crate::approvals::{AskTheUser, Pending};
use crate::error::{AppError, ErrorCode, Result};
use crate::grants::{Access, Grants};
use crate::library::Library;
use crate::realrun::{self, Runs};
use crate::workbench::{LastChecked, SourceSession};
use crate::{preview, workbench};

/// The quick fixes of one finding of the open document, best first.
#[tauri::command(async)]
pub fn quick_fixes(
    document: Value,
    finding: playbook_core::Finding,
) -> Vec<playbook_core::fix::Fix> {
    workbench::quick_fixes(&document, &finding)
}

/// The open document with one quick fix applied (the page records it as one
/// undoable edit).
#[tauri::command(async)]
pub fn apply_fix(document: Value, fix: playbook_core::fix::Fix) -> Result<Value> {
    workbench::apply_fix(document, &fix)
}

/// The finding codes that have a quick fix.
#[tauri::command]
pub fn fixable_codes() -> Vec<playbook_core::Code> {
    workbench::fixable_codes()
}

#[tauri::command(async)]
pub fn check_document(
    last: State<'_, LastChecked>,
    change: DocumentChange,
    format: Format,
    include: Include,
    source: Option<Authored>,
) -> Result<Checked> {
    last.check(change, |document| {
        workbench::check_document_in(document, format, include, source.as_ref())
    })?
}

#[tauri::command(async)]
pub fn check_source(
    session: State<'_, SourceSession>,
    text: String,
    format: Format,
    include: Include,
) -> Checked {
    session.check(&text, format, include)
}

/// The completions at a position of the Source tab's text: the language
/// server's (field names, enum values, role names, policy keys).
#[tauri::command(async)]
pub fn source_completions(
    text: String,
    format: Format,
    position: SourcePosition,
) -> Vec<SourceCompletion> {
    playbook_lsp::embedded::completions(&text, format, position.into())
        .into_iter()
        .map(SourceCompletion::from)
        .collect()
}

/// The schema's documentation of the field at a position of the Source
/// tab's text (the language server's hover, without the findings).
#[tauri::command(async)]
pub fn source_hover(text: String, format: Format, position: SourcePosition) -> Option<SourceHover> {
    playbook_lsp::embedded::hover(&text, format, position.into()).map(SourceHover::from)
}

#[tauri::command(async)]
pub fn migrate_document(document: Value) -> Result<crate::api::Migrated> {
    workbench::migrate_document(document)
}

#[tauri::command(async)]
pub fn render_document(document: Value, format: Format) -> Result<String> {
    workbench::render_value(&document, format)
}

/// The open document as text for Export: the author's `source` rewritten
/// to it when it is in `format`, else rendered afresh (and said so).
#[tauri::command(async)]
pub fn render_authored(
    document: Value,
    format: Format,
    source: Option<Authored>,
) -> Result<Rendered> {
    crate::authored::write(&document, source.as_ref(), Some(format))
}

#[tauri::command(async)]
pub fn role_template(mode: RoleMode) -> Role {
    workbench::role_template(mode)
}

#[tauri::command(async)]
pub fn examples() -> Vec<Example> {
    workbench::examples()
}

/// Writes text to a file the person chose in a save dialog of this session.
#[tauri::command(async)]
pub fn write_text_file(grants: State<'_, Grants>, path: String, text: String) -> Result<()> {
    let path = grants.check(Access::Write, &path)?;
    workbench::write_text_file(&path, &text)
}

/// Opens the native dialog for a playbook file to open or import; the
/// chosen file may then be read (`None` when the dialog was cancelled).
#[tauri::command]
pub async fn choose_playbook_file(
    app: AppHandle,
    grants: State<'_, Grants>,
) -> Result<Option<String>> {
    let dialog = app
        .dialog()
        .file()
        .set_title("Open a playbook")
        // A Claude Code subagent file (.md) opens its folder of subagents as
        // one playbook; a crew's agents.yaml or tasks.yaml opens its crew.
        .add_filter("Playbooks and CrewAI configs", &["yaml", "yml", "json"])
        .add_filter("Claude Code subagents", &["md"]);
    let Some(path) = chosen(|done| dialog.pick_file(done)).await? else {
        return Ok(None);
    };
    grants.allow(Access::Read, &path);
    crate::opening::remember(&app, &path);
    Ok(Some(path.display().to_string()))
}

/// The files the app was launched with (`playbook-studio FILE...`, a file
/// manager's "Open with"), once: granted for reading like a drop.
#[tauri::command]
pub fn launch_files(waiting: State<'_, crate::opening::AtLaunch>) -> Vec<String> {
    waiting.take()
}

/// Opens the native save dialog; the chosen file may then be written.
#[tauri::command]
pub async fn choose_export_path(
    app: AppHandle,
    grants: State<'_, Grants>,
    default_name: String,
    title: String,
) -> Result<Option<String>> {
    // The timeline picture is exported as SVG; everything else is a playbook.
    let (kind, extensions): (&str, &[&str]) = if default_name.to_ascii_lowercase().ends_with(".svg")
    {
        ("SVG pictures", &["svg"])
    } else {
        ("Playbooks", &["yaml", "yml", "json"])
    };
    let dialog = app
        .dialog()
        .file()
        .set_title(title)
        .set_file_name(&default_name)
        .add_filter(kind, extensions);
    let Some(path) = chosen(|done| dialog.save_file(done)).await? else {
        return Ok(None);
    };
    grants.allow(Access::Write, &path);
    Ok(Some(path.display().to_string()))
}

#[tauri::command(async)]
pub fn app_info(library: State<'_, Library>) -> crate::api::AppInfo {
    crate::api::AppInfo::current(library.path())
}

#[tauri::command(async)]
pub fn library_list(
    library: State<'_, Library>,
    include_deleted: Option<bool>,
) -> Result<Vec<PlaybookSummary>> {
    library.list(include_deleted.unwrap_or(false))
}

#[tauri::command(async)]
pub fn library_open(library: State<'_, Library>, id: String) -> Result<Opened> {
    library.open_playbook(&id)
}

#[tauri::command(async)]
pub fn library_create(library: State<'_, Library>, document: Value, note: String) -> Result<Saved> {
    library.create(document, &note)
}

#[tauri::command(async)]
pub fn library_save(
    library: State<'_, Library>,
    id: String,
    base: u32,
    document: Value,
    note: String,
    source: Option<Authored>,
) -> Result<SavedDocument> {
    library.save(&id, base, document, &note, source)
}

#[tauri::command(async)]
pub fn library_save_draft(
    library: State<'_, Library>,
    id: String,
    document: Value,
    base: Option<u32>,
    source: Option<Authored>,
) -> Result<DraftSaved> {
    library.save_draft(&id, document, base, source)
}

/// Autosaves Source-tab text that is not a playbook yet, as typed.
#[tauri::command(async)]
pub fn library_save_draft_text(
    library: State<'_, Library>,
    id: String,
    text: String,
    format: Format,
    base: Option<u32>,
) -> Result<DraftSaved> {
    library.save_draft_text(&id, text, format, base)
}

#[tauri::command(async)]
pub fn library_discard_draft(library: State<'_, Library>, id: String) -> Result<bool> {
    library.discard_draft(&id)
}

#[tauri::command(async)]
pub fn library_duplicate(library: State<'_, Library>, id: String) -> Result<Saved> {
    library.duplicate(&id)
}

#[tauri::command(async)]
pub fn library_delete(library: State<'_, Library>, id: String) -> Result<()> {
    library.delete(&id)
}

#[tauri::command(async)]
pub fn library_undelete(library: State<'_, Library>, id: String) -> Result<()> {
    library.undelete(&id)
}

#[tauri::command(async)]
pub fn library_open_example(
    library: State<'_, Library>,
    example: String,
    new_copy: bool,
) -> Result<crate::api::ExampleOpened> {
    library.open_example(&example, new_copy)
}

#[tauri::command(async)]
pub fn library_version(
    library: State<'_, Library>,
    id: String,
    number: u32,
) -> Result<crate::api::VersionDocument> {
    library.version(&id, number)
}

#[tauri::command(async)]
pub fn library_import_file(
    library: State<'_, Library>,
    grants: State<'_, Grants>,
    path: String,
) -> Result<Vec<Imported>> {
    library.import_file(&grants.check(Access::Read, &path)?)
}

#[tauri::command(async)]
pub fn library_import_text(
    library: State<'_, Library>,
    name: String,
    text: String,
) -> Result<Vec<Imported>> {
    library.import_text(&name, &text)
}

#[tauri::command(async)]
pub fn library_export(
    library: State<'_, Library>,
    grants: State<'_, Grants>,
    id: String,
    path: String,
) -> Result<()> {
    library.export(&id, &grants.check(Access::Write, &path)?)
}

#[tauri::command(async)]
pub fn history(library: State<'_, Library>, id: String) -> Result<Vec<VersionInfo>> {
    library.history(&id)
}

#[tauri::command(async)]
pub fn compare_versions(
    library: State<'_, Library>,
    id: String,
    from: u32,
    to: u32,
) -> Result<Comparison> {
    library.compare(&id, from, to)
}

#[tauri::command(async)]
pub fn restore_version(library: State<'_, Library>, id: String, number: u32) -> Result<Saved> {
    library.restore(&id, number)
}

#[tauri::command(async)]
pub fn templates(library: State<'_, Library>) -> Result<Vec<TemplateSummary>> {
    library.templates()
}

#[tauri::command(async)]
pub fn template_role(library: State<'_, Library>, name: String) -> Result<Role> {
    library.template_role(&name)
}

#[tauri::command(async)]
pub fn save_template(
    library: State<'_, Library>,
    name: String,
    role: Role,
    note: String,
    base: Option<u32>,
) -> Result<TemplateSaved> {
    library.save_template(&name, &role, &note, base)
}

#[tauri::command(async)]
pub fn template_open(
    library: State<'_, Library>,
    name: String,
    number: Option<u32>,
) -> Result<TemplateOpened> {
    library.open_template(&name, number)
}

#[tauri::command(async)]
pub fn check_template(role: Value) -> TemplateChecked {
    workbench::check_template(role)
}

#[tauri::command(async)]
pub fn template_history(library: State<'_, Library>, name: String) -> Result<Vec<VersionInfo>> {
    library.template_history(&name)
}

#[tauri::command(async)]
pub fn compare_template_versions(
    library: State<'_, Library>,
    name: String,
    from: u32,
    to: u32,
) -> Result<Comparison> {
    library.compare_templates(&name, from, to)
}

#[tauri::command(async)]
pub fn delete_template(library: State<'_, Library>, name: String) -> Result<()> {
    library.delete_template(&name)
}

#[tauri::command(async)]
pub fn preview_scenarios() -> Vec<ScenarioInfo> {
    preview::scenarios()
}

/// Runs a preview off the UI thread; every engine event is emitted to the
/// window as a `preview-event` while the run goes on, every approval request
/// the user answers as an `approval-request`. The run is recorded in the
/// library when the request names a library playbook.
#[tauri::command]
pub async fn preview_run(
    app: AppHandle,
    pending: State<'_, Pending>,
    document: Value,
    request: PreviewRequest,
) -> Result<PreviewResult> {
    let pending = pending.inner().clone();
    // The engine drives its own single-threaded runtime, so it gets a plain thread.
    let worker = std::thread::spawn(move || {
        let library = app.state::<Library>();
        let ask = AskTheUser {
            pending,
            show: |prompt: &ApprovalPrompt| {
                let _ = app.emit("approval-request", prompt);
            },
        };
        preview::run(document, &request, Some(&library), Some(ask), |record| {
            let _ = app.emit("preview-event", record);
        })
    });
    tauri::async_runtime::spawn_blocking(move || worker.join())
        .await
        .map_err(|e| AppError::new(ErrorCode::Internal, e.to_string()))?
        .map_err(|_| AppError::new(ErrorCode::Engine, "the preview engine stopped unexpectedly"))?
}

/// Answers an approval request of a running preview. False when it no
/// longer waits (answered already, or its run ended).
#[tauri::command(async)]
pub fn preview_answer(pending: State<'_, Pending>, id: u64, approved: bool) -> bool {
    pending.answer(id, approved)
}

/// Denies every approval request still waiting (the user left the preview
/// or stopped the run); returns how many there were.
#[tauri::command(async)]
pub fn preview_deny_waiting(pending: State<'_, Pending>) -> usize {
    pending.deny_all()
}

#[tauri::command(async)]
pub fn preview_runs(library: State<'_, Library>, id: String) -> Result<Vec<Run>> {
    library.runs(&id)
}

#[tauri::command(async)]
pub fn preview_run_events(library: State<'_, Library>, run: i64) -> Result<Vec<EventRecord>> {
    library.run_events(RunId(run))
}

/// Opens the native folder dialog; the repository the person chose, kept
/// on this side and named by an id (`None` when the dialog was cancelled).
#[tauri::command]
pub async fn run_choose_repository(
    app: AppHandle,
    runs: State<'_, Runs>,
) -> Result<Option<RepoChoice>> {
    let mut dialog = app.dialog().file().set_title("Choose a repository");
    // Start beside the last repository chosen, else at home: a folder
    // view, not the "Recent" list, which holds files and no folders.
    if let Some(start) = runs.dialog_start() {
        dialog = dialog.set_directory(start);
    }
    match chosen(|done| dialog.pick_folder(done)).await? {
        Some(path) => runs.add_repository(&path).map(Some),
        None => Ok(None),
    }
}

/// Exports a library playbook for Claude Code into a project folder chosen
/// in the native dialog (kept on this side: the page never names the path).
#[tauri::command]
pub async fn library_export_claude_code(
    app: AppHandle,
    library: State<'_, Library>,
    runs: State<'_, Runs>,
    id: String,
) -> Result<Option<crate::api::ExportedClaudeCode>> {
    let mut dialog = app
        .dialog()
        .file()
        .set_title("Export for Claude Code: choose the project folder");
    // A folder view (beside the last repository, else home), not the
    // "Recent" list, where no folder can be chosen.
    if let Some(start) = runs.dialog_start() {
        dialog = dialog.set_directory(start);
    }
    let Some(dir) = chosen(|done| dialog.pick_folder(done)).await? else {
        return Ok(None);
    };
    let (files, notes) = library.export_claude_code(&id, &dir)?;
    Ok(Some(crate::api::ExportedClaudeCode {
        dir: dir.display().to_string(),
        files,
        notes,
    }))
}

/// Opens the native file dialog for an agents file (docs/agents.md); kept
/// on this side like a repository.
#[tauri::command]
pub async fn run_choose_agents_file(
    app: AppHandle,
    runs: State<'_, Runs>,
) -> Result<Option<AgentsFileChoice>> {
    let dialog = app
        .dialog()
        .file()
        .set_title("Choose an agents file")
        .add_filter("Agent definitions", &["yaml", "yml", "json"]);
    match chosen(|done| dialog.pick_file(done)).await? {
        Some(path) => runs.add_agents_file(&path).map(Some),
        None => Ok(None),
    }
}

/// Waits for a dialog's answer; the chosen path, if any.
async fn chosen(
    open: impl FnOnce(Box<dyn FnOnce(Option<FilePath>) + Send>),
) -> Result<Option<std::path::PathBuf>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    open(Box::new(move |path| {
        let _ = tx.send(path);
    }));
    // A dialog that goes away without answering counts as cancelled.
    let Ok(Some(path)) = rx.await else {
        return Ok(None);
    };
    path.into_path().map(Some).map_err(|e| {
        AppError::new(
            ErrorCode::InvalidInput,
            format!("the dialog gave no usable path: {e}"),
        )
    })
}

/// Runs the open playbook on the chosen repository with real agent
/// processes, off the UI thread; every event is emitted as a `run-event`
/// (the shape of `preview-event`), every approval request as an
/// `approval-request`, answered with `preview_answer` as in a preview.
#[tauri::command]
pub async fn run_start(
    app: AppHandle,
    pending: State<'_, Pending>,
    document: Value,
    request: RealRunRequest,
) -> Result<RealRunResult> {
    let pending = pending.inner().clone();
    // The runner drives its own single-threaded runtime, so it gets a plain thread.
    let worker = std::thread::spawn(move || {
        let library = app.state::<Library>();
        let runs = app.state::<Runs>();
        let ask = AskTheUser {
            pending,
            show: |prompt: &ApprovalPrompt| {
                let _ = app.emit("approval-request", prompt);
            },
        };
        realrun::run(&runs, document, &request, Some(&library), ask, |record| {
            let _ = app.emit("run-event", record);
        })
    });
    tauri::async_runtime::spawn_blocking(move || worker.join())
        .await
        .map_err(|e| AppError::new(ErrorCode::Internal, e.to_string()))?
        .map_err(|_| AppError::new(ErrorCode::Engine, "the run stopped unexpectedly; its log so far is in the repository's .git/playbook/runs"))?
}

/// Stops the run going on: its agent process ends, approvals waiting are
/// denied, and it is recorded as stopped. False when no run goes on.
#[tauri::command(async)]
pub fn run_stop(runs: State<'_, Runs>, pending: State<'_, Pending>) -> bool {
    let stopping = runs.stop();
    pending.deny_all();
    stopping
}

/// The commits and diff of a task's branch of a run this window finished.
#[tauri::command(async)]
pub fn run_diff(runs: State<'_, Runs>, run: u64, task_id: String) -> Result<BranchDiff> {
    runs.diff(run, &task_id)
}
