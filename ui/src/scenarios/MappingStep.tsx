// The mapping step: the chosen scenario scripts roles this playbook does not
// have. Instead of refusing the run, ask which role plays each, pre-filled
// with the best candidate, then run with that mapping.
import { useState } from "react";
import type { RoleMapping } from "../generated/RoleMapping";
import type { Unmatched } from "../generated/Unmatched";
import { initialChoices } from "./model";

type Props = {
  scenario: string;
  unmatched: Unmatched[];
  roles: string[];
  onRun: (mapping: RoleMapping[]) => void;
  onCancel: () => void;
};

export function MappingStep({ scenario, unmatched, roles, onRun, onCancel }: Props) {
  const [choices, setChoices] = useState<Record<string, string>>(() => initialChoices(unmatched));
  const missing = unmatched.filter((u) => !choices[u.selector]);
  return (
    <section className="mapping-step banner" role="dialog" aria-label="Map the scenario's roles" data-testid="mapping-step">
      <h2>Map the scenario&apos;s roles</h2>
      <p>
        The scenario <strong>{scenario}</strong> scripts {unmatched.length === 1 ? "a role" : `${unmatched.length} roles`} this playbook does not have.
        Choose which of the playbook&apos;s roles plays {unmatched.length === 1 ? "it" : "each"}.
      </p>
      {unmatched.map((u) => (
        <div key={u.selector} className="field">
          <label>
            <code>{u.selector}</code> is played by{" "}
            <select value={choices[u.selector] ?? ""} onChange={(e) => setChoices({ ...choices, [u.selector]: e.target.value })} data-testid="mapping-choice" data-selector={u.selector}>
              <option value="">(choose a role)</option>
              {u.candidates.length > 0 && (
                <optgroup label="Best matches">
                  {u.candidates.map((c) => (
                    <option key={`c-${c}`} value={c}>
                      {c}
                    </option>
                  ))}
                </optgroup>
              )}
              <optgroup label="Every role">
                {roles.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </optgroup>
            </select>
          </label>
          <p className="help">{u.reason}</p>
        </div>
      ))}
      <div className="inline-row">
        <button
          type="button"
          className="primary"
          disabled={missing.length > 0}
          onClick={() => onRun(unmatched.map((u) => ({ from: u.selector, to: choices[u.selector] })))}
          data-testid="mapping-run"
        >
          Run with this mapping
        </button>
        <button type="button" onClick={onCancel} data-testid="mapping-cancel">
          Cancel
        </button>
        {missing.length > 0 && <span className="muted">Choose a role for {missing.map((u) => u.selector).join(", ")}.</span>}
      </div>
    </section>
  );
}
