import { beforeEach, describe, expect, it } from "vitest";
import { finalLatencies, latencies, markSliderMove, recordResult } from "./metrics";

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
    recordResult(true, paintNow);
    const recorded = latencies();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toBeGreaterThanOrEqual(50);
    expect(finalLatencies()).toHaveLength(1);
  });

  it("times the estimate and the full simulation of one move separately", () => {
    const start = now() - 80;
    markSliderMove(start);
    recordResult(false, paintNow);
    expect(latencies()).toHaveLength(1);
    expect(finalLatencies()).toHaveLength(0);
    // A second estimate of the same move is not a new first result.
    recordResult(false, paintNow);
    expect(latencies()).toHaveLength(1);
    recordResult(true, paintNow);
    expect(finalLatencies()).toHaveLength(1);
    expect(finalLatencies()[0]).toBeGreaterThanOrEqual(latencies()[0]);
  });

  it("records nothing for a result no move asked for", () => {
    recordResult(true, paintNow);
    expect(latencies()).toHaveLength(0);
    markSliderMove();
    recordResult(true, paintNow);
    recordResult(true, paintNow);
    expect(latencies()).toHaveLength(1);
    expect(finalLatencies()).toHaveLength(1);
  });
});
