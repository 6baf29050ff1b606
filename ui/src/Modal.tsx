// A modal dialog: focus starts on the element the caller marks (the safe
// choice, e.g. Cancel), stays inside while the dialog is open, Escape
// cancels, and focus returns to where it was when the dialog closes.
import { useEffect, useRef, type ReactNode } from "react";

type Props = {
  title: string;
  /** Called for Escape; the dialog cancels, never confirms, on a stray key. */
  onCancel: () => void;
  children: ReactNode;
  testid?: string;
};

const FOCUSABLE = "button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled])";

export function Modal({ title, onCancel, children, testid }: Props) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const first = box.current?.querySelector<HTMLElement>("[data-autofocus]") ?? box.current?.querySelector<HTMLElement>(FOCUSABLE);
    first?.focus();
    return () => {
      // The opener may be gone (its row was deleted); then focus stays where it lands.
      if (opener && opener.isConnected) opener.focus();
    };
  }, []);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    } else if (e.key === "Tab") {
      const items = [...(box.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])];
      if (items.length === 0) return;
      const at = items.indexOf(document.activeElement as HTMLElement);
      const next = (at + (e.shiftKey ? -1 : 1) + items.length) % items.length;
      e.preventDefault();
      items[next]?.focus();
    }
  };

  return (
    <div className="modal-backdrop">
      <div ref={box} className="modal" role="alertdialog" aria-modal="true" aria-label={title} onKeyDown={onKeyDown} data-testid={testid}>
        <h2>{title}</h2>
        {children}
      </div>
    </div>
  );
}

type ConfirmProps = {
  title: string;
  /** What the action does, in words: what goes and how to get it back. */
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  testid?: string;
};

/** A yes/no question whose focus starts on Cancel, so Enter right after opening changes nothing. */
export function ConfirmDialog({ title, children, confirmLabel, onConfirm, onCancel, testid }: ConfirmProps) {
  return (
    <Modal title={title} onCancel={onCancel} testid={testid}>
      {children}
      <div className="modal-actions">
        <button type="button" data-autofocus onClick={onCancel} data-testid="confirm-cancel">
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} data-testid="confirm-ok">
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
