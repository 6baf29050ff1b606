// Preview: run the open playbook against a scripted scenario and watch the
// orchestrator decide, event by event: loop state, approvals, escalations,
// worklogs, the audit log and the prompt each role gets.
import { useEffect, useRef, useState } from "react";
import { backend, BackendError, messageOf } from "../backend";
import type { Checked } from "../generated/Checked";
import type { EventRecord } from "../generated/EventRecord";
import type { Playbook } from "../generated/Playbook";
import type { PreviewResult } from "../generated/PreviewResult";
import type { ScenarioInfo } from "../generated/ScenarioInfo";

type Props = { doc: Playbook; checked: Checked | null; onShowProblems: () => void };

export function Preview({ doc, checked, onShowProblems }: Props) {
  const [scenarios, setScenarios] = useState<ScenarioInfo[]>([]);
  const [scenario, setScenario] = useState("review-fails-twice");
  const [seed, setSeed] = useState("7");
  const [events, setEvents] = useState<EventRecord[]>([]);
  const [result, setResult] = useState<PreviewResult | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [view, setView] = useState<"timeline" | "worklog" | "audit" | "prompts">("timeline");
  const buffer = useRef<EventRecord[]>([]);

  useEffect(() => {
    backend
      .scenarios()
      .then((list) => {
        setScenarios(list);
        if (!list.some((s) => s.id === "review-fails-twice") && list[0]) setScenario(list[0].id);
      })
      .catch((e) => setError(messageOf(e)));
  }, []);

  const errors = checked?.findings.filter((f) => f.severity === "error").length ?? 0;
  const blocked = !checked || !checked.allow;

  const run = async () => {
    const chosen = scenarios.find((s) => s.id === scenario);
    if (!chosen) return;
    if (!/^\d{1,15}$/.test(seed.trim())) return setError("The seed is a whole number, e.g. 7.");
    setError(null);
    setResult(null);
    setEvents([]);
    buffer.current = [];
    setRunning(true);
    const unlisten = await backend.onPreviewEvent((record) => {
      buffer.current.push(record);
      setEvents([...buffer.current]);
    });
    try {
      setResult(await backend.runPreview(doc, chosen.source, Number(seed.trim())));
    } catch (e) {
      setError(e instanceof BackendError && e.code === "blocked" ? `Run blocked: ${e.message}` : messageOf(e));
    } finally {
      unlisten();
      setRunning(false);
    }
  };

  const loops = new Map<string, { k: number; n: number | null }>();
  for (const r of events) if (r.type === "iteration") loops.set(`${r.task_id} · ${r.role}`, { k: r.k, n: r.n });
  const started = events.find((r) => r.type === "run_started");
  const bounds = result?.bounds ?? (started?.type === "run_started" ? started.bounds : []);
  const worst = bounds.reduce((sum, b) => sum + Number(b.total ?? b.per_task), 0);

  return (
    <section className="preview" aria-label="Preview">
      <h1>Preview run</h1>
      <div className="preview-controls">
        <label className="inline">
          Scenario{" "}
          <select value={scenario} onChange={(e) => setScenario(e.target.value)} data-testid="scenario">
            {scenarios.map((s) => (
              <option key={s.id} value={s.id}>
                {s.id}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          Seed <input type="text" inputMode="numeric" value={seed} onChange={(e) => setSeed(e.target.value.slice(0, 20))} style={{ width: 80 }} />
        </label>
        <button type="button" className="primary" onClick={() => void run()} disabled={blocked || running} data-testid="run">
          {running ? "Running…" : "Run"}
        </button>
        {blocked && checked && (
          <span className="status status-error">
            Run blocked by {errors} error{errors === 1 ? "" : "s"}{" "}
            <button type="button" className="link" onClick={onShowProblems}>
              show problems
            </button>
          </span>
        )}
      </div>
      <p className="muted">{scenarios.find((s) => s.id === scenario)?.description}</p>
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
      {(result || events.length > 0) && (
        <div className="preview-summary">
          {result && (
            <span className={`badge ${result.outcome === "passed" ? "badge-ok" : "badge-error"}`} data-testid="outcome" data-outcome={result.outcome}>
              {result.outcome ?? "unfinished"}
            </span>
          )}
          <span>
            Worst case: <strong data-testid="worst-case">{worst}</strong> agent calls ({bounds.map((b) => `${b.stage} ≤ ${b.total ?? b.per_task}`).join(", ")})
          </span>
          <span data-testid="loop-state">
            {[...loops.entries()].map(([who, { k, n }]) => (
              <span key={who} className="loop-chip">
                {who}: iteration {k} of {n ?? "∞"}
              </span>
            ))}
          </span>
        </div>
      )}
      <div className="tabs" role="tablist" aria-label="Run views">
        {(["timeline", "worklog", "audit", "prompts"] as const).map((v) => (
          <button key={v} type="button" role="tab" aria-selected={view === v} onClick={() => setView(v)} data-run-view={v}>
            {v === "timeline" ? `Timeline (${events.length})` : v === "worklog" ? "Worklog" : v === "audit" ? "Audit log" : "Prompts"}
          </button>
        ))}
      </div>
      {view === "timeline" && (
        <ol className="timeline" data-testid="timeline">
          {events.map((r) => (
            <li key={r.seq} className={`event event-${r.type}`} data-event={r.type}>
              <span className="seq">#{r.seq}</span>
              <span className="t">{r.t_ms} ms</span>
              <span className="what">{describe(r)}</span>
            </li>
          ))}
        </ol>
      )}
      {view === "worklog" && (
        <div className="run-pane">
          {(result?.worklogs ?? []).map((w) => (
            <details key={w.task_id} open>
              <summary>{w.task_id}</summary>
              <pre>{w.entries.map((e) => JSON.stringify(e)).join("\n")}</pre>
            </details>
          ))}
        </div>
      )}
      {view === "audit" && <pre className="run-pane">{result ? JSON.stringify(result.audit, null, 2) : "Run a preview first."}</pre>}
      {view === "prompts" && (
        <div className="run-pane">
          {(result?.prompts ?? []).map((p) => (
            <details key={`${p.stage}/${p.role}`}>
              <summary>
                {p.stage} / {p.role}
              </summary>
              <pre>{p.prompt}</pre>
            </details>
          ))}
        </div>
      )}
    </section>
  );
}

/** One line per event, in the orchestrator's words. */
function describe(r: EventRecord): string {
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
    case "gate_passed":
      return `Gate ${r.gate} of ${r.owner} passed`;
    case "gate_failed":
      return `Gate ${r.gate} of ${r.owner} failed: ${r.reason}`;
    case "handoff":
      return `${r.task_id}: ${r.from} → ${r.to} (${r.reason})`;
    case "escalated":
      return `ESCALATED: ${r.role} (${r.trigger}) — ${r.reason}`;
    case "task_done":
      return `${r.task_id} done`;
    case "run_finished":
      return `Run finished: ${r.outcome} (${r.tasks_done} done, ${r.tasks_blocked} blocked, ${r.tasks_failed} failed)`;
    default:
      return r.type.replace(/_/g, " ");
  }
}
