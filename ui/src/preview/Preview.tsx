// Preview: run the open playbook against a scripted scenario and watch the
// orchestrator decide, event by event: loop state, approvals (asked in a
// dialog), escalations, worklogs, the audit log and the prompt each role
// gets. Runs of a library playbook are recorded and can be viewed again.
import { useCallback, useEffect, useRef, useState } from "react";
import { backend, BackendError, messageOf } from "../backend";
import type { ApprovalMode } from "../generated/ApprovalMode";
import type { ApprovalPrompt } from "../generated/ApprovalPrompt";
import type { Checked } from "../generated/Checked";
import type { EventRecord } from "../generated/EventRecord";
import type { Playbook } from "../generated/Playbook";
import type { PreviewResult } from "../generated/PreviewResult";
import type { Run } from "../generated/Run";
import type { RoleMapping } from "../generated/RoleMapping";
import type { ScenarioInfo } from "../generated/ScenarioInfo";
import { useScenarios } from "../scenarios/useScenarios";
import { ApprovalDialog } from "./ApprovalDialog";
import { loadPreviewMemory, savePreviewMemory } from "./memory";
import { Refusals } from "./Refusals";
import { routeApproval } from "./routeApproval";
import { Timeline } from "./Timeline";
import { TimelinePicture } from "./TimelinePicture";

type Props = {
  doc: Playbook;
  checked: Checked | null;
  onShowProblems: () => void;
  /** The library playbook being edited and the version the edits started from: runs are recorded there. */
  library: { id: string; base: number } | null;
  /** Names what runs: the playbook, and which version or unsaved edits. */
  target: { name: string; version: string };
  /** Scenario, seed, approval mode and the shown run are remembered under this key (one per playbook). */
  memoryKey: string;
};

const APPROVAL_MODES: [ApprovalMode, string][] = [
  ["ask", "Ask me"],
  ["scenario", "As the scenario says"],
  ["approve", "Approve all"],
  ["deny", "Deny all"],
];

