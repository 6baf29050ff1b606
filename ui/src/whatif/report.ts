// The model text the What-if panel's sliders stand for. The report's types
// are generated from playbook-whatif (ui/src/generated/whatif).

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
