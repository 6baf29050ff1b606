// The code editors on screen, for the app's commands. Undo, Redo and Find
// belong to a code editor while it has the keyboard focus: Ctrl+Z undoes the
// last typing in the text (the editor's own history), as in every text
// editor; everywhere else they are the app's (the document's history, the
// Library's search box). Edit ▸ Find opens the editor's search panel when
// one is on screen even without focus. This module does not load the
// editor: it only holds what the mounted editors registered.
import type { MenuCommand } from "../generated/MenuCommand";

export type ActiveEditor = {
  /** The editor's outer element: focus inside it routes the commands. */
  element: HTMLElement;
  undo: () => void;
  redo: () => void;
  find: () => void;
};

const editors = new Set<ActiveEditor>();

/** Registers a mounted editor; the result unregisters it. */
export function registerEditor(editor: ActiveEditor): () => void {
  editors.add(editor);
  return () => editors.delete(editor);
}

/** The editor holding the keyboard focus, if any. */
export function focusedEditor(): ActiveEditor | null {
  const focus = document.activeElement;
  if (!focus) return null;
  for (const e of editors) if (e.element.contains(focus)) return e;
  return null;
}

/** An editor on screen (the focused one first), if any. */
export function visibleEditor(): ActiveEditor | null {
  const focused = focusedEditor();
  if (focused) return focused;
  for (const e of editors) if (e.element.isConnected) return e;
  return null;
}

/** Whether a command is the focused editor's rather than the app's. */
export function isEditorCommand(command: MenuCommand | null): command is "undo" | "redo" | "find" {
  return (command === "undo" || command === "redo" || command === "find") && focusedEditor() !== null;
}

/** Runs a menu command in the focused editor when it is its; true if it ran there. */
export function runInEditor(command: MenuCommand): boolean {
  if (!isEditorCommand(command)) return false;
  const editor = focusedEditor();
  editor?.[command]();
  return !!editor;
}
