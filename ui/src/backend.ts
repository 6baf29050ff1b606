// The one module that talks to the Rust side. Every screen calls these
// functions, never `invoke` directly, so the IPC surface is visible in one
// place and the UI could run against a different backend.
import { convertFileSrc, invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { AgentsFileChoice } from "./generated/AgentsFileChoice";
import type { AppError } from "./generated/AppError";
import type { BranchDiff } from "./generated/BranchDiff";
import type { RealRunRequest } from "./generated/RealRunRequest";
import type { RealRunResult } from "./generated/RealRunResult";
import type { RepoChoice } from "./generated/RepoChoice";
import type { AppInfo } from "./generated/AppInfo";
import type { Checked } from "./generated/Checked";
import type { SourceCompletion } from "./generated/SourceCompletion";
import type { SourceHover } from "./generated/SourceHover";
import type { SourcePosition } from "./generated/SourcePosition";
import type { Comparison } from "./generated/Comparison";
import type { DocumentChange } from "./generated/DocumentChange";
import type { Authored } from "./generated/Authored";
import type { DraftSaved } from "./generated/DraftSaved";
import type { EventRecord } from "./generated/EventRecord";
import type { ApprovalPrompt } from "./generated/ApprovalPrompt";
import type { PreviewRequest } from "./generated/PreviewRequest";
import type { PreviewResult } from "./generated/PreviewResult";
import type { Run } from "./generated/Run";
import type { ScenarioInfo } from "./generated/ScenarioInfo";
import type { Imported } from "./generated/Imported";
import type { Code } from "./generated/Code";
import type { Finding } from "./generated/Finding";
import type { Fix } from "./generated/Fix";
import type { MenuCommand } from "./generated/MenuCommand";
import type { Opened } from "./generated/Opened";
import type { PlaybookSummary } from "./generated/PlaybookSummary";
import type { Rendered } from "./generated/Rendered";
import type { Saved } from "./generated/Saved";
import type { SavedDocument } from "./generated/SavedDocument";
import type { TemplateChecked } from "./generated/TemplateChecked";
import type { TemplateOpened } from "./generated/TemplateOpened";
import type { TemplateSaved } from "./generated/TemplateSaved";
import type { TemplateSummary } from "./generated/TemplateSummary";
import type { VersionInfo } from "./generated/VersionInfo";
import type { Example } from "./generated/Example";
import type { ExampleOpened } from "./generated/ExampleOpened";
import type { VersionDocument } from "./generated/VersionDocument";
import type { ExportedClaudeCode } from "./generated/ExportedClaudeCode";
import type { Include } from "./generated/Include";
import type { Migrated } from "./generated/Migrated";
import type { Format } from "./generated/Format";
import type { Playbook } from "./generated/Playbook";
import type { Role } from "./generated/Role";
import type { RoleMode } from "./generated/RoleMode";
import type { WhatIfReport } from "./generated/whatif/WhatIfReport";
import type { BehaviourDiffResult } from "./generated/whatif/BehaviourDiffResult";

/** A failed command: the Rust `AppError`, thrown as an Error the UI can catch. */
export class BackendError extends Error {
  readonly code: AppError["code"];
  readonly details: unknown;
  constructor(error: AppError) {
    super(error.message);
    this.code = error.code;
    this.details = error.details;
  }
}

function isAppError(e: unknown): e is AppError {
  return typeof e === "object" && e !== null && "code" in e && "message" in e;
}

export async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (e) {
    if (isAppError(e)) throw new BackendError(e);
    throw new BackendError({ code: "internal", message: String(e) });
  }
}

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export const backend = {
  appInfo: () => call<AppInfo>("app_info"),
  /** Validates the form's document (whole or one change, see validation/check.ts); the YAML text and the flow graph come back only when included. */
  /** With `source` (the author's text) the Source tab's text is that text rewritten to the document, comments kept. */
  checkDocument: (change: DocumentChange, include: Include, format: Format = "yaml", source: Authored | null = null) =>
    call<Checked>("check_document", { change, format, include, source }),
  /**
   * `checkDocument` answered before this returns, or `null` when it is not
   * (no window, a check already running, a stale revision, a request too
   * large...): then ask `checkDocument`, which says why if it fails too.
   * Blocks the page for the round trip, so it is for one keystroke's small
   * change only (`src-tauri/src/inline_check.rs`).
   */
  checkDocumentNow: (body: string): Checked | null => {
    try {
      const request = new XMLHttpRequest();
      request.open("POST", convertFileSrc("", "check"), false);
      // A simple request (no preflight): one round trip.
      request.setRequestHeader("Content-Type", "text/plain");
      request.send(body);
      return request.status === 200 ? (JSON.parse(request.responseText) as Checked) : null;
    } catch {
      return null;
    }
  },
  /** The body of `checkDocumentNow`: the arguments of `checkDocument`. */
  checkDocumentBody: (change: DocumentChange, include: Include, format: Format = "yaml", source: Authored | null = null) =>
    JSON.stringify({ change, format, include, source }),
  /** The check of a text; its answer carries the text back (`source`) and the flow graph only when `include` asks. */
  checkSource: (text: string, format: Format, include: Include) => call<Checked>("check_source", { text, format, include }),
  /** The language server's completions at a position of the Source text (0-based line, UTF-16 column). */
  sourceCompletions: (text: string, format: Format, position: SourcePosition) => call<SourceCompletion[]>("source_completions", { text, format, position }),
  /** The schema's documentation of the field at a position of the Source text. */
  sourceHover: (text: string, format: Format, position: SourcePosition) => call<SourceHover | null>("source_hover", { text, format, position }),
  renderDocument: (document: Playbook, format: Format) => call<string>("render_document", { document, format }),
  /** The document as text for Export: the author's `source` rewritten to it (comments kept) when it is in `format`. */
  renderAuthored: (document: Playbook, format: Format, source: Authored | null) =>
    call<Rendered>("render_authored", { document, format, source }),
  /** A legacy (agenterm) document upgraded to 1.0.0, for the person to confirm before it replaces the open one. */
  migrateDocument: (document: Playbook) => call<Migrated>("migrate_document", { document }),
  roleTemplate: (mode: RoleMode) => call<Role>("role_template", { mode }),
  examples: () => call<Example[]>("examples"),
  writeTextFile: (path: string, text: string) => call<void>("write_text_file", { path, text }),

  // Preview runs (playbook-orchestrator). Events stream as `preview-event`.
  scenarios: () => call<ScenarioInfo[]>("preview_scenarios"),
  runPreview: (document: Playbook, request: PreviewRequest) => call<PreviewResult>("preview_run", { document, request }),
  onPreviewEvent: (handler: (record: EventRecord) => void): Promise<UnlistenFn> =>
    listen<EventRecord>("preview-event", (e) => handler(e.payload)),
  /** Approval requests of a run in `ask` mode; each waits for `answerApproval`. */
  onApprovalRequest: (handler: (prompt: ApprovalPrompt) => void): Promise<UnlistenFn> =>
    listen<ApprovalPrompt>("approval-request", (e) => handler(e.payload)),
  answerApproval: (id: number, approved: boolean) => call<boolean>("preview_answer", { id, approved }),
  denyWaitingApprovals: () => call<number>("preview_deny_waiting"),
  runs: (id: string) => call<Run[]>("preview_runs", { id }),
  runEvents: (run: number) => call<EventRecord[]>("preview_run_events", { run }),

  // What-if (playbook-whatif): a new simulation cancels the one before.
  // Progress streams as `whatif-progress`.
  whatif: (document: Playbook, model: string, runs: number, seed: number) =>
    call<WhatIfReport>("whatif_run", { document, model, runs, seed }),
  cancelWhatif: () => call<void>("whatif_cancel"),
  /** Two stored versions simulated under the same model and seeds, and the shipped scenarios on both. */
  compareBehaviour: (id: string, from: number, to: number, model: string, runs: number, seed: number) =>
    call<BehaviourDiffResult>("whatif_compare_versions", { id, from, to, model, runs, seed }),
  onWhatifProgress: (handler: (p: { done: number; total: number }) => void): Promise<UnlistenFn> =>
    listen<{ done: number; total: number }>("whatif-progress", (e) => handler(e.payload)),

  // Quick fixes (playbook_core::fix, as `playbook fix` applies them).
  fixableCodes: () => call<Code[]>("fixable_codes"),
  quickFixes: (document: Playbook, finding: Finding) => call<Fix[]>("quick_fixes", { document, finding }),
  applyFix: (document: Playbook, fix: Fix) => call<Playbook>("apply_fix", { document, fix }),

  // Real runs (playbook-runner): folders and files are chosen in native
  // dialogs opened by the Rust side, which keeps the paths and answers ids.
  // Events stream as `run-event`; approvals are the preview's.
  chooseRepository: () => call<RepoChoice | null>("run_choose_repository"),
  chooseAgentsFile: () => call<AgentsFileChoice | null>("run_choose_agents_file"),
  startRun: (document: Playbook, request: RealRunRequest) => call<RealRunResult>("run_start", { document, request }),
  onRunEvent: (handler: (record: EventRecord) => void): Promise<UnlistenFn> =>
    listen<EventRecord>("run-event", (e) => handler(e.payload)),
  stopRun: () => call<boolean>("run_stop"),
  branchDiff: (run: number, taskId: string) => call<BranchDiff>("run_diff", { run, taskId }),

  // The library (SQLite, through playbook-store).
  /** Live playbooks; with `includeDeleted`, deleted ones too (`deleted_at` set). */
  list: (includeDeleted = false) => call<PlaybookSummary[]>("library_list", { includeDeleted }),
  open: (id: string) => call<Opened>("library_open", { id }),
  create: (document: Playbook, note: string) => call<Saved>("library_create", { document, note }),
  /** Saves the next version; with `source`, as the author's text rewritten to the document (comments kept). */
  save: (id: string, base: number, document: Playbook, note: string, source: Authored | null = null) =>
    call<SavedDocument>("library_save", { id, base, document, note, source }),
  saveDraft: (id: string, document: Playbook, base: number | null, source: Authored | null = null) =>
    call<DraftSaved>("library_save_draft", { id, document, base, source }),
  /** Autosaves Source-tab text that is not a playbook yet, as it was typed. */
  saveDraftText: (id: string, text: string, format: Format, base: number | null) =>
    call<DraftSaved>("library_save_draft_text", { id, text, format, base }),
  discardDraft: (id: string) => call<boolean>("library_discard_draft", { id }),
  duplicate: (id: string) => call<Saved>("library_duplicate", { id }),
  remove: (id: string) => call<void>("library_delete", { id }),
  /** Brings a deleted playbook back with its history (the Undo of delete). */
  undelete: (id: string) => call<void>("library_undelete", { id }),
  /** The library's unchanged copy of a shipped example, or a new copy (always with `newCopy`). */
  openExample: (example: string, newCopy = false) => call<ExampleOpened>("library_open_example", { example, newCopy }),
  /** One stored version as a document. */
  version: (id: string, number: number) => call<VersionDocument>("library_version", { id, number }),
  importFile: (path: string) => call<Imported[]>("library_import_file", { path }),
  /** Exports a playbook for Claude Code into a project folder the user picks (null when cancelled). */
  exportClaudeCode: (id: string) => call<ExportedClaudeCode | null>("library_export_claude_code", { id }),
  importText: (name: string, text: string) => call<Imported[]>("library_import_text", { name, text }),
  exportFile: (id: string, path: string) => call<void>("library_export", { id, path }),
  history: (id: string) => call<VersionInfo[]>("history", { id }),
  compare: (id: string, from: number, to: number) => call<Comparison>("compare_versions", { id, from, to }),
  restore: (id: string, number: number) => call<Saved>("restore_version", { id, number }),
  templates: () => call<TemplateSummary[]>("templates"),
  templateRole: (name: string) => call<Role>("template_role", { name }),
  /** Saves a team template's next version; with `base`, refused (`conflict`) when another was saved since. */
  saveTemplate: (name: string, role: Role, note: string, base: number | null = null) =>
    call<TemplateSaved>("save_template", { name, role, note, base }),
  openTemplate: (name: string, number: number | null = null) => call<TemplateOpened>("template_open", { name, number }),
  checkTemplate: (role: Role) => call<TemplateChecked>("check_template", { role }),
  templateHistory: (name: string) => call<VersionInfo[]>("template_history", { name }),
  compareTemplates: (name: string, from: number, to: number) =>
    call<Comparison>("compare_template_versions", { name, from, to }),
  deleteTemplate: (name: string) => call<void>("delete_template", { name }),

  // Files: the page never names a file on its own. Dialogs are opened by
  // the Rust side, which honours a path in a file command only when the
  // person chose it in this session (a dialog or a drop; grants.rs).

  /**
   * Calls `handler` with files opened from outside the page, each granted for
   * reading first: dropped on the window, chosen under File ▸ Open Recent, or
   * given to a second launch of the app.
   */
  onOpenFiles: (handler: (paths: string[]) => void): Promise<UnlistenFn> =>
    listen<string[]>("open-files", (e) => handler(e.payload)),
  /** The files the app was launched with, once. */
  launchFiles: () => call<string[]>("launch_files"),
  /** Calls `handler` with each command chosen in the native menu bar. */
  onMenu: (handler: (command: MenuCommand) => void): Promise<UnlistenFn> =>
    listen<MenuCommand>("menu", (e) => handler(e.payload)),

  /**
   * Asks for a playbook file to open or import; null when the user cancels. A
   * Claude Code subagent file (.md) brings its folder of subagents; a crew's
   * agents.yaml or tasks.yaml brings its CrewAI crew.
   */
  choosePlaybookFile: () => call<string | null>("choose_playbook_file"),

  /** Asks where to write an export; null when the user cancels. */
  chooseExportPath: (defaultName: string, title = "Export the playbook") =>
    call<string | null>("choose_export_path", { defaultName, title }),
};
