// The open document's check: every revision is validated and only the
// newest answer is shown; an edit made in an event is checked before or
// while React renders it (`trackedEdit`), so a keystroke and its hints are
// painted together.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { messageOf } from "../backend";
import type { Authored } from "../generated/Authored";
import type { Checked } from "../generated/Checked";
import type { FlowView } from "../generated/FlowView";
import type { Playbook } from "../generated/Playbook";
import { markAnsweredNow, markEdit, markSent, recordCheck, recordRoundTrip } from "../metrics";
import { asDocumentAnswer, createChecker, keepIfSame } from "./check";
import { planCheck, type CheckView } from "./plan";

type Options = {
  doc: Playbook | null;
  source: Authored | null;
  revision: number;
  /** The document's own edit (`useDocument`); `trackedEdit` wraps it. */
  edit: (doc: Playbook, key?: string, source?: Authored) => void;
  screen: string;
  tab: CheckView["tab"];
  selectionKind: CheckView["selectionKind"];
  notify: (message: string, kind?: "info" | "error") => void;
};

export function useChecking({ doc, source, revision, edit, screen, tab, selectionKind, notify }: Options) {
  const [checked, setChecked] = useState<Checked | null>(null);
  const [flow, setFlow] = useState<FlowView | null>(null);
  /** The document `flow` was computed for. */
  const flowDoc = useRef<Playbook | null>(null);
  // The state as last rendered, so that a keystroke's answer that changes
  // nothing sets no state: a state update, even one React ends up bailing
  // out of, renders the whole shell again (2-3 ms on a 200-role playbook),
  // and the hint's frame waits for it.
  const shown = useRef({ checked, flow });
  shown.current = { checked, flow };
  const seq = useRef(0);
  const [{ check, checkNow }] = useState(() => createChecker());

  /** What a check of `next` asks for in the view `v` (see `validation/plan.ts`). */
  const planFor = useCallback((next: Playbook, v: CheckView) => planCheck(next, v, flowDoc.current), []);
  /** The view as last rendered, for a check started inside an edit's event, before React renders the edit. */
  const view = useRef({ doc, source, revision, screen, tab, selectionKind });
  useLayoutEffect(() => {
    view.current = { doc, source, revision, screen, tab, selectionKind };
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
    const { keepFlow, include, key } = planFor(doc, { screen, tab, selectionKind });
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
  }, [doc, source, revision, check, notify, screen, tab, selectionKind, planFor, showAnswer]);

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

  /** Nothing checked yet: a playbook was opened, or the open one closed. */
  const forget = useCallback(() => {
    setChecked(null);
    setFlow(null);
    flowDoc.current = null;
  }, []);

  return { checked, flow, trackedEdit, forget };
}
