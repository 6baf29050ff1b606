// Role templates: the built-in planner, worker, reviewer and tester
// contracts. The editor inserts them with one click ("Add role").
import { useEffect, useState } from "react";
import { backend, messageOf } from "../backend";
import type { Role } from "../generated/Role";
import type { RoleMode } from "../generated/RoleMode";

const MODES: RoleMode[] = ["planner", "worker", "reviewer", "tester"];

export function Templates({ notify }: { notify: (m: string, kind?: "info" | "error") => void }) {
  const [builtIn, setBuiltIn] = useState<Role[]>([]);
  useEffect(() => {
    Promise.all(MODES.map((m) => backend.roleTemplate(m)))
      .then(setBuiltIn)
      .catch((e) => notify(`Could not load the templates: ${messageOf(e)}`, "error"));
  }, [notify]);
  return (
    <section className="templates" aria-label="Templates">
      <h1>Role templates</h1>
      <p className="muted">Each template is a complete contract that validates clean. Add one to a stage from the stage or role editor.</p>
      <div className="cards">
        {builtIn.map((r) => (
          <article className="card" key={r.name} data-template-card={r.mode}>
            <h2>
              {r.name} <span className={`mode mode-${r.mode}`}>{r.mode}</span>
            </h2>
            <p>{r.responsibilities}</p>
            <dl>
              <dt>Inputs</dt>
              <dd>{r.inputs_required?.join(", ") || "—"}</dd>
              <dt>Actions</dt>
              <dd>{r.actions_allowed?.join(", ") || "—"}</dd>
              <dt>Output</dt>
              <dd>
                {r.outputs_contract?.type}: {r.outputs_contract?.required?.join(", ")}
              </dd>
              <dt>Pass when</dt>
              <dd>{r.gates?.pass_condition ?? "—"}</dd>
              <dt>Hands off to</dt>
              <dd>{r.handoff_to?.join(", ") || "ends the stage"}</dd>
              {r.retry_policy?.max_iterations !== undefined && (
                <>
                  <dt>Retry bound</dt>
                  <dd>
                    {r.retry_policy.max_iterations} rounds, then escalate on {r.retry_policy.escalate_on?.join(", ")}
                  </dd>
                </>
              )}
            </dl>
          </article>
        ))}
      </div>
    </section>
  );
}
