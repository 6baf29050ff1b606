// Keystroke-to-hint latency, kept in memory for the benchmark harness
// (docs/benchmarks.md, `scripts/e2e.sh measure`). An edit marks a start; the
// check of that edit marks when its request left, when the answer came back
// and when the answer was in the DOM; the next animation frame ends it. The
// steps say where a slow keystroke spends its time.
type Metrics = {
  /** Edit to the frame after its hints are in the DOM, ms. */
  latencies: number[];
  /** Start of the edit whose hints are not shown yet. */
  pending: number | null;
  /** When that edit's check request left (after the edit was rendered). */
  sent?: number | null;
  /** When its answer came back. */
  answered?: number | null;
  /** When the first frame after the edit began (the frame that paints the edit itself). */
  editFrame?: number | null;
  /** Whether the pending edit's check was answered inside its own event (`checkNow`). */
  now?: boolean;
  roundTrips: number[];
  /** Per keystroke, ms from the edit: [request sent, answer back, hints in the DOM, next frame, the edit's own frame, 1 when answered in the edit's own event else 0]. */
  steps?: number[][];
  startup?: number;
};

declare global {
  interface Window {
    __playbookStudioMetrics?: Metrics;
  }
}

const KEEP = 1000;

function metrics(): Metrics {
  window.__playbookStudioMetrics ??= { latencies: [], pending: null, roundTrips: [] };
  return window.__playbookStudioMetrics;
}

function push<T>(list: T[], value: T) {
  list.push(value);
  if (list.length > KEEP) list.shift();
}

export function markEdit() {
  const m = metrics();
  if (m.pending === null) {
    m.pending = performance.now();
    m.sent = null;
    m.answered = null;
    m.editFrame = null;
    m.now = false;
    // The first frame after the edit paints it: hints in the DOM before
    // that frame are painted with the character itself.
    requestAnimationFrame(() => {
      m.editFrame ??= performance.now();
    });
  }
}

/** The check of the pending edit was sent: the edit itself is rendered. */
export function markSent() {
  const m = metrics();
  if (m.pending !== null) m.sent ??= performance.now();
}

/** The pending edit's check was answered inside its own event. */
export function markAnsweredNow() {
  const m = metrics();
  if (m.pending !== null) m.now = true;
}

/** Time of one validation round trip (IPC + Rust), to split the latency. */
export function recordRoundTrip(ms: number) {
  const m = metrics();
  push(m.roundTrips, ms);
  if (m.pending !== null) m.answered = performance.now();
}

/** The answer for the pending edit is in the DOM; the next frame paints it. */
export function recordCheck() {
  const m = metrics();
  if (m.pending === null) return;
  const start = m.pending;
  const committed = performance.now();
  const sent = m.sent ?? committed;
  const answered = m.answered ?? committed;
  // Not yet painted: the hints go out with the character.
  const ownFrame = m.editFrame;
  const now = m.now ? 1 : 0;
  m.pending = null;
  requestAnimationFrame(() => {
    const painted = performance.now();
    const editFrame = ownFrame ?? painted;
    push(m.latencies, painted - start);
    m.steps ??= [];
    push(m.steps, [sent - start, answered - start, committed - start, painted - start, editFrame - start, now]);
  });
}

/** Milliseconds from the process start to the first interactive view. */
export function recordStartup(ms: number | undefined) {
  if (ms !== undefined) metrics().startup ??= ms;
}
