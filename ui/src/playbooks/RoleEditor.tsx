// The role editor, in the five sections of the role-contracts plan:
// Intent, Inputs, Execution, Output, Control.
import { useMemo, useRef, useState } from "react";
import type { Playbook } from "../generated/Playbook";
import type { Role } from "../generated/Role";
import type { RoleMode } from "../generated/RoleMode";
import { Hints } from "../validation/hints";
import { ChipList, GateField, NumberField, RolePicker, RowList, Select, TextField, Toggle } from "./fields";
import { allRoleNames, referencesTo, referrersOf, roleAt, renameRoleWith, rolePointer, updateRole, withField, type NameRef, type RoleAddress } from "./document";

type Props = {
  doc: Playbook;
  address: RoleAddress;
  role: Role;
  edit: (doc: Playbook, key?: string) => void;
  /** Absent where the role stands alone (the template editor). */
  onDelete?: () => void;
  onMove?: (delta: number) => void;
  onSaveAsTemplate?: (name: string) => void;
  /** Roles the handoff picker offers; the playbook's other roles when absent. */
  handoffRoles?: string[];
  /** Where the task goes after this role, in words (from the core's flow); absent while the structure is invalid. */
  route?: { on_pass: string; on_fail: string };
};

const TOOLS = [
  "read_file",
  "search_code",
  "list_files",
  "write_file",
  "edit_file",
  "apply_patch",
  "run_tests",
  "run_command",
  "git_diff",
  "git_commit",
  "git_push",
  "create_worktree",
  "merge_worktree",
];
const INPUTS = ["goal", "task", "spec_path", "commit_sha", "issues", "failed_cases", "tasks"];
const ESCALATIONS = ["retry_limit", "gate_failed", "tool_denied", "missing_input", "approval_denied"];
const AGENTS = ["claude", "codex", "gemini"];
const OUTPUT_FIELDS = ["verdict", "issues", "commit_sha", "summary", "spec_path", "tasks", "failed_cases", "report"];
const MODES: { value: RoleMode | ""; label: string }[] = [
  { value: "", label: "— none (legacy role) —" },
  { value: "planner", label: "planner" },
  { value: "worker", label: "worker" },
  { value: "reviewer", label: "reviewer" },
  { value: "tester", label: "tester" },
];

type Latest = { doc: Playbook; address: RoleAddress; role: Role; edit: (doc: Playbook, key?: string) => void };

/**
 * One callback per field of the role editor, each reading the latest
 * render's document when it runs; made once per editor.
 */
