// Where an approval request goes, for previews and real runs alike: denied
// when its screen is not shown (nobody could answer), approved when the
// person chose "approve the rest", else queued for the dialog.
import { backend } from "../backend";
import type { ApprovalPrompt } from "../generated/ApprovalPrompt";

export function routeApproval(
  prompt: ApprovalPrompt,
  state: { shown: boolean; approveRest: boolean },
  ask: (prompt: ApprovalPrompt) => void,
): void {
  if (!state.shown) void backend.answerApproval(prompt.id, false);
  else if (state.approveRest) void backend.answerApproval(prompt.id, true);
  else ask(prompt);
}
