import { afterEach, describe, expect, it, vi } from "vitest";
import { isEditorCommand, registerEditor, runInEditor, visibleEditor } from "./active";

// A stand-in for the DOM: the focused element, and editors that contain it or not.
function fakeEditor(holdsFocus: boolean) {
  const element = { contains: () => holdsFocus, isConnected: true } as unknown as HTMLElement;
  return { element, undo: vi.fn(), redo: vi.fn(), find: vi.fn() };
}

describe("commands while a code editor has the focus", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    cleanups.splice(0).forEach((c) => c());
    vi.unstubAllGlobals();
  });

  it("Undo, Redo and Find are the editor's; the rest stay the app's", () => {
    vi.stubGlobal("document", { activeElement: {} });
    const editor = fakeEditor(true);
    cleanups.push(registerEditor(editor));
    expect(isEditorCommand("undo")).toBe(true);
    expect(isEditorCommand("find")).toBe(true);
    expect(isEditorCommand("save")).toBe(false);
    expect(isEditorCommand(null)).toBe(false);
    expect(runInEditor("redo")).toBe(true);
    expect(editor.redo).toHaveBeenCalledOnce();
    expect(runInEditor("save")).toBe(false);
  });

  it("without the focus the app keeps them, and Find still reaches a visible editor", () => {
    vi.stubGlobal("document", { activeElement: {} });
    const editor = fakeEditor(false);
    cleanups.push(registerEditor(editor));
    expect(isEditorCommand("undo")).toBe(false);
    expect(runInEditor("undo")).toBe(false);
    expect(editor.undo).not.toHaveBeenCalled();
    expect(visibleEditor()).toBe(editor);
  });

  it("an unmounted editor is forgotten", () => {
    vi.stubGlobal("document", { activeElement: {} });
    registerEditor(fakeEditor(true))();
    expect(isEditorCommand("undo")).toBe(false);
    expect(visibleEditor()).toBeNull();
  });
});
