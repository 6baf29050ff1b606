// Sends each revision of the open document for checking: the whole
// document the first time, then only what changed since the revision sent
// before, so a keystroke in a 200-role playbook moves a few bytes instead of
// the whole document. When the backend no longer holds that revision
// (answers crossed, or it restarted) it answers `stale` and the whole
// document goes again.
import { backend, BackendError } from "../backend";
import type { Authored } from "../generated/Authored";
import type { Checked } from "../generated/Checked";
import type { DocumentChange } from "../generated/DocumentChange";
import type { Include } from "../generated/Include";
import type { Playbook } from "../generated/Playbook";
import { singleChange } from "../playbooks/change";

/** `source`: the author's text, sent only when the Source tab's text is asked for (it is that text rewritten). */
export function createChecker(): (doc: Playbook, revision: number, include: Include, source?: Authored | null) => Promise<Checked> {
  let sent: { revision: number; doc: Playbook } | null = null;
  return async (doc, revision, include, source = null) => {
    const base = include.source ? source : null;
    const whole: DocumentChange = { kind: "whole", revision, document: doc };
    const change = sent && singleChange(sent.doc, doc);
    const request: DocumentChange =
      sent && change && change.pointer !== "" ? { kind: "patch", base: sent.revision, revision, pointer: change.pointer, value: change.value } : whole;
    sent = { revision, doc };
    try {
      return await backend.checkDocument(request, include, "yaml", base);
    } catch (e) {
      if (request.kind === "patch" && e instanceof BackendError && e.code === "stale") return await backend.checkDocument(whole, include, "yaml", base);
      sent = null;
      throw e;
    }
  };
}

/**
 * `next`, or `previous` when it says the same: most keystrokes change no
 * finding, and keeping the old answer spares re-rendering every hint.
 */
export function keepIfSame<T>(previous: T | null, next: T): T {
  return previous !== null && JSON.stringify(previous) === JSON.stringify(next) ? previous : next;
}
