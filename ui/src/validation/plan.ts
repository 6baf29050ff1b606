// What the check of a document asks the backend for, from the view in front
// of the user. Used twice per keystroke: by the edit's event, which sends the
// check before React renders the edit, and by the effect after the render,
// which takes that check up only when it planned the same request.
import type { Include } from "../generated/Include";
import type { Playbook } from "../generated/Playbook";
import { flowHolds } from "./flowHolds";

export type CheckView = { screen: string; tab: "form" | "flow" | "source"; selectionKind: "playbook" | "stage" | "role" };
export type CheckPlan = {
  /** The graph shown (made for `flowDoc`) still describes the document: it is kept and not asked for. */
  keepFlow: boolean;
  include: Include;
  /** Equal for equal plans: a check sent early is used only for the same plan. */
  key: string;
};

/** `flowDoc`: the document the flow graph shown was made for, if any. */
export function planCheck(doc: Playbook, view: CheckView, flowDoc: Playbook | null): CheckPlan {
  // The flow also comes while a role's form is open: it says where the
  // task goes after the role on pass and on fail. An edit of text the graph
  // does not show keeps it, and the check skips rebuilding it.
  const keepFlow = view.tab === "form" && flowDoc !== null && flowHolds(flowDoc, doc);
  const editor = view.screen === "editor";
  const flow = editor && (view.tab === "flow" || (view.tab === "form" && view.selectionKind === "role" && !keepFlow));
  const include: Include = { source: editor && view.tab === "source", flow };
  return { keepFlow, include, key: `${include.source}/${include.flow}/${keepFlow}` };
}
