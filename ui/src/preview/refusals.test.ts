import { describe, expect, it } from "vitest";
import type { EventRecord } from "../generated/EventRecord";
import { refusals } from "./refusals";

const at = (event: object, seq: number) => ({ seq, t_ms: 0, ...event }) as unknown as EventRecord;

describe("refusals", () => {
  it("lists blocked tool calls and denied approvals, nothing else", () => {
    const events = [
      at({ type: "tool_call_allowed", task_id: "T-1", role: "worker", tool: "read_file" }, 1),
      at({ type: "tool_call_blocked", task_id: "T-1", role: "reviewer", tool: "git_push", code: "TOOL_NOT_ALLOWED", reason: "x" }, 2),
      at({ type: "approval_denied", task_id: "T-2", subject: "tool: write_file", by: "user", code: "APPROVAL_DENIED" }, 3),
    ];
    expect(refusals(events)).toEqual([
      { task: "T-1", what: "reviewer called git_push", code: "TOOL_NOT_ALLOWED" },
      { task: "T-2", what: "tool: write_file was denied by user", code: "APPROVAL_DENIED" },
    ]);
    expect(refusals([])).toEqual([]);
  });
});
