// What the Preview screen remembers per playbook when you leave it and come
// back, also across a restart: the scenario, the seed, the approval mode
// and the recorded run that was shown. Kept in local storage: it is a
// preference of this window, not part of the playbook.
import type { ApprovalMode } from "../generated/ApprovalMode";

export type PreviewMemory = {
  scenario?: string;
  seed?: string;
  approvals?: ApprovalMode;
  /** The library's record of the run last shown or finished. */
  shownRun?: number;
};

const PREFIX = "playbook-studio.preview.";

/** The part of `Storage` used; tests pass their own. */
export type KeyValue = Pick<Storage, "getItem" | "setItem">;
const MODES: readonly string[] = ["ask", "scenario", "approve", "deny"];

/** The remembered settings under `key`; anything unreadable is dropped, never thrown. */
export function loadPreviewMemory(key: string, storage: KeyValue = localStorage): PreviewMemory {
  try {
    const raw: unknown = JSON.parse(storage.getItem(PREFIX + key) ?? "{}");
    if (typeof raw !== "object" || raw === null) return {};
    const r = raw as Record<string, unknown>;
    const memory: PreviewMemory = {};
    if (typeof r.scenario === "string" && r.scenario.length <= 200) memory.scenario = r.scenario;
    if (typeof r.seed === "string" && /^\d{1,15}$/.test(r.seed)) memory.seed = r.seed;
    if (typeof r.approvals === "string" && MODES.includes(r.approvals)) memory.approvals = r.approvals as ApprovalMode;
    if (typeof r.shownRun === "number" && Number.isSafeInteger(r.shownRun)) memory.shownRun = r.shownRun;
    return memory;
  } catch {
    return {};
  }
}

/** Merges `change` into what is remembered under `key`. */
export function savePreviewMemory(key: string, change: PreviewMemory, storage: KeyValue = localStorage): void {
  try {
    storage.setItem(PREFIX + key, JSON.stringify({ ...loadPreviewMemory(key, storage), ...change }));
  } catch {
    // Storage full or unavailable: the preview works, it only forgets.
  }
}
