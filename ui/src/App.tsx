// The application shell: screens, the open document, global shortcuts.
import { useCallback, useEffect, useRef, useState } from "react";
import { backend, BackendError, messageOf } from "./backend";
import { ErrorBoundary } from "./ErrorBoundary";
import type { Checked } from "./generated/Checked";
import type { Example } from "./generated/Example";
import type { FlowView } from "./generated/FlowView";
import type { Playbook } from "./generated/Playbook";
import { History } from "./history/History";
import { markEdit, recordCheck, recordRoundTrip, recordStartup } from "./metrics";
import { blankPlaybook, roleAt, type RoleAddress } from "./playbooks/document";
import { Editor, type Selection, type Tab } from "./playbooks/Editor";
import { FirstRun } from "./playbooks/FirstRun";
import { Library } from "./playbooks/Library";
import { Templates } from "./playbooks/Templates";
import { droppedFile } from "./playbooks/drop";
import { useDocument } from "./playbooks/useDocument";
import { Preview } from "./preview/Preview";
import { RunMode } from "./run/RunMode";
import { Help, type HelpTopic } from "./shell/Help";
import { dispatchCommand, useCommands } from "./shell/commands";
import { useTheme } from "./theme";
import { createChecker, keepIfSame } from "./validation/check";

type Screen = "welcome" | "library" | "editor" | "templates" | "history" | "preview" | "run";
type Notice = { message: string; kind: "info" | "error" } | null;
/** The library playbook being edited and the version the edits started from. */
type Current = { id: string; base: number };

const WELCOMED_KEY = "playbook-studio.welcomed";
const LAST_OPEN_KEY = "playbook-studio.last-open";

