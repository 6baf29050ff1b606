// What a run refused: blocked tool calls and denied approvals. A run can
// pass *because* the contract refused something; its summary says so
// rather than leaving it to the timeline.
import type { EventRecord } from "../generated/EventRecord";

export type Refusal = { task: string; what: string; code: string };

export function refusals(events: EventRecord[]): Refusal[] {
  const out: Refusal[] = [];
  for (const r of events) {
    if (r.type === "tool_call_blocked") out.push({ task: r.task_id, what: `${r.role} called ${r.tool}`, code: r.code });
    else if (r.type === "approval_denied") out.push({ task: r.task_id, what: `${r.subject} was denied by ${r.by}`, code: r.code });
  }
  return out;
}
