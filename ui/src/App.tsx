// The application shell: screens, the open document, global shortcuts. The
// open document's check, autosave, opening and saving live in their hooks
// (validation/useChecking, playbooks/useAutosave, useOpening, useSaving);
// keys and the menu bar in shell/useAppCommands.
import { lazy, Suspense, useCallback, useState } from "react";
import { backend } from "./backend";
import { ErrorBoundary } from "./ErrorBoundary";
import { blankPlaybook } from "./playbooks/document";
import { Editor, type Selection, type Tab } from "./playbooks/Editor";
import { FirstRun } from "./playbooks/FirstRun";
import { Library } from "./playbooks/Library";
import { SaveVersionDialog } from "./playbooks/SaveVersionDialog";
import { useAutosave, type Current } from "./playbooks/useAutosave";
import { useDocument } from "./playbooks/useDocument";
import { useOpening, WELCOMED_KEY, type PreviewVersion } from "./playbooks/useOpening";
import { useSaving } from "./playbooks/useSaving";
import type { HelpTopic } from "./shell/Help";
import { NoticeBar, type Notice } from "./shell/NoticeBar";
import { Topbar, type Screen } from "./shell/Topbar";
import { useAppCommands } from "./shell/useAppCommands";
import { useTheme } from "./theme";
import { useChecking } from "./validation/useChecking";

// The screens a user does not see at start load on first use: their code is
// then neither parsed nor compiled by a window that only edits, and the
// web process holds less (docs/benchmarks.md, "Desktop app").
const History = lazy(() => import("./history/History").then((m) => ({ default: m.History })));
const Templates = lazy(() => import("./playbooks/Templates").then((m) => ({ default: m.Templates })));
const Preview = lazy(() => import("./preview/Preview").then((m) => ({ default: m.Preview })));
const RunMode = lazy(() => import("./run/RunMode").then((m) => ({ default: m.RunMode })));
const WhatIf = lazy(() => import("./whatif/WhatIf").then((m) => ({ default: m.WhatIf })));
const Help = lazy(() => import("./shell/Help").then((m) => ({ default: m.Help })));

