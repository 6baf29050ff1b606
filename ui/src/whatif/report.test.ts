import { describe, expect, it } from "vitest";
import { DEFAULT_SLIDERS, modelText } from "./report";

describe("modelText", () => {
  it("sets defaults and the reviewer mode", () => {
    const model = JSON.parse(modelText(DEFAULT_SLIDERS));
    expect(model.defaults.pass).toBe(0.9);
    expect(model.roles["mode:reviewer"].pass).toBe(0.6);
  });

  it("never lets the exclusive outcomes sum past 1", () => {
    const model = JSON.parse(modelText({ reviewerPass: 1, pass: 0.95, violation: 0.5, error: 0.5 }));
    for (const p of [model.defaults, model.roles["mode:reviewer"]]) {
      const sum = p.pass + p.violation + p.blocked_tool + p.needs_input + p.error;
      expect(sum).toBeLessThanOrEqual(1 + 1e-9);
      expect(p.error).toBeGreaterThanOrEqual(0);
    }
  });
});
