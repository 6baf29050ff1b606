import { afterEach, describe, expect, it, vi } from "vitest";
import { backend } from "../backend";
import type { Checked } from "../generated/Checked";
import type { Include } from "../generated/Include";
import type { Playbook } from "../generated/Playbook";
import { createChecker, keepIfSame, NOW_BUDGET_MS, NOW_MAX_CHARS, NOW_PAUSE_MAX_MS, NOW_PAUSE_MS } from "./check";

describe("keepIfSame", () => {
  it("keeps the earlier answer when the new one says the same", () => {
    const a = { findings: [{ code: "PB302", path: "/x" }], allow: false };
    expect(keepIfSame(a, structuredClone(a))).toBe(a);
    const b = { findings: [], allow: true };
    expect(keepIfSame(a, b)).toBe(b);
    expect(keepIfSame(null, b)).toBe(b);
  });
});

const FORM: Include = { source: false, flow: false };
const answer = (allow: boolean): Checked => ({ source: "", format: "yaml", findings: [], allow, structurally_valid: true, flow: null }) as unknown as Checked;
const doc = (responsibilities: string) => ({ id: "p", roles: [{ name: "worker", responsibilities }] }) as unknown as Playbook;

describe("checkNow", () => {
  afterEach(() => vi.restoreAllMocks());

  /** A checker whose asynchronous command answers `allow`, with the bodies sent at once recorded. */
  function checker(sendNow: (body: string) => Checked | null, clock?: () => number) {
    const sentNow: unknown[] = [];
    const asked = vi.spyOn(backend, "checkDocument").mockResolvedValue(answer(true));
    const made = createChecker((body) => {
      sentNow.push(JSON.parse(body));
      return sendNow(body);
    }, clock);
    return { ...made, sentNow, asked };
  }

  it("sends a keystroke's one change against the revision sent before, and the next check builds on it", async () => {
    const c = checker(() => answer(false));
    expect(c.checkNow(doc("a"), 1, FORM)).toBeNull(); // nothing sent yet: the backend holds no revision
    await c.check(doc("a"), 1, FORM);
    expect(c.checkNow(doc("ab"), 2, FORM)).toEqual(answer(false));
    expect(c.sentNow).toEqual([
      { change: { kind: "patch", base: 1, revision: 2, pointer: "/roles/0/responsibilities", value: "ab" }, format: "yaml", include: FORM, source: null },
    ]);
    await c.check(doc("abc"), 3, FORM);
    expect(c.asked.mock.lastCall?.[0]).toEqual({ kind: "patch", base: 2, revision: 3, pointer: "/roles/0/responsibilities", value: "abc" });
  });

  it("leaves the Source text, the flow graph and large changes to the asynchronous check", async () => {
    const c = checker(() => answer(true));
    await c.check(doc("a"), 1, FORM);
    expect(c.checkNow(doc("ab"), 2, { source: true, flow: false })).toBeNull();
    expect(c.checkNow(doc("ab"), 2, { source: false, flow: true })).toBeNull();
    expect(c.checkNow(doc("x".repeat(NOW_MAX_CHARS)), 2, FORM)).toBeNull();
    expect(c.sentNow).toEqual([]);
    // Nothing was sent, so the revision held is still 1.
    await c.check(doc("ab"), 2, FORM);
    expect(c.asked.mock.lastCall?.[0]).toMatchObject({ kind: "patch", base: 1, revision: 2 });
  });

  it("sends the whole document after a check that was not answered", async () => {
    const c = checker(() => null);
    await c.check(doc("a"), 1, FORM);
    expect(c.checkNow(doc("ab"), 2, FORM)).toBeNull();
    // The backend may or may not have taken the change: start again from the whole document.
    await c.check(doc("ab"), 2, FORM);
    expect(c.asked.mock.lastCall?.[0]).toMatchObject({ kind: "whole", revision: 2 });
  });

  it("pauses checking at once after a slow answer, longer after each slow one in a row, and resumes after a fast one", async () => {
    let time = 0;
    let cost = NOW_BUDGET_MS + 1;
    const c = checker(() => {
      time += cost;
      return answer(true);
    }, () => time);
    await c.check(doc("a"), 1, FORM);
    let text = "a";
    const type = () => c.checkNow(doc((text += "b")), text.length, FORM);
    expect(type()).not.toBeNull(); // slow: paused for NOW_PAUSE_MS
    expect(type()).toBeNull();
    time += NOW_PAUSE_MS - 1;
    expect(type()).toBeNull();
    expect(c.sentNow).toHaveLength(1);
    time += 1;
    expect(type()).not.toBeNull(); // slow again: paused twice as long
    time += NOW_PAUSE_MS;
    expect(type()).toBeNull();
    time += NOW_PAUSE_MS;
    cost = 1;
    expect(type()).not.toBeNull(); // fast: no pause, and the next slow one pauses for NOW_PAUSE_MS again
    expect(type()).not.toBeNull();
    cost = NOW_BUDGET_MS + 1;
    expect(type()).not.toBeNull();
    time += NOW_PAUSE_MS;
    expect(type()).not.toBeNull();
    expect(c.sentNow).toHaveLength(6);
  });

  it("never pauses longer than NOW_PAUSE_MAX_MS", async () => {
    let time = 0;
    const c = checker(() => {
      time += NOW_BUDGET_MS + 1;
      return answer(true);
    }, () => time);
    await c.check(doc("a"), 1, FORM);
    let text = "a";
    for (let k = 0; k < 20; k++) {
      expect(c.checkNow(doc((text += "b")), text.length, FORM)).not.toBeNull();
      time += NOW_PAUSE_MAX_MS;
    }
  });
});