function handlers(latest: { readonly current: Latest }) {
  const set = <K extends keyof Role>(key: K, value: Role[K] | undefined) => {
    const { doc, address, edit } = latest.current;
    edit(updateRole(doc, address, (r) => withField(r, key, value)), `${rolePointer(address)}/${String(key)}`);
  };
  const setNested = <K extends "outputs_contract" | "gates" | "retry_policy">(key: K, field: string, value: unknown) => {
    const { doc, address, edit } = latest.current;
    edit(
      updateRole(doc, address, (r) => {
        const inner = withField({ ...(r[key] ?? {}) } as Record<string, unknown>, field, value === "" ? undefined : value);
        return withField(r, key, (Object.keys(inner).length ? inner : undefined) as Role[K]);
      }),
      `${rolePointer(address)}/${key}/${field}`,
    );
  };
  // The references to the role when its name field gained focus: every
  // keystroke renames the role and rewrites these in one edit (one undo step
  // for the whole rename, never a dangling handoff in between, so a save
  // mid-rename stores a consistent playbook).
  let refsAtFocus: NameRef[] | null = null;
  return {
    nameFocus: () => {
      const { doc, role } = latest.current;
      refsAtFocus = referencesTo(doc, role.name);
    },
    nameBlur: () => {
      refsAtFocus = null;
    },
    name: (v: string) => {
      const { doc, address, role, edit } = latest.current;
      // Only references that still hold the name being typed over: an
      // undo while the field has focus may have moved things.
      const refs = (refsAtFocus ?? referencesTo(doc, role.name)).filter((r) => roleAt(doc, r)?.handoff_to?.[r.at] === role.name);
      edit(renameRoleWith(doc, address, v, refs), `${rolePointer(address)}/name`);
    },
    mode: (v: RoleMode | "") => set("mode", v === "" ? undefined : v),
    responsibilities: (v: string) => set("responsibilities", v),
    allowedAgents: (v: string[] | undefined) => set("allowed_agents", v),
    inputsRequired: (v: string[] | undefined) => set("inputs_required", v),
    actionsAllowed: (v: string[] | undefined) => set("actions_allowed", v),
    suggestedPrompt: (v: string) => set("suggested_prompt", v),
    outputType: (v: string) => setNested("outputs_contract", "type", v),
    outputRequired: (v: string[] | undefined) => setNested("outputs_contract", "required", v),
    requiresApproval: (v: boolean) => setNested("gates", "requires_user_approval", v),
    passCondition: (v: string) => setNested("gates", "pass_condition", v),
    handoffTo: (v: string[] | undefined) => set("handoff_to", v),
    maxIterations: (v: number | undefined) => setNested("retry_policy", "max_iterations", v),
    escalateOn: (v: string[] | undefined) => setNested("retry_policy", "escalate_on", v),
    completionCriteria: (v: string[] | undefined) => set("completion_criteria", v),
  };
}

/** `next`, or the list of the previous render when it holds the same items (a memoised field then skips rendering). */
function useSameList(next: string[]): string[] {
  const previous = useRef(next);
  const same = previous.current.length === next.length && previous.current.every((v, i) => v === next[i]);
  if (!same) previous.current = next;
  return previous.current;
}

