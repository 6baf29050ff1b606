// The application shell: screens, the open document, global shortcuts.
import { lazy, Suspense, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { backend, BackendError, messageOf } from "./backend";
import { ErrorBoundary } from "./ErrorBoundary";
import type { Authored } from "./generated/Authored";
import type { Checked } from "./generated/Checked";
import type { Example } from "./generated/Example";
import type { FlowView } from "./generated/FlowView";
import type { Playbook } from "./generated/Playbook";
import type { PlaybookSummary } from "./generated/PlaybookSummary";
import { markAnsweredNow, markEdit, markSent, recordCheck, recordRoundTrip, recordStartup } from "./metrics";
import { blankPlaybook, roleAt, type RoleAddress } from "./playbooks/document";
import { Editor, type Selection, type Tab } from "./playbooks/Editor";
import { FirstRun } from "./playbooks/FirstRun";
import { Library, versionsOf } from "./playbooks/Library";
import { noteOrDefault, SaveVersionDialog } from "./playbooks/SaveVersionDialog";
import { droppedFile } from "./playbooks/drop";
import { useDocument } from "./playbooks/useDocument";
import type { HelpTopic } from "./shell/Help";
import { visibleEditor } from "./editor/active";
import { dispatchCommand, useCommands } from "./shell/commands";
import { useTheme } from "./theme";
import { asDocumentAnswer, createChecker, keepIfSame } from "./validation/check";
import { planCheck, type CheckView } from "./validation/plan";

// The screens a user does not see at start load on first use: their code is
// then neither parsed nor compiled by a window that only edits, and the
// web process holds less (docs/benchmarks.md, "Desktop app").
const History = lazy(() => import("./history/History").then((m) => ({ default: m.History })));
const Templates = lazy(() => import("./playbooks/Templates").then((m) => ({ default: m.Templates })));
const Preview = lazy(() => import("./preview/Preview").then((m) => ({ default: m.Preview })));
const RunMode = lazy(() => import("./run/RunMode").then((m) => ({ default: m.RunMode })));
const WhatIf = lazy(() => import("./whatif/WhatIf").then((m) => ({ default: m.WhatIf })));
const Help = lazy(() => import("./shell/Help").then((m) => ({ default: m.Help })));

type Screen = "welcome" | "library" | "editor" | "templates" | "history" | "preview" | "whatif" | "run";
/** A message at the top; `action` is one button that goes with it (Undo, Restore). */
type Notice = { message: string; kind: "info" | "error"; action?: { label: string; run: () => void } } | null;
/** The library playbook being edited and the version the edits started from. */
type Current = { id: string; base: number };
/**
 * What the toolbar says about the open playbook, always its latest state:
 * `version` when it is exactly the version it started from or just saved,
 * `pending` while edits wait to be autosaved, `draft` once they are.
 */
type SaveStatus = { kind: "version"; number: number } | { kind: "pending" } | { kind: "draft" } | null;
/** A saved version opened in the Preview from History, beside the open edits. */
type PreviewVersion = { id: string; number: number; doc: Playbook; checked: Checked | null; library: Current };

/** Said whenever the author's text had to be written afresh: comments are never dropped silently. */
const COMMENTS_LOST =
  "This change could not keep every comment of your text: what it changed (or, at worst, the whole text) was written afresh, without the comments that were in it. Undo the change to get them back, or make it in the Source tab.";

/** Why an export is written afresh. */
function exportLayoutNote(from: string | undefined, to: string): string {
  return from && from !== to
    ? `It is written afresh as ${to.toUpperCase()}: the comments of the ${from.toUpperCase()} text are not in it (export as .${from} to keep them).`
    : "Not every comment of your text could be kept: what changed was written afresh.";
}

const WELCOMED_KEY = "playbook-studio.welcomed";
const LAST_OPEN_KEY = "playbook-studio.last-open";

export function App() {
  const document = useDocument();
  const { doc, source, edit, load, close, undo, redo, revision } = document;
  const [screen, setScreenState] = useState<Screen>(localStorage.getItem(WELCOMED_KEY) ? "library" : "welcome");
  const [examples, setExamples] = useState<Example[]>([]);
  const [checked, setChecked] = useState<Checked | null>(null);
  const [flow, setFlow] = useState<FlowView | null>(null);
  /** The document `flow` was computed for. */
  const flowDoc = useRef<Playbook | null>(null);
  const [selection, setSelection] = useState<Selection>({ kind: "playbook" });
  const [tab, setTab] = useState<Tab>("form");
  const [notice, setNotice] = useState<Notice>(null);
  const [current, setCurrent] = useState<Current | null>(null);
  const [refresh, setRefresh] = useState(0);
  const [status, setStatus] = useState<SaveStatus>(null);
  // Source-tab text that is not a playbook yet, over the document it was
  // typed on; `stored` when the library's draft already holds it.
  const [broken, setBroken] = useState<{ typed: Authored; over: Playbook; stored: boolean } | null>(null);
  // The state as last rendered, so that a keystroke's answer or autosave
  // that changes nothing sets no state: a state update, even one React
  // ends up bailing out of, renders the whole shell again (2-3 ms on a
  // 200-role playbook), and the hint's frame waits for it.
  const shown = useRef({ doc, checked, flow, status });
  shown.current = { doc, checked, flow, status };
  /** The document object that equals the version `current.base`, when the open one is unchanged since. */
  const savedDoc = useRef<Playbook | null>(null);
  /** Whether the library may hold a draft of the open playbook, to discard it once the edits are saved or undone. */
  const draftStored = useRef(false);
  const [saving, setSaving] = useState(false);
  const [previewVersion, setPreviewVersion] = useState<PreviewVersion | null>(null);
  const [theme, toggleTheme, chooseTheme] = useTheme();
  const [help, setHelp] = useState<HelpTopic | null>(null);
  const seq = useRef(0);
  const [{ check, checkNow }] = useState(() => createChecker());
  const loadedRevision = useRef(-1);
  /** Whether the person was told that the autosaved draft could not keep the comments (once per playbook opened). */
  const layoutWarned = useRef(false);

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

  const openLibraryPlaybook = useCallback(
    /** `from` names where the playbook came from when it was just imported (a file, an importer). */
    async (id: string, from?: string) => {
      try {
        const opened = await backend.open(id);
        const shown = opened.draft ?? opened.document;
        load(shown, opened.source ?? null);
        layoutWarned.current = false;
        loadedRevision.current = -1;
        savedDoc.current = opened.draft ? null : shown;
        draftStored.current = !!opened.draft;
        setBroken(opened.broken_draft ? { typed: opened.broken_draft, over: shown, stored: true } : null);
        if (opened.broken_draft) draftStored.current = true;
        setStatus(opened.draft || opened.broken_draft ? { kind: "draft" } : { kind: "version", number: opened.base });
        setPreviewVersion(null);
        setCurrent({ id, base: opened.base });
        setChecked(null);
        setFlow(null);
        flowDoc.current = null;
        setSelection({ kind: "playbook" });
        setTab(opened.broken_draft ? "source" : "form");
        setScreen("editor");
        localStorage.setItem(LAST_OPEN_KEY, id);
        notify(
          opened.broken_draft
            ? `Opened ${opened.summary.name} with the text you were typing (autosaved ${new Date(opened.draft_updated_at ?? "").toLocaleString()}); it is not a valid playbook yet, so it is in the Source tab until it is fixed.`
            : opened.draft
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
    // The playbook open at the last quit; if it was deleted since, the library is shown instead.
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

  /** What a check of `next` asks for in the view `v` (see `validation/plan.ts`). */
  const planFor = useCallback((next: Playbook, v: CheckView) => planCheck(next, v, flowDoc.current), []);
  /** The view as last rendered, for a check started inside an edit's event, before React renders the edit. */
  const view = useRef({ doc, source, revision, screen, tab, selectionKind: selection.kind });
  useLayoutEffect(() => {
    view.current = { doc, source, revision, screen, tab, selectionKind: selection.kind };
  });
  /**
   * A check already sent for a revision by `trackedEdit`, for the effect
   * below to take up; its `answer` is `null` when it was rendered with the edit.
   */
  const early = useRef<{ doc: Playbook; revision: number; key: string; sent: number; answer: ReturnType<typeof check> | null } | null>(null);

  /** Sets the state an answer for `answered` leads to, only where it differs from what is shown. */
  const showAnswer = useCallback((answered: Playbook, result: Checked, keepFlow: boolean) => {
    const { flow: graph, ...answer } = result;
    const nextChecked = keepIfSame(shown.current.checked, answer);
    // The graph comes only while its tab is open; an edit elsewhere makes
    // the last one outdated, unless the document lost its structure (then
    // the last valid graph is shown as such).
    let nextFlow = shown.current.flow;
    if (graph) {
      nextFlow = keepIfSame(nextFlow, graph);
      flowDoc.current = answered;
    } else if (answer.structurally_valid && !keepFlow) {
      nextFlow = null;
      flowDoc.current = null;
    }
    if (nextChecked !== shown.current.checked) setChecked(nextChecked);
    if (nextFlow !== shown.current.flow) setFlow(nextFlow);
  }, []);

  // Validate every revision; only the newest answer is shown.
  useEffect(() => {
    if (!doc) return;
    const mine = ++seq.current;
    const { keepFlow, include, key } = planFor(doc, { screen, tab, selectionKind: selection.kind });
    // The check of a keystroke left while React rendered it (see
    // `trackedEdit`); it is used when it was of this very document and view.
    const ahead = early.current;
    early.current = null;
    const same = ahead !== null && ahead.doc === doc && ahead.revision === revision && ahead.key === key;
    // Answered in the edit's own event and rendered with it: nothing left to do.
    if (same && ahead.answer === null) return;
    const sent = same ? ahead.sent : performance.now();
    if (!same) markSent();
    ((same && ahead.answer) || check(doc, revision, include, source))
      .then((result) => {
        recordRoundTrip(performance.now() - sent);
        if (mine !== seq.current) return;
        // Rendered now rather than in a later task: the hints of a keystroke
        // reach the DOM in the frame the answer arrives in.
        flushSync(() => showAnswer(doc, result, keepFlow));
        recordCheck();
      })
      .catch((e) => mine === seq.current && notify(`Validation failed: ${messageOf(e)}. Your edits are kept.`, "error"));
  }, [doc, source, revision, check, notify, screen, tab, selection.kind, planFor, showAnswer]);

  // Autosave: every edit lands in the library's draft, so nothing typed is
  // lost on a crash or a quit. The first revision after opening is what was
  // loaded, not an edit.
  useEffect(() => {
    if (!doc || !current) return;
    if (loadedRevision.current === -1) {
      loadedRevision.current = revision;
      return;
    }
    // Back at (or just saved as) the version: nothing to autosave. This also
    // keeps a save from being followed by a draft of the same text.
    if (doc === savedDoc.current) {
      setStatus({ kind: "version", number: current.base });
      // Edits undone back to the version: the draft of them is obsolete.
      if (draftStored.current) {
        draftStored.current = false;
        void backend.discardDraft(current.id).catch(() => undefined);
      }
      return;
    }
    // Set once while typing: a state update per keystroke would render the whole shell again.
    if (shown.current.status?.kind !== "pending") setStatus({ kind: "pending" });
    const timer = window.setTimeout(() => {
      backend
        .saveDraft(current.id, doc, current.base, source)
        .then((saved) => {
          draftStored.current = true;
          if (!saved.comments_kept && !layoutWarned.current) {
            layoutWarned.current = true;
            notify(COMMENTS_LOST, "error");
          }
          return saved;
        })
        // A save may have finished while the draft was written, or an edit
        // made since (whose own draft is coming): the status is the latest state.
        .then(() =>
          setStatus((now) => (now?.kind === "pending" && savedDoc.current !== doc && shown.current.doc === doc ? { kind: "draft" } : now)),
        )
        .catch((e) => notify(`Autosave failed: ${messageOf(e)}. Your edits are still in the window.`, "error"));
    }, 250);
    return () => window.clearTimeout(timer);
  }, [doc, source, revision, current, notify]);

  // Source-tab text that is not a playbook yet is autosaved as typed: the
  // document's draft above cannot hold it.
  const keepBroken = useCallback((typed: Authored) => {
    const over = view.current.doc;
    if (over) setBroken({ typed, over, stored: false });
  }, []);
  const brokenHere = broken && broken.over === doc ? broken : null;
  useEffect(() => {
    if (!brokenHere || brokenHere.stored || !current) return;
    if (shown.current.status?.kind !== "pending") setStatus({ kind: "pending" });
    const { text, format } = brokenHere.typed;
    const timer = window.setTimeout(() => {
      backend
        .saveDraftText(current.id, text, format, current.base)
        .then(() => {
          draftStored.current = true;
          setStatus((now) => (now?.kind === "pending" ? { kind: "draft" } : now));
        })
        .catch((e) => notify(`Autosave failed: ${messageOf(e)}. Your text is still in the Source tab.`, "error"));
    }, 250);
    return () => window.clearTimeout(timer);
  }, [brokenHere, current, notify]);

  const trackedEdit = useCallback(
    (next: Playbook, key?: string, typed?: Authored, answered?: Checked) => {
      markEdit();
      // The backend checks the edit before or while React renders it. The
      // revision is the one the edit will get (see `useDocument`); if the
      // render turns out otherwise, the effect above checks what was
      // rendered instead.
      const v = view.current;
      if (!v.doc || next === v.doc) return edit(next, key, typed);
      const { include, key: planned, keepFlow } = planFor(next, v);
      const revisionNext = v.revision + 1;
      const sent = performance.now();
      markSent();
      // The answer, when there is one before the edit is rendered; then the
      // edit is rendered with its hints. A keystroke's small change is
      // checked at once (`checkNow`): WebKit paints the key's own frame right
      // after this event and the next one up to 16.7 ms later, so hints that
      // miss the edit's frame are seen that much later. Text typed in the
      // Source tab comes with its own check's answer, which is the
      // document's: it is not checked a second time.
      const now = typed ? (answered ? asDocumentAnswer(answered, typed, include) : null) : checkNow(next, revisionNext, include);
      if (now && !answered) {
        markAnsweredNow();
        recordRoundTrip(performance.now() - sent);
      }
      if (now) {
        early.current = { doc: next, revision: revisionNext, key: planned, sent, answer: null };
        flushSync(() => {
          edit(next, key, typed);
          showAnswer(next, now, keepFlow);
        });
        recordCheck();
        return;
      }
      const answer = check(next, revisionNext, include, typed ?? v.source);
      // A check the render did not take up is dropped; its failure too (the effect's own check reports).
      answer.catch(() => undefined);
      early.current = { doc: next, revision: revisionNext, key: planned, sent, answer };
      edit(next, key, typed);
    },
    [edit, check, checkNow, planFor, showAnswer],
  );

  /** A new library playbook from a document; the library picks a free id (`<id>-2`... when taken, deleted playbooks included). */
  const createPlaybook = useCallback(
    async (document: Playbook, note: string) => {
      try {
        const saved = await backend.create({ ...document, id: document.id || "playbook" }, note);
        setRefresh((r) => r + 1);
        await openLibraryPlaybook(saved.playbook);
      } catch (e) {
        notify(`Could not create the playbook: ${messageOf(e)}`, "error");
      }
    },
    [openLibraryPlaybook, notify],
  );

  /** The library's unchanged copy of the example, or a new one; `newCopy` always makes one. */
  const openExample = useCallback(
    async (example: Example, newCopy = false) => {
      try {
        const opened = await backend.openExample(example.id, newCopy);
        if (opened.created) setRefresh((r) => r + 1);
        await openLibraryPlaybook(opened.playbook);
        if (opened.created && newCopy) notify(`Made a new copy of the ${example.name} example: ${opened.playbook}.`);
      } catch (e) {
        notify(`Could not open the ${example.name} example: ${messageOf(e)}`, "error");
      }
    },
    [openLibraryPlaybook, notify],
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

  const saveVersion = useCallback(
    async (note: string) => {
      if (!doc || !current) return;
      setSaving(false);
      try {
        const result = await backend.save(current.id, current.base, doc, noteOrDefault(note), source);
        const saved = result.saved;
        if (result.draft_kept) {
          // Only comments or layout changed: versions record content, so the text stays in the draft.
          draftStored.current = true;
          setStatus({ kind: "draft" });
          notify(`No change to the content since version ${saved.version.number}, so no version was added; your comment and layout changes are kept in the autosaved draft.`);
          return;
        }
        // Set before `current` changes, so the autosave effect sees the saved document.
        savedDoc.current = doc;
        // The store drops a draft that holds what was saved; one autosaved a
        // keystroke earlier holds less, and must not come back as "unsaved edits".
        if (draftStored.current) {
          draftStored.current = false;
          void backend.discardDraft(current.id).catch(() => undefined);
        }
        setCurrent({ id: current.id, base: saved.version.number });
        setStatus({ kind: "version", number: saved.version.number });
        setRefresh((r) => r + 1);
        if (!result.comments_kept) notify(`Saved version ${saved.version.number}. ${COMMENTS_LOST}`, "error");
        else notify(saved.unchanged ? `No change since version ${saved.version.number}.` : `Saved version ${saved.version.number}.`);
      } catch (e) {
        const code = e instanceof BackendError ? (e.details as { code?: string } | undefined)?.code : undefined;
        if (code === "DELETED") {
          // Deleted elsewhere (another window, the CLI): nothing is lost, the edits are still here.
          const id = current.id;
          notifyWith(
            `Not saved: ${id} was deleted from the library. Your edits are still open.`,
            {
              label: "Restore it and save",
              run: () =>
                void backend
                  .undelete(id)
                  .then(() => saveVersion(note))
                  .catch((err) => notify(`Could not restore ${id}: ${messageOf(err)}`, "error")),
            },
            "error",
          );
          return;
        }
        const conflict = e instanceof BackendError && e.code === "conflict";
        notify(`${conflict ? "Not saved: " : "Could not save: "}${messageOf(e)}`, "error");
      }
    },
    [doc, source, current, notify, notifyWith],
  );

  /** After a delete in the Library: the open playbook closes if it was the one, and Undo brings it back. */
  const onDeleted = useCallback(
    (deleted: PlaybookSummary) => {
      const wasOpen = current?.id === deleted.id;
      if (wasOpen) {
        close();
        setCurrent(null);
        setStatus(null);
        setChecked(null);
        setFlow(null);
        flowDoc.current = null;
        setPreviewVersion(null);
        savedDoc.current = null;
        localStorage.removeItem(LAST_OPEN_KEY);
      }
      setRefresh((r) => r + 1);
      notifyWith(`Deleted ${deleted.name} and its ${versionsOf(deleted.latest.number)}${wasOpen ? "; it was open and is closed" : ""}.`, {
        label: "Undo",
        run: () =>
          void backend
            .undelete(deleted.id)
            .then(() => {
              setRefresh((r) => r + 1);
              if (wasOpen) return openLibraryPlaybook(deleted.id);
              notify(`Restored ${deleted.name} with its ${versionsOf(deleted.latest.number)}.`);
            })
            .catch((e) => notify(`Could not restore ${deleted.name}: ${messageOf(e)}`, "error")),
      });
    },
    [current, close, notify, notifyWith, openLibraryPlaybook],
  );

  /** History's "Preview this version": the version's document, checked, in the Preview screen. */
  const previewStoredVersion = useCallback(
    async (number: number) => {
      if (!current) return;
      try {
        const stored = await backend.version(current.id, number);
        const checkedVersion = await backend.checkSource(JSON.stringify(stored.document), "json", { source: true, flow: true }).catch(() => null);
        // `library` is made once here: the Preview reloads its runs when that object changes.
        setPreviewVersion({ id: current.id, number, doc: stored.document, checked: checkedVersion, library: { id: current.id, base: number } });
        setScreen("preview");
      } catch (e) {
        notify(`Could not open version ${number}: ${messageOf(e)}`, "error");
      }
    },
    [current, notify, setScreen],
  );

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

  /**
   * Export to file…: the open playbook, unsaved edits included, as YAML or
   * JSON. One action for valid and invalid playbooks (there used to be a
   * second, "Export as valid…", that only differed by refusing errors): a
   * playbook with errors is written, and the notice says so, so work in
   * progress can be shared and CI's `playbook validate` still refuses it.
   */
  const exportDocument = useCallback(async () => {
    if (!doc) return;
    try {
      const target = await backend.chooseExportPath(`${doc.id || "playbook"}.yaml`, "Export the open playbook to a file");
      if (!target) return;
      const rendered = await backend.renderAuthored(doc, target.toLowerCase().endsWith(".json") ? "json" : "yaml", source);
      await backend.writeTextFile(target, rendered.text);
      const errorCount = checked?.findings.filter((f) => f.severity === "error").length ?? 0;
      const lost = rendered.comments_kept ? "" : ` ${exportLayoutNote(source?.format, rendered.format)}`;
      notify(
        errorCount > 0
          ? `Exported to ${target}, with ${errorCount} error${errorCount === 1 ? "" : "s"}: \`playbook validate\` refuses it until they are fixed.${lost}`
          : `Exported to ${target}.${lost}`,
        errorCount > 0 || lost ? "error" : "info",
      );
    } catch (e) {
      notify(`Could not export: ${messageOf(e)}`, "error");
    }
  }, [doc, source, checked, notify]);

  // Commands, from keys and from the menu bar. Undo/redo are the app's, not
  // the text field's, so they work the same across the form, the Source tab
  // and template insertions. The template editor has its own document, undo
  // and save.
  useCommands(
    {
      undo,
      redo,
      // Ctrl+S saves at once with the default note; "Save version…" asks for one.
      save: () => {
        if (!saving) void saveVersion("");
      },
      "save-as": () => void exportDocument(),
    },
    screen !== "templates" && !!doc,
  );
  useCommands({
    new: () => setScreen("welcome"),
    // The open playbook's latest saved version, as the Library's "Claude Code…" writes it.
    export: () => {
      if (!current) return notify("Open a playbook from the library first: the export writes its saved version.", "error");
      void backend
        .exportClaudeCode(current.id)
        .then((done) => {
          if (!done) return;
          const notes = done.notes.length ? ` Notes: ${done.notes.join(" ")}` : "";
          notify(`Exported for Claude Code into ${done.dir}: ${done.files.length} files. The hook runs \`playbook gate\`: the playbook CLI must be installed there.${notes}`);
        })
        .catch((e) => notify(messageOf(e), "error"));
    },
    open: () =>
      void backend
        .choosePlaybookFile()
        .then((file) => file && openFiles([file]))
        .catch((e) => notify(messageOf(e), "error")),
    find: () => {
      // A Source tab on screen: its editor's search panel.
      const editor = visibleEditor();
      if (editor) return editor.find();
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
    ["preview", "Preview", !!doc || !!previewVersion],
    ["whatif", "What-if", !!doc],
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
              <button
                type="button"
                onClick={() => setSaving(true)}
                disabled={!current}
                title="Save the open edits as the next version in the library, with a note for History (Ctrl+S saves at once)"
                data-testid="save"
              >
                Save version…
              </button>
              <button
                type="button"
                onClick={() => void exportDocument()}
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
          {notice.action && (
            <button
              type="button"
              className="notice-action"
              data-testid="notice-action"
              onClick={() => {
                const run = notice.action?.run;
                setNotice(null);
                run?.();
              }}
            >
              {notice.action.label}
            </button>
          )}
          <button type="button" aria-label="Dismiss" onClick={() => setNotice(null)}>
            ×
          </button>
        </div>
      )}
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
                onBroken={keepBroken}
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
                  onShowProblems={() => {
                    setTab("form");
                    setScreen("editor");
                  }}
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
                onShowProblems={() => {
                  setTab("form");
                  setScreen("editor");
                }}
              />
            )}
            {screen === "whatif" && doc && <WhatIf doc={doc} />}
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
