import { describe, expect, it } from "vitest";
import type { EventRecord } from "../generated/EventRecord";
import { formatMs, picture, ticks } from "./picture";

let seq = 0;
const at = (t: number, event: object) => ({ seq: seq++, t_ms: t, ...event }) as unknown as EventRecord;

// A review loop: the reviewer fails the work once, the worker fixes it, the
// reviewer passes it; a second task escalates after a denied approval.
const loop: EventRecord[] = [
  at(0, { type: "run_started", tasks: 2 }),
  at(0, { type: "agent_invoked", task_id: "T-1", stage: "build", role: "worker", iteration: 1 }),
  at(2000, { type: "output_received", task_id: "T-1", role: "worker", iteration: 1, fields: ["diff"] }),
  at(2000, { type: "gate_passed", task_id: "T-1", scope: "role", owner: "worker", gate: "true", summary: "on to reviewer" }),
  at(2000, { type: "agent_invoked", task_id: "T-1", stage: "build", role: "reviewer", iteration: 1 }),
  at(3000, { type: "output_received", task_id: "T-1", role: "reviewer", iteration: 1, fields: ["verdict"] }),
  at(3000, { type: "gate_failed", task_id: "T-1", scope: "role", owner: "reviewer", gate: "review_passed", reason: "false", summary: "back to worker" }),
  at(3000, { type: "handoff", task_id: "T-1", from: "reviewer", to: "worker", reason: "sent_back" }),
  at(3000, { type: "agent_invoked", task_id: "T-1", stage: "build", role: "worker", iteration: 2 }),
  at(5000, { type: "output_received", task_id: "T-1", role: "worker", iteration: 2, fields: ["diff"] }),
  at(5000, { type: "agent_invoked", task_id: "T-1", stage: "build", role: "reviewer", iteration: 2 }),
  at(6000, { type: "output_received", task_id: "T-1", role: "reviewer", iteration: 2, fields: ["verdict"] }),
  at(6000, { type: "gate_passed", task_id: "T-1", scope: "role", owner: "reviewer", gate: "review_passed", summary: "leaves" }),
  at(6000, { type: "task_done", task_id: "T-1" }),
  at(0, { type: "agent_invoked", task_id: "T-2", stage: "build", role: "worker", iteration: 1 }),
  at(1000, { type: "approval_requested", task_id: "T-2", role: "worker", subject: "tool: git_commit" }),
  at(1000, { type: "approval_denied", task_id: "T-2", subject: "tool: git_commit", by: "person", code: "APPROVAL_DENIED" }),
  at(1500, { type: "escalated", task_id: "T-2", role: "worker", trigger: "needs_input", code: "X", reason: "r", summary: "worker escalated" }),
];

describe("picture", () => {
  const pic = picture(loop);

  it("draws a lane per task and a bar per agent step, in order", () => {
    expect(pic.lanes).toEqual(["T-1", "T-2"]);
    expect(pic.bars.map((b) => `${b.task}:${b.role}#${b.iteration}`)).toEqual([
      "T-1:worker#1",
      "T-1:reviewer#1",
      "T-1:worker#2",
      "T-1:reviewer#2",
      "T-2:worker#1",
    ]);
    expect(pic.roles).toEqual(["worker", "reviewer"]);
    expect(pic.end).toBe(6000);
  });

  it("spans each step from its invocation to its output, with its outcome", () => {
    const [first, review] = pic.bars;
    expect([first.start, first.end, first.outcome]).toEqual([0, 2000, "passed"]);
    expect([review.start, review.end, review.outcome]).toEqual([2000, 3000, "failed"]);
    expect(pic.bars[3].outcome).toBe("passed");
    expect(pic.bars[4].outcome).toBe("escalated");
    expect(review.events.map((e) => e.type)).toEqual(["agent_invoked", "output_received", "gate_failed", "handoff"]);
  });

  it("marks the loop's round, the approval, the denial and the escalation on their lanes", () => {
    expect(pic.marks.map((m) => `${m.kind}@${m.lane}:${m.t}`)).toEqual(["round@0:3000", "approval@1:1000", "denied@1:1000", "escalation@1:1500"]);
  });

  it("is empty for a run without agent steps", () => {
    expect(picture([at(0, { type: "run_started", tasks: 0 })]).bars).toEqual([]);
  });
});

describe("axis", () => {
  it("steps in round numbers up to the end", () => {
    expect(ticks(6000)).toEqual([0, 2000, 4000, 6000]);
    expect(ticks(0)).toEqual([0]);
    expect(formatMs(1500)).toBe("1.5 s");
    expect(formatMs(180000)).toBe("3 min");
  });
});
