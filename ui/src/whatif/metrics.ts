// Slider-to-result latency of the What-if panel, kept in memory for the
// benchmark harness (docs/benchmarks.md "What-if"). A slider move marks a
// start; the panel first shows an estimate from a few runs, then the full
// simulation. Both are timed from the move to the paint that shows them:
// `latencies` to the first result for the newest position (what the person
// sees change), `finalLatencies` to the full simulation.
type WhatifMetrics = {
  latencies: number[];
  finalLatencies: number[];
  pending: number | null;
  pendingFinal: number | null;
};

declare global {
  interface Window {
    __playbookStudioWhatif?: WhatifMetrics;
  }
}

function metrics(): WhatifMetrics {
  window.__playbookStudioWhatif ??= { latencies: [], finalLatencies: [], pending: null, pendingFinal: null };
  return window.__playbookStudioWhatif;
}

/** A slider moved: the first move since the last shown result starts the clock. */
export function markSliderMove(now: number = performance.now()) {
  const m = metrics();
  m.pending ??= now;
  m.pendingFinal ??= now;
}

function push(list: number[], start: number) {
  list.push(performance.now() - start);
  if (list.length > 1000) list.shift();
}

/**
 * A report for the newest slider position is on screen; `final` when it is
 * the full simulation rather than the first estimate.
 */
export function recordResult(final: boolean, paint: (done: () => void) => void = requestAnimationFrame) {
  const m = metrics();
  const first = m.pending;
  const whole = final ? m.pendingFinal : null;
  if (first === null && whole === null) return;
  m.pending = null;
  if (final) m.pendingFinal = null;
  paint(() => {
    if (first !== null) push(m.latencies, first);
    if (whole !== null) push(m.finalLatencies, whole);
  });
}

/** The first-result latencies recorded so far, in milliseconds. */
export function latencies(): number[] {
  return [...metrics().latencies];
}

/** The full-simulation latencies recorded so far, in milliseconds. */
export function finalLatencies(): number[] {
  return [...metrics().finalLatencies];
}
