import { describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import { agentSuggestions, BUILT_IN_AGENTS, describeRunError } from "./choices";

describe("agent suggestions", () => {
  it("offers the built-in agents without an agents file", () => {
    expect(agentSuggestions(null)).toEqual([...BUILT_IN_AGENTS]);
  });

  it("puts the agents file's names first and lists each name once", () => {
    const file = { id: 1, path: "/x/agents.yaml", agents: ["scripted", "codex"] };
    expect(agentSuggestions(file)).toEqual(["scripted", "codex", "claude-code", "gemini", "command"]);
  });
});

describe("run errors", () => {
  it("says who can fix a refused run", () => {
    expect(describeRunError(new BackendError({ code: "repository", message: "it has uncommitted changes" }))).toBe(
      "The repository cannot be used: it has uncommitted changes",
    );
    expect(describeRunError(new BackendError({ code: "agent", message: "`claude` is not installed" }))).toMatch(/^No agent could start/);
    expect(describeRunError(new BackendError({ code: "busy", message: "a run is going on" }))).toMatch(/^Not started/);
  });

  it("shows anything else as its message", () => {
    expect(describeRunError(new Error("boom"))).toBe("boom");
    expect(describeRunError("plain")).toBe("plain");
  });
});
