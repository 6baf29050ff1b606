// A stage: enabled, policy (enter gate, exit gate, parallel worktrees) and
// its roles, with one-click role templates.
import { useEffect, useState } from "react";
import { backend } from "../backend";
import type { TemplateSummary } from "../generated/TemplateSummary";
import type { Playbook } from "../generated/Playbook";
import type { RoleMode } from "../generated/RoleMode";
import type { Stage } from "../generated/Stage";
import { Hints } from "../validation/hints";
import { GateField, NumberField, Toggle } from "./fields";
import { renameStage, stagePointer, stages, updateStage, withField } from "./document";

type Props = {
  doc: Playbook;
  name: string;
  stage: Stage;
  edit: (doc: Playbook, key?: string) => void;
  onRenamed: (name: string) => void;
  onSelectRole: (index: number) => void;
  onAddRole: (template: TemplateChoice) => void;
  onDelete: () => void;
};

export function StageEditor({ doc, name, stage, edit, onRenamed, onSelectRole, onAddRole, onDelete }: Props) {
  const p = stagePointer(name);
  const [draftName, setDraftName] = useState(name);
  const [nameError, setNameError] = useState<string | null>(null);
  useEffect(() => setDraftName(name), [name]);
  const setPolicy = (field: "enter_gate" | "exit_gate" | "max_parallel_worktrees", value: string | number | undefined) =>
    edit(
      updateStage(doc, name, (s) => {
        const policy = withField({ ...(s.stage_policy ?? {}) }, field, value as never);
        return withField(s, "stage_policy", Object.keys(policy).length ? policy : undefined);
      }),
      `${p}/stage_policy/${field}`,
    );
  const commitName = () => {
    const next = draftName.trim();
    if (next === name) return setNameError(null);
    if (next === "") return setNameError("A stage needs a name; the old name is kept.");
    if (stages(doc).some(([n]) => n === next)) return setNameError(`There is already a stage named "${next}".`);
    setNameError(null);
    edit(renameStage(doc, name, next));
    onRenamed(next);
  };
  return (
    <article className="stage-editor" aria-label={`Stage ${name}`}>
      <header className="role-header">
        <h2>Stage {name}</h2>
        <div className="actions">
          <button type="button" className="danger" onClick={onDelete}>
            Delete stage
          </button>
        </div>
      </header>
      <Hints pointer={p} nested={false} />
      <fieldset className="section">
        <legend>Stage</legend>
        <div className="field">
          <label htmlFor="stage-name">Name</label>
          <input
            id="stage-name"
            type="text"
            value={draftName}
            onChange={(e) => setDraftName(e.target.value.slice(0, 200))}
            onBlur={commitName}
            onKeyDown={(e) => e.key === "Enter" && commitName()}
          />
          <p className="help">e.g. plan, build, test. Renaming keeps the stage's place in the order.</p>
          {nameError && (
            <p className="field-error" role="alert">
              {nameError}
            </p>
          )}
        </div>
        <Toggle
          label="Enabled"
          pointer={`${p}/enabled`}
          value={stage.enabled ?? true}
          help="A disabled stage is skipped by runs; its roles stay in the file."
          onChange={(v) => edit(updateStage(doc, name, (s) => ({ ...s, enabled: v })))}
        />
      </fieldset>
      <fieldset className="section">
        <legend>Stage policy</legend>
        <GateField
          label="Enter gate"
          pointer={`${p}/stage_policy/enter_gate`}
          value={stage.stage_policy?.enter_gate ?? ""}
          help="Condition a task must meet to enter: policy key or CEL expression."
          onChange={(v) => setPolicy("enter_gate", v)}
        />
        <GateField
          label="Exit gate"
          pointer={`${p}/stage_policy/exit_gate`}
          value={stage.stage_policy?.exit_gate ?? ""}
          help="Condition a task must meet to leave the stage."
          onChange={(v) => setPolicy("exit_gate", v)}
        />
        <NumberField
          label="Max parallel worktrees"
          pointer={`${p}/stage_policy/max_parallel_worktrees`}
          value={stage.stage_policy?.max_parallel_worktrees}
          min={0}
          max={1000}
          placeholder="1"
          help="Tasks of this stage that may run at once, each in its own worktree."
          onChange={(v) => setPolicy("max_parallel_worktrees", v)}
        />
      </fieldset>
      <fieldset className="section">
        <legend>Roles</legend>
        <Hints pointer={`${p}/roles`} nested={false} />
        <ol className="role-list">
          {(stage.roles ?? []).map((r, i) => (
            <li key={i}>
              <button type="button" className="link" onClick={() => onSelectRole(i)}>
                {r.name || "(unnamed)"} {r.mode && <span className={`mode mode-${r.mode}`}>{r.mode}</span>}
              </button>
            </li>
          ))}
        </ol>
        <TemplateButtons onAdd={onAddRole} />
      </fieldset>
    </article>
  );
}

export type TemplateChoice = { kind: "builtin"; mode: RoleMode } | { kind: "team"; name: string } | { kind: "blank" };

export function TemplateButtons({ onAdd }: { onAdd: (template: TemplateChoice) => void }) {
  const [team, setTeam] = useState<TemplateSummary[]>([]);
  useEffect(() => {
    backend
      .templates()
      .then((list) => setTeam(list.filter((t) => t.source === "team")))
      .catch(() => setTeam([]));
  }, []);
  return (
    <div className="template-buttons" role="group" aria-label="Add a role">
      <span>Add role:</span>
      {(["planner", "worker", "reviewer", "tester"] as RoleMode[]).map((m) => (
        <button type="button" key={m} data-template={m} onClick={() => onAdd({ kind: "builtin", mode: m })}>
          {m[0].toUpperCase() + m.slice(1)} template
        </button>
      ))}
      {team.map((t) => (
        <button type="button" key={t.name} data-team-template={t.name} onClick={() => onAdd({ kind: "team", name: t.name })}>
          {t.name} (team)
        </button>
      ))}
      <button type="button" data-template="blank" onClick={() => onAdd({ kind: "blank" })}>
        Blank role
      </button>
    </div>
  );
}
