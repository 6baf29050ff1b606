// The scenario as the form edits it: a plain object shaped like
// schemas/scenario.schema.json. The form changes only the fields it shows
// and keeps every other field as it was, so nothing typed in the Source tab
// is lost by a form edit.
import type { Playbook } from "../generated/Playbook";
import type { Unmatched } from "../generated/Unmatched";

export type ScriptedCall = string | { tool: string; args?: unknown };

export type Turn = {
  tool_calls?: ScriptedCall[];
  output?: Record<string, unknown>;
  omit?: string[];
  error?: string;
  needs_input?: string[];
  [field: string]: unknown;
};

export type RoleScript = { default?: Turn; iterations?: Turn[]; [field: string]: unknown };

export type TaskInput = { id?: string; title: string; [field: string]: unknown };

export type Scenario = {
  name?: string;
  description?: string;
  input?: { goal?: string; tasks?: TaskInput[]; [field: string]: unknown };
  roles?: Record<string, RoleScript>;
  [field: string]: unknown;
};

/** A list typed one item per line (or comma), as the form shows it. */
export function splitList(text: string, separator: RegExp = /\n/): string[] {
  return text
    .split(separator)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** `undefined` for an empty value, so the YAML carries no empty fields. */
function orNothing<T>(value: T | undefined): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string" && value.trim() === "") return undefined;
  if (Array.isArray(value) && value.length === 0) return undefined;
  if (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0) return undefined;
  return value;
}

/** An object without its `undefined` fields. */
export function compact<T extends Record<string, unknown>>(object: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(object)) if (orNothing(v) !== undefined) out[k] = v;
  return out as T;
}

/** The turn with one field set (empty values remove it). */
export function setTurn(turn: Turn | undefined, field: string, value: unknown): Turn {
  return compact({ ...(turn ?? {}), [field]: value });
}

/** The turn with one output field set (empty values remove it). */
export function setOutput(turn: Turn | undefined, field: string, value: unknown): Turn {
  const output = compact({ ...(turn?.output ?? {}), [field]: value });
  return setTurn(turn, "output", output);
}

export function toolNames(turn: Turn | undefined): string {
  return (turn?.tool_calls ?? []).map((c) => (typeof c === "string" ? c : c.tool)).join(", ");
}

/**
 * Tool calls from the comma-separated names typed in the form; a call with
 * arguments (written in the Source tab) keeps them while its name stays.
 */
export function parseToolCalls(text: string, previous: ScriptedCall[] | undefined): ScriptedCall[] {
  const old = previous ?? [];
  return splitList(text, /,/).map((name, i) => {
    const before = old[i];
    return typeof before === "object" && before.tool === name ? before : name;
  });
}

/**
 * Renames a script's key in place, keeping the order of the scripts. Refused
 * (null) when another script already has that key: two scripts under one key
 * would lose one of them.
 */
export function renameKey(roles: Record<string, RoleScript>, from: string, to: string): Record<string, RoleScript> | null {
  if (from === to) return roles;
  if (Object.prototype.hasOwnProperty.call(roles, to)) return null;
  const out: Record<string, RoleScript> = {};
  for (const [k, v] of Object.entries(roles)) out[k === from ? to : k] = v;
  return out;
}

/** A key not yet used by a script, for a new one: the first free mode selector, else `role`, `role 2`... */
export function freshKey(roles: Record<string, RoleScript>, preferred: string[]): string {
  for (const key of preferred) if (!(key in roles)) return key;
  for (let i = 1; ; i++) {
    const key = i === 1 ? "role" : `role ${i}`;
    if (!(key in roles)) return key;
  }
}

/** What a `roles` key may be for this playbook: its role names, modes, and stage positions, for the selector field's suggestions. */
export function selectorSuggestions(doc: Playbook | null, limit = 200): string[] {
  const out: string[] = [];
  const modes = new Set<string>();
  for (const [stage, def] of Object.entries(doc?.workflow ?? {})) {
    (def?.roles ?? []).forEach((role, i) => {
      out.push(role.name);
      out.push(`stage:${stage}#${i + 1}`);
      if (role.mode) modes.add(role.mode);
    });
    out.push(`stage:${stage}`);
  }
  for (const mode of modes) out.unshift(`mode:${mode}`, `mode:${mode}#1`);
  return [...new Set(out)].slice(0, limit);
}

/** The playbook's role names, in order. */
export function roleNames(doc: Playbook | null): string[] {
  return Object.values(doc?.workflow ?? {}).flatMap((stage) => (stage?.roles ?? []).map((r) => r.name));
}

/** The mapping step's first answers: each unmatched key's best candidate, or nothing. */
export function initialChoices(unmatched: Unmatched[]): Record<string, string> {
  return Object.fromEntries(unmatched.map((u) => [u.selector, u.candidates[0] ?? ""]));
}
