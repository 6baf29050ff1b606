import { describe, expect, it } from "vitest";
import type { Playbook } from "../generated/Playbook";
import { initialDocument, reduce } from "./useDocument";

const doc = (name: string): Playbook => ({ id: "d", name, workflow: {} }) as Playbook;
const yaml = (text: string) => ({ text, format: "yaml" as const });

describe("the author's text beside the document", () => {
  it("stays through form edits, follows typed text, and comes back with undo", () => {
    let s = reduce(initialDocument, { type: "load", doc: doc("a"), source: yaml("# c\nname: a\n") });
    s = reduce(s, { type: "edit", doc: doc("b"), key: "/name" });
    expect(s.source?.text).toBe("# c\nname: a\n");
    s = reduce(s, { type: "edit", doc: doc("c"), key: "source", source: yaml("# typed\nname: c\n") });
    expect(s.source?.text).toBe("# typed\nname: c\n");
    s = reduce(s, { type: "undo" });
    expect([s.doc?.name, s.source?.text]).toEqual(["b", "# c\nname: a\n"]);
    s = reduce(s, { type: "redo" });
    expect([s.doc?.name, s.source?.text]).toEqual(["c", "# typed\nname: c\n"]);
  });

  it("is empty for a document opened without text, and after closing", () => {
    let s = reduce(initialDocument, { type: "load", doc: doc("a"), source: null });
    expect(s.source).toBeNull();
    s = reduce(s, { type: "close" });
    expect([s.doc, s.source]).toEqual([null, null]);
  });
});
