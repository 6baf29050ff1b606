import { describe, expect, it } from "vitest";
import { commandOf } from "./commands";

const key = (k: string, mods: Partial<{ ctrlKey: boolean; shiftKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

describe("commandOf", () => {
  it("reads the editor's shortcuts as the menu's commands", () => {
    expect(commandOf(key("z", { ctrlKey: true }))).toBe("undo");
    expect(commandOf(key("Z", { ctrlKey: true, shiftKey: true }))).toBe("redo");
    expect(commandOf(key("y", { ctrlKey: true }))).toBe("redo");
    expect(commandOf(key("s", { metaKey: true }))).toBe("save");
    expect(commandOf(key("S", { ctrlKey: true, shiftKey: true }))).toBe("save-as");
    expect(commandOf(key("o", { ctrlKey: true }))).toBe("open");
    expect(commandOf(key("F1"))).toBe("documentation");
  });

  it("leaves typing and other combinations to the page", () => {
    expect(commandOf(key("s"))).toBeNull();
    expect(commandOf(key("o", { ctrlKey: true, shiftKey: true }))).toBeNull();
    expect(commandOf(key("s", { ctrlKey: true, altKey: true }))).toBeNull();
    expect(commandOf(key("c", { ctrlKey: true }))).toBeNull();
  });
});
