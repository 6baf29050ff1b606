// What changed between two revisions of the document, as one JSON pointer
// and its new value: what a keystroke check sends instead of the whole
// document. Edits replace only the objects on the path to the edited field
// (structural sharing), so unchanged parts compare equal by reference and
// the walk visits only the path that changed.
import { escapePointer } from "./document";

/** The value at `pointer` became `value` (`undefined`: it was removed). */
export type Change = { pointer: string; value: unknown };

function isContainer(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

/**
 * One change that turns `before` into `after`: the lowest value that holds
 * every difference. `null` when they are the same; the pointer is `""`
 * (the whole document) when the difference is at the top.
 */
export function singleChange(before: unknown, after: unknown, pointer = ""): Change | null {
  if (before === after) return null;
  const whole = { pointer, value: after };
  if (!isContainer(before) || !isContainer(after) || Array.isArray(before) !== Array.isArray(after)) return whole;
  // A list that grew or shrank is sent whole: indices after the change moved.
  if (Array.isArray(before) && Array.isArray(after) && before.length !== after.length) return whole;
  let found: Change | null = null;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const inner = singleChange(before[key], (after as Record<string, unknown>)[key], `${pointer}/${escapePointer(key)}`);
    if (inner === null) continue;
    // Two differences under this value: send the value itself.
    if (found !== null) return whole;
    found = inner;
  }
  return found;
}
