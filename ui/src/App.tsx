// The application shell: screens, the open document, global shortcuts.
import { useCallback, useEffect, useRef, useState } from "react";
import { backend, messageOf } from "./backend";
import { ErrorBoundary } from "./ErrorBoundary";
import type { Checked } from "./generated/Checked";
import type { Example } from "./generated/Example";
import type { FlowView } from "./generated/FlowView";
import type { Playbook } from "./generated/Playbook";
import { blankPlaybook } from "./playbooks/document";
import { Editor, type Selection, type Tab } from "./playbooks/Editor";
import { FirstRun } from "./playbooks/FirstRun";
import { Templates } from "./playbooks/Templates";
import { useDocument } from "./playbooks/useDocument";
import { useTheme } from "./theme";
import { recordCheck, markEdit } from "./metrics";

type Screen = "welcome" | "editor" | "templates";
type Notice = { message: string; kind: "info" | "error" } | null;

const DRAFT_KEY = "playbook-studio.draft";

export function App() {
  const document = useDocument();
  const { doc, edit, load, undo, redo } = document;
  const [screen, setScreen] = useState<Screen>("welcome");
  const [examples, setExamples] = useState<Example[]>([]);
  const [checked, setChecked] = useState<Checked | null>(null);
  const [flow, setFlow] = useState<FlowView | null>(null);
  const [selection, setSelection] = useState<Selection>({ kind: "playbook" });
  const [tab, setTab] = useState<Tab>("form");
  const [notice, setNotice] = useState<Notice>(null);
  const [theme, toggleTheme] = useTheme();
  const seq = useRef(0);

  const notify = useCallback((message: string, kind: "info" | "error" = "info") => setNotice({ message, kind }), []);

  useEffect(() => {
    backend
      .examples()
      .then(setExamples)
      .catch((e) => notify(`Could not load the examples: ${messageOf(e)}`, "error"));
    const saved = localStorage.getItem(DRAFT_KEY);
    if (saved) {
      try {
        load(JSON.parse(saved) as Playbook);
        setScreen("editor");
      } catch {
        localStorage.removeItem(DRAFT_KEY);
      }
    }
  }, [load, notify]);

  // Validate every revision; only the newest answer is shown.
  useEffect(() => {
    if (!doc) return;
    const mine = ++seq.current;
    backend
      .checkDocument(doc)
      .then((result) => {
        if (mine !== seq.current) return;
        setChecked(result);
        if (result.flow) setFlow(result.flow);
        recordCheck();
      })
      .catch((e) => mine === seq.current && notify(`Validation failed: ${messageOf(e)}. Your edits are kept.`, "error"));
    // Autosave: nothing typed is lost, even on a crash.
    localStorage.setItem(DRAFT_KEY, JSON.stringify(doc));
  }, [doc, notify]);

  const trackedEdit = useCallback(
    (next: Playbook, key?: string) => {
      markEdit();
      edit(next, key);
    },
    [edit],
  );

  const openDocument = useCallback(
    (next: Playbook) => {
      load(next);
      setChecked(null);
      setFlow(null);
      setSelection({ kind: "playbook" });
      setTab("form");
      setScreen("editor");
    },
    [load],
  );

  const openExample = useCallback(
    async (example: Example) => {
      try {
        const result = await backend.checkSource(example.source, "yaml");
        if (!result.playbook) throw new Error(result.findings[0]?.message ?? "the example does not parse");
        openDocument(result.playbook);
        notify(`Opened the ${example.name} example.`);
      } catch (e) {
        notify(`Could not open the example: ${messageOf(e)}`, "error");
      }
    },
    [openDocument, notify],
  );

  // Global shortcuts. Undo/redo are the app's, not the text field's, so they
  // work the same across the form, the Source tab and template insertions.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (!mod) return;
      const key = e.key.toLowerCase();
      if (key === "z" && !e.shiftKey) {
        e.preventDefault();
        undo();
      } else if ((key === "z" && e.shiftKey) || key === "y") {
        e.preventDefault();
        redo();
      } else if (key === "s") {
        e.preventDefault();
        notify("Saved as a draft.");
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [undo, redo, notify]);

  const errors = checked?.findings.filter((f) => f.severity === "error").length ?? 0;

  return (
    <div className="app" data-theme={theme}>
      <header className="topbar">
        <span className="brand">Playbook Studio</span>
        <nav aria-label="Screens">
          <button type="button" aria-current={screen === "welcome"} onClick={() => setScreen("welcome")}>
            Welcome
          </button>
          <button type="button" aria-current={screen === "editor"} disabled={!doc} onClick={() => setScreen("editor")}>
            Editor
          </button>
          <button type="button" aria-current={screen === "templates"} onClick={() => setScreen("templates")}>
            Templates
          </button>
        </nav>
        <div className="toolbar">
          <button type="button" onClick={undo} disabled={!document.canUndo} title="Undo (Ctrl+Z)" data-testid="undo">
            Undo
          </button>
          <button type="button" onClick={redo} disabled={!document.canRedo} title="Redo (Ctrl+Shift+Z)" data-testid="redo">
            Redo
          </button>
          {doc && (
            <span className={`status ${errors ? "status-error" : "status-ok"}`} data-testid="validity">
              {checked ? (errors ? `${errors} error${errors > 1 ? "s" : ""} — run blocked` : "valid") : "checking…"}
            </span>
          )}
          <button type="button" onClick={toggleTheme} aria-label="Switch between light and dark theme" data-testid="theme">
            {theme === "dark" ? "Light theme" : "Dark theme"}
          </button>
        </div>
      </header>
      {notice && (
        <div className={`notice notice-${notice.kind}`} role={notice.kind === "error" ? "alert" : "status"} data-testid="notice">
          <span>{notice.message}</span>
          <button type="button" aria-label="Dismiss" onClick={() => setNotice(null)}>
            ×
          </button>
        </div>
      )}
      <main>
        <ErrorBoundary onReset={() => setScreen(doc ? "editor" : "welcome")}>
          {screen === "welcome" && (
            <FirstRun examples={examples} onOpenExample={openExample} onBlank={() => openDocument(blankPlaybook("new-playbook", "New playbook"))} />
          )}
          {screen === "editor" && doc && (
            <Editor
              doc={doc}
              checked={checked}
              flow={flow}
              edit={trackedEdit}
              selection={selection}
              setSelection={setSelection}
              tab={tab}
              setTab={setTab}
              notify={notify}
            />
          )}
          {screen === "templates" && <Templates notify={notify} />}
        </ErrorBoundary>
      </main>
    </div>
  );
}
