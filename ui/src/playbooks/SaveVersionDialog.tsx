// "Save version…": asks for an optional note that History shows next to
// the version. Enter saves, Escape cancels; an empty note saves with the
// default one.
import { useState } from "react";
import { Modal } from "../Modal";

export const DEFAULT_NOTE = "saved from the editor";
const MAX_NOTE = 500;

type Props = {
  name: string;
  /** The version the edits started from; the save becomes the next one. */
  base: number;
  onSave: (note: string) => void;
  onCancel: () => void;
};

export function SaveVersionDialog({ name, base, onSave, onCancel }: Props) {
  const [note, setNote] = useState("");
  const save = () => onSave(noteOrDefault(note));
  return (
    <Modal title={`Save ${name} as version ${base + 1}`} onCancel={onCancel} testid="save-dialog">
      <label className="field">
        Note (optional): what changed and why
        <input
          type="text"
          data-autofocus
          value={note}
          maxLength={MAX_NOTE}
          placeholder={DEFAULT_NOTE}
          data-testid="save-note"
          onChange={(e) => setNote(e.target.value.slice(0, MAX_NOTE))}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              save();
            }
          }}
        />
      </label>
      <p className="muted small">History lists the note with the version. Ctrl+S saves at once with the default note.</p>
      <div className="modal-actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="primary" onClick={save} data-testid="save-confirm">
          Save version
        </button>
      </div>
    </Modal>
  );
}

/** The note as typed, trimmed; the default when nothing is left. */
export function noteOrDefault(note: string): string {
  const trimmed = note.trim();
  return trimmed === "" ? DEFAULT_NOTE : trimmed;
}
