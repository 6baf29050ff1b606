// What the open playbook writes to the library beside its draft: a version
// (Save version…, Ctrl+S) and a role saved as a team template.
import { useCallback } from "react";
import { backend, BackendError, messageOf } from "../backend";
import type { Authored } from "../generated/Authored";
import type { Playbook } from "../generated/Playbook";
import { roleAt, type RoleAddress } from "./document";
import { noteOrDefault } from "./SaveVersionDialog";
import { COMMENTS_LOST, type Current } from "./useAutosave";

type Notify = (message: string, kind?: "info" | "error") => void;

type Options = {
  doc: Playbook | null;
  source: Authored | null;
  current: Current | null;
  setCurrent: (current: Current | null) => void;
  /** Closes the Save version dialog. */
  setSaving: (saving: boolean) => void;
  setRefresh: (update: (r: number) => number) => void;
  /** `useAutosave`'s bookkeeping. */
  autosave: { keptInDraft: () => void; savedAs: (saved: Playbook, id: string, number: number) => void };
  notify: Notify;
  notifyWith: (message: string, action: { label: string; run: () => void }, kind?: "info" | "error") => void;
};

export function useSaving({ doc, source, current, setCurrent, setSaving, setRefresh, autosave, notify, notifyWith }: Options) {
  const { keptInDraft, savedAs } = autosave;

  const saveVersion = useCallback(
    async (note: string) => {
      if (!doc || !current) return;
      setSaving(false);
      try {
        const result = await backend.save(current.id, current.base, doc, noteOrDefault(note), source);
        const saved = result.saved;
        if (result.draft_kept) {
          // Only comments or layout changed: versions record content, so the text stays in the draft.
          keptInDraft();
          notify(`No change to the content since version ${saved.version.number}, so no version was added; your comment and layout changes are kept in the autosaved draft.`);
          return;
        }
        savedAs(doc, current.id, saved.version.number);
        setCurrent({ id: current.id, base: saved.version.number });
        setRefresh((r) => r + 1);
        if (!result.comments_kept) notify(`Saved version ${saved.version.number}. ${COMMENTS_LOST}`, "error");
        else notify(saved.unchanged ? `No change since version ${saved.version.number}.` : `Saved version ${saved.version.number}.`);
      } catch (e) {
        const code = e instanceof BackendError ? (e.details as { code?: string } | undefined)?.code : undefined;
        if (code === "DELETED") {
          // Deleted elsewhere (another window, the CLI): nothing is lost, the edits are still here.
          const id = current.id;
          notifyWith(
            `Not saved: ${id} was deleted from the library. Your edits are still open.`,
            {
              label: "Restore it and save",
              run: () =>
                void backend
                  .undelete(id)
                  .then(() => saveVersion(note))
                  .catch((err) => notify(`Could not restore ${id}: ${messageOf(err)}`, "error")),
            },
            "error",
          );
          return;
        }
        const conflict = e instanceof BackendError && e.code === "conflict";
        notify(`${conflict ? "Not saved: " : "Could not save: "}${messageOf(e)}`, "error");
      }
    },
    [doc, source, current, setSaving, keptInDraft, savedAs, setCurrent, setRefresh, notify, notifyWith],
  );

  const saveRoleAsTemplate = useCallback(
    async (address: RoleAddress, name: string) => {
      const role = doc && roleAt(doc, address);
      if (!role) return;
      try {
        const saved = await backend.saveTemplate(name, role, `saved from ${doc.name}`);
        notify(`Saved template ${saved.name}, version ${saved.version.number}.`);
      } catch (e) {
        notify(`Could not save the template: ${messageOf(e)}`, "error");
      }
    },
    [doc, notify],
  );

  return { saveVersion, saveRoleAsTemplate };
}
