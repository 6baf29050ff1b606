import { afterEach, describe, expect, it, vi } from "vitest";
import { backend } from "../backend";
import type { Checked } from "../generated/Checked";
import type { Include } from "../generated/Include";
import type { Playbook } from "../generated/Playbook";
import { asDocumentAnswer, createChecker, keepIfSame, NOW_BUDGET_MS, NOW_MAX_CHARS, NOW_PAUSE_MAX_MS, NOW_PAUSE_MS, NOW_SLOW_IN_ROW } from "./check";

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

  it("pauses after several slow answers in a row, longer after each such pause, and resumes after a fast one", async () => {
    let time = 0;
    let cost = NOW_BUDGET_MS + 1;
    const c = checker(() => {
      time += cost;
      return answer(true);
    }, () => time);
    await c.check(doc("a"), 1, FORM);
    let text = "a";
    const type = () => c.checkNow(doc((text += "b")), text.length, FORM);
    // A slow answer alone costs only itself.
    for (let k = 1; k < NOW_SLOW_IN_ROW; k++) expect(type()).not.toBeNull();
    cost = 1;
    expect(type()).not.toBeNull();
    cost = NOW_BUDGET_MS + 1;
    for (let k = 1; k < NOW_SLOW_IN_ROW; k++) expect(type()).not.toBeNull();
    expect(c.sentNow).toHaveLength(2 * NOW_SLOW_IN_ROW - 1);
    // The last slow one in a row: paused for NOW_PAUSE_MS.
    expect(type()).not.toBeNull();
    expect(type()).toBeNull();
    time += NOW_PAUSE_MS - 1;
    expect(type()).toBeNull();
    time += 1;
    // Slow again after the pause: twice as long.
    for (let k = 0; k < NOW_SLOW_IN_ROW; k++) expect(type()).not.toBeNull();
    time += NOW_PAUSE_MS;
    expect(type()).toBeNull();
    time += NOW_PAUSE_MS;
    // A fast one: the next pause is NOW_PAUSE_MS again.
    cost = 1;
    expect(type()).not.toBeNull();
    cost = NOW_BUDGET_MS + 1;
    for (let k = 0; k < NOW_SLOW_IN_ROW; k++) expect(type()).not.toBeNull();
    time += NOW_PAUSE_MS;
    expect(type()).not.toBeNull();
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
      for (let j = 0; j < NOW_SLOW_IN_ROW; j++) expect(c.checkNow(doc((text += "b")), text.length, FORM)).not.toBeNull();
      time += NOW_PAUSE_MAX_MS;
    }
  });
});

describe("asDocumentAnswer", () => {
  const typed = { text: "id: p\n", format: "yaml" as const };
  const fromSource = { ...answer(false), source: "", findings: [{ code: "PB302", path: "/x", location: { line: 1, column: 1 } }], playbook: doc("a"), flow: { lanes: [] }, comments_kept: true } as unknown as Checked;

  it("stands in for the document's check: the typed text as the source, without the typed model", () => {
    const made = asDocumentAnswer(fromSource, typed, { source: true, flow: false });
    expect(made).toEqual({ source: "id: p\n", format: "yaml", findings: fromSource.findings, allow: false, structurally_valid: true });
    expect(asDocumentAnswer(fromSource, typed, FORM)?.source).toBe("");
  });

  it("does not when the graph is asked for or the text has no playbook", () => {
    expect(asDocumentAnswer(fromSource, typed, { source: true, flow: true })).toBeNull();
    expect(asDocumentAnswer({ ...fromSource, playbook: undefined }, typed, { source: true, flow: false })).toBeNull();
  });
});
