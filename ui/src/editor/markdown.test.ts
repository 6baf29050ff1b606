import { describe, expect, it } from "vitest";
import { parseMarkdown } from "./markdown";

describe("the schema's Markdown", () => {
  it("has paragraphs, code and bold", () => {
    expect(parseMarkdown("**mode** (string)\n\nWhat the role does.\n\nOne of: `planner`, `worker`")).toEqual([
      [{ text: "mode", bold: true }, { text: " (string)" }],
      [{ text: "What the role does." }],
      [{ text: "One of: " }, { text: "planner", code: true }, { text: ", " }, { text: "worker", code: true }],
    ]);
  });
  it("keeps markup as text and drops section rules", () => {
    expect(parseMarkdown("<img src=x onerror=alert(1)>\n\n---\n\n`unclosed")).toEqual([
      [{ text: "<img src=x onerror=alert(1)>" }],
      [{ text: "`unclosed" }],
    ]);
    expect(parseMarkdown("")).toEqual([]);
  });
});
