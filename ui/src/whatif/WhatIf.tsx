// The What-if panel: thousands of simulated runs of the open playbook under
// a probability model set with sliders, recomputed as the sliders move
// (a new simulation cancels the one before, in the backend, which splits
// the runs across the cores), shown as SVG pictures: calls per task, calls
// per stage, escalations by trigger, how tasks that did not pass ended, and
// the report's notes.
//
// A move is answered in two steps: an estimate from a few hundred runs, on
// screen well within 200 ms of the move and labelled as an estimate with
// its wider intervals, then the full simulation, which replaces it. Only
// the newest position is computed: a move cancels both steps of the last.
import { useEffect, useMemo, useRef, useState } from "react";
import { backend, messageOf } from "../backend";
import type { Playbook } from "../generated/Playbook";
import type { Rate } from "../generated/whatif/Rate";
import type { WhatIfReport } from "../generated/whatif/WhatIfReport";
import { modelText, type Sliders, DEFAULT_SLIDERS } from "./report";
import { markSliderMove, recordResult } from "./metrics";

// Only coalesces the input events of one drag frame: a newer simulation
// cancels the running one, so no queue builds up, and the result must be on
// screen within 200 ms of the move.
const DEBOUNCE_MS = 16;
const RUNS = 2000;
const ESTIMATE_RUNS = 250;

type Shown = { report: WhatIfReport; final: boolean };

function pct(v: number): string {
  return `${(v * 100).toFixed(1)} %`;
}

function Slider(props: { label: string; value: number; onChange: (v: number) => void }) {
  return (
    <label className="whatif-slider">
      <span>{props.label}</span>
      <input
        type="range"
        min={0}
        max={1}
        step={0.01}
        value={props.value}
        aria-label={props.label}
        onChange={(e) => props.onChange(Number(e.target.value))}
      />
      <output>{pct(props.value)}</output>
    </label>
  );
}

/** Histogram of agent calls per task. */
function CallsHistogram({ report }: { report: WhatIfReport }) {
  const bins = report.calls_per_task_histogram;
  const total = bins.reduce((s, [, c]) => s + c, 0) || 1;
  const max = Math.max(...bins.map(([, c]) => c), 1);
  const w = 24;
  const h = 120;
  return (
    <svg role="img" aria-label="Agent calls per task" width={bins.length * w + 20} height={h + 30}>
      {bins.map(([calls, count], i) => {
        const bh = (count / max) * h;
        return (
          <g key={calls}>
            <rect x={10 + i * w} y={h - bh} width={w - 4} height={bh} className="whatif-bar">
              <title>{`${calls} call(s): ${pct(count / total)} of tasks`}</title>
            </rect>
            <text x={10 + i * w + (w - 4) / 2} y={h + 14} textAnchor="middle" fontSize={10}>
              {calls}
            </text>
          </g>
        );
      })}
      <line x1={10} x2={10 + bins.length * w} y1={h} y2={h} stroke="currentColor" />
    </svg>
  );
}

