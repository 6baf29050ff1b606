//! The commands the UI invokes: each is one call into a library, with its
//! error converted to [`AppError`] at the boundary.

use playbook_core::{Format, Role, RoleMode};
use serde_json::Value;

use crate::api::{Checked, Example, FileText};
use crate::error::Result;
use crate::workbench;

#[tauri::command]
pub fn check_document(document: Value, format: Format) -> Result<Checked> {
    workbench::check_document(document, format)
}

#[tauri::command]
pub fn check_source(text: String, format: Format) -> Checked {
    workbench::check_source(&text, format)
}

#[tauri::command]
pub fn render_document(document: Value, format: Format) -> Result<String> {
    workbench::render_value(&document, format)
}

#[tauri::command]
pub fn role_template(mode: RoleMode) -> Role {
    workbench::role_template(mode)
}

#[tauri::command]
pub fn examples() -> Vec<Example> {
    workbench::examples()
}

#[tauri::command]
pub fn read_playbook_file(path: String) -> Result<FileText> {
    workbench::read_playbook_file(&path)
}

#[tauri::command]
pub fn write_text_file(path: String, text: String) -> Result<()> {
    workbench::write_text_file(&path, &text)
}

#[tauri::command]
pub fn app_info() -> crate::api::AppInfo {
    crate::api::AppInfo::current()
}
