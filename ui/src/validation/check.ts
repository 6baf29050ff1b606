// Sends each revision of the open document for checking: the whole
// document the first time, then only what changed since the revision sent
// before, so a keystroke in a 200-role playbook moves a few bytes instead of
// the whole document. When the backend no longer holds that revision
// (answers crossed, or it restarted) it answers `stale` and the whole
// document goes again. A keystroke's change can also be answered at once
// (`checkNow`, a synchronous request), so the edit and its hints are
// rendered in one frame.
import { backend, BackendError } from "../backend";
import type { Authored } from "../generated/Authored";
import type { Checked } from "../generated/Checked";
import type { DocumentChange } from "../generated/DocumentChange";
import type { Include } from "../generated/Include";
import type { Playbook } from "../generated/Playbook";
import { singleChange } from "../playbooks/change";

/** `source`: the author's text, sent only when the Source tab's text is asked for (it is that text rewritten). */
export type Checker = {
  /** The check of a revision, through the asynchronous command. */
  check: (doc: Playbook, revision: number, include: Include, source?: Authored | null) => Promise<Checked>;
  /**
   * The check of a revision answered at once, when it is one small change
   * to the revision sent before and neither the Source text nor the flow
   * graph is asked for; else `null`, and nothing was sent: ask `check`.
   * Used inside a keystroke's event, so that the edit and its hints are
   * rendered, and painted, together.
   */
  checkNow: (doc: Playbook, revision: number, include: Include) => Checked | null;
};

/** Sends a check's body at once, or says it could not (`backend.checkDocumentNow`). */
export type SendNow = (body: string) => Checked | null;

/** A larger change (a list of roles sent whole...) is not worth holding the page for. */
export const NOW_MAX_CHARS = 16 * 1024;

/**
 * The page is blocked while it waits for a synchronous answer. An answer
 * slower than `NOW_BUDGET_MS` costs only itself: a single one is a hiccup
 * (a frame being drawn, the first answer after opening). `NOW_SLOW_IN_ROW`
 * of them in a row say the document is too large to check within a frame:
 * synchronous checks then pause for `NOW_PAUSE_MS`, doubled after each
 * pause that ends in slow answers again (up to `NOW_PAUSE_MAX_MS`), and
 * the document is typed in as before, with its hints a frame later.
 */
export const NOW_BUDGET_MS = 4;
export const NOW_SLOW_IN_ROW = 3;
export const NOW_PAUSE_MS = 1000;
export const NOW_PAUSE_MAX_MS = 60_000;

export function createChecker(sendNow: SendNow = backend.checkDocumentNow, clock: () => number = () => performance.now()): Checker {
  let sent: { revision: number; doc: Playbook } | null = null;
  /** Synchronous checks wait until then (see `NOW_BUDGET_MS`); the next pause; slow answers in a row. */
  let pausedUntil = -Infinity;
  let pause = NOW_PAUSE_MS;
  let slow = 0;
  /** `doc` as one change to the revision sent before, when it is one below the top. */
  const patchTo = (doc: Playbook, revision: number): DocumentChange | null => {
    const change = sent && singleChange(sent.doc, doc);
    return sent && change && change.pointer !== "" ? { kind: "patch", base: sent.revision, revision, pointer: change.pointer, value: change.value } : null;
  };
  const check = async (doc: Playbook, revision: number, include: Include, source: Authored | null = null) => {
    const base = include.source ? source : null;
    const whole: DocumentChange = { kind: "whole", revision, document: doc };
    const request = patchTo(doc, revision) ?? whole;
    sent = { revision, doc };
    try {
      return await backend.checkDocument(request, include, "yaml", base);
    } catch (e) {
      if (request.kind === "patch" && e instanceof BackendError && e.code === "stale") return await backend.checkDocument(whole, include, "yaml", base);
      sent = null;
      throw e;
    }
  };
  const checkNow = (doc: Playbook, revision: number, include: Include) => {
    if (include.source || include.flow || clock() < pausedUntil) return null;
    const patch = patchTo(doc, revision);
    if (!patch) return null;
    const body = backend.checkDocumentBody(patch, include);
    if (body.length > NOW_MAX_CHARS) return null;
    const started = clock();
    const answer = sendNow(body);
    const done = clock();
    if (done - started <= NOW_BUDGET_MS) {
      slow = 0;
      pause = NOW_PAUSE_MS;
    } else if (++slow >= NOW_SLOW_IN_ROW) {
      slow = 0;
      pausedUntil = done + pause;
      pause = Math.min(pause * 2, NOW_PAUSE_MAX_MS);
    }
    // Whether the backend took the change is not known when it failed: the
    // next check sends the whole document.
    sent = answer ? { revision, doc } : null;
    return answer;
  };
  return { check, checkNow };
}

/**
 * `next`, or `previous` when it says the same: most keystrokes change no
 * finding, and keeping the old answer spares re-rendering every hint.
 */
export function keepIfSame<T>(previous: T | null, next: T): T {
  return previous !== null && JSON.stringify(previous) === JSON.stringify(next) ? previous : next;
}

/**
 * The answer `check_document` would give for the document of text typed in
 * the Source tab, made from that text's own check (`check_source`), or
 * `null` when it cannot stand in for it: the graph is asked for, or the
 * text has no playbook. The same document is checked either way, and its
 * findings are located in that very text; the typed model is dropped (the
 * page holds the document).
 */
export function asDocumentAnswer(answer: Checked, typed: Authored, include: Include): Checked | null {
  if (include.flow || !answer.playbook) return null;
  const { playbook: _model, flow: _graph, comments_kept: _kept, ...checked } = answer;
  return { ...checked, source: include.source ? typed.text : "", format: typed.format };
}
