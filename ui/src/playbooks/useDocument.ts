// The open document with undo/redo. Every edit (form, Source tab, template
// insertion, flow graph) goes through `edit`, so Ctrl+Z undoes all of them.
import { useCallback, useReducer } from "react";
import type { Playbook } from "../generated/Playbook";

type State = {
  doc: Playbook | null;
  past: Playbook[];
  future: Playbook[];
  /** Consecutive edits with the same key (typing in one field) form one undo step. */
  lastKey: string | null;
  /** Increases on every change, so effects can tell documents apart cheaply. */
  revision: number;
};

type Action =
  | { type: "load"; doc: Playbook }
  | { type: "close" }
  | { type: "edit"; doc: Playbook; key?: string }
  | { type: "undo" }
  | { type: "redo" };

const LIMIT = 500;

function reduce(state: State, action: Action): State {
  switch (action.type) {
    case "load":
      return { doc: action.doc, past: [], future: [], lastKey: null, revision: state.revision + 1 };
    case "close":
      return { doc: null, past: [], future: [], lastKey: null, revision: state.revision + 1 };
    case "edit": {
      if (!state.doc || action.doc === state.doc) return state;
      const coalesce = action.key !== undefined && action.key === state.lastKey;
      const past = coalesce ? state.past : [...state.past, state.doc].slice(-LIMIT);
      return { doc: action.doc, past, future: [], lastKey: action.key ?? null, revision: state.revision + 1 };
    }
    case "undo": {
      const previous = state.past[state.past.length - 1];
      if (!previous || !state.doc) return state;
      return {
        doc: previous,
        past: state.past.slice(0, -1),
        future: [state.doc, ...state.future],
        lastKey: null,
        revision: state.revision + 1,
      };
    }
    case "redo": {
      const [next, ...rest] = state.future;
      if (!next || !state.doc) return state;
      return { doc: next, past: [...state.past, state.doc], future: rest, lastKey: null, revision: state.revision + 1 };
    }
  }
}

export function useDocument() {
  const [state, dispatch] = useReducer(reduce, { doc: null, past: [], future: [], lastKey: null, revision: 0 });
  const load = useCallback((doc: Playbook) => dispatch({ type: "load", doc }), []);
  const edit = useCallback((doc: Playbook, key?: string) => dispatch({ type: "edit", doc, key }), []);
  /** No document open any more (it was deleted from the library). */
  const close = useCallback(() => dispatch({ type: "close" }), []);
  const undo = useCallback(() => dispatch({ type: "undo" }), []);
  const redo = useCallback(() => dispatch({ type: "redo" }), []);
  return {
    doc: state.doc,
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
