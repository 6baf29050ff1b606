import { describe, expect, it } from "vitest";
import type { Playbook } from "../generated/Playbook";
import { planCheck } from "./plan";

const doc: Playbook = {
  schema_version: "1.0.0",
  id: "p",
  name: "P",
  workflow: { build: { enabled: true, roles: [{ name: "worker", mode: "worker", responsibilities: "w" }] } },
};
const typed: Playbook = {
  ...doc,
  workflow: { build: { enabled: true, roles: [{ name: "worker", mode: "worker", responsibilities: "wx" }] } },
};
const renamed: Playbook = {
  ...doc,
  workflow: { build: { enabled: true, roles: [{ name: "builder", mode: "worker", responsibilities: "w" }] } },
};

describe("planCheck", () => {
  it("asks for the graph on its tab and the text on the Source tab, nothing else off the editor", () => {
    expect(planCheck(doc, { screen: "editor", tab: "flow", selectionKind: "playbook" }, null).include).toEqual({ source: false, flow: true });
    expect(planCheck(doc, { screen: "editor", tab: "source", selectionKind: "role" }, null).include).toEqual({ source: true, flow: false });
    expect(planCheck(doc, { screen: "preview", tab: "flow", selectionKind: "role" }, null).include).toEqual({ source: false, flow: false });
  });

  it("keeps the graph of a role's form while only text it does not show changes", () => {
    const view = { screen: "editor", tab: "form", selectionKind: "role" } as const;
    expect(planCheck(typed, view, doc)).toMatchObject({ keepFlow: true, include: { flow: false } });
    expect(planCheck(renamed, view, doc)).toMatchObject({ keepFlow: false, include: { flow: true } });
    expect(planCheck(typed, view, null)).toMatchObject({ keepFlow: false, include: { flow: true } });
  });

  it("gives different keys to plans that send different requests, so an early check is not reused for another", () => {
    const view = { screen: "editor", tab: "form", selectionKind: "role" } as const;
    const kept = planCheck(typed, view, doc).key;
    expect(planCheck(renamed, view, doc).key).not.toBe(kept);
    expect(planCheck(typed, { ...view, tab: "source" }, doc).key).not.toBe(kept);
    expect(planCheck(typed, view, doc).key).toBe(kept);
  });
});
