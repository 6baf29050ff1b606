import { describe, expect, it } from "vitest";
import type { Playbook } from "../generated/Playbook";
import { compact, freshKey, initialChoices, parseToolCalls, renameKey, roleNames, selectorSuggestions, setOutput, setTurn, splitList, toolNames } from "./model";

const doc = {
  id: "p",
  name: "P",
  workflow: {
    build: { roles: [{ name: "coder", mode: "worker" }, { name: "reviewer", mode: "reviewer" }] },
    test: { roles: [{ name: "qa", mode: "tester" }] },
  },
} as unknown as Playbook;

describe("scenario form model", () => {
  it("renames a script's key in place and refuses a collision", () => {
    const roles = { a: { default: {} }, b: { iterations: [] }, c: {} };
    expect(Object.keys(renameKey(roles, "b", "mode:worker")!)).toEqual(["a", "mode:worker", "c"]);
    expect(renameKey(roles, "b", "c")).toBeNull();
    expect(renameKey(roles, "b", "b")).toBe(roles);
  });

  it("sets and clears turn fields without leaving empty ones", () => {
    let turn = setOutput(undefined, "verdict", "fail");
    turn = setOutput(turn, "issues", ["x"]);
    expect(turn).toEqual({ output: { verdict: "fail", issues: ["x"] } });
    turn = setOutput(turn, "verdict", undefined);
    turn = setOutput(turn, "issues", undefined);
    expect(turn).toEqual({});
    expect(setTurn({ error: "boom", duration_ms: 5 }, "error", "")).toEqual({ duration_ms: 5 });
    expect(compact({ a: "", b: [], c: {}, d: 0, e: false })).toEqual({ d: 0, e: false });
  });

  it("keeps a tool call's arguments while its name stays", () => {
    const previous = [{ tool: "bash", args: { command: "ls" } }, "read_file"];
    expect(parseToolCalls("bash, read_file, git_diff", previous)).toEqual([previous[0], "read_file", "git_diff"]);
    expect(parseToolCalls("sh, read_file", previous)).toEqual(["sh", "read_file"]);
    expect(toolNames({ tool_calls: previous })).toBe("bash, read_file");
    expect(splitList(" a ,, b ,", /,/)).toEqual(["a", "b"]);
  });

  it("suggests selectors and names from the playbook, and a free key", () => {
    const s = selectorSuggestions(doc);
    for (const key of ["coder", "mode:worker", "mode:worker#1", "stage:build#2", "stage:test"]) expect(s).toContain(key);
    expect(roleNames(doc)).toEqual(["coder", "reviewer", "qa"]);
    expect(roleNames(null)).toEqual([]);
    expect(freshKey({ "mode:worker": {} }, ["mode:worker", "mode:reviewer"])).toBe("mode:reviewer");
    expect(freshKey({ role: {} }, [])).toBe("role 2");
  });

  it("pre-fills the mapping step with each key's best candidate", () => {
    expect(
      initialChoices([
        { selector: "worker", reason: "", candidates: ["coder", "test_author"] },
        { selector: "ghost", reason: "", candidates: [] },
      ]),
    ).toEqual({ worker: "coder", ghost: "" });
  });
});
