// What opens a playbook in the editor, and what closes it: the library, a
// file from outside the window, an example, a new playbook, the one open at
// the last quit; a delete in the Library closes it, and a saved version
// opens in the Preview beside the open edits.
import { useCallback, useEffect, useState } from "react";
import { backend, messageOf } from "../backend";
import type { Authored } from "../generated/Authored";
import type { Checked } from "../generated/Checked";
import type { Example } from "../generated/Example";
import type { Opened } from "../generated/Opened";
import type { Playbook } from "../generated/Playbook";
import type { PlaybookSummary } from "../generated/PlaybookSummary";
import { recordStartup } from "../metrics";
import type { Screen } from "../shell/Topbar";
import { blankPlaybook } from "./document";
import { droppedFile } from "./drop";
import type { Selection, Tab } from "./Editor";
import { versionsOf } from "./Library";
import type { Current } from "./useAutosave";

/** A saved version opened in the Preview from History, beside the open edits. */
export type PreviewVersion = { id: string; number: number; doc: Playbook; checked: Checked | null; library: Current };

export const WELCOMED_KEY = "playbook-studio.welcomed";
const LAST_OPEN_KEY = "playbook-studio.last-open";

type Notify = (message: string, kind?: "info" | "error") => void;

type Options = {
  current: Current | null;
  setCurrent: (current: Current | null) => void;
  /** `useDocument`'s. */
  load: (doc: Playbook, source?: Authored | null) => void;
  close: () => void;
  /** `useAutosave`'s bookkeeping. */
  autosave: { opened: (shown: Playbook, opened: Opened) => void; closed: () => void };
  /** `useChecking`'s: no check of the new document yet. */
  forgetCheck: () => void;
  setScreen: (screen: Screen) => void;
  setSelection: (selection: Selection) => void;
  setTab: (tab: Tab) => void;
  setPreviewVersion: (version: PreviewVersion | null) => void;
  /** The Library and History list again. */
  setRefresh: (update: (r: number) => number) => void;
  notify: Notify;
  notifyWith: (message: string, action: { label: string; run: () => void }, kind?: "info" | "error") => void;
};

export function useOpening(options: Options) {
  const { current, setCurrent, load, close, autosave, forgetCheck, setScreen, setSelection, setTab, setPreviewVersion, setRefresh, notify, notifyWith } = options;
  const { opened: autosaveOpened, closed: autosaveClosed } = autosave;
  const [examples, setExamples] = useState<Example[]>([]);

  const openLibraryPlaybook = useCallback(
    /** `from` names where the playbook came from when it was just imported (a file, an importer). */
    async (id: string, from?: string) => {
      try {
        const opened = await backend.open(id);
        const shown = opened.draft ?? opened.document;
        load(shown, opened.source ?? null);
        autosaveOpened(shown, opened);
        setPreviewVersion(null);
        setCurrent({ id, base: opened.base });
        forgetCheck();
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
    [load, autosaveOpened, setPreviewVersion, setCurrent, forgetCheck, setSelection, setTab, notify, setScreen],
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
    [setRefresh, openLibraryPlaybook, notify],
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
    [setRefresh, openLibraryPlaybook, notify],
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

  /** After a delete in the Library: the open playbook closes if it was the one, and Undo brings it back. */
  const onDeleted = useCallback(
    (deleted: PlaybookSummary) => {
      const wasOpen = current?.id === deleted.id;
      if (wasOpen) {
        close();
        setCurrent(null);
        autosaveClosed();
        forgetCheck();
        setPreviewVersion(null);
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
    [current, close, setCurrent, autosaveClosed, forgetCheck, setPreviewVersion, setRefresh, notify, notifyWith, openLibraryPlaybook],
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
    [current, setPreviewVersion, notify, setScreen],
  );

  return { examples, openLibraryPlaybook, openFiles, createPlaybook, openExample, newFromTemplates, onDeleted, previewStoredVersion };
}
