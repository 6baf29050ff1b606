// The flow graph: stages as lanes side by side, roles as nodes (wrapped into
// several columns in a stage with many roles), handoffs as edges, and an
// edge from each role a task leaves a stage after to the next stage's entry.
// Loops carry their retry bound; unreachable roles and unbounded loops are
// highlighted. The graph comes from the core's `Flow` (via the backend), so
// it can never disagree with what the validator and the orchestrator see.
//
// Drawn with the page's own SVG and buttons (geometry in `flowLayout.ts`):
// the view scrolls like any other and zooms with its buttons or Ctrl+wheel.
// A graph library with its own pan-and-zoom viewport, store and minimap
// held about 13 MiB of the window's memory for a few dozen nodes
// (docs/benchmarks.md, "Desktop app").
import { useCallback, useId, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { FlowView } from "../generated/FlowView";
import type { RoleAddress } from "./document";
import { clampZoom, layoutFlow, openingZoom, type EdgeShape } from "./flowLayout";

/** From this many roles on, the graph opens on its first stages at 100 %, and scrolls. */
const LARGE = 30;
const ZOOM_STEP = 1.25;

type Props = {
  flow: FlowView;
  stale: boolean;
  selected: RoleAddress | null;
  onSelectRole: (a: RoleAddress) => void;
};

export function FlowGraph({ flow, stale, selected, onSelectRole }: Props) {
  const layout = useMemo(() => layoutFlow(flow), [flow]);
  const large = flow.nodes.length >= LARGE;
  const canvas = useRef<HTMLDivElement>(null);
  const [zoom, setZoom] = useState(1);
  /** The zoom at which the graph fits its view (a large one: 100 %, see `openingZoom`). */
  const fit = useCallback(
    (large: boolean) => {
      const view = canvas.current;
      // The view's padding (8 px a side) is not room for the graph.
      if (view) setZoom(openingZoom(layout, { width: view.clientWidth - 16, height: view.clientHeight - 16 }, large));
    },
    [layout],
  );
  // Opened once per graph shown, at the zoom its size calls for; later
  // edits keep the zoom the person chose.
  const opened = useRef(false);
  useLayoutEffect(() => {
    if (opened.current) return;
    opened.current = true;
    fit(large);
  }, [fit, large]);
  // Ctrl+wheel zooms; a plain wheel scrolls. Not passive: the page must not zoom too.
  useLayoutEffect(() => {
    const view = canvas.current;
    if (!view) return;
    const onWheel = (e: WheelEvent) => {
      if (!e.ctrlKey) return;
      e.preventDefault();
      setZoom((z) => clampZoom(e.deltaY < 0 ? z * ZOOM_STEP : z / ZOOM_STEP));
    };
    view.addEventListener("wheel", onWheel, { passive: false });
    return () => view.removeEventListener("wheel", onWheel);
  }, []);

  // Dragging the background scrolls the view, as in any graph or map view;
  // a press on a role is a click on its button.
  const drag = useRef<{ x: number; y: number; left: number; top: number } | null>(null);
  const onPointerDown = (e: React.PointerEvent<HTMLDivElement>) => {
    const view = canvas.current;
    if (!view || e.button !== 0 || (e.target as Element).closest("button")) return;
    drag.current = { x: e.clientX, y: e.clientY, left: view.scrollLeft, top: view.scrollTop };
    view.setPointerCapture(e.pointerId);
    view.classList.add("dragging");
  };
  const onPointerMove = (e: React.PointerEvent<HTMLDivElement>) => {
    const view = canvas.current;
    const from = drag.current;
    if (!view || !from) return;
    view.scrollLeft = from.left - (e.clientX - from.x);
    view.scrollTop = from.top - (e.clientY - from.y);
  };
  const onPointerUp = (e: React.PointerEvent<HTMLDivElement>) => {
    if (!drag.current) return;
    drag.current = null;
    canvas.current?.releasePointerCapture(e.pointerId);
    canvas.current?.classList.remove("dragging");
  };

  const markers = useId();
  const unboundedRoles = useMemo(() => new Set(flow.loops.filter((l) => l.bound === undefined).flatMap((l) => l.roles)), [flow]);
  const unbounded = flow.loops.filter((l) => l.bound === undefined).length;
  const unreachable = flow.nodes.filter((n) => !n.reachable).length;
  const name = (i: number) => flow.nodes[i]?.role || "(unnamed)";
  const markerOf = (e: EdgeShape) => `url(#${markers}-${e.unbounded ? "unbounded" : e.inLoop ? "loop" : "plain"})`;
  return (
    <section className="flow" aria-label="Flow graph">
      <p className="flow-summary" data-testid="flow-summary">
        {flow.nodes.length} roles · {flow.loops.length} loops
        {unbounded > 0 && <span className="bad"> · {unbounded} unbounded loop{unbounded > 1 ? "s" : ""}</span>}
        {unreachable > 0 && <span className="warn"> · {unreachable} unreachable role{unreachable > 1 ? "s" : ""}</span>}
        {stale && <span className="warn"> · the document has structural errors: showing the last valid graph</span>}
      </p>
      <div className="flow-zoom" role="toolbar" aria-label="Zoom">
        <button type="button" title="Zoom in (Ctrl+wheel)" aria-label="Zoom in" onClick={() => setZoom((z) => clampZoom(z * ZOOM_STEP))}>
          +
        </button>
        <button type="button" title="Zoom out (Ctrl+wheel)" aria-label="Zoom out" onClick={() => setZoom((z) => clampZoom(z / ZOOM_STEP))}>
          −
        </button>
        <button type="button" title="Show the whole graph" onClick={() => fit(false)}>
          Fit
        </button>
        <button type="button" title="Actual size" onClick={() => setZoom(1)}>
          100 %
        </button>
        <span className="muted" data-testid="flow-zoom">
          {Math.round(zoom * 100)} %
        </span>
      </div>
      <div className="flow-canvas" ref={canvas} data-testid="flow-canvas" onPointerDown={onPointerDown} onPointerMove={onPointerMove} onPointerUp={onPointerUp} onPointerCancel={onPointerUp}>
        {/* The scrolled size is the zoomed size; the plane inside is drawn at 100 % and scaled. */}
        <div className="flow-extent" style={{ width: layout.width * zoom + 16, height: layout.height * zoom + 16 }}>
          <div className="flow-plane" style={{ width: layout.width, height: layout.height, transform: `scale(${zoom})` }}>
            <svg className="flow-lines" width={layout.width} height={layout.height}>
              <defs>
                {(["plain", "loop", "unbounded"] as const).map((kind) => (
                  <marker key={kind} id={`${markers}-${kind}`} className={`arrow ${kind}`} viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" />
                  </marker>
                ))}
              </defs>
              {layout.lanes.map((lane) => (
                <rect key={lane.stage} className={`lane${lane.enabled ? "" : " lane-disabled"}`} x={lane.x + 1} y={lane.y + 1} width={lane.width - 2} height={lane.height - 2} rx={10} />
              ))}
              {layout.edges.map((e) => (
                <g
                  key={e.id}
                  className={["flow-edge", e.kind, e.inLoop ? "in-loop" : "", e.unbounded ? "unbounded" : ""].join(" ")}
                  role="img"
                  aria-label={edgeLabel(e.kind, name(e.from), name(e.to), flow.nodes[e.to]?.stage ?? "", e.back && e.inLoop, e.bound, e.unbounded)}
                >
                  <path d={e.path} markerEnd={markerOf(e)} />
                </g>
              ))}
            </svg>
            {layout.lanes.map((lane) => (
              <span key={lane.stage} className={`lane-label${lane.enabled ? "" : " lane-disabled"}`} style={{ left: lane.x + 10, top: lane.y + 10 }}>
                {lane.stage}
                {lane.enabled ? "" : " (disabled)"}
              </span>
            ))}
            {layout.edges.map(
              (e) =>
                e.label && (
                  <span key={e.id} className={`edge-label${e.unbounded ? " unbounded" : ""}`} style={{ left: e.label.x, top: e.label.y }}>
                    {e.label.text}
                  </span>
                ),
            )}
            {layout.nodes.map((box) => {
              const n = flow.nodes[box.index];
              const address = { stage: n.stage, index: n.index };
              const current = selected?.stage === n.stage && selected.index === n.index;
              const classes = ["role-node", "node-button", n.mode ? `mode-${n.mode}` : "mode-none", n.reachable ? "" : "unreachable", unboundedRoles.has(box.index) ? "unbounded" : "", current ? "current" : ""].join(" ");
              return (
                <button
                  key={`${n.stage}/${n.index}`}
                  type="button"
                  className={classes}
                  style={{ left: box.x, top: box.y, width: box.width, height: box.height }}
                  data-role-node={n.role}
                  data-unreachable={n.reachable ? undefined : "true"}
                  data-unbounded={unboundedRoles.has(box.index) ? "true" : undefined}
                  aria-current={current || undefined}
                  aria-label={`Role ${n.role || "(unnamed)"} in stage ${n.stage}. On pass it ${n.on_pass}; on fail it ${n.on_fail}.`}
                  title={`On pass: ${n.on_pass}\nOn fail: ${n.on_fail}`}
                  onClick={() => onSelectRole(address)}
                >
                  <strong>{n.role || "(unnamed)"}</strong>
                  <small>
                    {n.mode ?? "no mode"}
                    {n.max_iterations !== undefined ? ` · ≤${n.max_iterations} rounds` : ""}
                    {n.reachable ? "" : " · unreachable"}
                  </small>
                </button>
              );
            })}
          </div>
        </div>
      </div>
      <ul className="legend">
        <li><span className="swatch handoff" /> handoff</li>
        <li><span className="swatch sequence" /> next role of the stage</li>
        <li><span className="swatch stage-edge" /> on pass, into the next stage</li>
        <li><span className="swatch loop" /> on fail, sent back (≤ rounds)</li>
        <li><span className="swatch unbounded" /> unbounded loop</li>
        <li><span className="swatch unreachable" /> unreachable role</li>
      </ul>
    </section>
  );
}

/** What an edge means, in words, for screen readers: names, not node ids. */
export function edgeLabel(
  kind: FlowView["edges"][number]["kind"],
  from: string,
  to: string,
  toStage: string,
  sendsBack: boolean,
  bound: number | undefined,
  unbounded: boolean,
): string {
  if (kind === "stage") return `${from} passes, the task leaves the stage and enters stage ${toStage} at ${to}`;
  if (sendsBack) {
    const rounds = unbounded ? ", with no round limit" : bound !== undefined ? `, at most ${bound} rounds` : "";
    return `${from} sends back to ${to} on fail${rounds}`;
  }
  if (kind === "sequence") return `${from} passes the task to ${to}, the next role of the stage`;
  return `${from} hands off to ${to}`;
}
