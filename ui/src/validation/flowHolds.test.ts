import { describe, expect, it } from "vitest";
import type { Playbook } from "../generated/Playbook";
import { flowHolds } from "./flowHolds";

const base: Playbook = {
  schema_version: "1.0.0",
  id: "p",
  name: "P",
  description: "d",
  workflow: {
    build: {
      enabled: true,
      roles: [
        { name: "worker", mode: "worker", responsibilities: "w", handoff_to: ["reviewer"], completion_criteria: ["done"] },
        { name: "reviewer", mode: "reviewer", retry_policy: { max_iterations: 3, escalate_on: ["retry_limit"] } },
      ],
    },
  },
};

function withRole(doc: Playbook, index: number, patch: Record<string, unknown>): Playbook {
  const roles = [...(doc.workflow.build!.roles ?? [])];
  roles[index] = { ...roles[index]!, ...patch } as (typeof roles)[number];
  return { ...doc, workflow: { ...doc.workflow, build: { ...doc.workflow.build!, roles } } };
}

describe("flowHolds", () => {
  it("holds for the same document and for text the graph does not show", () => {
    expect(flowHolds(base, base)).toBe(true);
    expect(flowHolds(base, withRole(base, 0, { responsibilities: "wx" }))).toBe(true);
    expect(flowHolds(base, withRole(base, 0, { completion_criteria: ["done", "tested"] }))).toBe(true);
    expect(flowHolds(base, withRole(base, 1, { suggested_prompt: "new" }))).toBe(true);
    expect(flowHolds(base, { ...base, description: "other" })).toBe(true);
  });

  it("does not hold when anything the graph shows may have changed", () => {
    expect(flowHolds(base, withRole(base, 0, { name: "builder" }))).toBe(false);
    expect(flowHolds(base, withRole(base, 0, { handoff_to: [] }))).toBe(false);
    expect(flowHolds(base, withRole(base, 0, { mode: "tester" }))).toBe(false);
    expect(flowHolds(base, withRole(base, 1, { retry_policy: { max_iterations: 1 } }))).toBe(false);
    expect(flowHolds(base, withRole(base, 1, { gates: { pass_condition: "x" } }))).toBe(false);
    expect(flowHolds(base, { ...base, name: "Q" })).toBe(false);
  });

  it("does not hold for two changes at once, a role added or removed, or a new stage", () => {
    const two = withRole(withRole(base, 0, { responsibilities: "a" }), 1, { suggested_prompt: "b" });
    expect(flowHolds(base, two)).toBe(false);
    const roles = base.workflow.build!.roles!;
    const added = { ...base, workflow: { build: { ...base.workflow.build!, roles: [...roles, { name: "x", responsibilities: "w" }] } } };
    expect(flowHolds(base, added)).toBe(false);
    const removed = { ...base, workflow: { build: { ...base.workflow.build!, roles: roles.slice(1) } } };
    expect(flowHolds(base, removed)).toBe(false);
    expect(flowHolds(base, { ...base, workflow: { ...base.workflow, test: { enabled: true, roles: [] } } })).toBe(false);
  });

  it("treats a stage named like a field as a stage", () => {
    const odd: Playbook = { ...base, workflow: { "roles/0/responsibilities": base.workflow.build! } };
    const edited: Playbook = { ...odd, workflow: { "roles/0/responsibilities": { ...base.workflow.build!, enabled: false } } };
    expect(flowHolds(odd, edited)).toBe(false);
  });
});
