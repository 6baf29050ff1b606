import { describe, expect, it } from "vitest";
import type { Playbook } from "../generated/Playbook";
import { escapePointer, freshRoleName, insertRole, pointerTokens, renameRole, renameStage, roleOfPointer } from "./document";

const doc: Playbook = {
  id: "demo",
  name: "Demo",
  workflow: {
    build: { roles: [{ name: "coder", handoff_to: ["checker"] }, { name: "checker", handoff_to: ["coder"] }] },
    "a/b": { roles: [] },
  },
};

describe("pointers", () => {
  it("round-trips stage names with / and ~ as RFC 6901 says", () => {
    expect(pointerTokens(`/workflow/${escapePointer("a/b~c")}/roles/0`)).toEqual(["workflow", "a/b~c", "roles", "0"]);
  });
  it("finds the role a finding's path points into", () => {
    expect(roleOfPointer("/workflow/build/roles/1/retry_policy/max_iterations")).toEqual({ stage: "build", index: 1 });
    expect(roleOfPointer("/workflow/build/stage_policy")).toBeNull();
  });
});

describe("edits", () => {
  it("renaming a role renames the handoffs that named it, so none dangles", () => {
    const next = renameRole(doc, { stage: "build", index: 1 }, "reviewer");
    expect(next.workflow.build?.roles?.[0].handoff_to).toEqual(["reviewer"]);
    expect(doc.workflow.build?.roles?.[0].handoff_to).toEqual(["checker"]);
  });
  it("inserting a template with a taken name gives it a fresh one", () => {
    expect(freshRoleName(doc, "coder")).toBe("coder-2");
    const { doc: next, address } = insertRole(doc, "build", { name: "coder" });
    expect(address).toEqual({ stage: "build", index: 2 });
    expect(next.workflow.build?.roles?.[2].name).toBe("coder-2");
  });
  it("renaming a stage keeps the order of stages", () => {
    expect(Object.keys(renameStage(doc, "build", "make").workflow)).toEqual(["make", "a/b"]);
  });
});
