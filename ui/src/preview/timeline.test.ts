import { describe as suite, expect, it } from "vitest";
import { describe } from "./Timeline";
import type { EventRecord } from "../generated/EventRecord";

suite("timeline lines", () => {
  it("show the engine's words for a failed gate", () => {
    const r = {
      seq: 1n,
      t_ms: 0n,
      type: "gate_failed",
      task_id: "T-1",
      scope: "role",
      owner: "critic",
      gate: "approved_by_critic",
      reason: "`approved_by_critic` is false",
      summary: "critic: fail — 'No test'; back to coder, round 2 of 3",
    } as unknown as EventRecord;
    expect(describe(r)).toBe("T-1: critic: fail — 'No test'; back to coder, round 2 of 3");
  });
  it("fall back to the gate and reason for logs without words", () => {
    const r = {
      seq: 1n,
      t_ms: 0n,
      type: "gate_failed",
      task_id: "T-1",
      scope: "role",
      owner: "critic",
      gate: "g",
      reason: "`g` is false",
      summary: "",
    } as unknown as EventRecord;
    expect(describe(r)).toBe("Gate g of critic failed: `g` is false");
  });
  it("say a send-back in words", () => {
    const r = {
      seq: 1n,
      t_ms: 0n,
      type: "handoff",
      task_id: "T-1",
      from: "critic",
      to: "coder",
      reason: "sent_back",
    } as unknown as EventRecord;
    expect(describe(r)).toBe("T-1: critic sends the task back to coder");
  });
});
