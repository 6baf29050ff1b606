import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { backend } from "../backend";
import type { Authored } from "../generated/Authored";
import type { Checked } from "../generated/Checked";
import type { DraftSaved } from "../generated/DraftSaved";
import type { Opened } from "../generated/Opened";
import type { Playbook } from "../generated/Playbook";
import { renderHook } from "../testing/renderHook";
import { AUTOSAVE_DELAY_MS, COMMENTS_LOST, useAutosave, type Current } from "./useAutosave";

const doc = (name: string): Playbook => ({ id: "p", name, workflow: {} }) as Playbook;
const yaml = (text: string): Authored => ({ text, format: "yaml" });
const current: Current = { id: "p", base: 1 };
const opened = (document: Playbook, more: Partial<Opened> = {}): Opened => ({ summary: { name: "P" }, base: 1, document, ...more }) as Opened;
const parseError = { findings: [{ code: "PB001", severity: "error", path: "", message: "bad", hint: "", location: { line: 1, column: 3 } }], allow: false, structurally_valid: false } as unknown as Checked;

type Props = { doc: Playbook | null; source: Authored | null; revision: number; current: Current | null };

/** The hook with a playbook opened on `first`, as `useOpening` opens one: loaded and told in one render. */
async function openedOn(first: Playbook, more: Partial<Opened> = {}) {
  const notify = vi.fn();
  const hook = await renderHook((p: Props) => useAutosave({ ...p, notify }), { doc: null, source: null, revision: 0, current: null });
  await hook.rerender({ doc: first, source: null, revision: 1, current }, () => hook.result.current.opened(first, opened(first, more)));
  let revision = 1;
  /** An edit to `next`, rendered as `useDocument` would. */
  const editTo = (next: Playbook, at: Current = current) => hook.rerender({ doc: next, source: null, revision: ++revision, current: at });
  return { hook, notify, editTo };
}

