import { describe, expect, it } from "vitest";
import { edgeLabel } from "./FlowGraph";

describe("flow graph edge labels", () => {
  it("use the roles' names and the edge's meaning", () => {
    expect(edgeLabel("handoff", "lead", "coder", "make", false, undefined, false)).toBe("lead hands off to coder");
    expect(edgeLabel("handoff", "critic", "coder", "make", true, 3, false)).toBe("critic sends back to coder on fail, at most 3 rounds");
    expect(edgeLabel("handoff", "critic", "coder", "make", true, undefined, true)).toBe("critic sends back to coder on fail, with no round limit");
    expect(edgeLabel("stage", "critic", "prober", "check", false, undefined, false)).toBe(
      "critic passes, the task leaves the stage and enters stage check at prober",
    );
    expect(edgeLabel("sequence", "a", "b", "s", false, undefined, false)).not.toMatch(/role:\d/);
  });
});
