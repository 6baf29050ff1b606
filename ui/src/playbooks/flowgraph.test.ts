import { describe, expect, it } from "vitest";
import { edgeLabel } from "./FlowGraph";

describe("flow graph edge labels", () => {
  it("use the roles' names and the edge's meaning", () => {
    expect(edgeLabel("handoff", "lead", "coder", "make", false, undefined, false)).toBe("lead hands off to coder");
    expect(edgeLabel("handoff", "critic", "coder", "make", true, 3, false)).toBe("critic sends back to coder on fail, at most 3 rounds");
    expect(edgeLabel("handoff", "critic", "coder", "make", true, undefined, true)).toBe("critic sends back to coder on fail, with no round limit");
    expect(edgeLabel("stage", "critic", "prober", "check", false, undefined, false)).toBe(
      "critic passes, the task leaves the stage and enters stage check at prober",
    );
    expect(edgeLabel("sequence", "a", "b", "s", false, undefined, false)).not.toMatch(/role:\d/);
  });
});

import type { FlowView } from "../generated/FlowView";
import { layoutFlow, LOOP_OFFSET, openingZoom, ROWS_PER_COLUMN, MAX_ZOOM, MIN_ZOOM } from "./flowLayout";

/** The points a path passes (its commands' end points and control points): M, C, Q, H and V, absolute. */
function points(path: string): [number, number][] {
  const out: [number, number][] = [];
  let at: [number, number] = [0, 0];
  for (const [, command, args] of path.matchAll(/([MCQHV])([^MCQHV]*)/g)) {
    const n = (args.match(/-?\d+(\.\d+)?/g) ?? []).map(Number);
    if (command === "H") at = [n[0], at[1]];
    else if (command === "V") at = [at[0], n[0]];
    else {
      for (let i = 0; i + 1 < n.length; i += 2) out.push([n[i], n[i + 1]]);
      at = [n[n.length - 2], n[n.length - 1]];
      continue;
    }
    out.push(at);
  }
  return out;
}

const onBorder = ([x, y]: [number, number], b: { x: number; y: number; width: number; height: number }) =>
  (x === b.x || x === b.x + b.width || y === b.y || y === b.y + b.height) && x >= b.x && x <= b.x + b.width && y >= b.y && y <= b.y + b.height;

function role(stage: string, index: number, role: string) {
  return { role, stage, stage_index: 0, index, pointer: "", reachable: true, on_pass: "", on_fail: "" };
}

/** plan: planner; build: worker ⇄ reviewer (bounded) then 10 more; test: tester. */
const flow: FlowView = {
  lanes: [
    { stage: "plan", enabled: true },
    { stage: "build", enabled: true },
    { stage: "test", enabled: false },
  ],
  nodes: [role("plan", 0, "planner"), role("build", 0, "worker"), role("build", 1, "reviewer"), ...Array.from({ length: 10 }, (_, i) => role("build", i + 2, `extra${i}`)), role("test", 0, "tester")],
  edges: [
    { from: 0, to: 1, kind: "stage" },
    { from: 1, to: 2, kind: "handoff", in_loop: 0 },
    { from: 2, to: 1, kind: "handoff", in_loop: 0 },
    { from: 2, to: 2, kind: "handoff", in_loop: 1 },
    { from: 2, to: 3, kind: "sequence" },
    { from: 12, to: 13, kind: "stage" },
  ],
  loops: [{ roles: [1, 2], bound: 3 }, { roles: [2] }],
} as unknown as FlowView;

describe("flow graph layout", () => {
  const layout = layoutFlow(flow);

  it("puts each stage in a lane of its own, wrapping a long stage into columns, every role inside its lane", () => {
    expect(layout.lanes.map((l) => l.stage)).toEqual(["plan", "build", "test"]);
    expect(layout.lanes[2].enabled).toBe(false);
    expect(layout.lanes[1].width).toBe(2 * layout.lanes[0].width); // 12 roles: two columns of ROWS_PER_COLUMN
    for (let i = 1; i < layout.lanes.length; i++) expect(layout.lanes[i].x).toBeGreaterThan(layout.lanes[i - 1].x + layout.lanes[i - 1].width);
    layout.nodes.forEach((box, i) => {
      const lane = layout.lanes.find((l) => l.stage === flow.nodes[i].stage)!;
      expect(box.x).toBeGreaterThanOrEqual(lane.x);
      expect(box.x + box.width).toBeLessThanOrEqual(lane.x + lane.width);
      expect(box.y + box.height).toBeLessThanOrEqual(lane.height);
    });
    const [first, wrapped] = [layout.nodes[1 + 0], layout.nodes[1 + ROWS_PER_COLUMN]];
    expect(wrapped.y).toBe(first.y);
    expect(wrapped.x).toBeGreaterThan(first.x);
    expect(layout.width).toBe(layout.lanes[2].x + layout.lanes[2].width);
  });

  it("starts every edge on its source's border and ends it on its target's", () => {
    expect(layout.edges).toHaveLength(flow.edges.length);
    for (const e of layout.edges) {
      const p = points(e.path);
      expect(onBorder(p[0], layout.nodes[e.from]), `${e.id} starts on ${e.from}: ${e.path}`).toBe(true);
      expect(onBorder(p[p.length - 1], layout.nodes[e.to]), `${e.id} ends on ${e.to}: ${e.path}`).toBe(true);
    }
  });

  it("runs a loop's way back right of both roles, labelled once per loop with its bound", () => {
    const back = layout.edges.filter((e) => e.back);
    expect(back.map((e) => e.id)).toEqual(["edge:2-1", "edge:2-2"]);
    for (const e of back) {
      const right = Math.max(...[e.from, e.to].map((i) => layout.nodes[i].x + layout.nodes[i].width));
      expect(Math.max(...points(e.path).map(([x]) => x))).toBe(right + LOOP_OFFSET);
    }
    expect(back[0].label?.text).toBe("on fail, ≤ 3 rounds");
    expect(back[0].bound).toBe(3);
    expect(back[1].label?.text).toBe("on fail, unbounded");
    expect(back[1].unbounded).toBe(true);
    expect(layout.edges.filter((e) => e.label)).toHaveLength(2);
    // The forward handoff of the bounded loop is in the loop but carries no label.
    expect(layout.edges.find((e) => e.id === "edge:1-2")).toMatchObject({ back: false, inLoop: true, label: undefined });
  });

  it("ignores an edge to a role that is not in the graph instead of failing", () => {
    const broken = { ...flow, edges: [...flow.edges, { from: 0, to: 99, kind: "handoff" }] } as unknown as FlowView;
    expect(layoutFlow(broken).edges).toHaveLength(flow.edges.length);
    expect(layoutFlow({ lanes: [], nodes: [], edges: [], loops: [] })).toMatchObject({ width: 0, nodes: [], edges: [] });
  });

  it("opens a small graph whole, up to 100 %, and a large one at 100 %", () => {
    expect(openingZoom({ width: 500, height: 300 }, { width: 1000, height: 600 }, false)).toBe(1);
    expect(openingZoom({ width: 2000, height: 300 }, { width: 1000, height: 600 }, false)).toBe(0.5);
    expect(openingZoom({ width: 2000, height: 300 }, { width: 1000, height: 600 }, true)).toBe(1);
    expect(openingZoom({ width: 100000, height: 300 }, { width: 1000, height: 600 }, false)).toBe(MIN_ZOOM);
    expect(openingZoom({ width: 500, height: 300 }, { width: 0, height: 0 }, false)).toBe(1);
    expect(MAX_ZOOM).toBeGreaterThan(1);
  });
});