export function Preview({ doc, checked, onShowProblems, library, target, memoryKey }: Props) {
  const [memory] = useState(() => loadPreviewMemory(memoryKey));
  const [scenarios, setScenarios] = useState<ScenarioInfo[]>([]);
  const [scenario, setScenario] = useState(memory.scenario ?? "review-fails-twice");
  const [seed, setSeed] = useState(memory.seed ?? "7");
  const [approvals, setApprovals] = useState<ApprovalMode>(memory.approvals ?? "ask");
  const [events, setEvents] = useState<EventRecord[]>([]);
  const [result, setResult] = useState<PreviewResult | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [view, setView] = useState<"timeline" | "worklog" | "audit" | "prompts">("timeline");
  const [asking, setAsking] = useState<ApprovalPrompt[]>([]);
  const [runs, setRuns] = useState<Run[]>([]);
  const [versions, setVersions] = useState<Map<number, number>>(new Map());
  const [shownRun, setShownRun] = useState<Run | null>(null);
  const buffer = useRef<EventRecord[]>([]);
  const approveRest = useRef(false);
  // The playbook's own scenarios, the editor and the mapping step.
  const own = useScenarios(doc, library?.id ?? null, scenarios);

  useEffect(() => {
    backend
      .scenarios()
      .then((list) => {
        setScenarios(list);
        setScenario((chosen) => (list.some((s) => s.id === chosen) || !list[0] ? chosen : list[0].id));
      })
      .catch((e) => setError(messageOf(e)));
  }, []);

  const loadRuns = useCallback(() => {
    if (!library) return;
    Promise.all([backend.runs(library.id), backend.history(library.id)])
      .then(([list, history]) => {
        setRuns(list);
        setVersions(new Map(history.map((v) => [v.id, v.number])));
      })
      .catch((e) => setError(`Could not load the recorded runs: ${messageOf(e)}`));
  }, [library]);
  useEffect(loadRuns, [loadRuns]);

  useEffect(() => savePreviewMemory(memoryKey, { scenario, approvals, ...(/^\d{1,15}$/.test(seed.trim()) ? { seed: seed.trim() } : {}) }), [memoryKey, scenario, approvals, seed]);
  // Coming back shows the run that was shown (or had just finished) when you left.
  const restored = useRef(false);
  useEffect(() => {
    if (restored.current || memory.shownRun === undefined || runs.length === 0) return;
    restored.current = true;
    const remembered = runs.find((r) => r.id === memory.shownRun);
    if (remembered) void showRun(remembered);
    // `showRun` is a new closure on every render; this runs once, when the runs arrive.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [runs, memory]);

  // A run waiting on this window is never left hanging: leaving the preview
  // denies what waits, and what the run asks afterwards.
  const shown = useRef(true);
  useEffect(() => {
    shown.current = true;
    return () => {
      shown.current = false;
      void backend.denyWaitingApprovals().catch(() => undefined);
    };
  }, []);

  const errors = checked?.findings.filter((f) => f.severity === "error").length ?? 0;
  const blocked = !checked || !checked.allow;

  const answer = (prompt: ApprovalPrompt, approved: boolean) => {
    setAsking((queue) => queue.filter((p) => p.id !== prompt.id));
    backend.answerApproval(prompt.id, approved).catch((e) => setError(`Could not answer the approval: ${messageOf(e)}`));
  };

  const run = async (chosen: string = scenario, mapping?: RoleMapping[]) => {
    if (!/^\d{1,15}$/.test(seed.trim())) return setError("The seed is a whole number, e.g. 7.");
    let plan;
    try {
      plan = await own.prepare(chosen, mapping);
    } catch (e) {
      return setError(`Could not check the scenario: ${messageOf(e)}`);
    }
    if (!plan) return;
    setError(null);
    setResult(null);
    setShownRun(null);
    setEvents([]);
    buffer.current = [];
    approveRest.current = false;
    setRunning(true);
    const unlistenEvents = await backend.onPreviewEvent((record) => {
      buffer.current.push(record);
      setEvents([...buffer.current]);
    });
    const unlistenApprovals = await backend.onApprovalRequest((prompt) =>
      routeApproval(prompt, { shown: shown.current, approveRest: approveRest.current }, (p) => setAsking((queue) => [...queue, p])),
    );
    try {
      const finished = await backend.runPreview(doc, {
        ...plan,
        seed: Number(seed.trim()),
        approvals,
        playbook: library?.id,
        base: library?.base,
      });
      setResult(finished);
      if (finished.run !== undefined) savePreviewMemory(memoryKey, { shownRun: finished.run });
      if (finished.record_error) setError(`The run was not recorded in the library: ${finished.record_error}`);
    } catch (e) {
      setError(e instanceof BackendError && e.code === "blocked" ? `Run blocked: ${e.message}` : messageOf(e));
    } finally {
      unlistenEvents();
      unlistenApprovals();
      setAsking([]);
      setRunning(false);
      loadRuns();
    }
  };

  const stop = () => {
    approveRest.current = false;
    setAsking([]);
    void backend.denyWaitingApprovals();
  };

  const showRun = async (recorded: Run) => {
    try {
      const stored = await backend.runEvents(recorded.id);
      setResult(null);
      setShownRun(recorded);
      setEvents(stored);
      savePreviewMemory(memoryKey, { shownRun: recorded.id });
      setView("timeline");
    } catch (e) {
      setError(`Could not open run ${recorded.id}: ${messageOf(e)}`);
    }
  };

  const loops = new Map<string, { k: number; n: number | null }>();
  for (const r of events) if (r.type === "iteration") loops.set(`${r.task_id} · ${r.role}`, { k: r.k, n: r.n });
  const started = events.find((r) => r.type === "run_started");
  const bounds = result?.bounds ?? (started?.type === "run_started" ? started.bounds : []);
  const worst = bounds.reduce((sum, b) => sum + Number(b.total ?? b.per_task), 0);
  const finished = events.find((r) => r.type === "run_finished");
  const outcome = result?.outcome ?? (finished?.type === "run_finished" ? finished.outcome : shownRun?.status);

  return (
    <section className="preview" aria-label="Preview">
      <h1>Preview of {target.name}</h1>
      <p className="muted" data-testid="preview-target">
        Runs {target.version}.
      </p>
      <div className="preview-controls">
        <label className="inline">
          Scenario{" "}
          <select value={scenario} onChange={(e) => setScenario(e.target.value)} data-testid="scenario">
            {own.options.map((s) => (
              <option key={s.id} value={s.id}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          Seed <input type="text" inputMode="numeric" value={seed} onChange={(e) => setSeed(e.target.value.slice(0, 20))} style={{ width: 80 }} />
        </label>
        <label className="inline" title="How the run answers approval requests of roles with requires_user_approval and manual gates">
          Approvals{" "}
          <select value={approvals} onChange={(e) => setApprovals(e.target.value as ApprovalMode)} data-testid="approvals">
            {APPROVAL_MODES.map(([mode, label]) => (
              <option key={mode} value={mode}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="primary" onClick={() => void run()} disabled={blocked || running} data-testid="run">
          {running ? "Running…" : "Run"}
        </button>
        {running && approvals === "ask" && (
          <button type="button" onClick={stop} title="Deny the approval waiting now" data-testid="deny-waiting">
            Deny waiting approval
          </button>
        )}
        {blocked && checked && (
          <span className="status status-error">
            Run blocked by {errors} error{errors === 1 ? "" : "s"}{" "}
            <button type="button" className="link" onClick={onShowProblems}>
              show problems
            </button>
          </span>
        )}
      </div>
      <p className="muted">{own.options.find((s) => s.id === scenario)?.description}</p>
      {own.panel(scenario, (id, mapping) => void run(id, mapping), setScenario)}
      {library && (
        <details className="recorded-runs" data-testid="recorded-runs">
          <summary>Recorded runs ({runs.length})</summary>
          {runs.length === 0 ? (
            <p className="muted">Each run of this playbook is recorded in the library; none yet.</p>
          ) : (
            <table className="runs-table">
              <thead>
                <tr>
                  <th>Started</th>
                  <th>Scenario</th>
                  <th>Seed</th>
                  <th>Version</th>
                  <th>Outcome</th>
                  <th>Events</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {runs.map((r) => (
                  <tr key={r.id} aria-selected={shownRun?.id === r.id} data-run={r.id}>
                    <td>{new Date(r.started_at).toLocaleString()}</td>
                    <td>{r.scenario}</td>
                    <td>{r.seed}</td>
                    <td>{r.version === null ? "unsaved edits" : `v${versions.get(r.version) ?? "?"}`}</td>
                    <td>{r.status}</td>
                    <td>{r.events}</td>
                    <td>
                      <button type="button" className="link" onClick={() => void showRun(r)} disabled={running}>
                        Show
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </details>
      )}
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
      {asking[0] && (
        <ApprovalDialog
          prompt={asking[0]}
          waiting={asking.length - 1}
          onAnswer={(approved) => answer(asking[0], approved)}
          onApproveRest={() => {
            approveRest.current = true;
            asking.forEach((p) => answer(p, true));
          }}
        />
      )}
      {(result || events.length > 0) && (
        <div className="preview-summary">
          {outcome && (
            <span className={`badge ${outcome === "passed" ? "badge-ok" : "badge-error"}`} data-testid="outcome" data-outcome={outcome}>
              {outcome}
            </span>
          )}
          {shownRun && (
            <span className="muted" data-testid="shown-run">
              Recorded run {shownRun.id} of {new Date(shownRun.started_at).toLocaleString()}
            </span>
          )}
          <span>
            Worst case: <strong data-testid="worst-case">{worst}</strong> agent calls ({bounds.map((b) => `${b.stage} ≤ ${b.total ?? b.per_task}`).join(", ")})
          </span>
          <Refusals events={events} />
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
        <>
          <TimelinePicture events={events} runs={result?.audit.runs} prompts={result?.prompts} />
          <Timeline events={events} />
        </>
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
