import { describe, expect, it } from "vitest";
import { singleChange } from "./change";

const role = { name: "coder", responsibilities: "Write code.", handoff_to: ["checker"] };
const before = { id: "demo", workflow: { build: { roles: [role, { name: "checker" }] }, "a/b": { roles: [] } } };

describe("singleChange", () => {
  it("finds the one field a keystroke changed", () => {
    const after = { ...before, workflow: { ...before.workflow, build: { roles: [{ ...role, responsibilities: "Write code!" }, before.workflow.build.roles[1]] } } };
    expect(singleChange(before, after)).toEqual({ pointer: "/workflow/build/roles/0/responsibilities", value: "Write code!" });
  });
  it("reports a removed field with no value and escapes keys", () => {
    const after = { ...before, workflow: { ...before.workflow, "a/b": {} } };
    expect(singleChange(before, after)).toEqual({ pointer: "/workflow/a~1b/roles", value: undefined });
  });
  it("sends a list whose length changed whole", () => {
    const after = { ...before, workflow: { ...before.workflow, build: { roles: [role] } } };
    expect(singleChange(before, after)).toEqual({ pointer: "/workflow/build/roles", value: [role] });
  });
  it("sends the common parent of two changes", () => {
    const after = { ...before, id: "other", workflow: {} };
    expect(singleChange(before, after)).toEqual({ pointer: "", value: after });
  });
  it("finds nothing between equal documents", () => {
    expect(singleChange(before, before)).toBeNull();
    expect(singleChange(before, structuredClone(before))).toBeNull();
  });
});
