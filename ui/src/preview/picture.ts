// The run as a picture: one lane per task, one bar per agent step on the
// virtual-time axis, marks where a loop sends the task back, an approval is
// asked or denied, a tool call is refused, a task escalates. Built from the
// same events as the event table, so a preview, a recorded run and a real
// run draw alike. Pure: the component only lays it out.
import type { EventRecord } from "../generated/EventRecord";

export type BarOutcome = "passed" | "failed" | "escalated" | "open";

/** One agent step of one task. */
export type Bar = {
  task: string;
  lane: number;
  stage: string;
  role: string;
  iteration: number;
  /** Virtual milliseconds. */
  start: number;
  end: number;
  outcome: BarOutcome;
  /** The events of this step, in order (its invocation to the next one). */
  events: EventRecord[];
};

export type MarkKind = "round" | "escalation" | "approval" | "denied" | "blocked";

export type Mark = { kind: MarkKind; lane: number; t: number; label: string };

export type Picture = {
  /** Task ids, in the order they first appear. */
  lanes: string[];
  bars: Bar[];
  marks: Mark[];
  /** Roles in the order they first run, for colours and the legend. */
  roles: string[];
  /** The last virtual instant of the run. */
  end: number;
};

/** Builds the picture of a run from its events. */
export function picture(events: EventRecord[]): Picture {
  const lanes: string[] = [];
  const laneOf = new Map<string, number>();
  const open = new Map<string, Bar>();
  const bars: Bar[] = [];
  const marks: Mark[] = [];
  const roles: string[] = [];
  let end = 0;
  const lane = (task: string) => {
    let at = laneOf.get(task);
    if (at === undefined) {
      at = lanes.length;
      lanes.push(task);
      laneOf.set(task, at);
    }
    return at;
  };
  for (const r of events) {
    const t = Number(r.t_ms);
    end = Math.max(end, t);
    if (!("task_id" in r)) continue;
    const task = r.task_id;
    const at = lane(task);
    if (r.type === "agent_invoked") {
      const previous = open.get(task);
      if (previous && previous.outcome === "open") previous.end = Math.max(previous.end, t);
      const bar: Bar = { task, lane: at, stage: r.stage, role: r.role, iteration: r.iteration, start: t, end: t, outcome: "open", events: [r] };
      if (!roles.includes(r.role)) roles.push(r.role);
      bars.push(bar);
      open.set(task, bar);
      continue;
    }
    const bar = open.get(task);
    if (bar) {
      bar.events.push(r);
      if (bar.outcome === "open") bar.end = Math.max(bar.end, t);
    }
    switch (r.type) {
      case "gate_passed":
        if (bar && r.scope === "role" && bar.outcome === "open") bar.outcome = "passed";
        break;
      case "gate_failed":
        if (bar && bar.outcome !== "escalated") bar.outcome = "failed";
        break;
      case "handoff":
        if (r.reason === "sent_back") marks.push({ kind: "round", lane: at, t, label: `${r.from} sends back to ${r.to}` });
        break;
      case "escalated":
        if (bar) bar.outcome = "escalated";
        marks.push({ kind: "escalation", lane: at, t, label: r.summary || `${r.role} escalated (${r.trigger})` });
        break;
      case "approval_requested":
        marks.push({ kind: "approval", lane: at, t, label: `approval asked: ${r.subject}` });
        break;
      case "approval_denied":
        marks.push({ kind: "denied", lane: at, t, label: `approval denied: ${r.subject}` });
        break;
      case "tool_call_blocked":
        marks.push({ kind: "blocked", lane: at, t, label: `${r.role} calls ${r.tool}: refused (${r.code})` });
        break;
      case "task_done":
      case "task_failed":
      case "task_blocked":
      case "task_canceled":
        open.delete(task);
        break;
    }
  }
  return { lanes, bars, marks, roles, end };
}

/** Colours for roles, in the order they first run; fixed values, so an exported SVG keeps them. */
const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#bab0ac", "#e15759", "#ff9da7"];

export function roleColour(roles: string[], role: string): string {
  const i = roles.indexOf(role);
  return PALETTE[(i < 0 ? 0 : i) % PALETTE.length];
}

/** Axis ticks: about five round steps of virtual time, in milliseconds. */
export function ticks(end: number): number[] {
  if (end <= 0) return [0];
  const raw = end / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = 0; t <= end + step / 2; t += step) out.push(t);
  return out;
}

/** A virtual instant as people read it. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 120) return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  const m = s / 60;
  return `${Number.isInteger(m) ? m : m.toFixed(1)} min`;
}
