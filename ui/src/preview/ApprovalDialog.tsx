// The dialog of an approval request: the run waits until the user approves
// or denies. Enter approves; Escape answers nothing (a denial is never made
// by a stray key): it moves focus to Deny and says how to answer. Focus
// stays in the dialog.
import { useEffect, useRef, useState } from "react";
import type { ApprovalPrompt } from "../generated/ApprovalPrompt";

type Props = {
  prompt: ApprovalPrompt;
  /** Requests queued behind this one. */
  waiting: number;
  onAnswer: (approved: boolean) => void;
  onApproveRest: () => void;
};

export function ApprovalDialog({ prompt, waiting, onAnswer, onApproveRest }: Props) {
  const approve = useRef<HTMLButtonElement>(null);
  const deny = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const [escaped, setEscaped] = useState(false);
  useEffect(() => {
    setEscaped(false);
    approve.current?.focus();
  }, [prompt.id]);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      setEscaped(true);
      deny.current?.focus();
    } else if (e.key === "Tab") {
      // Keep focus inside the dialog while it is open.
      const buttons = [...(box.current?.querySelectorAll("button") ?? [])];
      const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
      const next = (at + (e.shiftKey ? -1 : 1) + buttons.length) % buttons.length;
      e.preventDefault();
      buttons[next]?.focus();
    }
  };

  const what =
    prompt.subject.kind === "tool" ? (
      <>
        run the mutating tool <code>{prompt.subject.tool}</code>
      </>
    ) : (
      <>
        pass the gate <q>{prompt.subject.gate}</q>
      </>
    );
  return (
    <div className="modal-backdrop">
      <div
        ref={box}
        className="modal"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="approval-title"
        aria-describedby="approval-text"
        onKeyDown={onKeyDown}
        data-testid="approval-dialog"
        data-approval-id={prompt.id}
      >
        <h2 id="approval-title">Approval needed</h2>
        <p id="approval-text">
          {prompt.role ? (
            <>
              <strong>{prompt.role}</strong> ({prompt.stage}, task {prompt.task_id}) wants to {what}.
            </>
          ) : (
            <>
              Task {prompt.task_id} in stage <strong>{prompt.stage}</strong> needs you to {what}.
            </>
          )}
        </p>
        <p className="muted small">
          The role's contract sets <code>requires_user_approval</code> or a manual gate, so the run waits for you.
          {waiting > 0 && ` ${waiting} more request${waiting === 1 ? "" : "s"} waiting.`}
        </p>
        {escaped && (
          <p className="small" role="status" data-testid="approval-escape">
            Escape does not answer: choose Approve or Deny (Enter on the focused button). The run waits for you.
          </p>
        )}
        <div className="modal-actions">
          <button ref={approve} type="button" className="primary" onClick={() => onAnswer(true)} data-testid="approve">
            Approve
          </button>
          <button ref={deny} type="button" onClick={() => onAnswer(false)} data-testid="deny">
            Deny
          </button>
          <button type="button" className="link" onClick={onApproveRest} data-testid="approve-rest">
            Approve the rest of this run
          </button>
        </div>
      </div>
    </div>
  );
}
