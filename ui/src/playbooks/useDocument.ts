// The open document with undo/redo. Every edit (form, Source tab, template
// insertion, flow graph) goes through `edit`, so Ctrl+Z undoes all of them.
//
// Beside the document travels the author's text it came from (`source`:
// the file, the saved version or what was typed in the Source tab). The
// backend rewrites that text to the document whenever it becomes text
// again (Source tab, save, draft, export), so comments and blank lines
// survive form edits. Each undo step keeps the text of its time.
import { useCallback, useReducer } from "react";
import type { Authored } from "../generated/Authored";
import type { Playbook } from "../generated/Playbook";

type Entry = { doc: Playbook; source: Authored | null };

type State = {
  doc: Playbook | null;
  source: Authored | null;
  past: Entry[];
  future: Entry[];
  /** Consecutive edits with the same key (typing in one field) form one undo step. */
  lastKey: string | null;
  /** Increases on every change, so effects can tell documents apart cheaply. */
  revision: number;
};

type Action =
  | { type: "load"; doc: Playbook; source: Authored | null }
  | { type: "close" }
  | { type: "edit"; doc: Playbook; key?: string; source?: Authored }
  | { type: "undo" }
  | { type: "redo" };

const LIMIT = 500;

export function reduce(state: State, action: Action): State {
  switch (action.type) {
    case "load":
      return { doc: action.doc, source: action.source, past: [], future: [], lastKey: null, revision: state.revision + 1 };
    case "close":
      return { doc: null, source: null, past: [], future: [], lastKey: null, revision: state.revision + 1 };
    case "edit": {
      if (!state.doc || action.doc === state.doc) return state;
      const coalesce = action.key !== undefined && action.key === state.lastKey;
      const past = coalesce ? state.past : [...state.past, { doc: state.doc, source: state.source }].slice(-LIMIT);
      // Text typed in the Source tab is the author's text from now on;
      // a form edit keeps the text it is rewritten from.
      const source = action.source ?? state.source;
      return { doc: action.doc, source, past, future: [], lastKey: action.key ?? null, revision: state.revision + 1 };
    }
    case "undo": {
      const previous = state.past[state.past.length - 1];
      if (!previous || !state.doc) return state;
      return {
        doc: previous.doc,
        source: previous.source,
        past: state.past.slice(0, -1),
        future: [{ doc: state.doc, source: state.source }, ...state.future],
        lastKey: null,
        revision: state.revision + 1,
      };
    }
    case "redo": {
      const [next, ...rest] = state.future;
      if (!next || !state.doc) return state;
      return {
        doc: next.doc,
        source: next.source,
        past: [...state.past, { doc: state.doc, source: state.source }],
        future: rest,
        lastKey: null,
        revision: state.revision + 1,
      };
    }
  }
}

export const initialDocument: State = { doc: null, source: null, past: [], future: [], lastKey: null, revision: 0 };

export function useDocument() {
  const [state, dispatch] = useReducer(reduce, initialDocument);
  /** Opens `doc`; `source` is the author's text it was read from, when there is one. */
  const load = useCallback((doc: Playbook, source: Authored | null = null) => dispatch({ type: "load", doc, source }), []);
  /** An edit; `source` when the author typed the text (Source tab). */
  const edit = useCallback((doc: Playbook, key?: string, source?: Authored) => dispatch({ type: "edit", doc, key, source }), []);
  /** No document open any more (it was deleted from the library). */
  const close = useCallback(() => dispatch({ type: "close" }), []);
  const undo = useCallback(() => dispatch({ type: "undo" }), []);
  const redo = useCallback(() => dispatch({ type: "redo" }), []);
  return {
    doc: state.doc,
    source: state.source,
    revision: state.revision,
    canUndo: state.past.length > 0,
    canRedo: state.future.length > 0,
    load,
    close,
    edit,
    undo,
    redo,
  };
}
