// The flow graph: stages as lanes, roles as nodes, handoffs as edges.
// Loops carry their retry bound; unreachable roles and unbounded loops are
// highlighted. The graph comes from the core's `Flow` (via the backend), so
// it can never disagree with what the validator and the orchestrator see.
import { Background, Controls, Handle, MarkerType, Position, ReactFlow, type Edge, type Node, type NodeProps } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useMemo } from "react";
import type { FlowView } from "../generated/FlowView";
import type { RoleAddress } from "./document";

const LANE_WIDTH = 240;
const LANE_GAP = 60;
const ROW = 96;
const NODE_WIDTH = LANE_WIDTH - 70;
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
        </ReactFlow>
      </div>
      <ul className="legend">
        <li><span className="swatch handoff" /> handoff</li>
        <li><span className="swatch sequence" /> next role of the stage</li>
        <li><span className="swatch loop" /> loop with retry bound</li>
        <li><span className="swatch unbounded" /> unbounded loop</li>
        <li><span className="swatch unreachable" /> unreachable role</li>
      </ul>
    </section>
  );
}

function layout(flow: FlowView, selected: RoleAddress | null, onSelectRole: (a: RoleAddress) => void) {
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const unboundedRoles = new Set(flow.loops.filter((l) => l.bound === undefined).flatMap((l) => l.roles));
  const rolesPerLane = flow.lanes.map((lane) => flow.nodes.filter((n) => n.stage === lane.stage).length);
  const height = Math.max(1, ...rolesPerLane) * ROW + 60;
  flow.lanes.forEach((lane, i) => {
    nodes.push({
      id: `lane:${lane.stage}`,
      type: "group",
      position: { x: i * (LANE_WIDTH + LANE_GAP), y: 0 },
      data: {},
      selectable: false,
      focusable: false,
      className: `lane ${lane.enabled ? "" : "lane-disabled"}`,
      style: { width: LANE_WIDTH, height },
    });
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
    nodes.push({
      id: `role:${i}`,
      type: "role",
      parentId: `lane:${n.stage}`,
      extent: "parent",
      position: { x: 15, y: 40 + n.index * ROW },
      className: classes,
      data: {
        address,
        label: (
          <button
            type="button"
            className="node-button"
            data-role-node={n.role}
            data-unreachable={n.reachable ? undefined : "true"}
            data-unbounded={unboundedRoles.has(i) ? "true" : undefined}
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
  for (const e of flow.edges) {
    const loop = e.in_loop !== undefined ? flow.loops[e.in_loop] : undefined;
    const unbounded = loop !== undefined && loop.bound === undefined;
    // One label per loop, on the edge that goes back.
    let label: string | undefined;
    if (loop && e.in_loop !== undefined && !labelled.has(e.in_loop) && e.to <= e.from) {
      labelled.add(e.in_loop);
      label = unbounded ? "unbounded loop" : `loop ≤ ${loop.bound}`;
    }
    const back = e.to <= e.from;
    const across = flow.nodes[e.from]?.stage !== flow.nodes[e.to]?.stage;
    edges.push({
      id: `edge:${e.from}-${e.to}`,
      source: `role:${e.from}`,
      target: `role:${e.to}`,
      label,
      className: ["edge", e.kind, loop ? "in-loop" : "", unbounded ? "unbounded" : ""].join(" "),
      animated: unbounded,
      ...(back
        ? { type: "smoothstep", sourceHandle: "back-out", targetHandle: "back-in", pathOptions: { offset: LOOP_OFFSET } }
        : across
          ? { type: "default", sourceHandle: "across-out", targetHandle: "across-in" }
          : { type: "default" }),
      markerEnd: { type: MarkerType.ArrowClosed },
      style: e.kind === "sequence" ? { strokeDasharray: "5 4" } : undefined,
    });
  }
  return { nodes, edges };
}