/** Stacked bars per stage: mean calls per task, split into what stays within p50 and the tail to p95. */
function StageBars({ report }: { report: WhatIfReport }) {
  const max = Math.max(...report.stages.map((s) => Math.max(s.bound_per_task, s.calls.p95)), 1);
  const width = 320;
  return (
    <svg role="img" aria-label="Agent calls per stage" width={width + 140} height={report.stages.length * 28 + 10}>
      {report.stages.map((s, i) => {
        const scale = (v: number) => (v / max) * width;
        return (
          <g key={s.stage} transform={`translate(0, ${i * 28 + 4})`}>
            <text x={0} y={14} fontSize={11}>
              {s.stage}
            </text>
            <rect x={90} y={2} width={scale(s.calls.p50)} height={16} className="whatif-bar">
              <title>{`p50 ${s.calls.p50} calls per task`}</title>
            </rect>
            <rect
              x={90 + scale(s.calls.p50)}
              y={2}
              width={Math.max(0, scale(s.calls.p95 - s.calls.p50))}
              height={16}
              className="whatif-bar-tail"
            >
              <title>{`p95 ${s.calls.p95} calls per task`}</title>
            </rect>
            <line x1={90 + scale(s.bound_per_task)} x2={90 + scale(s.bound_per_task)} y1={0} y2={20} stroke="currentColor">
              <title>{`worst case ${s.bound_per_task}`}</title>
            </line>
            <text x={width + 96} y={14} fontSize={11}>
              {`mean ${s.calls.mean.toFixed(2)} · bound ${s.bound_per_task}`}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** Shares of tasks by a key (a trigger, or how a task ended), as bars. */
function RateBars({ rates, label, none }: { rates: { [key in string]: Rate }; label: string; none: string }) {
  const entries = Object.entries(rates);
  if (entries.length === 0) return <p>{none}</p>;
  const max = Math.max(...entries.map(([, r]) => r.rate), 0.0001);
  return (
    <svg role="img" aria-label={label} width={460} height={entries.length * 24 + 6}>
      {entries.map(([key, r], i) => (
        <g key={key} transform={`translate(0, ${i * 24 + 2})`}>
          <text x={0} y={14} fontSize={11}>
            {key}
          </text>
          <rect x={130} y={2} width={(r.rate / max) * 220} height={16} className="whatif-bar-warn">
            <title>{`${pct(r.rate)} (95 % CI ${pct(r.ci[0])}–${pct(r.ci[1])})`}</title>
          </rect>
          <text x={356} y={14} fontSize={11}>
            {pct(r.rate)}
          </text>
        </g>
      ))}
    </svg>
  );
}

export function WhatIf({ doc }: { doc: Playbook }) {
  const [sliders, setSliders] = useState<Sliders>(DEFAULT_SLIDERS);
  const [shown, setShown] = useState<Shown | null>(null);
  const report = shown?.report ?? null;
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const latest = useRef(0);
  const model = useMemo(() => modelText(sliders), [sliders]);

  useEffect(() => {
    const unlisten = backend.onWhatifProgress((p) => setProgress(p));
    return () => {
      void unlisten.then((f) => f());
      void backend.cancelWhatif();
    };
  }, []);

  useEffect(() => {
    const ticket = ++latest.current;
    const timer = window.setTimeout(() => {
      setProgress({ done: 0, total: ESTIMATE_RUNS });
      // Shows an answer if it is still the newest position's; says whether it was.
      const show = (r: WhatIfReport, final: boolean) => {
        if (ticket !== latest.current) return false;
        setShown({ report: r, final });
        setError(null);
        return true;
      };
      backend
        .whatif(doc, model, ESTIMATE_RUNS, 0)
        .then((estimate) => {
          // A cancelled estimate (Cancel, or a newer move) ends this move.
          if (!show(estimate, estimate.partial) || estimate.partial) return;
          return backend.whatif(doc, model, RUNS, 0).then((full) => void show(full, true));
        })
        .catch((e) => {
          if (ticket === latest.current) setError(messageOf(e));
        })
        .finally(() => {
          if (ticket === latest.current) setProgress(null);
        });
    }, DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [doc, model]);

  // The newest position's report is on screen: the slider-to-result time.
  useEffect(() => {
    if (shown) recordResult(shown.final);
  }, [shown]);

  const set = (key: keyof Sliders) => (v: number) => {
    markSliderMove();
    setSliders((s) => ({ ...s, [key]: v }));
  };
  return (
    <section className="whatif" aria-label="What-if">
      <div className="whatif-controls">
        <Slider label="Reviewer passes" value={sliders.reviewerPass} onChange={set("reviewerPass")} />
        <Slider label="Other roles pass" value={sliders.pass} onChange={set("pass")} />
        <Slider label="Contract violation" value={sliders.violation} onChange={set("violation")} />
        <Slider label="Agent error" value={sliders.error} onChange={set("error")} />
        {progress !== null && (
          <p role="status">
            {progress.total === RUNS ? "Refining the estimate: simulating" : "Simulating"} {progress.total} runs…{" "}
            {pct(progress.done / Math.max(progress.total, 1))}{" "}
            <button type="button" onClick={() => void backend.cancelWhatif()}>
              Cancel
            </button>
          </p>
        )}
        {error && <p role="alert">{error}</p>}
      </div>
      {report && (
        <div className="whatif-results">
          <p>
            {shown?.final === false && !report.partial ? "Estimate from " : ""}
            {report.runs} simulated runs{report.partial ? " (partial: cancelled)" : ""}: tasks passing{" "}
            {pct(report.tasks_passing.rate)}, escalations {pct(report.escalation.rate)}, mean{" "}
            {report.calls_per_task.mean.toFixed(2)} calls per task (p95 {report.calls_per_task.p95}), costliest loop{" "}
            {report.costliest_loop ?? "none"}.
          </p>
          <h3>Agent calls per task</h3>
          <CallsHistogram report={report} />
          <h3>Calls per task by stage (p50, tail to p95, worst case)</h3>
          <StageBars report={report} />
          <h3>Escalations by trigger</h3>
          <RateBars rates={report.escalation_by_trigger} label="Escalations by trigger" none="No task escalated." />
          <h3>Tasks not passing, by how they ended</h3>
          <RateBars
            rates={report.ended_without_passing}
            label="Tasks not passing, by how they ended"
            none="Every task passed."
          />
          {report.notes.length > 0 && (
            <>
              <h3>Notes</h3>
              {/* What the model could not make happen (a gate no output
                  passes, calls cut at the task timeout): the figures above
                  mean little without them. */}
              <ul aria-label="What-if notes">
                {report.notes.map((note) => (
                  <li key={note}>{note}</li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </section>
  );
}
