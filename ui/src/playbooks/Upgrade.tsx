// A legacy (agenterm) playbook: a notice that says how it is read, and the
// "Upgrade to 1.0.0" action. The upgrade is shown before it is applied —
// the semantic diff and each choice to confirm — and is one undoable edit.
import { useEffect, useRef, useState } from "react";
import { backend, messageOf } from "../backend";
import type { Migrated } from "../generated/Migrated";
import type { Playbook } from "../generated/Playbook";

type Props = {
  doc: Playbook;
  edit: (doc: Playbook) => void;
  notify: (message: string, kind?: "info" | "error") => void;
};

export function LegacyNotice({ doc, edit, notify }: Props) {
  const [proposal, setProposal] = useState<Migrated | null>(null);
  const [busy, setBusy] = useState(false);
  if (doc.schema_version) return null;
  const propose = async () => {
    setBusy(true);
    try {
      setProposal(await backend.migrateDocument(doc));
    } catch (e) {
      notify(`Cannot upgrade: ${messageOf(e)}`, "error");
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="legacy-notice" role="note" data-testid="legacy-notice">
      <span>
        A legacy (agenterm) playbook: read as agenterm read it — 0 means “not set”, named gates are confirmed by a person, its own
        escalation triggers are kept.
      </span>
      <button type="button" onClick={propose} disabled={busy} data-testid="upgrade">
        Upgrade to 1.0.0…
      </button>
      {proposal && (
        <UpgradeDialog
          proposal={proposal}
          onCancel={() => setProposal(null)}
          onApply={() => {
            edit(proposal.document);
            setProposal(null);
            notify("Upgraded to 1.0.0. Ctrl+Z undoes it; save a version to keep it.");
          }}
        />
      )}
    </div>
  );
}

function UpgradeDialog({ proposal, onCancel, onApply }: { proposal: Migrated; onCancel: () => void; onApply: () => void }) {
  const apply = useRef<HTMLButtonElement>(null);
  // Focus without scrolling: the dialog opens at its title, not its buttons.
  useEffect(() => apply.current?.focus({ preventScroll: true }), []);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      onCancel();
    }
  };
  return (
    <div className="modal-backdrop">
      <div
        className="modal wide"
        role="dialog"
        aria-modal="true"
        aria-labelledby="upgrade-title"
        onKeyDown={onKeyDown}
        data-testid="upgrade-dialog"
      >
        <h2 id="upgrade-title">Upgrade to schema_version 1.0.0</h2>
        <h3>What changes</h3>
        <ul data-testid="upgrade-changes">
          {proposal.changes.map((c, i) => (
            <li key={i}>{c}</li>
          ))}
        </ul>
        {proposal.choices.length > 0 && (
          <>
            <h3>Choices to confirm</h3>
            <ul data-testid="upgrade-choices">
              {proposal.choices.map((c, i) => (
                <li key={i}>
                  <code>{c.path}</code> — {c.message}
                </li>
              ))}
            </ul>
          </>
        )}
        {proposal.errors.length > 0 && (
          <>
            <h3>Still to fix under 1.0.0</h3>
            <p className="muted small">Real mistakes the legacy reading only warned about; they become errors after the upgrade.</p>
            <ul data-testid="upgrade-errors">
              {proposal.errors.map((f, i) => (
                <li key={i}>
                  <code>{f.code}</code> {f.message}
                </li>
              ))}
            </ul>
          </>
        )}
        <div className="modal-actions">
          <button ref={apply} type="button" className="primary" onClick={onApply} data-testid="upgrade-apply">
            Upgrade
          </button>
          <button type="button" onClick={onCancel} data-testid="upgrade-cancel">
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}
