// The one table from the file's field names to the form's labels. Findings
// come from the core in the file's terms (`outputs_contract.required`); the
// form shows them in its own ("Required fields"), so a hint names what the
// author sees on screen. Add a row here when a form field gets a label.

/** Dotted field paths (as the core's messages write them) → form labels. */
export const FIELD_LABELS: Record<string, string> = {
  "outputs_contract.required": "Required fields",
  "outputs_contract.type": "Output type",
  outputs_contract: "Output",
  inputs_required: "Inputs required",
  actions_allowed: "Actions allowed",
  allowed_agents: "Allowed agents",
  handoff_to: "Hand off to",
  "gates.pass_condition": "Pass condition",
  pass_condition: "Pass condition",
  "gates.requires_user_approval": "Requires user approval",
  requires_user_approval: "Requires user approval",
  "retry_policy.max_iterations": "Max iterations",
  max_iterations: "Max iterations",
  "retry_policy.escalate_on": "Escalate on",
  escalate_on: "Escalate on",
  completion_criteria: "Completion criteria",
  suggested_prompt: "Suggested prompt",
  responsibilities: "Responsibilities",
  "stage_policy.enter_gate": "Enter gate",
  enter_gate: "Enter gate",
  "stage_policy.exit_gate": "Exit gate",
  exit_gate: "Exit gate",
  "stage_policy.max_parallel_worktrees": "Max parallel worktrees",
  max_parallel_worktrees: "Max parallel worktrees",
  run_inputs: "Run inputs",
  mutating_actions: "Mutating actions",
};

// Longest first, so `outputs_contract.required` wins over `outputs_contract`.
const KEYS = Object.keys(FIELD_LABELS).sort((a, b) => b.length - a.length);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const PATTERN = new RegExp(`\`(${KEYS.map(escape).join("|")})\`|\\b(${KEYS.map(escape).join("|")})\\b`, "g");

/** A finding's text with the file's field names replaced by the form's labels. */
export function inFormWords(text: string): string {
  return text.replace(PATTERN, (whole, quoted: string | undefined, bare: string | undefined, offset: number, all: string) => {
    const key = quoted ?? bare ?? "";
    // `a.outputs_contract` or `outputs_contract.x` (a longer path the table
    // lacks) is left alone rather than half translated.
    if (bare && (all[offset - 1] === "." || all[offset + whole.length] === ".")) return whole;
    const label = FIELD_LABELS[key];
    return label ? `“${label}”` : whole;
  });
}

/** The form label of the field a pointer ends at, e.g. `/workflow/build/roles/2/gates/pass_condition` → "Pass condition". */
export function labelOfPointer(pointer: string): string | null {
  const tokens = pointer.split("/").slice(1);
  for (let cut = 0; cut < tokens.length; cut++) {
    const label = FIELD_LABELS[tokens.slice(cut).join(".")];
    if (label && cut > 0) return label;
  }
  // A list item (`handoff_to/0`) belongs to its list's field.
  const last = tokens[tokens.length - 1];
  if (last !== undefined && /^\d+$/.test(last)) return labelOfPointer("/" + tokens.slice(0, -1).join("/"));
  return null;
}
