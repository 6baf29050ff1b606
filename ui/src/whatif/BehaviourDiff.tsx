// The behavioural diff of two versions, shown in History beside the
// semantic diff: simulated on request (it runs both versions), then the
// figures that changed, significant ones flagged, and each shipped
// scenario's outcome before and after.
import { useEffect, useState } from "react";
import { backend, messageOf } from "../backend";
import type { BehaviourDiffResult } from "../generated/whatif/BehaviourDiffResult";
import { modelText, DEFAULT_SLIDERS } from "./report";

const RUNS = 2000;

export function BehaviourDiff({ id, from, to }: { id: string; from: number; to: number }) {
  const [result, setResult] = useState<BehaviourDiffResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // Another pair of versions: the old result no longer applies.
  useEffect(() => {
    setResult(null);
    setError(null);
  }, [id, from, to]);

  const simulate = () => {
    setBusy(true);
    setError(null);
    backend
      .compareBehaviour(id, from, to, modelText(DEFAULT_SLIDERS), RUNS, 0)
      .then(setResult)
      .catch((e) => setError(messageOf(e)))
      .finally(() => setBusy(false));
  };

  return (
    <div className="behaviour-diff" data-testid="behaviour-diff">
      <h3>Behaviour</h3>
      {!result && (
        <button type="button" onClick={simulate} disabled={busy}>
          {busy ? `Simulating ${RUNS} runs of each version…` : "Simulate both versions"}
        </button>
      )}
      {busy && (
        <button type="button" onClick={() => void backend.cancelWhatif()}>
          Cancel
        </button>
      )}
      {error && <p role="alert">{error}</p>}
      {result && (
        <>
          <p className="muted">
            {result.runs} simulated runs of each version, same model and seeds{result.partial ? " (partial: cancelled)" : ""}.
          </p>
          {result.changes.length === 0 ? (
            <p className="muted">No figure changed.</p>
          ) : (
            <ul className="changes">
              {result.changes.map((c) => (
                <li key={c.metric}>
                  {c.significant && (
                    <strong className="badge badge-error" title="The 95 % intervals do not overlap">
                      significant
                    </strong>
                  )}{" "}
                  {c.sentence}
                </li>
              ))}
            </ul>
          )}
          {result.notes.map((n) => (
            <p key={n} className="muted">
              {n}
            </p>
          ))}
          <h4>Scenarios</h4>
          <ul>
            {result.scenarios.map((s) => (
              <li key={s.scenario}>
                {s.scenario}: {s.changed ? `${s.before} → ${s.after}` : `${s.after} (unchanged)`}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
