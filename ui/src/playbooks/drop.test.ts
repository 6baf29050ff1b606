import { describe, expect, it } from "vitest";
import { droppedFile } from "./drop";

describe("droppedFile", () => {
  it("opens the first playbook or subagent file and counts the rest", () => {
    expect(droppedFile(["/a/notes.txt", "/a/team.YAML", "/a/x.json"])).toEqual({ file: "/a/team.YAML", ignored: 2 });
    expect(droppedFile(["/p/.claude/agents/writer.md"])).toEqual({ file: "/p/.claude/agents/writer.md", ignored: 0 });
  });
  it("says why nothing opens", () => {
    expect(droppedFile(["/a/photo.png"])).toHaveProperty("error");
    expect(droppedFile(["/a/dir"])).toHaveProperty("error");
    expect(droppedFile([])).toEqual({ error: "Nothing was dropped." });
  });
});
