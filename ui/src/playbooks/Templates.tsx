// Role templates: the built-in planner, worker, reviewer and tester
// contracts. The editor inserts them with one click ("Add role").
import { useEffect, useState } from "react";
import { backend, messageOf } from "../backend";
import type { Role } from "../generated/Role";
import type { RoleMode } from "../generated/RoleMode";

const MODES: RoleMode[] = ["planner", "worker", "reviewer", "tester"];

export function Templates({ notify }: { notify: (m: string, kind?: "info" | "error") => void }) {
  const [builtIn, setBuiltIn] = useState<Role[]>([]);
  const [team, setTeam] = useState<Role[]>([]);
  useEffect(() => {
    Promise.all(MODES.map((m) => backend.roleTemplate(m)))
      .then(setBuiltIn)
      .catch((e) => notify(`Could not load the templates: ${messageOf(e)}`, "error"));
    backend
      .templates()
      .then((list) => Promise.all(list.filter((t) => t.source === "team").map((t) => backend.templateRole(t.name).then((r) => ({ ...r, name: t.name })))))
      .then(setTeam)
      .catch((e) => notify(`Could not load the team's templates: ${messageOf(e)}`, "error"));
  }, [notify]);
  return (
    <section className="templates" aria-label="Templates">
      <h1>Role templates</h1>
      <p className="muted">Each template is a complete contract that validates clean. Add one to a stage from the stage or role editor.</p>
      <h2>Built in</h2>
      <TemplateCards roles={builtIn} />
      <h2>The team's templates</h2>
      {team.length === 0 ? (
        <p className="muted">None yet: in the role editor, "Save as template" adds one. Saving again under the same name adds a version.</p>
      ) : (
        <TemplateCards roles={team} />
      )}
    </section>
  );
}

function TemplateCards({ roles }: { roles: Role[] }) {
  return (
      <div className="cards">
        {roles.map((r) => (
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
  );
}