/** Lets the timers run `ms` and the backend's answers settle. */
async function wait(hook: { run: (f: () => void | Promise<void>) => Promise<void> }, ms: number) {
  await hook.run(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

describe("useAutosave", () => {
  let saveDraft: ReturnType<typeof vi.fn>;
  let saveDraftText: ReturnType<typeof vi.fn>;
  let discardDraft: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    saveDraft = vi.fn().mockResolvedValue({ comments_kept: true } as DraftSaved);
    saveDraftText = vi.fn().mockResolvedValue({ comments_kept: true } as DraftSaved);
    discardDraft = vi.fn().mockResolvedValue(true);
    vi.spyOn(backend, "saveDraft").mockImplementation(saveDraft);
    vi.spyOn(backend, "saveDraftText").mockImplementation(saveDraftText);
    vi.spyOn(backend, "discardDraft").mockImplementation(discardDraft);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it("does not autosave what was opened, and says which version it is", async () => {
    const a = doc("a");
    const { hook } = await openedOn(a);
    await wait(hook, AUTOSAVE_DELAY_MS * 4);
    expect(saveDraft).not.toHaveBeenCalled();
    expect(hook.result.current.status).toEqual({ kind: "version", number: 1 });
  });

  it("writes one draft, of the last edit, once the typing pauses for the delay", async () => {
    const { hook, editTo } = await openedOn(doc("a"));
    await editTo(doc("ab"));
    expect(hook.result.current.status).toEqual({ kind: "pending" });
    await wait(hook, AUTOSAVE_DELAY_MS - 1);
    const abc = doc("abc");
    await editTo(abc);
    await wait(hook, AUTOSAVE_DELAY_MS - 1);
    expect(saveDraft).not.toHaveBeenCalled();
    await wait(hook, 1);
    expect(saveDraft).toHaveBeenCalledTimes(1);
    expect(saveDraft).toHaveBeenCalledWith("p", abc, 1, null);
    expect(hook.result.current.status).toEqual({ kind: "draft" });
  });

  it("discards the draft when the edits are undone back to the version", async () => {
    const a = doc("a");
    const { hook, editTo } = await openedOn(a);
    await editTo(doc("ab"));
    await wait(hook, AUTOSAVE_DELAY_MS);
    await editTo(a);
    expect(discardDraft).toHaveBeenCalledWith("p");
    expect(hook.result.current.status).toEqual({ kind: "version", number: 1 });
    await wait(hook, AUTOSAVE_DELAY_MS * 4);
    expect(saveDraft).toHaveBeenCalledTimes(1);
  });

  it("says once per playbook opened that a draft could not keep the comments", async () => {
    saveDraft.mockResolvedValue({ comments_kept: false } as DraftSaved);
    const { hook, notify, editTo } = await openedOn(doc("a"));
    await editTo(doc("ab"));
    await wait(hook, AUTOSAVE_DELAY_MS);
    await editTo(doc("abc"));
    await wait(hook, AUTOSAVE_DELAY_MS);
    expect(saveDraft).toHaveBeenCalledTimes(2);
    expect(notify.mock.calls).toEqual([[COMMENTS_LOST, "error"]]);
  });

  it("does not follow a save with a draft of the same document, and drops the draft written before it", async () => {
    const { hook, editTo } = await openedOn(doc("a"));
    const ab = doc("ab");
    await editTo(ab);
    await wait(hook, AUTOSAVE_DELAY_MS);
    // As `useSaving` does after `library_save`: told first, then `current` moves to the new version.
    const next = { id: "p", base: 2 };
    await hook.rerender({ doc: ab, source: null, revision: 3, current: next }, () => hook.result.current.savedAs(ab, "p", 2));
    expect(discardDraft).toHaveBeenCalledTimes(1);
    await wait(hook, AUTOSAVE_DELAY_MS * 4);
    expect(saveDraft).toHaveBeenCalledTimes(1);
    expect(hook.result.current.status).toEqual({ kind: "version", number: 2 });
  });

  it("autosaves Source text that is not a playbook as typed, and keeps its check for the Problems panel", async () => {
    const a = doc("a");
    const { hook } = await openedOn(a);
    const typed = yaml("id: p\nworkflow: [plan");
    await hook.run(() => hook.result.current.keepBroken(typed, parseError));
    expect(hook.result.current.brokenHere?.typed).toBe(typed);
    expect(hook.result.current.brokenChecked).toBe(parseError);
    expect(hook.result.current.status).toEqual({ kind: "pending" });
    await wait(hook, AUTOSAVE_DELAY_MS);
    expect(saveDraftText).toHaveBeenCalledWith("p", typed.text, "yaml", 1);
    expect(saveDraft).not.toHaveBeenCalled();
    expect(hook.result.current.status).toEqual({ kind: "draft" });
  });

  it("holds a draft that does not parse as opened, without writing it again, and takes its check when the Source tab makes it", async () => {
    const a = doc("a");
    const typed = yaml("workflow: [plan");
    const { hook } = await openedOn(a, { broken_draft: typed });
    expect(hook.result.current.brokenHere?.typed).toBe(typed);
    expect(hook.result.current.brokenChecked).toBeNull();
    expect(hook.result.current.status).toEqual({ kind: "draft" });
    await hook.run(() => hook.result.current.heldChecked(typed, parseError));
    expect(hook.result.current.brokenChecked).toBe(parseError);
    await wait(hook, AUTOSAVE_DELAY_MS * 4);
    expect(saveDraftText).not.toHaveBeenCalled();
  });

  it("lets the typed text go once the document changes under it", async () => {
    const { hook, editTo } = await openedOn(doc("a"));
    await hook.run(() => hook.result.current.keepBroken(yaml("x: ["), parseError));
    await editTo(doc("b"));
    expect(hook.result.current.brokenHere).toBeNull();
    expect(hook.result.current.brokenChecked).toBeNull();
  });
});
