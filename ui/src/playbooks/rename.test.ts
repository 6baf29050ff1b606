import { describe, expect, it } from "vitest";
import type { Playbook } from "../generated/Playbook";
import { referencesTo, referrersOf, removeRoleAndReferences, renameRoleWith } from "./document";

const doc: Playbook = {
  id: "demo",
  name: "Demo",
  workflow: {
    plan: { roles: [{ name: "lead", handoff_to: ["maker"] }] },
    build: {
      roles: [
        { name: "maker", handoff_to: ["judge"] },
        { name: "judge", handoff_to: ["maker", "judge"] },
        { name: "judge2", handoff_to: ["maker"] },
      ],
    },
  },
};

const handoffs = (d: Playbook) =>
  Object.values(d.workflow ?? {}).flatMap((s) => (s?.roles ?? []).map((r) => `${r.name}:${(r.handoff_to ?? []).join(",")}`));

/** Types `target` into the name field of `maker` one key at a time, as the form does. */
function typeName(start: Playbook, keystrokes: string[]): Playbook[] {
  const at = { stage: "build", index: 0 };
  const refs = referencesTo(start, "maker");
  let d = start;
  return keystrokes.map((v) => (d = renameRoleWith(d, at, v, refs)));
}

describe("atomic rename", () => {
  it("keeps every handoff on the role at every keystroke", () => {
    const steps = typeName(doc, ["make", "mak", "", "j", "ju", "judge", "judge2", "judge22"]);
    for (const d of steps) {
      const name = d.workflow?.build?.roles?.[0].name;
      expect(d.workflow?.plan?.roles?.[0].handoff_to).toEqual([name]);
      expect(d.workflow?.build?.roles?.[1].handoff_to).toEqual([name, "judge"]);
    }
    // Passing through another role's name captured none of its references.
    expect(handoffs(steps[steps.length - 1])).toEqual([
      "lead:judge22",
      "judge22:judge",
      "judge:judge22,judge",
      "judge2:judge22",
    ]);
  });
  it("leaves ambiguous names alone", () => {
    const twins: Playbook = { id: "t", name: "t", workflow: { s: { roles: [{ name: "a" }, { name: "a", handoff_to: ["a"] }] } } };
    expect(referencesTo(twins, "a")).toEqual([]);
    expect(referencesTo(twins, "")).toEqual([]);
  });
});

describe("delete with references", () => {
  it("names the roles that hand off to it, not itself", () => {
    expect(referrersOf(doc, { stage: "build", index: 1 })).toEqual(["maker"]);
    expect(referrersOf(doc, { stage: "build", index: 0 }).sort()).toEqual(["judge", "judge2", "lead"]);
  });
  it("removes the role and the handoffs to it in one edit", () => {
    const next = removeRoleAndReferences(doc, { stage: "build", index: 0 });
    expect(handoffs(next)).toEqual(["lead:", "judge:judge", "judge2:"]);
  });
});
