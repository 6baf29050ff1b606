// Where the flow graph's lanes, roles, edges and loop labels go, in the
// graph's own units (pixels at 100 %). Pure, so the geometry is tested
// without a page: `FlowGraph.tsx` only draws what this returns.
import type { FlowView } from "../generated/FlowView";

export const COLUMN_WIDTH = 240;
export const LANE_GAP = 60;
export const ROW = 96;
export const NODE_WIDTH = COLUMN_WIDTH - 70;
export const NODE_HEIGHT = 52;
/** Most roles stacked in one column of a stage; more wrap into further columns. */
export const ROWS_PER_COLUMN = 8;
/** How far right of the nodes a loop's way back runs, so it never crosses them. */
export const LOOP_OFFSET = 36;
/** The top of a lane holds its label. */
const LANE_TOP = 40;
const NODE_LEFT = 15;
/** Radius of a loop's corners. */
const CORNER = 8;

export type Box = { x: number; y: number; width: number; height: number };
export type LaneBox = Box & { stage: string; enabled: boolean };
export type NodeBox = Box & { index: number };
export type EdgeShape = {
  id: string;
  from: number;
  to: number;
  kind: FlowView["edges"][number]["kind"];
  /** SVG path data. */
  path: string;
  /** The edge sends the task back (a loop's way back): it runs right of the roles. */
  back: boolean;
  inLoop: boolean;
  /** The loop's retry bound, when the edge is in a bounded loop. */
  bound?: number;
  unbounded: boolean;
  /** One per loop, on the edge that goes back. */
  label?: { text: string; x: number; y: number };
};
export type FlowLayout = { width: number; height: number; lanes: LaneBox[]; nodes: NodeBox[]; edges: EdgeShape[] };

/** Columns a lane needs for its roles. */
function columnsOf(count: number): number {
  return Math.max(1, Math.ceil(count / ROWS_PER_COLUMN));
}

export function layoutFlow(flow: FlowView): FlowLayout {
  const rolesPerLane = flow.lanes.map((lane) => flow.nodes.filter((n) => n.stage === lane.stage).length);
  const rows = Math.min(ROWS_PER_COLUMN, Math.max(1, ...rolesPerLane));
  const laneHeight = LANE_TOP + rows * ROW + 20;
  const lanes: LaneBox[] = [];
  const laneX = new Map<string, number>();
  let x = 0;
  flow.lanes.forEach((lane, i) => {
    const width = columnsOf(rolesPerLane[i]) * COLUMN_WIDTH;
    lanes.push({ stage: lane.stage, enabled: lane.enabled, x, y: 0, width, height: laneHeight });
    laneX.set(lane.stage, x);
    x += width + LANE_GAP;
  });
  const nodes: NodeBox[] = flow.nodes.map((n, index) => ({
    index,
    x: (laneX.get(n.stage) ?? 0) + NODE_LEFT + Math.floor(n.index / ROWS_PER_COLUMN) * COLUMN_WIDTH,
    y: LANE_TOP + (n.index % ROWS_PER_COLUMN) * ROW,
    width: NODE_WIDTH,
    height: NODE_HEIGHT,
  }));
  const labelled = new Set<number>();
  const edges: EdgeShape[] = [];
  for (const e of flow.edges) {
    const source = nodes[e.from];
    const target = nodes[e.to];
    if (!source || !target) continue;
    const loop = e.in_loop !== undefined ? flow.loops[e.in_loop] : undefined;
    const unbounded = loop !== undefined && loop.bound === undefined;
    const back = e.kind !== "stage" && e.to <= e.from;
    const across = flow.nodes[e.from].stage !== flow.nodes[e.to].stage;
    let label: EdgeShape["label"];
    let path: string;
    if (back) {
      const way = backPath(source, target);
      path = way.path;
      if (loop !== undefined && e.in_loop !== undefined && !labelled.has(e.in_loop)) {
        labelled.add(e.in_loop);
        label = { text: unbounded ? "on fail, unbounded" : `on fail, ≤ ${loop.bound} rounds`, x: way.x, y: way.middle };
      }
    } else if (across) {
      path = acrossPath(source, target);
    } else {
      path = downPath(source, target);
    }
    edges.push({ id: `edge:${e.from}-${e.to}`, from: e.from, to: e.to, kind: e.kind, path, back, inLoop: loop !== undefined, bound: loop?.bound, unbounded, label });
  }
  return { width: Math.max(0, x - LANE_GAP), height: laneHeight, lanes, nodes, edges };
}

/** Within a stage, forward: from the bottom of the role to the top of the next. */
function downPath(s: Box, t: Box): string {
  const sx = s.x + s.width / 2;
  const sy = s.y + s.height;
  const tx = t.x + t.width / 2;
  const ty = t.y;
  const bend = Math.max(24, Math.abs(ty - sy) / 2);
  return `M ${sx} ${sy} C ${sx} ${sy + bend}, ${tx} ${ty - bend}, ${tx} ${ty}`;
}

/** Into another stage: from the right of the role to the left of the entry. */
function acrossPath(s: Box, t: Box): string {
  const sx = s.x + s.width;
  const sy = s.y + s.height / 2;
  const tx = t.x;
  const ty = t.y + t.height / 2;
  const bend = Math.max(30, Math.abs(tx - sx) / 2);
  return `M ${sx} ${sy} C ${sx + bend} ${sy}, ${tx - bend} ${ty}, ${tx} ${ty}`;
}

/**
 * A loop's way back: out of the role's right side low, right of both roles,
 * and into the earlier role's right side high, with rounded corners.
 */
function backPath(s: Box, t: Box): { path: string; x: number; middle: number } {
  const sx = s.x + s.width;
  const sy = s.y + s.height * 0.7;
  const tx = t.x + t.width;
  const ty = t.y + t.height * 0.3;
  const out = Math.max(sx, tx) + LOOP_OFFSET;
  const up = ty < sy ? -1 : 1;
  const r = Math.min(CORNER, Math.abs(ty - sy) / 2);
  const path =
    `M ${sx} ${sy} H ${out - r} Q ${out} ${sy}, ${out} ${sy + up * r}` +
    ` V ${ty - up * r} Q ${out} ${ty}, ${out - r} ${ty} H ${tx}`;
  return { path, x: out, middle: (sy + ty) / 2 };
}

/**
 * The zoom at which the graph opens in a view of `width` × `height`: the
 * whole graph, up to 100 %; a large graph (`large`) fitted whole is
 * unreadable, so it opens at 100 % on its first stages and scrolls.
 */
export function openingZoom(layout: { width: number; height: number }, view: { width: number; height: number }, large: boolean): number {
  if (large || layout.width <= 0 || layout.height <= 0 || view.width <= 0 || view.height <= 0) return 1;
  return clampZoom(Math.min(1, view.width / layout.width, view.height / layout.height));
}

export const MIN_ZOOM = 0.2;
export const MAX_ZOOM = 2;

export function clampZoom(zoom: number): number {
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, Number.isFinite(zoom) ? zoom : 1));
}
