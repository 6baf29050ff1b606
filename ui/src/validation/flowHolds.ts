// Whether the flow graph computed for one revision still describes the
// next. While a role's form is open the graph is asked for with every check
// (it says where the task goes after the role); typing in a text field that
// no part of the graph shows need not rebuild, send and compare it again.
import { singleChange } from "../playbooks/change";
import type { Playbook } from "../generated/Playbook";

// Role fields the graph never reads: not its nodes (name, mode, max
// iterations, reachability), edges, loops or routes (names, handoffs,
// retry policy, gates, stages).
const ROLE_TEXT = new Set(["responsibilities", "suggested_prompt", "completion_criteria", "allowed_agents", "actions_allowed", "inputs_required"]);

/**
 * True when `after` differs from `before` (the revision the graph was made
 * for) only inside one role field the graph does not show, or in the
 * playbook's description. Any other difference, several differences, or a
 * change of structure: false, and the graph is asked for again.
 */
export function flowHolds(before: Playbook, after: Playbook): boolean {
  const change = singleChange(before, after);
  if (change === null) return true;
  const t = change.pointer.split("/");
  // ["", "workflow", stage, "roles", index, field, ...]
  // singleChange reports a list that grew or shrank whole, so a change
  // inside a role's field means no role appeared, vanished or moved.
  const roleText = t.length >= 6 && t[1] === "workflow" && t[3] === "roles" && /^\d+$/.test(t[4]) && ROLE_TEXT.has(t[5]);
  return roleText || change.pointer === "/description";
}
