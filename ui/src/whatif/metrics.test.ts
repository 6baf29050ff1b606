import { beforeEach, describe, expect, it } from "vitest";
import { latencies, markSliderMove, recordResult } from "./metrics";

// The tests run without a DOM: a bare object stands in for the window.
beforeEach(() => {
  (globalThis as unknown as { window: object }).window = {};
});

const now = () => performance.now();
const paintNow = (done: () => void) => done();

describe("slider-to-result metrics", () => {
  it("times from the first move of a drag to the result shown for it", () => {
    const start = now() - 50;
    markSliderMove(start);
    // Later moves of the same drag do not restart the clock: the time is
    // what the person waited since they started moving.
    markSliderMove(now());
    recordResult(paintNow);
    const recorded = latencies();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toBeGreaterThanOrEqual(50);
    console.log(`slider move to result (stub paint, no simulation): ${recorded[0].toFixed(1)} ms`);
  });

  it("records nothing for a result no move asked for", () => {
    recordResult(paintNow);
    expect(latencies()).toHaveLength(0);
    markSliderMove();
    recordResult(paintNow);
    recordResult(paintNow);
    expect(latencies()).toHaveLength(1);
  });
});
