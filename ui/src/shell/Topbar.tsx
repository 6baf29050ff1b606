// The window's top bar: the screens, the open playbook's toolbar (undo,
// redo, save, export, autosave and validity), and the theme switch.
import type { Checked } from "../generated/Checked";
import type { SaveStatus } from "../playbooks/useAutosave";
import type { Theme } from "../theme";

export type Screen = "welcome" | "library" | "editor" | "templates" | "history" | "preview" | "whatif" | "run";

type Props = {
  screen: Screen;
  setScreen: (screen: Screen) => void;
  /** Which screens have something to show: an open playbook, a library one, a version opened from History. */
  open: { doc: boolean; library: boolean; previewVersion: boolean };
  /** The open playbook's toolbar, shown on the editor screen. */
  toolbar: {
    undo: () => void;
    redo: () => void;
    canUndo: boolean;
    canRedo: boolean;
    /** Opens the Save version dialog. */
    onSave: () => void;
    onExport: () => void;
    status: SaveStatus;
    checked: Checked | null;
    /** The check of Source-tab text that does not read as a playbook yet, while the editor holds it. */
    typed?: Checked | null;
  };
  theme: Theme;
  toggleTheme: () => void;
};

export function Topbar({ screen, setScreen, open, toolbar, theme, toggleTheme }: Props) {
  const { undo, redo, canUndo, canRedo, onSave, onExport, status, checked, typed } = toolbar;
  const errors = checked?.findings.filter((f) => f.severity === "error").length ?? 0;
  const typedErrors = typed?.findings.filter((f) => f.severity === "error").length ?? 0;
  const nav: [Screen, string, boolean][] = [
    ["welcome", "Welcome", true],
    ["library", "Library", true],
    ["editor", "Editor", open.doc],
    ["templates", "Templates", true],
    ["history", "History", open.library],
    ["preview", "Preview", open.doc || open.previewVersion],
    ["whatif", "What-if", open.doc],
    ["run", "Run", open.doc],
  ];
  return (
    <header className="topbar">
      <span className="brand">Playbook Studio</span>
      <nav aria-label="Screens">
        {nav.map(([s, label, enabled]) => (
          <button key={s} type="button" data-screen={s} aria-current={screen === s} disabled={!enabled} onClick={() => setScreen(s)}>
            {label}
          </button>
        ))}
      </nav>
      <div className="toolbar">
        {open.doc && screen === "editor" && (
          <>
            <button type="button" onClick={undo} disabled={!canUndo} title="Undo (Ctrl+Z)" data-testid="undo">
              Undo
            </button>
            <button type="button" onClick={redo} disabled={!canRedo} title="Redo (Ctrl+Shift+Z)" data-testid="redo">
              Redo
            </button>
            <button
              type="button"
              onClick={onSave}
              disabled={!open.library}
              title="Save the open edits as the next version in the library, with a note for History (Ctrl+S saves at once)"
              data-testid="save"
            >
              Save version…
            </button>
            <button
              type="button"
              onClick={onExport}
              title="Write the open playbook, unsaved edits included, to a YAML or JSON file of your choice; the library is not changed"
              data-testid="save-as"
            >
              Export to file…
            </button>
            {status && (
              <span className="muted small" data-testid="autosave" data-state={status.kind === "draft" ? "saved" : status.kind}>
                {status.kind === "version"
                  ? `Saved as version ${status.number}`
                  : status.kind === "draft"
                    ? "Unsaved changes, draft autosaved"
                    : "Unsaved changes…"}
              </span>
            )}
            {typed ? (
              // As the Problems panel: while the Source text does not read as a playbook,
              // its errors are what the person is looking at; the rest of the app keeps
              // the last valid version, and the badge says so.
              <span
                className="status status-error"
                data-testid="validity"
                data-of="typed"
                title="The form, the graph, Preview and Run use the last valid version until the Source text is fixed"
              >
                {`Source text: ${typedErrors} error${typedErrors === 1 ? "" : "s"}`}
              </span>
            ) : (
              <span className={`status ${errors ? "status-error" : "status-ok"}`} data-testid="validity">
                {checked ? (errors ? `${errors} error${errors > 1 ? "s" : ""} — run blocked` : "valid") : "checking…"}
              </span>
            )}
          </>
        )}
        <button type="button" onClick={toggleTheme} aria-label="Switch between light and dark theme" data-testid="theme">
          {theme === "dark" ? "Light theme" : "Dark theme"}
        </button>
      </div>
    </header>
  );
}
