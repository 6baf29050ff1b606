// Keystroke-to-hint latency, kept in memory for the benchmark harness
// (docs/benchmarks.md). An edit marks a start; the render that shows the
// validation result for it records the elapsed time.
type Metrics = { latencies: number[]; pending: number | null; roundTrips: number[]; startup?: number };

declare global {
  interface Window {
    __playbookStudioMetrics?: Metrics;
  }
}

function metrics(): Metrics {
  window.__playbookStudioMetrics ??= { latencies: [], pending: null, roundTrips: [] };
  return window.__playbookStudioMetrics;
}

export function markEdit() {
  const m = metrics();
  m.pending ??= performance.now();
}

export function recordCheck() {
  const m = metrics();
  if (m.pending === null) return;
  const start = m.pending;
  m.pending = null;
  // Measured after the browser has painted the new hints.
  requestAnimationFrame(() => {
    m.latencies.push(performance.now() - start);
    if (m.latencies.length > 1000) m.latencies.shift();
  });
}

/** Time of one validation round trip (IPC + Rust), to split the latency. */
export function recordRoundTrip(ms: number) {
  const m = metrics();
  m.roundTrips.push(ms);
  if (m.roundTrips.length > 1000) m.roundTrips.shift();
}

/** Milliseconds from the process start to the first interactive view. */
export function recordStartup(ms: number | undefined) {
  if (ms !== undefined) metrics().startup ??= ms;
}
