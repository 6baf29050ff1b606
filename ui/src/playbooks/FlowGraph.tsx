// The flow graph: stages as lanes side by side, roles as nodes (wrapped into
// several columns in a stage with many roles), handoffs as edges, and an
// edge from each role a task leaves a stage after to the next stage's entry.
// Loops carry their retry bound; unreachable roles and unbounded loops are
// highlighted. The graph comes from the core's `Flow` (via the backend), so
// it can never disagree with what the validator and the orchestrator see.
import { Background, Controls, Handle, MarkerType, MiniMap, Position, ReactFlow, type Edge, type Node, type NodeProps } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useMemo } from "react";
import type { FlowView } from "../generated/FlowView";
import type { RoleAddress } from "./document";

const COLUMN_WIDTH = 240;
const LANE_GAP = 60;
const ROW = 96;
const NODE_WIDTH = COLUMN_WIDTH - 70;
/** Most roles stacked in one column of a stage; more wrap into further columns. */
const ROWS_PER_COLUMN = 8;
/** From this many roles on, the graph opens on its first stages at a readable zoom, with a minimap. */
const LARGE = 30;
/** How far right of the nodes a loop's way back runs, so it never crosses them. */
const LOOP_OFFSET = 36;

/**
 * A role: handoffs within a stage enter at the top and leave at the bottom,
 * handoffs to a later stage leave on the right and enter on the left; the
 * way back of a loop leaves and enters on the right, so it and its bound
 * label run beside the column of roles instead of over the forward edges.
 */
function RoleNode({ data }: NodeProps) {
  return (
    <>
      <Handle type="target" position={Position.Top} />
      {(data as { label: React.ReactNode }).label}
      <Handle type="source" position={Position.Bottom} />
      <Handle id="across-in" type="target" position={Position.Left} />
      <Handle id="across-out" type="source" position={Position.Right} />
      <Handle id="back-out" type="source" position={Position.Right} style={{ top: "70%" }} />
      <Handle id="back-in" type="target" position={Position.Right} style={{ top: "30%" }} />
    </>
  );
}

const NODE_TYPES = { role: RoleNode };

type Props = {
  flow: FlowView;
  stale: boolean;
  selected: RoleAddress | null;
  onSelectRole: (a: RoleAddress) => void;
};