export function App() {
  const document = useDocument();
  const { doc, source, edit, load, close, undo, redo, revision } = document;
  const [screen, setScreenState] = useState<Screen>(localStorage.getItem(WELCOMED_KEY) ? "library" : "welcome");
  const [selection, setSelection] = useState<Selection>({ kind: "playbook" });
  const [tab, setTab] = useState<Tab>("form");
  const [notice, setNotice] = useState<Notice>(null);
  const [current, setCurrent] = useState<Current | null>(null);
  const [refresh, setRefresh] = useState(0);
  const [saving, setSaving] = useState(false);
  const [previewVersion, setPreviewVersion] = useState<PreviewVersion | null>(null);
  const [theme, toggleTheme, chooseTheme] = useTheme();
  const [help, setHelp] = useState<HelpTopic | null>(null);

  const notify = useCallback((message: string, kind: "info" | "error" = "info") => setNotice({ message, kind }), []);
  const notifyWith = useCallback(
    (message: string, action: { label: string; run: () => void }, kind: "info" | "error" = "info") => setNotice({ message, kind, action }),
    [],
  );
  const setScreen = useCallback((s: Screen) => {
    if (s !== "welcome") localStorage.setItem(WELCOMED_KEY, "1");
    // A version opened from History is previewed until you go elsewhere; the Preview screen then shows the open edits.
    if (s !== "preview") setPreviewVersion(null);
    setScreenState(s);
  }, []);

  // Effects run in the order of these calls: an edit's check is sent before
  // its autosave is scheduled or its obsolete draft discarded. The start-up
  // effects of the opening and command hooks come after the check's and the
  // autosave's, which do nothing until a playbook is open.
  const { checked, flow, trackedEdit, forget: forgetCheck } = useChecking({
    doc,
    source,
    revision,
    edit,
    screen,
    tab,
    selectionKind: selection.kind,
    notify,
  });
  const autosave = useAutosave({ doc, source, revision, current, notify });
  const { status, brokenHere, brokenChecked, keepBroken, heldChecked } = autosave;
  const { examples, openLibraryPlaybook, openFiles, createPlaybook, openExample, newFromTemplates, onDeleted, previewStoredVersion } = useOpening({
    current,
    setCurrent,
    load,
    close,
    autosave,
    forgetCheck,
    setScreen,
    setSelection,
    setTab,
    setPreviewVersion,
    setRefresh,
    notify,
    notifyWith,
  });
  const { saveVersion, saveRoleAsTemplate } = useSaving({ doc, source, current, setCurrent, setSaving, setRefresh, autosave, notify, notifyWith });
  const { exportDocument } = useAppCommands({
    doc,
    source,
    checked,
    current,
    screen,
    setScreen,
    undo,
    redo,
    saving,
    saveVersion,
    openFiles,
    chooseTheme,
    setHelp,
    notify,
  });

  const showProblems = () => {
    setTab("form");
    setScreen("editor");
  };

  return (
    <div className="app" data-theme={theme}>
      <Topbar
        screen={screen}
        setScreen={setScreen}
        open={{ doc: !!doc, library: !!current, previewVersion: !!previewVersion }}
        toolbar={{
          undo,
          redo,
          canUndo: document.canUndo,
          canRedo: document.canRedo,
          onSave: () => setSaving(true),
          onExport: () => void exportDocument(),
          status,
          checked,
          typed: brokenChecked,
        }}
        theme={theme}
        toggleTheme={toggleTheme}
      />
      <NoticeBar notice={notice} setNotice={setNotice} />
      {help && (
        <Suspense fallback={null}>
          <Help topic={help} onClose={() => setHelp(null)} />
        </Suspense>
      )}
      <main>
        <ErrorBoundary onReset={() => setScreen(doc ? "editor" : "library")}>
          <Suspense fallback={<p className="muted">Loading…</p>}>
            {screen === "welcome" && (
              <FirstRun
                examples={examples}
                onOpenExample={(ex) => void openExample(ex)}
                onNewCopy={(ex) => void openExample(ex, true)}
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
                onOpenExample={(ex) => void openExample(ex)}
                onDeleted={onDeleted}
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
                broken={brokenHere?.typed ?? null}
                brokenChecked={brokenChecked}
                onBroken={keepBroken}
                onHeldChecked={heldChecked}
              />
            )}
            {screen === "templates" && <Templates notify={notify} />}
            {screen === "preview" && previewVersion && (
              <>
                <p className="banner" data-testid="preview-version-banner">
                  Previewing version {previewVersion.number} as saved; your open edits are unchanged.{" "}
                  {doc && (
                    <button type="button" className="link" onClick={() => setPreviewVersion(null)} data-testid="preview-open-edits">
                      Preview the open edits instead
                    </button>
                  )}
                </p>
                <Preview
                  key={`${previewVersion.id}@${previewVersion.number}`}
                  doc={previewVersion.doc}
                  checked={previewVersion.checked}
                  library={previewVersion.library}
                  target={{ name: previewVersion.doc.name, version: `version ${previewVersion.number}, as saved` }}
                  memoryKey={previewVersion.id}
                  onShowProblems={showProblems}
                />
              </>
            )}
            {screen === "preview" && !previewVersion && doc && (
              <Preview
                key={current?.id ?? doc.id}
                doc={doc}
                checked={checked}
                library={current}
                target={{
                  name: doc.name,
                  version: !current
                    ? "the open playbook (not in the library)"
                    : status?.kind === "version"
                      ? `version ${current.base}`
                      : `your unsaved edits on version ${current.base}`,
                }}
                memoryKey={current?.id ?? doc.id}
                onShowProblems={showProblems}
              />
            )}
            {screen === "whatif" && doc && <WhatIf doc={doc} />}
            {screen === "run" && doc && <RunMode doc={doc} checked={checked} library={current} onShowProblems={showProblems} />}
            {screen === "history" && current && doc && (
              <History
                id={current.id}
                name={doc.name}
                refresh={refresh}
                notify={notify}
                onPreview={(number) => void previewStoredVersion(number)}
                onRestored={() => {
                  setRefresh((r) => r + 1);
                  void backend.discardDraft(current.id).finally(() => openLibraryPlaybook(current.id));
                }}
              />
            )}
          </Suspense>
        </ErrorBoundary>
      </main>
      {saving && doc && current && (
        <SaveVersionDialog name={doc.name} base={current.base} onCancel={() => setSaving(false)} onSave={(note) => void saveVersion(note)} />
      )}
    </div>
  );
}
