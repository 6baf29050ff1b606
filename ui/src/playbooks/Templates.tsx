// Role templates: the built-in planner, worker, reviewer and tester
// contracts, and the team's own. A built-in is read-only and can be copied
// as a team template; a team template opens in the template editor (the
// role editor with hints, undo, versions and history). The playbook editor
// inserts any of them with one click ("Add role").
import { useCallback, useEffect, useState } from "react";
import { backend, messageOf } from "../backend";
import type { Role } from "../generated/Role";
import type { RoleMode } from "../generated/RoleMode";
import type { TemplateSummary } from "../generated/TemplateSummary";
import { formatTime } from "./Library";
import { TemplateEditor } from "./TemplateEditor";

const MODES: RoleMode[] = ["planner", "worker", "reviewer", "tester"];

type Props = { notify: (m: string, kind?: "info" | "error") => void };

export function Templates({ notify }: Props) {
  const [builtIn, setBuiltIn] = useState<Role[]>([]);
  const [team, setTeam] = useState<TemplateSummary[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [refresh, setRefresh] = useState(0);

  useEffect(() => {
    Promise.all(MODES.map((m) => backend.roleTemplate(m)))
      .then(setBuiltIn)
      .catch((e) => notify(`Could not load the templates: ${messageOf(e)}`, "error"));
  }, [notify]);
  useEffect(() => {
    backend
      .templates()
      .then((list) => {
        const mine = list.filter((t) => t.source === "team");
        setTeam(mine);
        setSelected((s) => (s && !MODES.includes(s as RoleMode) && !mine.some((t) => t.name === s) ? null : s));
      })
      .catch((e) => notify(`Could not load the team's templates: ${messageOf(e)}`, "error"));
  }, [notify, refresh]);
  const changed = useCallback(() => setRefresh((r) => r + 1), []);

  const copy = async (role: Role, name: string) => {
    try {
      const saved = await backend.saveTemplate(name, role, `copied from the built-in ${role.mode} template`);
      notify(`Saved template ${saved.name}, version ${saved.version.number}. Edit it here; the editor's "Add role" offers it.`);
      setSelected(saved.name);
      changed();
    } catch (e) {
      notify(`Could not copy the template: ${messageOf(e)}`, "error");
    }
  };

  const builtInRole = builtIn.find((r) => r.mode === selected);
  return (
    <section className="templates" aria-label="Templates">
      <h1>Role templates</h1>
      <div className="templates-layout">
        <nav className="template-list" aria-label="Template list">
          <h2>Built in</h2>
          {MODES.map((m) => (
            <button key={m} type="button" aria-current={selected === m} onClick={() => setSelected(m)} data-template-item={m}>
              {m} <span className={`mode mode-${m}`}>{m}</span>
            </button>
          ))}
          <h2>The team's</h2>
          {team.length === 0 && <p className="muted small">None yet: copy a built-in, or use "Save as template" in the role editor.</p>}
          {team.map((t) => (
            <button key={t.name} type="button" aria-current={selected === t.name} onClick={() => setSelected(t.name)} data-template-item={t.name}>
              {t.name} {t.mode && <span className={`mode mode-${t.mode}`}>{t.mode}</span>}
              <span className="muted small">
                {" "}
                v{t.latest}
                {t.updated_at && ` · ${formatTime(t.updated_at)}`}
              </span>
            </button>
          ))}
        </nav>
        <div className="template-detail">
          {selected === null && (
            <p className="muted">
              Each template is a complete role contract. Pick a built-in to read it or copy it as the team's own; pick a team template to edit it with
              the same hints, undo and history as a playbook.
            </p>
          )}
          {builtInRole && <BuiltIn role={builtInRole} taken={team.map((t) => t.name)} onCopy={(name) => void copy(builtInRole, name)} />}
          {selected !== null && !builtInRole && !MODES.includes(selected as RoleMode) && (
            <TemplateEditor key={selected} name={selected} handoffRoles={[...MODES, ...team.map((t) => t.name)]} notify={notify} onChanged={changed} />
          )}
        </div>
      </div>
    </section>
  );
}

function BuiltIn({ role, taken, onCopy }: { role: Role; taken: string[]; onCopy: (name: string) => void }) {
  let suggestion = `team-${role.name}`;
  for (let n = 2; taken.includes(suggestion); n++) suggestion = `team-${role.name}-${n}`;
  const [name, setName] = useState(suggestion);
  useEffect(() => setName(suggestion), [suggestion]);
  return (
    <div>
      <TemplateCard role={role} />
      <form
        className="inline copy-template"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) onCopy(name.trim());
        }}
      >
        <label className="inline">
          Copy as team template named{" "}
          <input type="text" value={name} onChange={(e) => setName(e.target.value.slice(0, 200))} data-testid="copy-template-name" style={{ width: 220 }} />
        </label>{" "}
        <button type="submit" className="primary" disabled={!name.trim()} data-testid="copy-template">
          Copy
        </button>
      </form>
    </div>
  );
}

function TemplateCard({ role: r }: { role: Role }) {
  return (
    <article className="card" data-template-card={r.mode}>
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
  );
}
