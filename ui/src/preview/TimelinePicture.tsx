// The run as a picture (picture.ts): lanes per task, bars per agent step
// coloured by role, marks for loop rounds, approvals, refusals and
// escalations, virtual time on the axis. A bar is a button: choosing it shows
// its events, and the role's prompt and the step's output when the run's
// records are at hand. "Export SVG…" writes the picture as it is drawn.
import { useMemo, useRef, useState } from "react";
import { backend, messageOf } from "../backend";
import type { AgentRunRecord } from "../generated/AgentRunRecord";
import type { EventRecord } from "../generated/EventRecord";
import type { RolePrompt } from "../generated/RolePrompt";
import { type Bar, type MarkKind, formatMs, picture, roleColour, ticks } from "./picture";
import { describe } from "./Timeline";

const LABEL = 90;
const PLOT = 820;
const LANE = 26;
const AXIS = 24;

const MARK_GLYPH: Record<MarkKind, string> = { round: "↺", escalation: "▲", approval: "●", denied: "✕", blocked: "⊘" };
const MARK_COLOUR: Record<MarkKind, string> = { round: "#555555", escalation: "#c0392b", approval: "#2c7be5", denied: "#c0392b", blocked: "#b9770e" };

type Props = {
  events: EventRecord[];
  /** The run's records, when it has ended: each step's output. */
  runs?: AgentRunRecord[];
  prompts?: RolePrompt[];
};

export function TimelinePicture({ events, runs, prompts }: Props) {
  const pic = useMemo(() => picture(events), [events]);
  const [chosen, setChosen] = useState<number | null>(null);
  const svg = useRef<SVGSVGElement>(null);
  const [said, setSaid] = useState<{ text: string; error: boolean } | null>(null);
  if (pic.bars.length === 0) return null;
  const span = Math.max(pic.end, 1);
  const x = (t: number) => LABEL + (t / span) * PLOT;
  const height = AXIS + pic.lanes.length * LANE + 8;
  const bar = chosen === null ? null : pic.bars[chosen];

  const exportSvg = async () => {
    if (!svg.current) return;
    try {
      const target = await backend.chooseExportPath("timeline.svg", "Export the timeline picture");
      if (!target) return;
      const text = new XMLSerializer().serializeToString(svg.current);
      await backend.writeTextFile(target, `<?xml version="1.0" encoding="UTF-8"?>\n${text}\n`);
      setSaid({ text: `Exported the picture to ${target}.`, error: false });
    } catch (e) {
      setSaid({ text: `Could not export the picture: ${messageOf(e)}`, error: true });
    }
  };

  return (
    <figure className="timeline-picture" data-testid="timeline-picture">
      <figcaption className="timeline-picture-legend">
        {pic.roles.map((r) => (
          <span key={r} className="legend-item">
            <span className="swatch" style={{ background: roleColour(pic.roles, r) }} /> {r}
          </span>
        ))}
        <span className="legend-item muted small">↺ sent back · ● approval · ✕ denied · ⊘ refused tool · ▲ escalated</span>
        <button type="button" onClick={() => void exportSvg()} data-testid="timeline-export">
          Export SVG…
        </button>
        {said && (
          <span className={said.error ? "error small" : "muted small"} role={said.error ? "alert" : "status"} data-testid="timeline-export-said">
            {said.text}
          </span>
        )}
      </figcaption>
      <svg
        ref={svg}
        xmlns="http://www.w3.org/2000/svg"
        width={LABEL + PLOT + 16}
        height={height}
        viewBox={`0 0 ${LABEL + PLOT + 16} ${height}`}
        role="group"
        aria-label={`Timeline picture: ${pic.lanes.length} task(s), ${pic.bars.length} agent step(s), ${formatMs(pic.end)} of virtual time`}
        fontFamily="sans-serif"
        fontSize="11"
      >
        {ticks(pic.end).map((t) => (
          <g key={t}>
            <line x1={x(t)} x2={x(t)} y1={AXIS - 6} y2={height - 8} stroke="#cccccc" strokeWidth="1" />
            <text x={x(t)} y={AXIS - 10} textAnchor="middle" fill="#666666">
              {formatMs(t)}
            </text>
          </g>
        ))}
        {pic.lanes.map((task, i) => (
          <text key={task} x={4} y={AXIS + i * LANE + LANE / 2 + 4} fill="currentColor">
            {task.length > 12 ? `${task.slice(0, 11)}…` : task}
          </text>
        ))}
        {pic.bars.map((b, i) => {
          const left = x(b.start);
          const width = Math.max(x(b.end) - left, 4);
          const label = `${b.task}: ${b.role}, round ${b.iteration}, ${formatMs(b.start)}–${formatMs(b.end)}, ${b.outcome}`;
          return (
            <rect
              key={i}
              x={left}
              y={AXIS + b.lane * LANE + 4}
              width={width}
              height={LANE - 8}
              rx="3"
              fill={roleColour(pic.roles, b.role)}
              stroke={chosen === i ? "#000000" : b.outcome === "failed" || b.outcome === "escalated" ? "#c0392b" : "none"}
              strokeWidth={chosen === i ? 2 : 1.5}
              strokeDasharray={b.outcome === "failed" ? "4 2" : undefined}
              tabIndex={0}
              role="button"
              aria-label={label}
              aria-pressed={chosen === i}
              data-bar={`${b.task}/${b.role}/${b.iteration}`}
              data-outcome={b.outcome}
              onClick={() => setChosen(chosen === i ? null : i)}
              onKeyDown={(e) => {
                if (e.key === "Enter" || e.key === " ") {
                  e.preventDefault();
                  setChosen(chosen === i ? null : i);
                }
              }}
            >
              <title>{label}</title>
            </rect>
          );
        })}
        {pic.marks.map((m, i) => (
          <text
            key={i}
            x={x(m.t)}
            y={AXIS + m.lane * LANE + 4}
            textAnchor="middle"
            fill={MARK_COLOUR[m.kind]}
            fontSize="12"
            data-mark={m.kind}
          >
            <title>{m.label}</title>
            {MARK_GLYPH[m.kind]}
          </text>
        ))}
      </svg>
      {bar && <BarDetail bar={bar} runs={runs} prompts={prompts} />}
    </figure>
  );
}

function BarDetail({ bar, runs, prompts }: { bar: Bar; runs?: AgentRunRecord[]; prompts?: RolePrompt[] }) {
  const record = runs?.find((r) => r.task_id === bar.task && r.role === bar.role && r.iteration === bar.iteration);
  const prompt = prompts?.find((p) => p.stage === bar.stage && p.role === bar.role);
  return (
    <div className="timeline-bar-detail" data-testid="bar-detail">
      <h3>
        {bar.task}: {bar.role}, round {bar.iteration} ({bar.stage}) — {bar.outcome}
      </h3>
      <ol className="timeline">
        {bar.events.map((r) => (
          <li key={String(r.seq)} className={`event event-${r.type}`} data-event={r.type}>
            <span className="t">{formatMs(Number(r.t_ms))}</span>
            <span className="what">{describe(r)}</span>
          </li>
        ))}
      </ol>
      {record && (
        <details open>
          <summary>Output</summary>
          <pre data-testid="bar-output">{typeof record.output === "string" ? record.output : JSON.stringify(record.output, null, 2)}</pre>
        </details>
      )}
      {prompt && (
        <details>
          <summary>Prompt of {bar.role}</summary>
          <pre>{prompt.prompt}</pre>
        </details>
      )}
    </div>
  );
}
