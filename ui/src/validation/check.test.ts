import { describe, expect, it } from "vitest";
import { keepIfSame } from "./check";

describe("keepIfSame", () => {
  it("keeps the earlier answer when the new one says the same", () => {
    const a = { findings: [{ code: "PB302", path: "/x" }], allow: false };
    expect(keepIfSame(a, structuredClone(a))).toBe(a);
    const b = { findings: [], allow: true };
    expect(keepIfSame(a, b)).toBe(b);
    expect(keepIfSame(null, b)).toBe(b);
  });
});
