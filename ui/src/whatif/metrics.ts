// Slider-to-result latency of the What-if panel, kept in memory for the
// benchmark harness (docs/benchmarks.md "What-if"). A slider move marks a
// start; the render that shows the report computed for the newest slider
// position records the elapsed time (after the browser has painted it).
type WhatifMetrics = { latencies: number[]; pending: number | null };

declare global {
  interface Window {
    __playbookStudioWhatif?: WhatifMetrics;
  }
}

function metrics(): WhatifMetrics {
  window.__playbookStudioWhatif ??= { latencies: [], pending: null };
  return window.__playbookStudioWhatif;
}

/** A slider moved: the first move since the last shown result starts the clock. */
export function markSliderMove(now: number = performance.now()) {
  const m = metrics();
  m.pending ??= now;
}

/** The report for the newest slider position is on screen. */
export function recordResult(paint: (done: () => void) => void = requestAnimationFrame) {
  const m = metrics();
  if (m.pending === null) return;
  const start = m.pending;
  m.pending = null;
  paint(() => {
    m.latencies.push(performance.now() - start);
    if (m.latencies.length > 1000) m.latencies.shift();
  });
}

/** The latencies recorded so far, in milliseconds. */
export function latencies(): number[] {
  return [...metrics().latencies];
}
