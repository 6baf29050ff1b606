// Autosave: every edit lands in the library's draft, so nothing typed is
// lost on a crash or a quit; Source-tab text that does not read as a
// playbook yet is autosaved as typed. The hook also keeps what the toolbar
// says about the open playbook (`status`) and what the library may hold of
// it, which opening, saving and closing a playbook tell it about.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { backend, messageOf } from "../backend";
import type { Authored } from "../generated/Authored";
import type { Checked } from "../generated/Checked";
import type { Opened } from "../generated/Opened";
import type { Playbook } from "../generated/Playbook";

/** The library playbook being edited and the version the edits started from. */
export type Current = { id: string; base: number };
/**
 * What the toolbar says about the open playbook, always its latest state:
 * `version` when it is exactly the version it started from or just saved,
 * `pending` while edits wait to be autosaved, `draft` once they are.
 */
export type SaveStatus = { kind: "version"; number: number } | { kind: "pending" } | { kind: "draft" } | null;
/** Source-tab text that is not a playbook yet, over the document it was typed on; `stored` when the library's draft already holds it. */
type Broken = { typed: Authored; over: Playbook; stored: boolean };

/** Said whenever the author's text had to be written afresh: comments are never dropped silently. */
export const COMMENTS_LOST =
  "This change could not keep every comment of your text: what it changed (or, at worst, the whole text) was written afresh, without the comments that were in it. Undo the change to get them back, or make it in the Source tab.";

/** How long an edit waits for the next one before its draft is written. */
export const AUTOSAVE_DELAY_MS = 250;

type Options = {
  doc: Playbook | null;
  source: Authored | null;
  revision: number;
  current: Current | null;
  notify: (message: string, kind?: "info" | "error") => void;
};

export function useAutosave({ doc, source, revision, current, notify }: Options) {
  const [status, setStatus] = useState<SaveStatus>(null);
  const [broken, setBroken] = useState<Broken | null>(null);
  // Apart from `broken`: a new answer for the same text must not schedule its autosave again.
  const [brokenAnswer, setBrokenAnswer] = useState<{ typed: Authored; checked: Checked } | null>(null);
  // The state as last rendered, so that an autosave that changes nothing
  // sets no state: a state update, even one React ends up bailing out of,
  // renders the whole shell again, and a keystroke's frame waits for it.
  const shown = useRef({ doc, status });
  shown.current = { doc, status };
  /** The document as last committed, for text the Source tab reports after its check. */
  const rendered = useRef(doc);
  useLayoutEffect(() => {
    rendered.current = doc;
  });
  /** The document object that equals the version `current.base`, when the open one is unchanged since. */
  const savedDoc = useRef<Playbook | null>(null);
  /** Whether the library may hold a draft of the open playbook, to discard it once the edits are saved or undone. */
  const draftStored = useRef(false);
  const loadedRevision = useRef(-1);
  /** Whether the person was told that the autosaved draft could not keep the comments (once per playbook opened). */
  const layoutWarned = useRef(false);

  // The first revision after opening is what was loaded, not an edit.
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
    }, AUTOSAVE_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [doc, source, revision, current, notify]);

  // The document's draft above cannot hold text that is not a playbook.
  // `answer` is the text's check, for the Problems panel.
  const keepBroken = useCallback((typed: Authored, answer: Checked) => {
    const over = rendered.current;
    if (!over) return;
    setBroken({ typed, over, stored: false });
    setBrokenAnswer({ typed, checked: answer });
  }, []);
  /** The check of text already held (`brokenHere.typed`), made again when the Source tab shows it. */
  const heldChecked = useCallback((typed: Authored, answer: Checked) => setBrokenAnswer({ typed, checked: answer }), []);
  const brokenHere = broken && broken.over === doc ? broken : null;
  /** The check of `brokenHere`'s text, once known. */
  const brokenChecked = brokenHere && brokenAnswer?.typed === brokenHere.typed ? brokenAnswer.checked : null;
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
    }, AUTOSAVE_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [brokenHere, current, notify]);

  /** A library playbook was opened: `shownDoc` is the document loaded from `opened` (its draft, else its version). */
  const opened = useCallback((shownDoc: Playbook, opened: Opened) => {
    layoutWarned.current = false;
    loadedRevision.current = -1;
    savedDoc.current = opened.draft ? null : shownDoc;
    draftStored.current = !!opened.draft;
    setBroken(opened.broken_draft ? { typed: opened.broken_draft, over: shownDoc, stored: true } : null);
    setBrokenAnswer(null);
    if (opened.broken_draft) draftStored.current = true;
    setStatus(opened.draft || opened.broken_draft ? { kind: "draft" } : { kind: "version", number: opened.base });
  }, []);

  /** A save added no version (only comments or layout changed): the text stays in the draft. */
  const keptInDraft = useCallback(() => {
    draftStored.current = true;
    setStatus({ kind: "draft" });
  }, []);

  /** `saved`, the open document of playbook `id`, is now its version `number`. */
  const savedAs = useCallback((saved: Playbook, id: string, number: number) => {
    // Set before `current` changes, so the autosave effect sees the saved document.
    savedDoc.current = saved;
    // The store drops a draft that holds what was saved; one autosaved a
    // keystroke earlier holds less, and must not come back as "unsaved edits".
    if (draftStored.current) {
      draftStored.current = false;
      void backend.discardDraft(id).catch(() => undefined);
    }
    setStatus({ kind: "version", number });
  }, []);

  /** The open playbook was closed (deleted from the library). */
  const closed = useCallback(() => {
    setStatus(null);
    savedDoc.current = null;
  }, []);

  return { status, brokenHere, brokenChecked, keepBroken, heldChecked, opened, keptInDraft, savedAs, closed };
}
