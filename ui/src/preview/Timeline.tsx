// The live timeline of a run, one line per engine event: shared by preview
// runs and real runs, which stream the same events.
import type { EventRecord } from "../generated/EventRecord";

export function Timeline({ events }: { events: EventRecord[] }) {
  return (
    <ol className="timeline" data-testid="timeline">
      {events.map((r) => (
        <li key={r.seq} className={`event event-${r.type}`} data-event={r.type}>
          <span className="seq">#{r.seq}</span>
          <span className="t">{r.t_ms} ms</span>
          <span className="what">{describe(r)}</span>
        </li>
      ))}
    </ol>
  );
}

/** One line per event, in the orchestrator's words. */
export function describe(r: EventRecord): string {
  switch (r.type) {
    case "run_started":
      return `Run started: ${r.tasks} task(s), scenario ${r.scenario ?? "default"}, seed ${r.seed}`;
    case "run_refused":
      return `Run refused (${r.code}): ${r.reason}`;
    case "stage_entered":
      return `Stage ${r.stage} entered with ${r.tasks} task(s), at most ${r.max_parallel} in parallel`;
    case "stage_exited":
      return `Stage ${r.stage} left: ${r.done} done, ${r.blocked} blocked, ${r.failed} failed`;
    case "role_selected":
      return `${r.task_id}: ${r.role} takes the task (${r.source}) — ${r.rationale}`;
    case "iteration":
      return `${r.task_id}: ${r.role}, iteration ${r.k} of ${r.n ?? "unbounded"}`;
    case "agent_invoked":
      return `${r.task_id}: agent runs ${r.role} (round ${r.iteration})`;
    case "tool_call_allowed":
      return `${r.role} calls ${r.tool}: allowed`;
    case "tool_call_blocked":
      return `${r.role} calls ${r.tool}: BLOCKED (${r.code}) ${r.reason}`;
    case "approval_requested":
      return `Approval requested for ${r.subject}${r.role ? ` by ${r.role}` : ""}`;
    case "approval_granted":
      return `Approval granted for ${r.subject} by ${r.by}`;
    case "approval_denied":
      return `Approval DENIED for ${r.subject} by ${r.by}`;
    case "output_received":
      return `${r.role} returned ${r.fields.join(", ")}`;
    // Gate and escalation events carry the engine's own words (what the
    // output said, where the task goes next); older logs lack them.
    case "gate_passed":
      return r.summary ? `${r.task_id}: ${r.summary}` : `Gate ${r.gate} of ${r.owner} passed`;
    case "gate_failed":
      return r.summary ? `${r.task_id}: ${r.summary}` : `Gate ${r.gate} of ${r.owner} failed: ${r.reason}`;
    case "handoff":
      return r.reason === "sent_back"
        ? `${r.task_id}: ${r.from} sends the task back to ${r.to}`
        : `${r.task_id}: ${r.from} hands off to ${r.to}`;
    case "escalated":
      return r.summary ? `ESCALATED ${r.task_id}: ${r.summary}` : `ESCALATED: ${r.role} (${r.trigger}) — ${r.reason}`;
    case "task_done":
      return `${r.task_id} done`;
    case "run_finished":
      return `Run finished: ${r.outcome} (${r.tasks_done} done, ${r.tasks_blocked} blocked, ${r.tasks_failed} failed)`;
    default:
      return r.type.replace(/_/g, " ");
  }
}