export function RoleEditor({ doc, address, role, edit, onDelete, onMove, onSaveAsTemplate, handoffRoles, route }: Props) {
  const p = rolePointer(address);
  // The field callbacks read the document, address and edit function of
  // the latest render when they run, so they are the same objects from one
  // render to the next and a keystroke renders only the field it changed.
  const latest = useRef<Latest>({ doc, address, role, edit });
  latest.current = { doc, address, role, edit };
  const on = useMemo(() => handlers(latest), []);
  const [templateName, setTemplateName] = useState<string | null>(null);
  // Roles that hand off to this one, named when deleting it is asked for.
  const [confirmDelete, setConfirmDelete] = useState<string[] | null>(null);
  const otherRoles = useSameList((handoffRoles ?? allRoleNames(doc)).filter((n) => n !== role.name));

  return (
    <article className="role-editor" data-role={role.name} aria-label={`Role ${role.name}`}>
      <header className="role-header">
        <h2>
          Role <span className="role-name">{role.name || "(unnamed)"}</span>
          {role.mode && <span className={`mode mode-${role.mode}`}>{role.mode}</span>}
        </h2>
        <div className="actions">
          {onMove && (
            <>
              <button type="button" onClick={() => onMove(-1)} disabled={address.index === 0}>
                Move up
              </button>
              <button type="button" onClick={() => onMove(1)}>
                Move down
              </button>
            </>
          )}
          {onSaveAsTemplate &&
            (templateName === null ? (
              <button type="button" onClick={() => setTemplateName(`team-${role.name}`)}>
                Save as template
              </button>
            ) : (
              <span className="inline">
                <input
                  type="text"
                  aria-label="Template name"
                  value={templateName}
                  autoFocus
                  onChange={(e) => setTemplateName(e.target.value.slice(0, 200))}
                  onKeyDown={(e) => {
                    if (e.key === "Enter" && templateName.trim()) {
                      onSaveAsTemplate(templateName.trim());
                      setTemplateName(null);
                    } else if (e.key === "Escape") setTemplateName(null);
                  }}
                />
                <button
                  type="button"
                  disabled={!templateName.trim()}
                  onClick={() => {
                    onSaveAsTemplate(templateName.trim());
                    setTemplateName(null);
                  }}
                >
                  Save template
                </button>
              </span>
            ))}
          {onDelete && (
            <button
              type="button"
              className="danger"
              onClick={() => {
                const referrers = referrersOf(doc, address);
                if (referrers.length === 0) onDelete();
                else setConfirmDelete(referrers);
              }}
            >
              Delete role
            </button>
          )}
        </div>
      </header>
      {onDelete && confirmDelete && (
        <DeleteConfirm
          role={role.name}
          referrers={confirmDelete}
          onConfirm={() => {
            setConfirmDelete(null);
            onDelete();
          }}
          onCancel={() => setConfirmDelete(null)}
        />
      )}
      <Hints pointer={p} nested={false} />

      <fieldset className="section" data-section="intent">
        <legend>Intent</legend>
        <p className="section-help">Who this role is and what it is for.</p>
        <TextField
          label="Name"
          pointer={`${p}/name`}
          value={role.name}
          help="Unique in the playbook; handoffs refer to it."
          onFocus={on.nameFocus}
          onChange={on.name}
          onBlur={on.nameBlur}
        />
        <Select<RoleMode>
          label="Mode"
          pointer={`${p}/mode`}
          value={role.mode ?? ""}
          help="Decides which contract checks apply: a reviewer must return a verdict, a tester failures."
          options={MODES}
          onChange={on.mode}
        />
        <TextField
          label="Responsibilities"
          pointer={`${p}/responsibilities`}
          multiline
          value={role.responsibilities ?? ""}
          help="What the role does, in a sentence or two."
          onChange={on.responsibilities}
        />
        <ChipList
          label="Allowed agents"
          pointer={`${p}/allowed_agents`}
          values={role.allowed_agents}
          suggestions={AGENTS}
          help="Agents that may play this role."
          onChange={on.allowedAgents}
        />
      </fieldset>

      <fieldset className="section" data-section="inputs">
        <legend>Inputs</legend>
        <p className="section-help">What must be present before the role may act; missing inputs are fetched first.</p>
        <ChipList
          label="Inputs required"
          pointer={`${p}/inputs_required`}
          values={role.inputs_required}
          suggestions={INPUTS}
          help="Run inputs (goal, task) or outputs of earlier roles. Reviewers need spec_path and commit_sha."
          onChange={on.inputsRequired}
        />
      </fieldset>

      <fieldset className="section" data-section="execution">
        <legend>Execution</legend>
        <p className="section-help">Which tools the role may call; anything else is denied before it runs.</p>
        <ChipList
          label="Actions allowed"
          pointer={`${p}/actions_allowed`}
          values={role.actions_allowed}
          suggestions={TOOLS}
          help="Tool names. Mutating tools (write_file, git_commit …) need approval."
          onChange={on.actionsAllowed}
        />
        <TextField
          label="Suggested prompt"
          pointer={`${p}/suggested_prompt`}
          multiline
          value={role.suggested_prompt ?? ""}
          help="Advisory text; {placeholders} are filled from the role's inputs."
          onChange={on.suggestedPrompt}
        />
      </fieldset>

      <fieldset className="section" data-section="output">
        <legend>Output</legend>
        <p className="section-help">The structured result the role must hand back.</p>
        <TextField
          label="Output type"
          pointer={`${p}/outputs_contract/type`}
          value={role.outputs_contract?.type ?? ""}
          placeholder="e.g. review_result"
          help="Name of the result, e.g. work_result or review_result."
          onChange={on.outputType}
        />
        <ChipList
          label="Required fields"
          pointer={`${p}/outputs_contract/required`}
          values={role.outputs_contract?.required}
          suggestions={OUTPUT_FIELDS}
          help="Fields the result must contain; gates may only read these."
          onChange={on.outputRequired}
        />
        <Hints pointer={`${p}/outputs_contract`} nested={false} />
      </fieldset>

      <fieldset className="section" data-section="control">
        <legend>Control</legend>
        <p className="section-help">When the work passes, where it goes next, and how many rounds before a human is called.</p>
        <Toggle
          label="Requires user approval"
          pointer={`${p}/gates/requires_user_approval`}
          value={role.gates?.requires_user_approval ?? false}
          help="Ask before any mutating tool runs."
          onChange={on.requiresApproval}
        />
        <GateField
          label="Pass condition"
          pointer={`${p}/gates/pass_condition`}
          value={role.gates?.pass_condition ?? ""}
          placeholder="review_passed  or  verdict == 'pass'"
          help="A policy key or a CEL expression over the output's required fields."
          onChange={on.passCondition}
        />
        <RolePicker
          label="Hand off to"
          pointer={`${p}/handoff_to`}
          values={role.handoff_to}
          roles={otherRoles}
          help="Roles of this stage the task goes to when this role's gate passes; one that already worked on the task is where a failing task is sent back. Not set: the next role of the stage. An empty list: the task leaves the stage here."
          onChange={on.handoffTo}
        />
        {route && (
          <dl className="routing" data-testid="role-routing" aria-label={`Where the task goes after ${role.name || "this role"}`}>
            <dt>On pass</dt>
            <dd data-route="pass">{route.on_pass}</dd>
            <dt>On fail</dt>
            <dd data-route="fail">{route.on_fail}</dd>
          </dl>
        )}
        <NumberField
          label="Max iterations"
          pointer={`${p}/retry_policy/max_iterations`}
          value={role.retry_policy?.max_iterations}
          min={0}
          max={1000}
          placeholder="e.g. 3"
          help="Rounds of the review loop before escalation. A loop without it is unbounded."
          onChange={on.maxIterations}
        />
        <ChipList
          label="Escalate on"
          pointer={`${p}/retry_policy/escalate_on`}
          values={role.retry_policy?.escalate_on}
          suggestions={ESCALATIONS}
          help="Conditions that hand the task to a human, e.g. retry_limit."
          onChange={on.escalateOn}
        />
        <Hints pointer={`${p}/retry_policy`} nested={false} />
        <RowList
          label="Completion criteria"
          pointer={`${p}/completion_criteria`}
          values={role.completion_criteria}
          addLabel="Add criterion"
          help="Statements that say when the work is done."
          onChange={on.completionCriteria}
        />
        <Hints pointer={`${p}/gates`} nested={false} />
      </fieldset>
    </article>
  );
}

/**
 * Asks before deleting a role others hand off to, naming them. Focus starts
 * on Cancel and Escape cancels, so no stray key deletes anything.
 */
function DeleteConfirm({ role, referrers, onConfirm, onCancel }: { role: string; referrers: string[]; onConfirm: () => void; onCancel: () => void }) {
  const names = referrers.map((r) => r || "(unnamed)");
  const shown = names.length > 8 ? `${names.slice(0, 8).join(", ")} and ${names.length - 8} more` : names.join(", ");
  return (
    <div
      className="confirm-delete"
      role="alertdialog"
      aria-label={`Delete role ${role}?`}
      data-testid="confirm-delete-role"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          onCancel();
        }
      }}
    >
      <p>
        {names.length === 1 ? "Role" : "Roles"} <strong>{shown}</strong> {names.length === 1 ? "hands" : "hand"} off to <strong>{role || "(unnamed)"}</strong>. Deleting it also
        removes {names.length === 1 ? "that handoff" : "those handoffs"}; Undo (Ctrl+Z) brings both back.
      </p>
      <button type="button" className="danger" onClick={onConfirm}>
        Delete role and its handoffs
      </button>
      <button type="button" autoFocus onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
