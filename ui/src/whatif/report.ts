// The parts of the what-if report (playbook-whatif's `Report`, as JSON)
// the panel draws, and the model text its sliders stand for.

export interface Rate {
  count: number;
  of: number;
  rate: number;
  ci: [number, number];
}

export interface Summary {
  n: number;
  mean: number;
  ci: [number, number];
  p50: number;
  p95: number;
  max: number;
}

export interface StageStats {
  stage: string;
  tasks_entered: number;
  calls: Summary;
  bound_per_task: number;
  escalation: Rate;
}

export interface WhatIfReport {
  runs: number;
  partial: boolean;
  tasks_passing: Rate;
  escalation: Rate;
  escalation_by_trigger: Record<string, Rate>;
  calls_per_task: Summary;
  calls_per_task_histogram: [number, number][];
  stages: StageStats[];
  costliest_loop: string | null;
  bound_violations: string[];
}

/** The main probabilities the panel's sliders set. */
export interface Sliders {
  reviewerPass: number;
  pass: number;
  violation: number;
  error: number;
}

export const DEFAULT_SLIDERS: Sliders = { reviewerPass: 0.6, pass: 0.9, violation: 0.02, error: 0.01 };

/**
 * The model (JSON, which the model reader takes as YAML) for slider values.
 * Violation and error are capped so the exclusive outcomes never sum past 1.
 */
export function modelText(s: Sliders): string {
  const fit = (pass: number) => {
    const room = Math.max(0, 1 - pass);
    const violation = Math.min(s.violation, room);
    const error = Math.max(0, Math.min(s.error, room - violation));
    return { pass, violation, blocked_tool: 0, needs_input: 0, error };
  };
  return JSON.stringify({ defaults: fit(s.pass), roles: { "mode:reviewer": fit(s.reviewerPass) } });
}
