// Commands a person gives with a key or from the native menu bar. The menu
// lives on the Rust side, whose accelerators take real key presses before the
// page sees them; each menu item arrives as an `app-command` window event.
// Screens declare what they do for a command once, with `useCommands`, and
// the same code runs for the key and for the menu.
import { useEffect, useRef } from "react";
import { isEditorCommand, runInEditor } from "../editor/active";
import type { MenuCommand } from "../generated/MenuCommand";

export type Handlers = Partial<Record<MenuCommand, () => void>>;

const EVENT = "app-command";

/** The command a key press means, if any. */
export function commandOf(e: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "shiftKey" | "altKey">): MenuCommand | null {
  if (e.key === "F1") return "documentation";
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return null;
  const key = e.key.toLowerCase();
  if (key === "z") return e.shiftKey ? "redo" : "undo";
  if (key === "y" && !e.shiftKey) return "redo";
  if (key === "s") return e.shiftKey ? "save-as" : "save";
  if (e.shiftKey) return null;
  const plain: Record<string, MenuCommand> = { n: "new", o: "open", e: "export", f: "find" };
  return plain[key] ?? null;
}

/**
 * Announces a command chosen in the native menu to every screen, unless it
 * is the focused code editor's (Undo, Redo and Find while typing in a
 * Source tab: see editor/active.ts).
 */
export function dispatchCommand(command: MenuCommand) {
  if (runInEditor(command)) return;
  window.dispatchEvent(new CustomEvent<MenuCommand>(EVENT, { detail: command }));
}

/** Runs `handlers` for their commands, from keys and from the menu, while `active`. */
export function useCommands(handlers: Handlers, active = true) {
  const current = useRef(handlers);
  useEffect(() => {
    current.current = handlers;
  });
  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      const command = commandOf(e);
      // Undo, Redo and Find are the focused code editor's: run there once,
      // and no further (neither the other screens' listeners nor the
      // editable element's native undo, which would fight the editor's).
      if (isEditorCommand(command)) {
        e.preventDefault();
        e.stopImmediatePropagation();
        runInEditor(command);
        return;
      }
      const run = command && current.current[command];
      if (!run) return;
      e.preventDefault();
      run();
    };
    const onCommand = (e: Event) => current.current[(e as CustomEvent<MenuCommand>).detail]?.();
    window.addEventListener("keydown", onKey, true);
    window.addEventListener(EVENT, onCommand);
    return () => {
      window.removeEventListener("keydown", onKey, true);
      window.removeEventListener(EVENT, onCommand);
    };
  }, [active]);
}
