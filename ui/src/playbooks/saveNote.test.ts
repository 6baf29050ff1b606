import { describe, expect, it } from "vitest";
import { DEFAULT_NOTE, noteOrDefault } from "./SaveVersionDialog";

describe("the note of a saved version", () => {
  it("is what was typed, trimmed, or the default when nothing was", () => {
    expect(noteOrDefault("  renamed worker to coder ")).toBe("renamed worker to coder");
    expect(noteOrDefault("")).toBe(DEFAULT_NOTE);
    expect(noteOrDefault(" \n\t ")).toBe(DEFAULT_NOTE);
  });
});