export function App() {
  const document = useDocument();
  const { doc, edit, load, undo, redo, revision } = document;
  const [screen, setScreenState] = useState<Screen>(localStorage.getItem(WELCOMED_KEY) ? "library" : "welcome");
  const [examples, setExamples] = useState<Example[]>([]);
  const [checked, setChecked] = useState<Checked | null>(null);
  const [flow, setFlow] = useState<FlowView | null>(null);
  const [selection, setSelection] = useState<Selection>({ kind: "playbook" });
  const [tab, setTab] = useState<Tab>("form");
  const [notice, setNotice] = useState<Notice>(null);
  const [current, setCurrent] = useState<Current | null>(null);
  const [refresh, setRefresh] = useState(0);
  const [autosave, setAutosave] = useState<"pending" | "saved" | null>(null);
  const [theme, toggleTheme, chooseTheme] = useTheme();
  const [help, setHelp] = useState<HelpTopic | null>(null);
  const seq = useRef(0);
  const [check] = useState(createChecker);
  const loadedRevision = useRef(-1);

  const notify = useCallback((message: string, kind: "info" | "error" = "info") => setNotice({ message, kind }), []);
  const setScreen = useCallback((s: Screen) => {
    if (s !== "welcome") localStorage.setItem(WELCOMED_KEY, "1");
    setScreenState(s);
  }, []);

  const openLibraryPlaybook = useCallback(
    /** `from` names where the playbook came from when it was just imported (a file, an importer). */
    async (id: string, from?: string) => {
      try {
        const opened = await backend.open(id);
        load(opened.draft ?? opened.document);
        loadedRevision.current = -1;
        setAutosave(opened.draft ? "saved" : null);
        setCurrent({ id, base: opened.base });
        setChecked(null);
        setFlow(null);
        setSelection({ kind: "playbook" });
        setTab("form");
        setScreen("editor");
        localStorage.setItem(LAST_OPEN_KEY, id);
        notify(
          opened.draft
            ? `Opened ${opened.summary.name} with your unsaved edits (autosaved ${new Date(opened.draft_updated_at ?? "").toLocaleString()}).`
            : `Opened ${opened.summary.name}, version ${opened.base}${from ? `, imported from ${from}` : ""}.`,
        );
      } catch (e) {
        notify(`Could not open ${id}: ${messageOf(e)}`, "error");
      }
    },
    [load, notify, setScreen],
  );

  useEffect(() => {
    backend
      .examples()
      .then((list) => {
        setExamples(list);
        // The first view is interactive once it is painted with the examples.
        requestAnimationFrame(() =>
          requestAnimationFrame(() => void backend.appInfo().then((info) => recordStartup(info.uptime_ms)).catch(() => undefined)),
        );
      })
      .catch((e) => notify(`Could not load the examples: ${messageOf(e)}`, "error"));
    const last = localStorage.getItem(LAST_OPEN_KEY);
    if (last && localStorage.getItem(WELCOMED_KEY)) void openLibraryPlaybook(last);
    // Runs once at start.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Files opened from outside the page (dropped on the window, Open Recent,
  // a second launch, the command line) open like Open file… does: imported
  // into the library (a subagent file brings its folder), then opened.
  const openFiles = useCallback(
    (paths: string[]) => {
      if (paths.length === 0) return;
      const choice = droppedFile(paths);
      if ("error" in choice) return notify(choice.error, "error");
      void backend
        .importFile(choice.file)
        .then((imported) => {
          const first = imported[0];
          const rest = choice.ignored > 0 ? ` (${choice.ignored} other file(s) left alone)` : "";
          if (first) void openLibraryPlaybook(first.saved.playbook, `${first.source}${rest}`);
        })
        .catch((e) => notify(`Could not open ${choice.file}: ${messageOf(e)}`, "error"));
    },
    [notify, openLibraryPlaybook],
  );
  useEffect(() => {
    const stop = backend.onOpenFiles(openFiles);
    stop.catch((e) => notify(`Opening files from outside the window is not available: ${messageOf(e)}`, "error"));
    return () => void stop.then((unlisten) => unlisten()).catch(() => undefined);
  }, [notify, openFiles]);
  useEffect(() => {
    backend
      .launchFiles()
      .then(openFiles)
      .catch(() => undefined);
    // The files of this launch, once.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  // The native menu bar's commands reach every screen as app commands.
  useEffect(() => {
    const stop = backend.onMenu(dispatchCommand);
    return () => void stop.then((unlisten) => unlisten()).catch(() => undefined);
  }, []);

  // Validate every revision; only the newest answer is shown.
  useEffect(() => {
    if (!doc) return;
    const mine = ++seq.current;
    const sent = performance.now();
    check(doc, revision, { source: screen === "editor" && tab === "source", flow: screen === "editor" && tab === "flow" })
      .then((result) => {
        recordRoundTrip(performance.now() - sent);
        if (mine !== seq.current) return;
        const { flow: graph, ...answer } = result;
        setChecked((previous) => keepIfSame(previous, answer));
        // The graph comes only while its tab is open; an edit elsewhere makes
        // the last one outdated, unless the document lost its structure (then
        // the last valid graph is shown as such).
        if (graph) setFlow((previous) => keepIfSame(previous, graph));
        else if (answer.structurally_valid) setFlow(null);
        recordCheck();
      })
      .catch((e) => mine === seq.current && notify(`Validation failed: ${messageOf(e)}. Your edits are kept.`, "error"));
  }, [doc, revision, check, notify, screen, tab]);

  // Autosave: every edit lands in the library's draft, so nothing typed is
  // lost on a crash or a quit. The first revision after opening is what was
  // loaded, not an edit.
  useEffect(() => {
    if (!doc || !current) return;
    if (loadedRevision.current === -1) {
      loadedRevision.current = revision;
      return;
    }
    setAutosave("pending");
    const timer = window.setTimeout(() => {
      backend
        .saveDraft(current.id, doc, current.base)
        .then(() => setAutosave("saved"))
        .catch((e) => notify(`Autosave failed: ${messageOf(e)}. Your edits are still in the window.`, "error"));
    }, 250);
    return () => window.clearTimeout(timer);
  }, [doc, revision, current, notify]);

  const trackedEdit = useCallback(
    (next: Playbook, key?: string) => {
      markEdit();
      edit(next, key);
    },
    [edit],
  );

  /** A new library playbook from a document, under an id not yet taken. */
  const createPlaybook = useCallback(
    async (document: Playbook, note: string) => {
      try {
        const taken = new Set((await backend.list()).map((p) => p.id));
        let id = document.id || "playbook";
        let name = document.name;
        if (taken.has(id)) {
          let n = 2;
          while (taken.has(`${id}-${n}`)) n++;
          id = `${id}-${n}`;
          name = `${document.name} (${n})`;
        }
        const saved = await backend.create({ ...document, id, name }, note);
        setRefresh((r) => r + 1);
        await openLibraryPlaybook(saved.playbook);
      } catch (e) {
        notify(`Could not create the playbook: ${messageOf(e)}`, "error");
      }
    },
    [openLibraryPlaybook, notify],
  );

  const newFromExample = useCallback(
    async (example: Example) => {
      const result = await backend.checkSource(example.source, "yaml").catch(() => null);
      if (!result?.playbook) return notify(`The ${example.name} example does not parse.`, "error");
      await createPlaybook(result.playbook, `new from the ${example.name} example`);
    },
    [createPlaybook, notify],
  );

  /** plan: planner; build: worker and reviewer; test: tester — each from its built-in template. */
  const newFromTemplates = useCallback(async () => {
    try {
      const [planner, worker, reviewer, tester] = await Promise.all(
        (["planner", "worker", "reviewer", "tester"] as const).map((m) => backend.roleTemplate(m)),
      );
      const doc = blankPlaybook("team-playbook", "Team playbook");
      doc.workflow = {
        plan: { enabled: true, roles: [planner] },
        build: { enabled: true, roles: [worker, reviewer] },
        test: { enabled: true, roles: [tester] },
      };
      await createPlaybook(doc, "new from the role templates");
    } catch (e) {
      notify(`Could not create the playbook: ${messageOf(e)}`, "error");
    }
  }, [createPlaybook, notify]);

  const saveVersion = useCallback(async () => {
    if (!doc || !current) return;
    try {
      const saved = await backend.save(current.id, current.base, doc, "saved from the editor");
      setCurrent({ id: current.id, base: saved.version.number });
      setAutosave(null);
      setRefresh((r) => r + 1);
      notify(saved.unchanged ? `No change since version ${saved.version.number}.` : `Saved version ${saved.version.number}.`);
    } catch (e) {
      const conflict = e instanceof BackendError && e.code === "conflict";
      notify(`${conflict ? "Not saved: " : "Could not save: "}${messageOf(e)}`, "error");
    }
  }, [doc, current, notify]);

  const saveRoleAsTemplate = useCallback(
    async (address: RoleAddress, name: string) => {
      const role = doc && roleAt(doc, address);
      if (!role) return;
      try {
        const saved = await backend.saveTemplate(name, role, `saved from ${doc.name}`);
        notify(`Saved template ${saved.name}, version ${saved.version.number}.`);
      } catch (e) {
        notify(`Could not save the template: ${messageOf(e)}`, "error");
      }
    },
    [doc, notify],
  );

  const exportDocument = useCallback(
    async (requireValid: boolean) => {
      if (!doc) return;
      if (requireValid && checked && !checked.allow) return notify("Fix the errors first: export as valid is blocked.", "error");
      try {
        const target = await backend.chooseExportPath(`${doc.id || "playbook"}.yaml`, requireValid ? "Export the playbook" : "Save the playbook as");
        if (!target) return;
        const text = await backend.renderDocument(doc, target.toLowerCase().endsWith(".json") ? "json" : "yaml");
        await backend.writeTextFile(target, text);
        notify(`Exported to ${target}.`);
      } catch (e) {
        notify(`Could not export: ${messageOf(e)}`, "error");
      }
    },
    [doc, checked, notify],
  );

  // Commands, from keys and from the menu bar. Undo/redo are the app's, not
  // the text field's, so they work the same across the form, the Source tab
  // and template insertions. The template editor has its own document, undo
  // and save.
  useCommands(
    {
      undo,
      redo,
      save: () => void saveVersion(),
      "save-as": () => void exportDocument(false),
      export: () => void exportDocument(true),
    },
    screen !== "templates" && !!doc,
  );
  useCommands({
    new: () => setScreen("welcome"),
    open: () =>
      void backend
        .choosePlaybookFile()
        .then((file) => file && openFiles([file]))
        .catch((e) => notify(messageOf(e), "error")),
    find: () => {
      const box = window.document.querySelector<HTMLElement>("[data-find]");
      if (box) box.focus();
      else notify("This screen has no search box; the Library has one (Ctrl+F there).");
    },
    "theme-light": () => chooseTheme("light"),
    "theme-dark": () => chooseTheme("dark"),
    "theme-system": () => chooseTheme("system"),
    about: () => setHelp("about"),
    documentation: () => setHelp("documentation"),
  });

  const errors = checked?.findings.filter((f) => f.severity === "error").length ?? 0;
  const nav: [Screen, string, boolean][] = [
    ["welcome", "Welcome", true],
    ["library", "Library", true],
    ["editor", "Editor", !!doc],
    ["templates", "Templates", true],
    ["history", "History", !!current],
    ["preview", "Preview", !!doc],
    ["run", "Run", !!doc],
  ];

  return (
    <div className="app" data-theme={theme}>
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
          {doc && screen === "editor" && (
            <>
              <button type="button" onClick={undo} disabled={!document.canUndo} title="Undo (Ctrl+Z)" data-testid="undo">
                Undo
              </button>
              <button type="button" onClick={redo} disabled={!document.canRedo} title="Redo (Ctrl+Shift+Z)" data-testid="redo">
                Redo
              </button>
              <button type="button" onClick={() => void saveVersion()} disabled={!current} title="Save a version (Ctrl+S)" data-testid="save">
                Save version
              </button>
              <button
                type="button"
                onClick={() => void exportDocument(false)}
                title="Save the open playbook, unsaved edits included, to a YAML or JSON file"
                data-testid="save-as"
              >
                Save as…
              </button>
              <button
                type="button"
                onClick={() => void exportDocument(true)}
                disabled={!checked?.allow}
                title={checked?.allow ? "Export a playbook without errors" : "Blocked: fix the errors first"}
              >
                Export as valid…
              </button>
              {autosave && (
                <span className="muted small" data-testid="autosave" data-state={autosave}>
                  {autosave === "saved" ? "Draft autosaved" : "Saving draft…"}
                </span>
              )}
              <span className={`status ${errors ? "status-error" : "status-ok"}`} data-testid="validity">
                {checked ? (errors ? `${errors} error${errors > 1 ? "s" : ""} — run blocked` : "valid") : "checking…"}
              </span>
            </>
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
      {help && <Help topic={help} onClose={() => setHelp(null)} />}
      <main>
        <ErrorBoundary onReset={() => setScreen(doc ? "editor" : "library")}>
          {screen === "welcome" && (
            <FirstRun
              examples={examples}
              onOpenExample={(ex) => void newFromExample(ex)}
              onBlank={() => void createPlaybook(blankPlaybook("new-playbook", "New playbook"), "new blank playbook")}
              onLibrary={() => setScreen("library")}
            />
          )}
          {screen === "library" && (
            <Library
              examples={examples}
              refresh={refresh}
              onOpen={(id, from) => void openLibraryPlaybook(id, from)}
              onNewBlank={() => void createPlaybook(blankPlaybook("new-playbook", "New playbook"), "new blank playbook")}
              onNewFromTemplates={() => void newFromTemplates()}
              onNewFromExample={(ex) => void newFromExample(ex)}
              notify={notify}
            />
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
              onSaveRoleAsTemplate={saveRoleAsTemplate}
              notify={notify}
            />
          )}
          {screen === "templates" && <Templates notify={notify} />}
          {screen === "preview" && doc && (
            <Preview
              doc={doc}
              checked={checked}
              library={current}
              onShowProblems={() => {
                setTab("form");
                setScreen("editor");
              }}
            />
          )}
          {screen === "run" && doc && (
            <RunMode
              doc={doc}
              checked={checked}
              library={current}
              onShowProblems={() => {
                setTab("form");
                setScreen("editor");
              }}
            />
          )}
          {screen === "history" && current && doc && (
            <History
              id={current.id}
              name={doc.name}
              refresh={refresh}
              notify={notify}
              onRestored={() => {
                setRefresh((r) => r + 1);
                void backend.discardDraft(current.id).finally(() => openLibraryPlaybook(current.id));
              }}
            />
          )}
        </ErrorBoundary>
      </main>
    </div>
  );
}
