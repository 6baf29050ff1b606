// The message at the top of the window, with the one action that goes with it.
import type { Dispatch, SetStateAction } from "react";

/** A message at the top; `action` is one button that goes with it (Undo, Restore). */
export type Notice = { message: string; kind: "info" | "error"; action?: { label: string; run: () => void } } | null;

export function NoticeBar({ notice, setNotice }: { notice: Notice; setNotice: Dispatch<SetStateAction<Notice>> }) {
  if (!notice) return null;
  return (
    <div className={`notice notice-${notice.kind}`} role={notice.kind === "error" ? "alert" : "status"} data-testid="notice">
      <span>{notice.message}</span>
      {notice.action && (
        <button
          type="button"
          className="notice-action"
          data-testid="notice-action"
          onClick={() => {
            const run = notice.action?.run;
            setNotice(null);
            run?.();
          }}
        >
          {notice.action.label}
        </button>
      )}
      <button type="button" aria-label="Dismiss" onClick={() => setNotice(null)}>
        ×
      </button>
    </div>
  );
}
