// Immutable edits of a playbook document. The form never mutates the
// document in place: every edit yields a new object, which is what undo/redo
// stores and what the backend validates.
import type { Playbook } from "../generated/Playbook";
import type { Role } from "../generated/Role";
import type { Stage } from "../generated/Stage";

export type RoleAddress = { stage: string; index: number };

export function escapePointer(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function pointerTokens(pointer: string): string[] {
  return pointer
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

export function stagePointer(stage: string): string {
  return `/workflow/${escapePointer(stage)}`;
}

export function rolePointer(a: RoleAddress): string {
  return `${stagePointer(a.stage)}/roles/${a.index}`;
}

/** The role a finding's path points into, if any. */
export function roleOfPointer(pointer: string): RoleAddress | null {
  const t = pointerTokens(pointer);
  if (t[0] !== "workflow" || t.length < 4 || t[2] !== "roles") return null;
  const index = Number(t[3]);
  return Number.isInteger(index) ? { stage: t[1], index } : null;
}

/** The stage a finding's path points into, if any. */
export function stageOfPointer(pointer: string): string | null {
  const t = pointerTokens(pointer);
  return t[0] === "workflow" && t.length >= 2 ? t[1] : null;
}

export function stages(doc: Playbook): [string, Stage][] {
  return Object.entries(doc.workflow ?? {}).filter((e): e is [string, Stage] => e[1] !== undefined);
}

export function rolesOf(doc: Playbook, stage: string): Role[] {
  return doc.workflow?.[stage]?.roles ?? [];
}

export function roleAt(doc: Playbook, a: RoleAddress): Role | undefined {
  return rolesOf(doc, a.stage)[a.index];
}

export function allRoleNames(doc: Playbook): string[] {
  return stages(doc).flatMap(([, s]) => (s.roles ?? []).map((r) => r.name));
}

export function updateStage(doc: Playbook, stage: string, f: (s: Stage) => Stage): Playbook {
  const current = doc.workflow?.[stage];
  if (!current) return doc;
  return { ...doc, workflow: { ...doc.workflow, [stage]: f(current) } };
}

export function updateRole(doc: Playbook, a: RoleAddress, f: (r: Role) => Role): Playbook {
  return updateStage(doc, a.stage, (s) => {
    const roles = [...(s.roles ?? [])];
    if (!roles[a.index]) return s;
    roles[a.index] = f(roles[a.index]);
    return { ...s, roles };
  });
}

/** A name not used by any role yet: `base`, `base-2`, `base-3` ... */
export function freshRoleName(doc: Playbook, base: string): string {
  const taken = new Set(allRoleNames(doc));
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

export function insertRole(doc: Playbook, stage: string, role: Role): { doc: Playbook; address: RoleAddress } {
  const named = { ...role, name: freshRoleName(doc, role.name || "role") };
  let index = 0;
  const next = updateStage(doc, stage, (s) => {
    const roles = [...(s.roles ?? []), named];
    index = roles.length - 1;
    return { ...s, roles };
  });
  return { doc: next, address: { stage, index } };
}

export function removeRole(doc: Playbook, a: RoleAddress): Playbook {
  return updateStage(doc, a.stage, (s) => ({ ...s, roles: (s.roles ?? []).filter((_, i) => i !== a.index) }));
}

export function moveRole(doc: Playbook, a: RoleAddress, delta: number): Playbook {
  return updateStage(doc, a.stage, (s) => {
    const roles = [...(s.roles ?? [])];
    const to = a.index + delta;
    if (to < 0 || to >= roles.length) return s;
    [roles[a.index], roles[to]] = [roles[to], roles[a.index]];
    return { ...s, roles };
  });
}

/** One place a role's name is referred to: `handoff_to[at]` of a role. */
export type NameRef = { stage: string; index: number; at: number };

/**
 * Every reference to the role named `name`, or none when the name is empty
 * or shared by several roles (a reference to it is then ambiguous, and a
 * rename must not pick one for the author).
 */
export function referencesTo(doc: Playbook, name: string): NameRef[] {
  if (name === "" || allRoleNames(doc).filter((n) => n === name).length !== 1) return [];
  const refs: NameRef[] = [];
  for (const [stage, s] of stages(doc))
    (s.roles ?? []).forEach((r, index) =>
      (r.handoff_to ?? []).forEach((h, at) => {
        if (h === name) refs.push({ stage, index, at });
      }),
    );
  return refs;
}

/**
 * Renames the role at `a` and rewrites the given references in the same
 * edit, so no intermediate document has a dangling handoff. References are
 * addressed by position, not by name: while the author types, the name may
 * pass through another role's name or the empty string without the
 * references being lost or captured by that other role.
 */
export function renameRoleWith(doc: Playbook, a: RoleAddress, name: string, refs: NameRef[]): Playbook {
  let next = updateRole(doc, a, (r) => ({ ...r, name }));
  for (const ref of refs)
    next = updateRole(next, { stage: ref.stage, index: ref.index }, (r) => {
      if (!r.handoff_to || ref.at >= r.handoff_to.length) return r;
      const handoff_to = [...r.handoff_to];
      handoff_to[ref.at] = name;
      return { ...r, handoff_to };
    });
  return next;
}

/** Renames a role and every handoff that names it, so no handoff dangles. */
export function renameRole(doc: Playbook, a: RoleAddress, name: string): Playbook {
  const old = roleAt(doc, a)?.name;
  return renameRoleWith(doc, a, name, old === undefined ? [] : referencesTo(doc, old));
}

/** The roles whose handoffs name the role at `a` (itself excluded). */
export function referrersOf(doc: Playbook, a: RoleAddress): string[] {
  const name = roleAt(doc, a)?.name;
  if (name === undefined) return [];
  const names = referencesTo(doc, name)
    .filter((r) => !(r.stage === a.stage && r.index === a.index))
    .map((r) => roleAt(doc, r)?.name ?? "");
  return [...new Set(names)];
}

/**
 * Removes the role at `a` and every handoff that named it, in one edit, so
 * deleting a role leaves no handoff to a role that no longer exists.
 */
export function removeRoleAndReferences(doc: Playbook, a: RoleAddress): Playbook {
  const name = roleAt(doc, a)?.name;
  const refs = name === undefined ? [] : referencesTo(doc, name);
  let next = doc;
  for (const ref of refs)
    next = updateRole(next, { stage: ref.stage, index: ref.index }, (r) => ({
      ...r,
      handoff_to: (r.handoff_to ?? []).filter((h) => h !== name),
    }));
  return removeRole(next, a);
}

export function addStage(doc: Playbook, name: string): Playbook {
  return { ...doc, workflow: { ...doc.workflow, [name]: { enabled: true, roles: [] } } };
}

export function removeStage(doc: Playbook, name: string): Playbook {
  const workflow = { ...doc.workflow };
  delete workflow[name];
  return { ...doc, workflow };
}

/** Renames a stage in place, keeping the order of stages. */
export function renameStage(doc: Playbook, from: string, to: string): Playbook {
  const workflow: Playbook["workflow"] = {};
  for (const [name, s] of stages(doc)) workflow[name === from ? to : name] = s;
  return { ...doc, workflow };
}

/** Drops a key whose value became empty, so the file does not fill with `foo: null`. */
export function withField<T extends object, K extends keyof T>(obj: T, key: K, value: T[K] | undefined): T {
  const next = { ...obj };
  if (value === undefined || value === "") delete next[key];
  else next[key] = value;
  return next;
}

export function blankPlaybook(id: string, name: string): Playbook {
  return {
    schema_version: "1.0.0",
    id,
    name,
    description: "",
    workflow: { plan: { enabled: true, roles: [] }, build: { enabled: true, roles: [] }, test: { enabled: true, roles: [] } },
  };
}