export function FlowGraph({ flow, stale, selected, onSelectRole }: Props) {
  const { nodes, edges } = useMemo(() => layout(flow, selected, onSelectRole), [flow, selected, onSelectRole]);
  const large = flow.nodes.length >= LARGE;
  // A large graph fitted whole is unreadable: open on the first roles at
  // full size instead and let the minimap show the rest.
  const fitViewOptions = useMemo(
    () => (large ? { nodes: flow.nodes.slice(0, ROWS_PER_COLUMN).map((_, i) => ({ id: `role:${i}` })), maxZoom: 1, minZoom: 0.6 } : undefined),
    [large, flow.nodes],
  );
  const unbounded = flow.loops.filter((l) => l.bound === undefined).length;
  const unreachable = flow.nodes.filter((n) => !n.reachable).length;
  return (
    <section className="flow" aria-label="Flow graph">
      <p className="flow-summary" data-testid="flow-summary">
        {flow.nodes.length} roles · {flow.loops.length} loops
        {unbounded > 0 && <span className="bad"> · {unbounded} unbounded loop{unbounded > 1 ? "s" : ""}</span>}
        {unreachable > 0 && <span className="warn"> · {unreachable} unreachable role{unreachable > 1 ? "s" : ""}</span>}
        {stale && <span className="warn"> · the document has structural errors: showing the last valid graph</span>}
      </p>
      <div className="flow-canvas">
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          fitView
          fitViewOptions={fitViewOptions}
          minZoom={0.1}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable
          proOptions={{ hideAttribution: true }}
          onNodeClick={(_, node) => {
            const d = node.data as { address?: RoleAddress };
            if (d.address) onSelectRole(d.address);
          }}
        >
          <Background />
          <Controls showInteractive={false} />
          {large && <MiniMap pannable zoomable ariaLabel="Minimap of the flow graph" nodeClassName={(n) => String(n.className ?? "")} />}
        </ReactFlow>
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

/** Columns each lane needs for its roles. */
function columnsOf(count: number): number {
  return Math.max(1, Math.ceil(count / ROWS_PER_COLUMN));
}

function layout(flow: FlowView, selected: RoleAddress | null, onSelectRole: (a: RoleAddress) => void) {
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const unboundedRoles = new Set(flow.loops.filter((l) => l.bound === undefined).flatMap((l) => l.roles));
  const rolesPerLane = flow.lanes.map((lane) => flow.nodes.filter((n) => n.stage === lane.stage).length);
  const rows = Math.min(ROWS_PER_COLUMN, Math.max(1, ...rolesPerLane));
  const height = rows * ROW + 60;
  let x = 0;
  flow.lanes.forEach((lane, i) => {
    const width = columnsOf(rolesPerLane[i]) * COLUMN_WIDTH;
    nodes.push({
      id: `lane:${lane.stage}`,
      type: "group",
      position: { x, y: 0 },
      data: {},
      selectable: false,
      focusable: false,
      className: `lane ${lane.enabled ? "" : "lane-disabled"}`,
      style: { width, height },
    });
    x += width + LANE_GAP;
    nodes.push({
      id: `lane-label:${lane.stage}`,
      parentId: `lane:${lane.stage}`,
      position: { x: 10, y: 8 },
      data: { label: `${lane.stage}${lane.enabled ? "" : " (disabled)"}` },
      selectable: false,
      focusable: false,
      className: "lane-label",
      draggable: false,
      connectable: false,
    });
  });
  flow.nodes.forEach((n, i) => {
    const address = { stage: n.stage, index: n.index };
    const isSelected = selected?.stage === n.stage && selected.index === n.index;
    const classes = [
      "role-node",
      n.mode ? `mode-${n.mode}` : "mode-none",
      n.reachable ? "" : "unreachable",
      unboundedRoles.has(i) ? "unbounded" : "",
      isSelected ? "current" : "",
    ].join(" ");
    const column = Math.floor(n.index / ROWS_PER_COLUMN);
    const row = n.index % ROWS_PER_COLUMN;
    nodes.push({
      id: `role:${i}`,
      type: "role",
      parentId: `lane:${n.stage}`,
      extent: "parent",
      position: { x: 15 + column * COLUMN_WIDTH, y: 40 + row * ROW },
      className: classes,
      ariaLabel: `Role ${n.role || "(unnamed)"} in stage ${n.stage}. On pass it ${n.on_pass}; on fail it ${n.on_fail}.`,
      data: {
        address,
        label: (
          <button
            type="button"
            className="node-button"
            data-role-node={n.role}
            data-unreachable={n.reachable ? undefined : "true"}
            data-unbounded={unboundedRoles.has(i) ? "true" : undefined}
            title={`On pass: ${n.on_pass}\nOn fail: ${n.on_fail}`}
            onClick={(e) => {
              e.stopPropagation();
              onSelectRole(address);
            }}
          >
            <strong>{n.role || "(unnamed)"}</strong>
            <small>
              {n.mode ?? "no mode"}
              {n.max_iterations !== undefined ? ` · ≤${n.max_iterations} rounds` : ""}
              {n.reachable ? "" : " · unreachable"}
            </small>
          </button>
        ),
      },
      style: { width: NODE_WIDTH },
    });
  });
  const labelled = new Set<number>();
  const name = (i: number) => flow.nodes[i]?.role || "(unnamed)";
  for (const e of flow.edges) {
    const loop = e.in_loop !== undefined ? flow.loops[e.in_loop] : undefined;
    const unbounded = loop !== undefined && loop.bound === undefined;
    const back = e.kind !== "stage" && e.to <= e.from;
    const sendsBack = back && loop !== undefined;
    // One label per loop, on the edge that goes back.
    let label: string | undefined;
    if (sendsBack && e.in_loop !== undefined && !labelled.has(e.in_loop)) {
      labelled.add(e.in_loop);
      label = unbounded ? "on fail, unbounded" : `on fail, ≤ ${loop.bound} rounds`;
    }
    const across = flow.nodes[e.from]?.stage !== flow.nodes[e.to]?.stage;
    edges.push({
      id: `edge:${e.from}-${e.to}`,
      source: `role:${e.from}`,
      target: `role:${e.to}`,
      label,
      ariaLabel: edgeLabel(e.kind, name(e.from), name(e.to), flow.nodes[e.to]?.stage ?? "", sendsBack, loop?.bound, unbounded),
      className: ["edge", e.kind, loop ? "in-loop" : "", unbounded ? "unbounded" : ""].join(" "),
      animated: unbounded,
      ...(back
        ? { type: "smoothstep", sourceHandle: "back-out", targetHandle: "back-in", pathOptions: { offset: LOOP_OFFSET } }
        : across
          ? { type: "default", sourceHandle: "across-out", targetHandle: "across-in" }
          : { type: "default" }),
      markerEnd: { type: MarkerType.ArrowClosed },
      style: e.kind === "sequence" ? { strokeDasharray: "5 4" } : e.kind === "stage" ? { strokeDasharray: "2 4" } : undefined,
    });
  }
  return { nodes, edges };
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
