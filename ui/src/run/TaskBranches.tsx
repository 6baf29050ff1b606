// The tasks of a finished real run: each with its state, the branch its
// work is on (kept for you to merge) and, on demand, that branch's diff
// against the commit the run started from.
import { useState } from "react";
import { backend, messageOf } from "../backend";
import type { BranchDiff } from "../generated/BranchDiff";
import type { RealRunResult } from "../generated/RealRunResult";

export function TaskBranches({ result }: { result: RealRunResult }) {
  const [shown, setShown] = useState<{ task: string; diff: BranchDiff } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const showDiff = async (task: string) => {
    if (shown?.task === task) return setShown(null);
    try {
      setShown({ task, diff: await backend.branchDiff(result.id, task) });
      setError(null);
    } catch (e) {
      setError(`Could not show the diff of ${task}: ${messageOf(e)}`);
    }
  };

  return (
    <div className="run-tasks" data-testid="run-tasks">
      <h2>Tasks</h2>
      {result.tasks.length === 0 ? (
        <p className="muted">The run made no task.</p>
      ) : (
        <table className="runs-table">
          <thead>
            <tr>
              <th>Task</th>
              <th>State</th>
              <th>Branch</th>
              <th>Commits</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {result.tasks.map((t) => (
              <tr key={t.task_id} data-task={t.task_id} data-state={t.state}>
                <td>
                  {t.task_id} <span className="muted">{t.title}</span>
                </td>
                <td>
                  <span className={`badge ${t.state === "done" ? "badge-ok" : "badge-error"}`}>{t.state}</span>
                  {t.reason && <span className="muted small"> {t.reason}</span>}
                </td>
                <td data-testid="task-branch">{t.branch ? <code>{t.branch}</code> : <span className="muted">none</span>}</td>
                <td>{t.commits}</td>
                <td>
                  {t.branch && (
                    <button type="button" className="link" onClick={() => void showDiff(t.task_id)} data-show-diff={t.task_id}>
                      {shown?.task === t.task_id ? "Hide diff" : "Show diff"}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="muted small">
        Branches start at <code>{result.base_commit.slice(0, 12)}</code>. Merge the ones you want; nothing is pushed or merged
        for you.
      </p>
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
      {shown && (
        <div className="run-pane" data-testid="diff-view">
          <h3>
            <code>{shown.diff.branch}</code>
          </h3>
          <ul data-testid="diff-commits">
            {shown.diff.commits.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
          <pre data-testid="diff">{shown.diff.diff || "No change against the base commit."}</pre>
          {shown.diff.truncated && <p className="muted small">The diff is longer than the window shows; see it with git.</p>}
        </div>
      )}
    </div>
  );
}
